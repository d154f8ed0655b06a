"""Requests in, frames out: validates what a client asks for and builds the wire groups from a RunReader.

    parse_window(dict) -> WindowReq      (ValueError with a clear message on bad input)
    window_groups(reader, req) -> dict   {group name: wire.group(...)}
    meta_fields(reader, run) -> dict     run metadata for a `meta` frame
    snapshot_groups(reader, cycle, sm)
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import wire
from .metrics import METRICS, gauge_extremes, metrics
from .store.snapshot import snapshot

TRACKS = ("ctr", "strip", "strip_c", "heat", "cta", "kernel", "issues")
MAX_CYCLE = 1 << 62
ISSUE_WINDOW = 1 << 20          # issue markers of chosen PCs are looked up in windows up to this wide
MAX_ISSUES = 20000


@dataclass
class WindowReq:
    run: str
    a: int
    b: int
    res: int
    shift: int
    heat_sm: int | None = None
    tracks: tuple = TRACKS
    pcs: list = field(default_factory=list)
    slot: str = "main"


def _int(d: dict, key: str, lo: int, hi: int, default=None) -> int:
    v = d.get(key, default)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or v != v:
        raise ValueError(f"'{key}' must be a number, got {v!r}")
    v = int(v)
    if not lo <= v <= hi:
        raise ValueError(f"'{key}' = {v} is outside [{lo}, {hi}]")
    return v


def parse_window(d) -> WindowReq:
    if not isinstance(d, dict):
        raise ValueError("a window request is a map {run, a, b, res, ...}")
    run = d.get("run")
    if not isinstance(run, str) or not run:
        raise ValueError("'run' must be a run id")
    a = _int(d, "a", 0, MAX_CYCLE)
    b = _int(d, "b", a + 1, MAX_CYCLE)
    res = _int(d, "res", 1, MAX_CYCLE, 1)
    shift = res.bit_length() - 1                     # round down to a power of two (Perfetto's rule)
    heat = d.get("heat_sm")
    heat = None if heat is None else _int(d, "heat_sm", 0, 1 << 16)
    tracks = d.get("tracks", list(TRACKS))
    if not isinstance(tracks, list) or any(t not in TRACKS for t in tracks):
        raise ValueError(f"'tracks' must be a list drawn from {list(TRACKS)}")
    pcs = d.get("pcs") or []
    if not isinstance(pcs, list) or len(pcs) > 4096 or any(not isinstance(p, int) or p < 0 for p in pcs):
        raise ValueError("'pcs' must be a list of at most 4096 non-negative PCs")
    slot = str(d.get("slot", "main"))[:32]
    return WindowReq(run, a, b, res, shift, heat, tuple(tracks), pcs, slot)


def compact(arr: np.ndarray) -> np.ndarray:
    """An integer column in the smallest type that holds its values (the wire says the type per column)."""
    a = np.asarray(arr)
    if a.dtype.kind not in "iu" or a.size == 0:
        return a
    lo, hi = int(a.min()), int(a.max())
    for t in ((np.uint8, np.uint16, np.uint32, np.uint64) if lo >= 0 else (np.int8, np.int16, np.int32, np.int64)):
        info = np.iinfo(t)
        if info.min <= lo and hi <= info.max:
            return a.astype(t, copy=False)
    return a


def window_groups(reader, q: WindowReq) -> dict:
    reader.refresh()
    rec = reader.rec
    out = {}
    if "ctr" in q.tracks and rec:
        c = reader.counters(q.a, q.b, q.res)
        ms = metrics(c, rec)
        hist = c["ctr_gpu"]["state_hist"]
        present = [i for i in range(hist.shape[1]) if hist[:, i].any()]
        cols = {"cycles": compact(c["cycles"]), "issued": compact(c["ctr_gpu"]["issued"]),
                "hist": compact(np.ascontiguousarray(hist[:, present]))}
        cols.update({k: ms[k].astype(np.float32) for k, *_ in METRICS})
        cols.update({k: v.astype(np.float32) for k, v in gauge_extremes(reader, c, rec).items()})
        out["ctr"] = wire.group(c["cycle0"], c["step"], c["n"], cols, hist_states=present)
    recorded = set(rec.get("record_sms") or []) if rec.get("level") == "full" else set()
    if "strip" in q.tracks and recorded:
        s = reader.strips(q.a, q.b, q.shift)
        out["strip"] = wire.group(s["cycle0"], s["step"], s["n"], {"dom": s["dom"], "act": s["act"]}, sms=s["sms"])
    if "strip_c" in q.tracks and rec and len(recorded) < int(rec.get("num_sms", 0)):
        s = reader.sm_counters(q.a, q.b, q.res)
        keep = [i for i in s["sms"] if i not in recorded]
        out["strip_c"] = wire.group(s["cycle0"], s["step"], s["n"], {"dom": s["dom"][keep], "act": s["act"][keep]},
                                    sms=keep)
    if "heat" in q.tracks and q.heat_sm is not None and q.heat_sm in recorded:
        h = reader.heat(q.heat_sm, q.a, q.b, q.shift)
        out["heat"] = wire.group(h["cycle0"], h["step"], h["n"], {"state": h["state"], "pc": h["pc"]}, sm=q.heat_sm)
    if "cta" in q.tracks and rec:
        sp = reader.ctas(q.a, q.b, 1 << q.shift)
        out["cta"] = wire.group(q.a, 0, len(sp["start"]), {k: compact(v) for k, v in {
            "sm": sp["sm"], "lane": sp["lane"], "cta": sp["cta"], "kernel": sp["kernel"], "count": sp["count"],
            "start": sp["start"].astype(np.int64) - q.a, "end": sp["end"].astype(np.int64) - q.a}.items()})
    if "kernel" in q.tracks and rec:
        k = reader.kernels()
        out["kernel"] = wire.group(0, 0, len(k), {"kernel": k["kernel"], "start": k["start"].astype(np.int64),
                                                  "end": k["end"].astype(np.int64)})
    if "issues" in q.tracks and q.pcs and q.heat_sm in recorded:
        out["issues"] = _issues(reader, q)
    return out


def _issues(reader, q: WindowReq) -> dict:
    """Issue cycles of the chosen PCs on the heatmap's SM: (slot, cycle - a) pairs, for the highlight."""
    if q.b - q.a > ISSUE_WINDOW:
        return wire.group(q.a, 0, 0, {}, too_wide=True)
    k, s, e, st, pc, _cta = reader.warp_runs(q.heat_sm, q.a, q.b)
    sel = reader.schema.state_index.get("selected", -1)          # a file's recorder may name its states otherwise
    hit = (st == sel) & np.isin(pc, np.asarray(q.pcs, np.uint32))
    slot, start, end = k[hit], s[hit], e[hit]
    # a run of `selected` can span several consecutive issues: one marker per issued cycle
    lo = np.maximum(start, q.a)
    n = np.maximum(np.minimum(end, q.b) - lo, 0)
    offs = np.arange(int(n.sum())) - np.repeat(np.cumsum(n) - n, n)
    cyc = (np.repeat(lo, n) + offs)[:MAX_ISSUES]
    slot = np.repeat(slot, n)[:MAX_ISSUES]
    return wire.group(q.a, 0, len(cyc), {"slot": slot.astype(np.uint16), "cycle": (cyc - q.a).astype(np.int64)},
                      sm=q.heat_sm, truncated=bool(n.sum() > MAX_ISSUES))


