"""What each fidelity setting switched on in the h200 preset costs in simulator speed (issue 11 item 2).

    python benchmarks/settings_cost.py ROOT --cases a,b [--repeat 3] [--jobs 8] [--variants name,...]

Per case, the launch with the preset and with each setting off (and all of them off; timing.sass_div, switched
on after the first measurement, is the sixth), every launch in a fresh process, JOBS at a time, repeat-major
order (each round runs every variant of every case once, so slow moments hit all variants alike), the
variants' order rotating from round to round and case to case (the first version ran the preset first every
time, and on the device host that launch was 10-40 % slower even where the variants simulate the very same
thing: performance.md). Per launch: CPU time of the SASS lowering (sass_mode: ptxas's disk cache, the re-
lowering for sass_order/sass_unroll), CPU time of the simulation (TimingSim.launch after it), its wall time,
warp instructions and sim cycles. Prints per case and variant the best-of-repeats CPU times, the rate, and the
ratio of the simulation's CPU time per warp instruction against the preset's.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

VARIANTS = [
    ("preset", []),
    ("coalesce_reads=0", ["l2.coalesce_reads=0"]),
    ("cp_async_wait=0", ["sm.cp_async_wait=0"]),
    ("sass_order=0", ["timing.sass_order=0"]),
    ("sass_unroll=0", ["timing.sass_unroll=0"]),
    ("write_drain_ns=0", ["dram.write_drain_ns=0"]),
    ("sass_div=0", ["timing.sass_div=0"]),
    ("all off", ["l2.coalesce_reads=0", "sm.cp_async_wait=0", "timing.sass_order=0", "timing.sass_unroll=0",
                 "dram.write_drain_ns=0", "timing.sass_div=0"]),
]

CHILD = r"""
import json, os, sys, time
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
root, name, over = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
sys.path.insert(0, root)
from engine.cases import load_suite
from engine.runner import prepare
from engine.timing import TimingSim
case = load_suite()[name]
sim = TimingSim("h200", over, threads=1)
kernel, args, _, bufs = prepare(case, sim.device)
sim.flush()
c0 = time.process_time()
sim.sass_mode(kernel.module, kernel.name)
c1, t1 = time.process_time(), time.perf_counter()
st = sim.launch(kernel, case.grid, case.block, args, shared=case.shared).stats
c2, t2 = time.process_time(), time.perf_counter()
print(json.dumps({"prep": c1 - c0, "cpu": c2 - c1, "wall": t2 - t1, "insts": st["warp_insts"],
                  "cycles": st["gpu_sim_cycle"]}))
"""


def child(root, name, over):
    out = subprocess.run([sys.executable, "-c", CHILD, root, name, json.dumps(over)], capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"{name} {over}: {out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("root")
    ap.add_argument("--cases", required=True)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--variants", default="", help="comma-separated variant names (default: all)")
    a = ap.parse_args()
    names = a.cases.split(",")
    vs = [v for v in VARIANTS if not a.variants or v[0] in a.variants.split(",") or v[0] == "preset"]
    tasks = [(r, n, (j + r + i) % len(vs)) for r in range(a.repeat) for i, n in enumerate(names) for j in range(len(vs))]
    print(f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}, {len(tasks)} launches, {a.jobs} at a time, "
          f"root {a.root}", flush=True)
    t0 = time.perf_counter()
    with ThreadPoolExecutor(a.jobs) as ex:
        futs = [(t, ex.submit(child, a.root, t[1], vs[t[2]][1])) for t in tasks]
        res = [(t, f.result()) for t, f in futs]
    print(f"{time.perf_counter() - t0:.0f} s wall\n")
    print(f"{'case':24s} {'variant':18s} {'warp insts':>11s} {'cycles':>9s} {'prep CPU s':>10s} {'sim CPU s':>9s} "
          f"{'sim CPU all':>24s} {'M/s (sim)':>9s} {'ns/inst':>8s} {'vs preset':>9s}")
    ratios = {v[0]: [] for v in vs}
    for n in names:
        base = None
        for vi, (vname, _) in enumerate(vs):
            rs = [r for (rep, nn, v), r in res if nn == n and v == vi]
            best = min(rs, key=lambda r: r["cpu"])
            nsi = best["cpu"] / best["insts"] * 1e9
            if base is None:
                base = nsi
            ratios[vname].append(nsi / base)
            allc = ",".join(f"{r['cpu']:.2f}" for r in rs)
            print(f"{n:24s} {vname:18s} {best['insts']:11,d} {best['cycles']:9,d} {min(r['prep'] for r in rs):10.2f} "
                  f"{best['cpu']:9.2f} {allc:>24s} {best['insts'] / best['cpu'] / 1e6:9.2f} {nsi:8.0f} "
                  f"{nsi / base:8.2f}x", flush=True)
    print("\nsimulation CPU per warp instruction against the preset (best of repeats), median over cases:")
    for vname, rs in ratios.items():
        print(f"  {vname:18s} {statistics.median(rs):.3f}x  (range {min(rs):.3f}-{max(rs):.3f})")


if __name__ == "__main__":
    main()
