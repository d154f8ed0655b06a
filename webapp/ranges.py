"""Totals over a cycle range and one warp's state history, for the explorer's Range tab and pinned warp.

    range_totals(reader, a, b, sm)          GPU counters summed over [a, b) snapped outwards to the counter
                                            interval, and the exact warp-state cycles of SM `sm`'s slots
                                            over [a, b) (cycle by cycle, from the warp-state segments)
    warp_history(reader, sm, slot, cycle)   the state runs of one warp slot around `cycle`
"""
from __future__ import annotations

import numpy as np

from engine.recording import WARP_STATES

MAX_RANGE_RUNS = 1 << 24          # beyond this many cycles the exact per-SM warp totals are skipped
HISTORY_SPAN = 8192               # cycles looked at on each side of the cursor for a warp's history


def range_totals(reader, a: int, b: int, sm: int | None) -> dict:
    reader.refresh()
    b = min(b, max(reader.end_cycle, a + 1))
    if b <= a:
        raise ValueError(f"empty range [{a}, {b})")
    interval = int(reader.rec.get("interval") or 1)
    c = reader.counters(a, b, interval)
    g, m = c["ctr_gpu"], c["ctr_mem"]
    a0, b0 = int(c["cycle0"]), int(c["cycle0"] + int(c["cycles"].sum()))
    hist = g["state_hist"].sum(axis=0)
    out = {"a": a, "b": b, "ctr_a": a0, "ctr_b": b0, "cycles": b0 - a0, "warp_insts": int(g["issued"].sum()),
           "thread_insts": int(g["thread_insts"].sum()),
           "l1_accesses": int(g["l1_accesses"].sum()), "l1_hits": int(g["l1_hits"].sum()),
           "l2_accesses": int(m["l2_accesses"].sum()), "l2_hits": int(m["l2_hits"].sum()),
           "dram_read_bytes": int(m["dram_read_bytes"].sum()), "dram_write_bytes": int(m["dram_write_bytes"].sum()),
           "states": {s: int(hist[i]) for i, s in enumerate(WARP_STATES) if hist[i]}}
    recorded = reader.rec.get("level") == "full" and sm in (reader.rec.get("record_sms") or [])
    if recorded and b - a <= MAX_RANGE_RUNS:
        _k, s, e, st, _pc, _cta = reader.warp_runs(sm, a, b)
        d = np.minimum(e, b) - np.maximum(s, a)
        per = np.bincount(st, weights=d, minlength=len(WARP_STATES)).astype(np.int64)
        out["sm"] = {"sm": sm, "states": {s_: int(per[i]) for i, s_ in enumerate(WARP_STATES) if per[i]}}
    return out


def warp_history(reader, sm: int, slot: int, cycle: int, n: int = 40) -> dict:
    """Up to n state runs of the slot ending at or before `cycle` and n after it: start, end, state, pc."""
    reader.refresh()
    if reader.rec.get("level") != "full" or sm not in (reader.rec.get("record_sms") or []):
        raise LookupError(f"SM {sm} has no warp-state recording in this run")
    slots = int(reader.rec.get("warp_slots_per_sm") or 0)
    if not 0 <= slot < slots:
        raise ValueError(f"slot {slot} is outside [0, {slots})")
    a, b = max(0, cycle - HISTORY_SPAN), cycle + HISTORY_SPAN
    k, s, e, st, pc, cta = reader.warp_runs(sm, a, b)
    mine = k == slot
    s, e, st, pc, cta = s[mine], e[mine], st[mine], pc[mine], cta[mine]
    at = int(np.searchsorted(s, cycle, side="right"))          # runs starting at or before the cursor
    lo, hi = max(0, at - n), min(len(s), at + n)
    kern = (reader.rec.get("kernels") or [{}])[0]
    lines, texts = kern.get("pc_line") or [], kern.get("pc_text") or []
    runs = []
    for i in range(lo, hi):
        p = int(pc[i])
        ok = 0 <= p < len(lines)
        runs.append({"start": int(s[i]), "end": int(e[i]), "state": WARP_STATES[int(st[i])], "pc": p if ok else None,
                     "line": lines[p] if ok else None, "text": texts[p] if 0 <= p < len(texts) else "",
                     "cta": int(cta[i])})
    return {"sm": sm, "slot": slot, "cycle": cycle, "runs": runs, "window": [a, b]}
