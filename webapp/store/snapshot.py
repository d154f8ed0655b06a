"""The state of the machine at one cycle, reconstructed from the recording (never by re-simulating):
every warp slot of one SM (state, PC, PTX instruction, CTA, since when, until when) and the sampled
memory requests in flight with the level each has reached, plus the queue depths of that interval."""
from __future__ import annotations

import numpy as np

from .layout import CARRY_DT

MAX_REQUESTS = 256
_LEVEL_COLS = ["t_issue", "t_l1", "t_icnt", "t_l2", "t_dram", "t_return"]


def warps_at(reader, sm: int, cycle: int) -> dict:
    """Per slot of `sm` at `cycle`: state, pc, cta, active (the lanes that run pc), since (start of the run),
    until (its end, -1 unknown)."""
    slots = reader.slots
    rows = reader.chunks("ws", 0, sm, cycle, cycle + 1)
    if not rows:
        raise LookupError(f"no warp-state recording of SM {sm} at cycle {cycle}")
    lo, hi, n, data, extra = rows[0]
    ws = reader.decode("ws", n, data)
    carry = np.frombuffer(extra, CARRY_DT)
    state, pc, cta = carry["state"].astype(np.int64), carry["pc"].astype(np.int64), carry["cta"].astype(np.int64)
    since, active = carry["since"].astype(np.int64), carry["active"].copy()
    past = ws[ws["cycle"] <= cycle]                      # rows are sorted by (slot, cycle)
    if len(past):
        last = np.r_[past["slot"][1:] != past["slot"][:-1], True]
        s = past["slot"][last].astype(np.int64)
        state[s], pc[s], cta[s], since[s] = past["state"][last], past["pc"][last], past["cta"][last], past["cycle"][last]
        active[s] = past["active"][last]
    until = np.full(slots, -1, np.int64)
    fut = ws[ws["cycle"] > cycle]
    if len(fut):
        first = np.r_[True, fut["slot"][1:] != fut["slot"][:-1]]
        until[fut["slot"][first].astype(np.int64)] = fut["cycle"][first]
    return {"sm": sm, "cycle": cycle, "state": state.astype(np.uint8), "pc": pc.astype(np.uint32),
            "cta": cta.astype(np.uint32), "active": active.astype(np.uint32), "since": since, "until": until}


def instruction_text(reader, pcs: np.ndarray, kernel: int = 0) -> list[str]:
    kernels = reader.rec.get("kernels") or []
    text = kernels[kernel].get("pc_text", []) if kernel < len(kernels) else []
    return [text[p] if 0 <= p < len(text) else "" for p in pcs.tolist()]


def requests_at(reader, cycle: int, sm: int | None = None) -> dict:
    """Sampled memory requests in flight at `cycle` (issued, not yet returned): the level each has
    reached (the last level whose timestamp is <= cycle), at most MAX_REQUESTS, oldest first."""
    parts = [reader.decode("raw:mem_samples", n, d)
             for _lo, _hi, n, d, _x in reader.chunks("raw:mem_samples", 0, 0, cycle, cycle + 1)]
    req = np.concatenate(parts) if parts else np.zeros(0, dtype=reader.raw("mem_samples").dtype)
    live = (req["t_issue"] <= cycle) & (req["t_return"] > cycle)
    if sm is not None:
        live &= req["sm"] == sm
    req = req[live]
    req = req[np.argsort(req["t_issue"], kind="stable")]
    t = np.stack([req[c].astype(np.int64) for c in _LEVEL_COLS], axis=1) if len(req) else np.zeros((0, 6), np.int64)
    reached = np.where((t > 0) & (t <= cycle), np.arange(6)[None, :], -1).max(axis=1) if len(req) else np.zeros(0, int)
    reached[(reached < 0)] = 0                            # issued at cycle 0
    counts = {reader.schema.mem_levels[i]: int(np.count_nonzero(reached == i)) for i in range(len(reader.schema.mem_levels) - 1)}
    req, reached = req[:MAX_REQUESTS], reached[:MAX_REQUESTS]
    return {"count": int(live.sum()), "per_level": counts, "level": reached.astype(np.uint8),
            "addr": req["addr"], "sm": req["sm"], "slot": req["slot"], "pc": req["pc"], "t_issue": req["t_issue"],
            "size": req["size"], "write": req["write"], "hit_level": req["hit_level"]}


def queues_at(reader, cycle: int) -> dict:
    """Queue depths per memory partition and per SM for the counter interval holding `cycle`."""
    iv = reader.interval
    c0 = cycle // iv * iv
    out = {"interval": [c0, c0 + iv]}
    mem = [reader.decode("raw:mem_counters", n, d) for _lo, _hi, n, d, _x in
           reader.chunks("raw:mem_counters", 0, 0, c0, c0 + 1)]
    m = np.concatenate(mem) if mem else None
    if m is not None:
        m = m[m["cycle0"] == c0]
        out["partitions"] = {f: m[f].tolist() for f in ("part", "l2_queue", "dram_queue", "icnt_queue")}
    smc = [reader.decode("raw:sm_counters", n, d) for _lo, _hi, n, d, _x in
           reader.chunks("raw:sm_counters", 0, 0, c0, c0 + 1)]
    s = np.concatenate(smc) if smc else None
    if s is not None:
        s = s[s["cycle0"] == c0]
        out["sms"] = {f: s[f].tolist() for f in ("sm", "mshr_used", "ldst_queue", "warps_active")}
    return out


def snapshot(reader, cycle: int, sm: int) -> dict:
    """Everything the inspector shows at `cycle` for SM `sm`."""
    reader.refresh()
    out: dict = {"cycle": int(cycle), "sm": int(sm)}
    if sm in reader.rec.get("record_sms", []) and reader.rec.get("level") == "full":
        w = warps_at(reader, sm, cycle)
        kern = _kernel_of(reader, sm, cycle)
        out["warps"] = {**w, "text": instruction_text(reader, w["pc"], kern),
                        "state_name": [reader.schema.states[s] for s in w["state"].tolist()]}
        out["requests"] = requests_at(reader, cycle)
    out["queues"] = queues_at(reader, cycle)
    return out


def _kernel_of(reader, sm: int, cycle: int) -> int:
    sp = reader.ctas(cycle, cycle + 1)
    hit = np.flatnonzero(sp["sm"] == sm)
    return int(sp["kernel"][hit[0]]) if len(hit) else 0
