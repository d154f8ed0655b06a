"""Counter tracks derived from the stored sums: one definition for the timeline, the CSV export and tests.

Each metric is (name, label, unit, function of the counter query). Ratios of empty buckets are NaN
(no accesses: no hit rate), not zero. Gauges (occupancy, queue depths) are sampled once per interval,
so a bucket's value is their mean over the intervals it holds (`units`); `gauge_extremes` adds the
smallest and largest sample in each bucket, so a peak survives zooming out.
"""
from __future__ import annotations

import numpy as np

from engine.recording import WARP_STATES


def _ratio(num, den) -> np.ndarray:
    num, den = np.asarray(num, np.float64), np.asarray(den, np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)


def metrics(c: dict, rec: dict) -> dict[str, np.ndarray]:
    """float64 series per metric from reader.counters(...) output `c` and the recording meta `rec`."""
    g, m, cyc = c["ctr_gpu"], c["ctr_mem"], c["cycles"]
    warp_slots = max(1, int(rec.get("num_sms", 1)) * int(rec.get("warp_slots_per_sm", 1)))
    units, munits = g["units"], m["units"]
    return {
        "ipc": _ratio(g["issued"], cyc),
        "occupancy": _ratio(g["warps_active"], units * warp_slots),
        "l1_hit": _ratio(g["l1_hits"], g["l1_accesses"]),
        "l2_hit": _ratio(m["l2_hits"], m["l2_accesses"]),
        "dram_bw": _ratio(m["dram_read_bytes"].astype(np.float64) + m["dram_write_bytes"], cyc),
        "mshr": _ratio(g["mshr_used"], units),
        "ldst_queue": _ratio(g["ldst_queue"], units),
        "l2_queue": _ratio(m["l2_queue"], munits),
        "dram_queue": _ratio(m["dram_queue"], munits),
        "icnt_queue": _ratio(m["icnt_queue"], munits),
    }


GAUGES = ("occupancy", "mshr", "ldst_queue", "l2_queue", "dram_queue", "icnt_queue")


def gauge_extremes(reader, c: dict, rec: dict) -> dict[str, np.ndarray]:
    """{key_min, key_max} per bucket of the counter window `c` for every gauge: the extremes of the gauge's
    values at the finest stored level (one sample per counter interval) inside each bucket; NaN where a
    bucket has no sample. Empty when `c` already is at the finest level (mean = min = max)."""
    interval = int(rec.get("interval") or 1)
    if c["step"] <= interval or c["n"] == 0:
        return {}
    f = reader.counters(c["cycle0"], c["cycle0"] + c["n"] * c["step"], interval)
    fm = metrics(f, rec)
    idx = (f["cycle0"] + np.arange(f["n"], dtype=np.int64) * f["step"] - c["cycle0"]) // c["step"]
    ok = (idx >= 0) & (idx < c["n"]) & (f["cycles"] > 0)
    out = {}
    for key in GAUGES:
        v = fm[key]
        good = ok & ~np.isnan(v)
        lo, hi = np.full(c["n"], np.inf), np.full(c["n"], -np.inf)
        np.minimum.at(lo, idx[good], v[good])
        np.maximum.at(hi, idx[good], v[good])
        out[f"{key}_min"] = np.where(np.isfinite(lo), lo, np.nan)
        out[f"{key}_max"] = np.where(np.isfinite(hi), hi, np.nan)
    return out


METRICS = [  # (key, short label for the track, unit, description)
    ("ipc", "IPC", "warp inst/cycle", "warp instructions issued per cycle, all SMs"),
    ("occupancy", "Occupancy", "fraction", "resident warps / warp slots, all SMs"),
    ("l1_hit", "L1 hit rate", "fraction", "L1 data cache hits / accesses"),
    ("l2_hit", "L2 hit rate", "fraction", "L2 hits / accesses, all partitions"),
    ("dram_bw", "DRAM bandwidth", "bytes/cycle", "DRAM bytes read and written per cycle"),
    ("mshr", "L1 MSHRs", "entries", "L1 MSHRs in use, summed over SMs"),
    ("ldst_queue", "LD/ST queue", "entries", "LD/ST unit queue depth, summed over SMs"),
    ("l2_queue", "L2 queue", "entries", "L2 queue depth, summed over partitions"),
    ("dram_queue", "DRAM queue", "entries", "DRAM queue depth, summed over partitions"),
    ("icnt_queue", "Interconnect queue", "entries", "interconnect queue depth, summed over partitions"),
]


def counters_csv(c: dict, rec: dict) -> str:
    """The counter window as CSV: one row per bucket, cycle range, raw sums and derived metrics."""
    ms = metrics(c, rec)
    g, m = c["ctr_gpu"], c["ctr_mem"]
    head = ["cycle_start", "cycle_end", "cycles", "warp_insts"] + [k for k, *_ in METRICS] + \
        ["l1_accesses", "l1_hits", "l2_accesses", "l2_hits", "dram_read_bytes", "dram_write_bytes"] + \
        [f"warp_cycles_{s}" for s in WARP_STATES]
    lines = [",".join(head)]
    for i in range(c["n"]):
        lo = c["cycle0"] + i * c["step"]
        if c["cycles"][i] <= 0:
            continue
        vals = [lo, lo + int(c["cycles"][i]), int(c["cycles"][i]), int(g["issued"][i])]
        vals += ["" if np.isnan(ms[k][i]) else f"{ms[k][i]:.6g}" for k, *_ in METRICS]
        vals += [int(g["l1_accesses"][i]), int(g["l1_hits"][i]), int(m["l2_accesses"][i]), int(m["l2_hits"][i]),
                 int(m["dram_read_bytes"][i]), int(m["dram_write_bytes"][i])]
        vals += [int(v) for v in g["state_hist"][i]]
        lines.append(",".join(str(v) for v in vals))
    return "\n".join(lines) + "\n"
