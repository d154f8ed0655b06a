"""Checkouts against each other over the public suite, one simulation thread, on a many-core host (issue 11 item 2).

    python benchmarks/ab_suite.py BASE_ROOT NEW_ROOT [ALT_ROOT ...] [--cap 10000000] [--repeat 2] [--jobs 8] [--only a,b]

Each ROOT is a built checkout (`python setup.py build_ext --inplace` there). Every (case, checkout) launch runs in
its own process, JOBS at a time, repeat-major, the checkouts of a case next to each other and their order rotating
from round to round (slow moments hit all alike); a launch stops at --cap warp instructions (checked at a quantum
boundary: the same point in every checkout when results are identical). Per case: CPU time of the launch (best of
the repeats; the SASS lowering before it is not counted), rates, each checkout against BASE, and whether the
statistics of all launches are identical (for speed work they must be). Then per checkout the suite median and the
slowest case against the goals (3 M warp insts/s median, 2 M floor). Use JOBS <= the host's idle cores. It first
served as device request speed4b's script (docs/performance.md).
"""
import argparse, hashlib, json, os, statistics, subprocess, sys, time
from concurrent.futures import ThreadPoolExecutor

from engine_build import engine_build_of, host_desc

CHILD = r"""
import hashlib, json, os, sys, time
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
root, name, cap = sys.argv[1], sys.argv[2], int(sys.argv[3])
sys.path.insert(0, root)
from engine.cases import load_suite
from engine.errors import LimitExceeded
from engine.runner import prepare
from engine.timing import TimingSim, ffi, lib, stats_dict
case = load_suite()[name]
sim = TimingSim("h200", threads=1)
kernel, args, _, bufs = prepare(case, sim.device)
sim.flush()
sim.sass_mode(kernel.module, kernel.name)
capped = False
c0, t0 = time.process_time(), time.perf_counter()
try:
    st = sim.launch(kernel, case.grid, case.block, args, shared=case.shared, max_warp_insts=cap).stats
except LimitExceeded:
    capped = True
    ts = ffi.new("gs_tstats *")
    lib.gs_tsim_get_stats(sim._ptr, ts)
    st = stats_dict(ts, sim.config["gpu.sm_clock_mhz"], sim.config["gpu.num_sms"] * sim.config["sm.max_warps"])
cpu, wall = time.process_time() - c0, time.perf_counter() - t0
st = {k: v for k, v in st.items() if k != "wall_s"}
print(json.dumps({"cpu": cpu, "wall": wall, "insts": st["warp_insts"], "cycles": st["gpu_sim_cycle"], "capped": capped,
                  "digest": hashlib.sha256(json.dumps(st, sort_keys=True, default=str).encode()).hexdigest()}))
"""


def child(root, name, cap):
    out = subprocess.run([sys.executable, "-c", CHILD, root, name, str(cap)], capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"{name} in {root}: {out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("base")
    ap.add_argument("new")
    ap.add_argument("alt", nargs="*", help="more checkouts, compared with base like new")
    ap.add_argument("--cap", type=int, default=30_000_000)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--jobs", type=int, default=8)
    ap.add_argument("--only", default="")
    a = ap.parse_args()
    sys.path.insert(0, a.new)
    from engine.cases import load_suite
    names = a.only.split(",") if a.only else [c.name for c in load_suite().cases]
    est = {}
    vj = os.path.join(a.new, "docs", "validation", "h200.json")
    if os.path.exists(vj):
        for c in json.load(open(vj)).get("cases", []):
            if c.get("warp_insts") and c.get("sim_rate_warp_insts_per_s"):
                est[c["name"]] = min(c["warp_insts"], a.cap) / c["sim_rate_warp_insts_per_s"]
    order = sorted(names, key=lambda n: -est.get(n, 0))
    roots = {"base": a.base, "new": a.new, **{f"alt{i + 1}": p for i, p in enumerate(a.alt)}}
    ws = list(roots)
    tasks = [(r, n, ws[(j + r) % len(ws)]) for r in range(a.repeat) for n in order for j in range(len(ws))]
    print(f"machine: {host_desc()}, load {os.getloadavg()[0]:.1f}; {len(tasks)} launches, {a.jobs} at a time, cap {a.cap:,}; "
          f"{roots}", flush=True)
    for k, root in roots.items():
        print(f"engine build, {k}: {engine_build_of(root)}", flush=True)
    t0 = time.perf_counter()
    with ThreadPoolExecutor(a.jobs) as ex:
        futs = [(t, ex.submit(child, roots[t[2]], t[1], a.cap)) for t in tasks]
        res = [(t, f.result()) for t, f in futs]
    print(f"{time.perf_counter() - t0:.0f} s wall\n")
    head = f"{'case':30s} {'warp insts':>12s}"
    for w in ws:
        head += f" {w + ' CPU s':>10s} {w + ' M/s':>9s}"
        if w != "base":
            head += f" {w + '/base':>9s}"
    print(head + "  same stats")
    rates, gains, differ = {w: [] for w in ws}, {w: [] for w in ws}, []
    for n in names:
        best, digests, row = {}, set(), f"{n:30s}"
        for w in ws:
            rs = [r for (rep, nn, ww), r in res if nn == n and ww == w]
            best[w] = min(rs, key=lambda r: r["cpu"])
            digests |= {r["digest"] for r in rs}
        row += f" {best['base']['insts']:12,d}"
        for w in ws:
            rates[w].append(best[w]["insts"] / best[w]["cpu"])
            gains[w].append(rates[w][-1] / rates["base"][-1])
            row += f" {best[w]['cpu']:10.2f} {rates[w][-1] / 1e6:9.2f}"
            if w != "base":
                row += f" {gains[w][-1]:8.2f}x"
        if len(digests) != 1:
            differ.append(n)
        print(row + f"  {'yes' if len(digests) == 1 else 'NO'}{'  capped' if best['base']['capped'] else ''}", flush=True)
    print()
    for w in ws:
        rs = rates[w]
        print(f"1 thread, CPU time, {w}: median {statistics.median(rs) / 1e6:.2f} M warp insts/s (goal 3), slowest "
              f"{min(rs) / 1e6:.2f} M/s (floor 2), {sum(r < 2e6 for r in rs)} of {len(rs)} below 2 M/s")
    for w in ws[1:]:
        print(f"{w} / base: median {statistics.median(gains[w]):.3f}x, range {min(gains[w]):.2f}-{max(gains[w]):.2f}x")
    if differ:
        print(f"STATISTICS DIFFER: {', '.join(differ)}")


if __name__ == "__main__":
    main()
