"""Run store speed: window queries at several zoom levels over a run of at least 5 million cycles, the
cost of a snapshot, and run-file bytes per million warp instructions.

    python benchmarks/window_query.py [--reps 152] [--sms 0-7] [--queries 40] [--file PATH]

Queries are what the browser asks for: the visible window padded by half a window on each side (fetch-
window.js), so twice the visible span, at span/1000 cycles per bucket rounded to a power of two. The long run is real engine output made long: the timing engine records sgemm_tiled16_256 on the H200
config once (full recording on the SMs given by --sms, counters for all 132), and the recording is
written into one run file `--reps` times back to back (cycles, CTA ids shifted per repetition), so the
file has the density and structure of a real recording over reps x 33k cycles. A query is what the
server does for one `window` request: read the LOD chunks of every track (counters, per-SM strips from
warp states and from counters, the heatmap of one SM, CTA and kernel spans) and encode the frame.
Goal: p95 at most 30 ms at every zoom level.
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from webapp import frames, wire  # noqa: E402
from webapp.store import RunReader, RunWriter  # noqa: E402

GOAL_MS = 30.0


class Capture:
    def __init__(self):
        self.meta, self.tables, self.stats = None, [], None

    def begin(self, meta):
        self.meta = meta

    def append(self, table, chunk):
        self.tables.append((table, chunk.copy()))

    def end(self, stats, status):
        self.stats = stats


def capture(case_name: str, sms: list[int]) -> Capture:
    from engine.cases import load_suite
    from engine.timing import TimingSim
    cap = Capture()
    TimingSim("h200", record="full", record_sms=sms).run_case(load_suite()[case_name], sink=cap)
    return cap


def shifted(table: str, chunk: np.ndarray, dc: int, dcta: int) -> np.ndarray:
    c = chunk.copy()
    if table == "warp_states":
        c["cycle"] += dc
        c["cta"] += dcta
    elif table in ("sm_counters", "mem_counters"):
        c["cycle0"] += dc
    elif table == "events":
        c["cycle"] += dc
        c["cta"] += dcta
    elif table == "mem_samples":
        for f in ("t_issue", "t_l1", "t_icnt", "t_l2", "t_dram", "t_return"):
            c[f] = np.where(c[f] > 0, c[f] + dc, 0)
    return c


def build(path: Path, reps: int, sms: list[int]) -> dict:
    t0 = time.perf_counter()
    cap = capture("sgemm_tiled16_256", sms)
    t_cap = time.perf_counter() - t0
    iv = int(cap.meta["interval"])
    period = -(-int(cap.stats["gpu_sim_cycle"]) // iv) * iv
    ctas = int(np.prod(cap.meta["kernels"][0]["grid"]))
    w = RunWriter(path, {"name": f"sgemm_tiled16_256 x{reps} (benchmark)"})
    w.begin({**cap.meta, "record_sms": sms})
    t0 = time.perf_counter()
    rows = 0
    pcs = None
    for r in range(reps):
        for table, chunk in cap.tables:
            if table == "pc_stats":
                pcs = chunk.copy() if pcs is None else pcs
                if r:
                    pcs["issued"] += chunk["issued"]
                    pcs["stalls"] += chunk["stalls"]
                continue
            c = shifted(table, chunk, r * period, r * ctas)
            rows += len(c) if table == "warp_states" else 0
            w.append(table, c)
    w.append("pc_stats", pcs)
    stats = {**cap.stats, "gpu_sim_cycle": reps * period, "warp_insts": reps * int(cap.stats["warp_insts"])}
    w.end(stats, "done")
    t_write = time.perf_counter() - t0
    return {"capture_s": t_cap, "write_s": t_write, "warp_state_rows": rows, "warp_insts": stats["warp_insts"],
            "cycles": stats["gpu_sim_cycle"]}


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(math.ceil(p / 100 * len(xs))) - 1)]


def bench(path: Path, queries: int, seed: int = 1) -> list[dict]:
    r = RunReader(path)
    end = r.end_cycle
    sms = r.rec["record_sms"]
    rng = np.random.default_rng(seed)
    out = []
    spans = [end, 1_000_000, 100_000, 10_000, 1_000, 100]
    for span in spans:
        span = min(span, end)
        res = 2 ** max(0, int(round(math.log2(max(1, span / 1000)))))      # as transform.js resolution()
        times, sizes = [], []
        for i in range(queries + 3):
            v = int(rng.integers(0, max(1, end - span)))
            a, b = max(0, v - span // 2), v + span + span // 2   # the client pads by half a view each side
            q = frames.parse_window({"run": "bench", "a": a, "b": b, "res": res,
                                     "heat_sm": int(rng.choice(sms)), "slot": "main"})
            t0 = time.perf_counter()
            g = frames.window_groups(r, q)
            data = wire.frame("window", 1, 1, run="bench", a=q.a, b=q.b, res=q.res, groups=g)
            dt = (time.perf_counter() - t0) * 1000
            if i >= 3:                            # the first queries warm the SQLite page cache
                times.append(dt)
                sizes.append(len(data))
        out.append({"span": span, "res": res, "p50": pct(times, 50), "p95": pct(times, 95), "max": max(times),
                    "kib": np.mean(sizes) / 1024})
    snaps = []
    for i in range(queries):
        c = int(rng.integers(0, end))
        t0 = time.perf_counter()
        frames.snapshot_groups(r, c, int(rng.choice(sms)))
        snaps.append((time.perf_counter() - t0) * 1000)
    out.append({"span": "snapshot", "res": "", "p50": pct(snaps, 50), "p95": pct(snaps, 95), "max": max(snaps),
                "kib": 0})
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=152, help="repetitions of the recorded run (152 x 33k > 5M cycles)")
    ap.add_argument("--sms", default="0-7", help="SMs with warp-state recording")
    ap.add_argument("--queries", type=int, default=40)
    ap.add_argument("--file", default="/tmp/simtscope-window-bench.simtrun")
    a = ap.parse_args()
    lo, _, hi = a.sms.partition("-")
    sms = list(range(int(lo), int(hi or lo) + 1))
    path = Path(a.file)
    if not path.exists():
        info = build(path, a.reps, sms)
        size = path.stat().st_size
        print(f"built {path}: {info['cycles']:,} cycles, {info['warp_insts']:,} warp insts, "
              f"{info['warp_state_rows']:,} warp-state rows (SMs {a.sms}); capture {info['capture_s']:.1f} s, "
              f"store write {info['write_s']:.1f} s ({info['warp_state_rows'] / info['write_s'] / 1e6:.2f} M rows/s)")
        print(f"run file {size / 2**20:.1f} MiB = {size / (info['warp_insts'] / 1e6) / 2**10:.1f} KiB per million "
              f"warp instructions (warp states of {len(sms)} of 132 SMs)")
    r = RunReader(path)
    print(f"\nwindow queries over {r.end_cycle:,} cycles, 1000 px wide, all tracks, warm cache ({a.queries} each)")
    print(f"| window (cycles) | resolution (cycles/px) | p50 ms | p95 ms | max ms | frame KiB |")
    print("|---:|---:|---:|---:|---:|---:|")
    rows = bench(path, a.queries)
    for x in rows:
        span = f"{x['span']:,}" if isinstance(x["span"], int) else x["span"]
        print(f"| {span} | {x['res']} | {x['p50']:.1f} | {x['p95']:.1f} | {x['max']:.1f} | {x['kib']:.0f} |")
    worst = max(x["p95"] for x in rows if x["span"] != "snapshot")
    print(f"\nworst p95 {worst:.1f} ms (goal {GOAL_MS:.0f} ms): {'met' if worst <= GOAL_MS else 'NOT met'}")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    sys.exit(main())
