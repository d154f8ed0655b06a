"""Timing-model speed: warp instructions per second on one thread and on several, side by side.

    python benchmarks/timing.py [--cases sgemm_tiled16_512,saxpy_16M | --suite] [--threads 1,2] [--config h200]
                                [--repeat 3] [--functional]
    python benchmarks/timing.py --baseline DIR [--cases ... | --suite] [--threads 1,2] [--repeat 3]
    python benchmarks/timing.py --suite --jobs 8 [--threads 1,2] [--max-insts 100000000]

Per case and thread count, in the same process: the launch's wall time (best of --repeat runs; the
machine is shared, so the best run is the least disturbed) and its rate; the ratio of each thread count
against the first (one thread) on the same case; and a check that the statistics are identical for
every thread count (the engine's promise). --functional adds the functional core's rate on one thread.
Goals (issue 11): one thread >= 3 M warp insts/s median over the public suite and >= 2 M on every case;
two threads >= 1.7x one thread on the GEMMs.

--baseline DIR compares this checkout with another one (DIR: a built copy of, say, main) in the same
run: each launch runs in a fresh process per checkout, the two alternating, best of --repeat; one
thread is timed in CPU time of the launch (the machine is shared: CPU time is what other jobs disturb
least), several threads in wall time. It prints both rates, their ratio, and whether the statistics
are identical (speed work must not change them).

--jobs N runs every (case, thread count) launch in a fresh process, N at a time (longest first), so the
whole suite at one and two threads fits in a few minutes on a many-core host (use N <= cores / the largest
thread count). One thread is timed in CPU time and wall time, more threads in wall time; the ratio of
thread counts is wall against wall. A launch's time includes the lowering it needs first (the SASS-order
lowering, or its disk cache); the one-thread rate is also printed without it ('1T sim M/s', what
ab_suite.py measures), which on short launches (saxpy_1M, reduce_shfl_4M) is 10-20 % higher. Launches
longer than --max-insts warp instructions (default 100 M: the four largest GEMMs and conv2d_3x3_n8) stop
at that cap, checked at a quantum boundary, and their rate is that of the part simulated (marked
'capped'); statistics are still compared between thread counts at the same cap.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import statistics
import sys
import time
from pathlib import Path

from engine_build import engine_build_of, host_desc

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.cases import load_suite  # noqa: E402
from engine.device import Device  # noqa: E402
from engine.runner import prepare  # noqa: E402
from engine.timing import TimingSim, engine_build  # noqa: E402

GOAL_MEDIAN, GOAL_MIN, GOAL_RATIO = 3e6, 2e6, 1.7
DEFAULT = "sgemm_tiled16_512,sgemm_rb64_1024,hgemm_wmma_tiled_512,saxpy_16M,softmax_4096x128"


def time_case(case, config, threads, repeat, overrides=()):
    best, stats = None, None
    sim = TimingSim(config, overrides, threads=threads)
    for _ in range(repeat):
        kernel, args, _, bufs = prepare(case, sim.device)
        sim.flush()
        t0 = time.perf_counter()
        res = sim.launch(kernel, case.grid, case.block, args, shared=case.shared)
        wall = time.perf_counter() - t0
        st = {k: v for k, v in res.stats.items() if k != "wall_s"}
        if stats is not None and st != stats:
            raise SystemExit(f"{case.name}: statistics differ between runs")
        stats = st
        best = wall if best is None else min(best, wall)
        for b in bufs.values():          # the next repeat gets the same addresses
            sim.device.free(b)
    return best, stats, sim.threads


def functional_rate(case):
    dev = Device()
    k2, args2, _, _ = prepare(case, dev)
    t0 = time.perf_counter()
    fres = dev.launch(k2, case.grid, case.block, args2, shared=case.shared)
    return fres.warp_insts / (time.perf_counter() - t0)


# one launch in a fresh process, with the engine of checkout ROOT: prints its times and statistics
_CHILD = r"""
import hashlib, json, os, sys, time
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
root, name, config, threads = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
cap = int(sys.argv[5]) if len(sys.argv) > 5 else 0
overrides = json.loads(sys.argv[6]) if len(sys.argv) > 6 else []
sys.path.insert(0, root)
from engine.cases import load_suite
from engine.errors import LimitExceeded
from engine.runner import prepare
from engine.timing import TimingSim, ffi, lib, stats_dict
case = load_suite()[name]
sim = TimingSim(config, overrides, threads=threads)
kernel, args, _, bufs = prepare(case, sim.device)
sim.flush()
capped = False
t0, c0 = time.perf_counter(), time.process_time()
sim.sass_mode(kernel.module, kernel.name)   # the lowering the launch needs, timed apart (the launch finds it done)
lower_wall, lower_cpu = time.perf_counter() - t0, time.process_time() - c0
t0, c0 = time.perf_counter(), time.process_time()
try:
    st = sim.launch(kernel, case.grid, case.block, args, shared=case.shared, max_warp_insts=cap).stats