def meta_fields(reader, run: dict) -> dict:
    reader.refresh()
    rec, m = reader.rec, reader.meta
    kernels = [{k: v for k, v in kern.items()} for kern in rec.get("kernels", [])]
    pcs = reader.pc_stats() if rec and reader.status in ("done", "faulted") else None
    groups = {}
    if pcs is not None and len(pcs):
        groups["pc_stats"] = wire.group(0, 0, len(pcs), {"pc": pcs["pc"], "issued": pcs["issued"],
                                                         "stalls": pcs["stalls"]})
    return {"run": run, "status": reader.status, "end_cycle": reader.end_cycle, "progress": m.get("progress"),
            "message": m.get("message", ""), "stats": m.get("stats"), "check": m.get("check"), "config": rec.get("config"),
            "workload": rec.get("workload"), "kernels": kernels, "num_sms": rec.get("num_sms"),
            "slots": rec.get("warp_slots_per_sm"), "interval": rec.get("interval"),
            "record_sms": rec.get("record_sms"), "level": rec.get("level"), "states": list(reader.schema.states),
            "mem_levels": list(reader.schema.mem_levels), "metrics": [list(x) for x in METRICS], "groups": groups}


def snapshot_groups(reader, cycle: int, sm: int) -> dict:
    s = snapshot(reader, cycle, sm)
    out = {"cycle": cycle, "sm": sm, "queues": s["queues"]}
    w = s.get("warps")
    if w is not None:
        out["warps"] = wire.group(cycle, 0, len(w["state"]), {
            "state": w["state"], "pc": w["pc"], "cta": w["cta"], "active": w["active"], "since": w["since"] - cycle,
            "until": np.where(w["until"] >= 0, w["until"] - cycle, -1)}, text=w["text"])
        r = s["requests"]
        out["requests"] = wire.group(cycle, 0, len(r["level"]), {
            "level": r["level"], "sm": r["sm"], "slot": r["slot"], "pc": r["pc"], "addr": r["addr"],
            "t_issue": r["t_issue"].astype(np.int64) - cycle, "size": r["size"], "write": r["write"],
            "hit_level": r["hit_level"]}, count=r["count"], per_level=r["per_level"])
    return out
