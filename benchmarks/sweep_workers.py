"""A sweep on 1 and on 2 local Dask worker processes: cluster start-up, sweep time, points per second.

    python benchmarks/sweep_workers.py [--only saxpy_1M,vector_add_1M,sgemm_tiled16_256]
                                       [--set l2.size_kib=30720,61440,122880] [--workers 1,2] [--repeat 1]

Each run uses a fresh run store (nothing is reused), its own LocalCluster (processes, one thread each),
and the real timing engine with summary recording, exactly as `simtscope sweep` runs. The baseline is
the first --workers value, measured in the same process; the ratio is its sweep time over each one's.
Point times add up across workers, so this machine's other load shows in them: the table also prints
the load average before each run.
"""
from __future__ import annotations

import argparse
import logging
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def one(spec, workers: int) -> dict:
    from distributed import Client, LocalCluster

    from webapp.sweep.driver import run_sweep
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                      silence_logs=logging.ERROR) as cluster, Client(cluster) as client:
        client.wait_for_workers(workers)
        t1 = time.perf_counter()
        with tempfile.TemporaryDirectory() as data:
            res = run_sweep(spec, data, client=client, progress=False, write_files=False)
        t2 = time.perf_counter()
    assert res["status"] == "done" and res["ran"] == len(res["points"]), res["status"]
    point_s = sum(p["wall_s"] for p in res["points"])
    return {"workers": workers, "start_s": t1 - t0, "sweep_s": t2 - t1, "points": len(res["points"]),
            "point_s": point_s, "load": load}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", default="saxpy_1M,vector_add_1M,sgemm_tiled16_256")
    ap.add_argument("--set", action="append", default=None)
    ap.add_argument("--workers", default="1,2")
    ap.add_argument("--repeat", type=int, default=1)
    a = ap.parse_args()

    from webapp.sweep.sources import case_workloads
    from webapp.sweep.spec import SweepSpec, parse_sets
    spec = SweepSpec(case_workloads(None, a.only), "h200", parse_sets(a.set or ["l2.size_kib=30720,61440,122880"]))
    ns = [int(x) for x in a.workers.split(",")]
    rows = []
    for _ in range(a.repeat):
        for n in ns:                                   # round robin, so slow phases of the machine hit both
            rows.append(one(spec, n))
            r = rows[-1]
            print(f"  {n} worker(s): start {r['start_s']:.1f} s, sweep {r['sweep_s']:.1f} s (load {r['load']:.1f})",
                  file=sys.stderr, flush=True)
    print(f"{len(spec.points())} points ({a.only} x {' x '.join(f'{k}[{len(v)}]' for k, v in spec.axes.items())}),"
          f" {os.cpu_count()} cores")
    print(f"{'workers':>7s} {'start s':>8s} {'sweep s':>8s} {'points/s':>9s} {'sum of point s':>15s} {'load':>5s} "
          f"{'speed-up':>9s}")
    best = {n: min((r for r in rows if r["workers"] == n), key=lambda r: r["sweep_s"]) for n in ns}
    base = best[ns[0]]["sweep_s"]
    for n in ns:
        r = best[n]
        print(f"{n:7d} {r['start_s']:8.1f} {r['sweep_s']:8.1f} {r['points'] / r['sweep_s']:9.2f} "
              f"{r['point_s']:15.1f} {r['load']:5.1f} {base / r['sweep_s']:8.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
