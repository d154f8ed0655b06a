"""A run as a Chrome JSON trace (the Trace Event Format that ui.perfetto.dev and chrome://tracing open).

    trace_events(reader, run, sms) -> dict {"traceEvents": [...], "displayTimeUnit": "ns", "otherData": {...}}

Time stamps are µs at the run's SM clock (the format's unit); every event's args keep exact cycles.
Processes: "GPU" (kernels, GPU counters: IPC, occupancy, hit rates, DRAM bandwidth, queue depths) and one
per SM (its CTAs in lanes; for the SMs asked for (`sms`, default the first recorded one) that have warp-state
recording, a thread per warp slot with its state runs, within an event budget: what was left out is said in
otherData so a truncated trace is never mistaken for whole).
"""
from __future__ import annotations

import numpy as np

from engine.recording import WARP_STATES

from .metrics import METRICS, metrics

MAX_EVENTS = 150_000
COUNTER_BUCKETS = 2048


def trace_events(reader, run: dict, sms: list[int] | None = None, max_events: int = MAX_EVENTS) -> dict:
    reader.refresh()
    rec = reader.rec
    mhz = float(((rec.get("config") or {}).get("gpu") or {}).get("sm_clock_mhz") or 1000.0)
    us = lambda c: float(c) / mhz                                        # noqa: E731
    end = int(reader.end_cycle)
    ev: list[dict] = [{"ph": "M", "pid": 0, "name": "process_name", "args": {"name": f"GPU: {run.get('name', '')}"}},
                      {"ph": "M", "pid": 0, "tid": 0, "name": "thread_name", "args": {"name": "kernels"}}]
    names = [k.get("name", f"kernel {i}") for i, k in enumerate(rec.get("kernels") or [])]
    k = reader.kernels()
    for kern, a, b in zip(k["kernel"], k["start"], k["end"]):
        ev.append({"ph": "X", "pid": 0, "tid": 0, "name": names[int(kern)] if int(kern) < len(names) else f"kernel {kern}",
                   "ts": us(a), "dur": us(int(b) - int(a)), "args": {"start_cycle": int(a), "end_cycle": int(b)}})
    if end > 0:                                                         # counters at <= COUNTER_BUCKETS buckets
        c = reader.counters(0, end, max(1, end // COUNTER_BUCKETS))
        ms = metrics(c, rec)
        for i in range(c["n"]):
            if c["cycles"][i] <= 0:
                continue
            t = us(c["cycle0"] + i * c["step"])
            for key, label, unit, _d in METRICS:
                v = ms[key][i]
                if not np.isnan(v):
                    ev.append({"ph": "C", "pid": 0, "name": f"{label} ({unit})", "ts": t, "args": {label: float(v)}})
    nsm = int(rec.get("num_sms") or 0)
    for sm in range(nsm):
        ev.append({"ph": "M", "pid": 1 + sm, "name": "process_name", "args": {"name": f"SM {sm}"}})
        ev.append({"ph": "M", "pid": 1 + sm, "name": "process_sort_index", "args": {"sort_index": 1 + sm}})
    if end > 0:
        sp = reader.ctas(0, end, 1)
        for s, lane, cta, kern, a, b in zip(sp["sm"], sp["lane"], sp["cta"], sp["kernel"], sp["start"], sp["end"]):
            ev.append({"ph": "X", "pid": 1 + int(s), "tid": int(lane), "name": f"CTA {int(cta)}", "ts": us(a),
                       "dur": us(int(b) - int(a)), "args": {"kernel": names[int(kern)] if int(kern) < len(names) else int(kern),
                                                            "start_cycle": int(a), "end_cycle": int(b)}})
    truncated, warp_sms = False, []
    recorded = (rec.get("record_sms") or []) if rec.get("level") == "full" else []
    for sm in [x for x in (recorded[:1] if sms is None else sms) if x in recorded]:
        if len(ev) >= max_events or end <= 0:
            truncated = truncated or bool(end > 0)
            break
        slot, s, e, st, pc, _cta = reader.warp_runs(sm, 0, end)
        busy = st != WARP_STATES.index("idle")
        if len(ev) + int(busy.sum()) > max_events:
            truncated = True
            break
        warp_sms.append(int(sm))
        for w in np.unique(slot[busy]):
            ev.append({"ph": "M", "pid": 1 + int(sm), "tid": 1000 + int(w), "name": "thread_name", "args": {"name": f"warp slot {int(w)}"}})
        for w, a, b, x, p in zip(slot[busy], s[busy], e[busy], st[busy], pc[busy]):
            ev.append({"ph": "X", "pid": 1 + int(sm), "tid": 1000 + int(w), "name": WARP_STATES[int(x)], "ts": us(a),
                       "dur": us(int(b) - int(a)), "args": {"start_cycle": int(a), "end_cycle": int(b), "pc": int(p)}})
    return {"traceEvents": ev, "displayTimeUnit": "ns",
            "otherData": {"simtscope_run": run.get("id"), "name": run.get("name"), "sm_clock_mhz": mhz, "cycles": end,
                          "warp_states_of_sms": warp_sms, "warp_states_truncated": truncated,
                          "note": "ts/dur in µs at the SM clock; args keep exact cycles"}}