except LimitExceeded:
    capped = True
    ts = ffi.new("gs_tstats *")
    lib.gs_tsim_get_stats(sim._ptr, ts)
    st = stats_dict(ts, sim.config["gpu.sm_clock_mhz"], sim.config["gpu.num_sms"] * sim.config["sm.max_warps"])
wall, cpu = time.perf_counter() - t0, time.process_time() - c0
st = {k: v for k, v in st.items() if k != "wall_s"}
print(json.dumps({"wall": wall + lower_wall, "cpu": cpu + lower_cpu, "sim_cpu": cpu, "insts": st["warp_insts"],
                  "cycles": st["gpu_sim_cycle"], "capped": capped,
                  "digest": hashlib.sha256(json.dumps(st, sort_keys=True, default=str).encode()).hexdigest()}))
"""


def run_child(root, name, config, threads, cap=0, overrides=()):
    out = subprocess.run([sys.executable, "-c", _CHILD, str(root), name, config, str(threads), str(cap),
                          json.dumps(list(overrides))],
                         capture_output=True, text=True, check=False)
    if out.returncode:
        raise SystemExit(f"{name} in {root}: {out.stderr.strip()[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def compare_baseline(a, names, counts):
    here = Path(__file__).resolve().parent.parent
    base = Path(a.baseline).resolve()
    print(f"machine: {host_desc()}, load average {os.getloadavg()[0]:.1f}; "
          f"baseline {base}; one thread: CPU time of the launch, more threads: wall time; best of {a.repeat}"
          + (f"; this checkout with {a.set}" if a.set else ""))
    print(f"engine builds: this checkout {engine_build()}; baseline {engine_build_of(base)}")
    head = f"{'case':28s} {'warp insts':>12s}"
    for t in counts:
        head += f" {f'{t}T base M/s':>12s} {f'{t}T new M/s':>11s} {'new/base':>8s}"
    print(head + "  same stats")
    gains, new_rates, base_rates, pair = {t: [] for t in counts}, [], [], {}
    for name in names:
        row, same = f"{name:28s}", True
        for t in counts:
            best = {}
            for _ in range(a.repeat):
                for which, root in (("base", base), ("new", here)):
                    r = run_child(root, name, a.config, t, 0, a.set if which == "new" else ())
                    key = "cpu" if t == 1 else "wall"
                    if which not in best or r[key] < best[which][key]:
                        best[which] = r
                    best[which + "_digest"] = r["digest"]
            same &= best["base_digest"] == best["new_digest"]
            key = "cpu" if t == 1 else "wall"
            rb, rn = best["base"]["insts"] / best["base"][key], best["new"]["insts"] / best["new"][key]
            if t == counts[0]:
                row += f" {best['new']['insts']:12,d}"
                base_rates.append(rb)
                new_rates.append(rn)
            pair[(name, t)] = (rb, rn)
            gains[t].append(rn / rb)
            row += f" {rb / 1e6:12.2f} {rn / 1e6:11.2f} {rn / rb:7.2f}x"
        print(row + f"  {'yes' if same else 'NO'}", flush=True)
    print()
    for label, rates in (("baseline", base_rates), ("this checkout", new_rates)):
        print(f"{counts[0]} thread, {label}: median {statistics.median(rates) / 1e6:.2f} M warp insts/s, "
              f"slowest {min(rates) / 1e6:.2f} M/s")
    for t in counts:
        print(f"{t} thread(s): this checkout / baseline: median {statistics.median(gains[t]):.2f}x, "
              f"range {min(gains[t]):.2f}-{max(gains[t]):.2f}x")
    for t in counts[1:]:
        for label, i in (("baseline", 0), ("this checkout", 1)):
            rs = [pair[(n, t)][i] / pair[(n, counts[0])][i] for n in names]
            print(f"{t} threads (wall) vs {counts[0]} (CPU), {label}: median {statistics.median(rs):.2f}x")


def suite_jobs(a, suite, names, counts):
    """Every (case, thread count) launch in its own process, a.jobs at a time, longest first."""
    from concurrent.futures import ThreadPoolExecutor
    here = Path(__file__).resolve().parent.parent
    est = {}                                # seconds, from the last validation's rates: longest first
    known = here / "docs" / "validation" / "h200.json"
    if known.exists():
        for c in json.loads(known.read_text()).get("cases", []):
            if isinstance(c, dict) and c.get("warp_insts") and c.get("sim_rate_warp_insts_per_s"):
                est[c["name"]] = min(c["warp_insts"], a.max_insts or c["warp_insts"]) / c["sim_rate_warp_insts_per_s"]
    tasks = sorted(((n, t) for n in names for t in counts), key=lambda nt: -est.get(nt[0], 0.0) / nt[1] ** 0.5)
    print(f"machine: {host_desc()}, load average {os.getloadavg()[0]:.1f}; "
          f"{len(tasks)} launches, {a.jobs} at a time, each in a fresh process; cap {a.max_insts:,} warp insts; "
          f"engine build: {engine_build()}")
    t0 = time.perf_counter()
    with ThreadPoolExecutor(a.jobs) as ex:
        futs = {nt: ex.submit(run_child, here, nt[0], a.config, nt[1], a.max_insts, a.set) for nt in tasks}
        res = {nt: f.result() for nt, f in futs.items()}
    head = f"{'case':28s} {'warp insts':>12s} {'sim cycles':>11s} {'1T CPU M/s':>10s} {'1T sim M/s':>10s}"
    for t in counts:
        head += f" {f'{t}T wall M/s':>12s}"
        if t != counts[0]:
            head += f" {f'{t}T/{counts[0]}T':>7s}"
    print(head + "  same stats")
    cpu_rates, sim_rates, wall_rates, ratios, differ = [], [], [], {}, []
    for n in names:
        r0 = res[(n, counts[0])]
        cpu_rates.append(r0["insts"] / r0["cpu"])
        sim_rates.append(r0["insts"] / r0["sim_cpu"])
        wall_rates.append(r0["insts"] / r0["wall"])
        row = f"{n:28s} {r0['insts']:12,d} {r0['cycles']:11,d} {cpu_rates[-1] / 1e6:10.2f} {sim_rates[-1] / 1e6:10.2f}"
        same = True
        for t in counts:
            r = res[(n, t)]
            same &= r["digest"] == r0["digest"]
            row += f" {r['insts'] / r['wall'] / 1e6:12.2f}"
            if t != counts[0]:
                ratio = r0["wall"] / r["wall"]
                ratios.setdefault(t, []).append((n, ratio))
                row += f" {ratio:6.2f}x"
        if not same:
            differ.append(n)
        print(row + f"  {'yes' if same else 'NO'}" + ("  capped" if r0["capped"] else ""))
    print(f"\n{len(names)} cases in {time.perf_counter() - t0:.0f} s wall")
    for label, rates in (("CPU time", cpu_rates), ("CPU time without the lowering", sim_rates), ("wall time", wall_rates)):
        med, lo = statistics.median(rates), min(rates)
        print(f"{counts[0]} thread, {label}: median {med / 1e6:.2f} M warp insts/s (goal {GOAL_MEDIAN / 1e6:.0f} M), "
              f"slowest {lo / 1e6:.2f} M/s (floor {GOAL_MIN / 1e6:.0f} M), {sum(r < GOAL_MIN for r in rates)} "
              f"of {len(rates)} cases below the floor")
    print_ratios(ratios, counts[0], " (wall)", "all cases")
    if differ:
        raise SystemExit(f"statistics differ between thread counts: {', '.join(differ)}")


def print_ratios(ratios: dict, base: int, how: str, which: str) -> None:
    """Each thread count's speed-up over the base count: the median (and range) on the GEMMs against the goal,
    and the median over `which`."""
    for t, rs in ratios.items():
        gemm = [r for n, r in rs if "gemm" in n]
        if gemm:
            print(f"{t} threads vs {base}{how} on the GEMMs: {statistics.median(gemm):.2f}x median "
                  f"(goal {GOAL_RATIO}x), range {min(gemm):.2f}-{max(gemm):.2f}x")
        print(f"{t} threads vs {base}{how} on {which}: {statistics.median(r for _, r in rs):.2f}x median")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default=DEFAULT)
    ap.add_argument("--suite", action="store_true", help="every case of the public suite")
    ap.add_argument("--threads", default="1,2", help="thread counts, the first is the baseline")
    ap.add_argument("--config", default="h200")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="config override for this checkout's launches (with --baseline: not the baseline's, so "
                         "'--baseline . --set l2.coalesce_reads=0' is the cost of one setting; statistics then differ)")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--functional", action="store_true")
    ap.add_argument("--baseline", metavar="DIR", help="compare with the (built) checkout in DIR, launch by launch")
    ap.add_argument("--jobs", type=int, default=0, help="run launches in N fresh processes at a time (suite mode)")
    ap.add_argument("--max-insts", type=int, default=100_000_000,
                    help="with --jobs: stop a launch after this many warp instructions (0: none)")
    a = ap.parse_args(argv)
    suite = load_suite()
    names = [c.name for c in suite.cases] if a.suite else a.cases.split(",")
    counts = [int(t) for t in a.threads.split(",")]
    if a.baseline:
        return compare_baseline(a, names, counts)
    if a.jobs:
        return suite_jobs(a, suite, names, counts)
    head = f"{'case':28s} {'warp insts':>12s} {'sim cycles':>11s}"
    for t in counts:
        head += f" {f'{t}T wall s':>10s} {f'{t}T M/s':>8s}"
        if t != counts[0]:
            head += f" {f'{t}T/{counts[0]}T':>7s}"
    head += "  same stats" + (f" {'func M/s':>9s}" if a.functional else "")
    print(f"machine: {host_desc()}, load average {os.getloadavg()[0]:.1f}; "
          f"engine build: {engine_build()}")
    print(head)
    base_rates, ratios = [], {}
    for name in names:
        case = suite[name]
        row, walls, stats0, same = f"{name:28s}", [], None, True
        for t in counts:
            wall, st, _ = time_case(case, a.config, t, a.repeat, a.set)
            if stats0 is None:
                stats0 = st
                row += f" {st['warp_insts']:12,d} {st['gpu_sim_cycle']:11,d}"
            same &= st == stats0
            walls.append(wall)
            row += f" {wall:10.2f} {st['warp_insts'] / wall / 1e6:8.2f}"
            if t != counts[0]:
                r = walls[0] / wall
                ratios.setdefault(t, []).append((name, r))
                row += f" {r:6.2f}x"
        base_rates.append(stats0["warp_insts"] / walls[0])
        row += f"  {'yes' if same else 'NO'}"
        if a.functional:
            row += f" {functional_rate(case) / 1e6:9.2f}"
        print(row, flush=True)
        if not same:
            raise SystemExit(f"{name}: statistics differ between thread counts")
    med, lo = statistics.median(base_rates), min(base_rates)
    print(f"\n{counts[0]} thread: median {med / 1e6:.2f} M warp insts/s ({med / GOAL_MEDIAN:.2f}x the goal of "
          f"{GOAL_MEDIAN / 1e6:.0f} M), slowest {lo / 1e6:.2f} M/s ({lo / GOAL_MIN:.2f}x the floor of {GOAL_MIN / 1e6:.0f} M)")
    print_ratios(ratios, counts[0], "", "all cases shown")


if __name__ == "__main__":
    main()
