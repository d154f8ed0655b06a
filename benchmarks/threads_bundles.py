"""One and two simulation threads on whole workload bundles: the wall time of `simtscope run --workload B --timing
--threads T` (the run's own "wall", run_workload's: buffers, module lowering, every launch), its ratio, and whether
the statistics are the same for every thread count (and against a baseline checkout).

    python benchmarks/threads_bundles.py [--bundles resnet18_b1_224_fp16,...] [--threads 1,2] [--repeat 3]
        [--root DIR] [--baseline DIR] [--cpus 0,1] [--fresh-ir] [--json OUT]
    python benchmarks/threads_bundles.py --split [--bundles ...] [--threads 1] [--root DIR] [--baseline DIR]

Each run is a fresh process (`python -m simtscope run ... --json`) in the checkout's root (this one, and --baseline's
when given, alternating run by run so that both see the same machine); --cpus pins every run to those cores (taskset),
as "2 threads on a 2-core machine" asks. Before timing, every module of each bundle is compiled by ptxas once (the SASS
disk cache), so no run pays for ptxas; a tree with the disk cache of lowered modules (engine/ircache.py) lowers each
module in its first run only, unless --fresh-ir. Prints, per bundle and checkout, the best and median wall per thread count, the
ratio of the 1-thread median to each other median, and "identical" when every run's per-launch statistics (all but
wall times) and outputs agree. Exit status 1 if any differ.

--split prints instead where the run's own thread spends its CPU time (thread_time around the runner's buffer
filling and module loading, TimingSim.sass_mode, flush, launch and _simulate), one run per bundle and tree.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from engine_build import engine_build_of, host_desc

ROOT = Path(__file__).resolve().parent.parent
BUNDLES = "resnet18_b1_224_fp16,resnet18_b16_224_fp16,gpt2_small_t256_fp16,bert_base_b4_t128_fp16,lenet5_b64_fp32"


def _env(root: Path) -> dict:
    """the environment of a run in `root`: its tree first on the module path, the caller's path after it"""
    path = os.pathsep.join(p for p in (str(root), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path}


def bundle_path(root: Path, name: str) -> Path:
    for d in ("workloads/zoo", "workloads/examples"):
        p = root / d / f"{name}.tar.xz"
        if p.exists():
            return p
    p = Path(name)
    if p.exists():
        return p.resolve()
    raise SystemExit(f"no bundle {name} in {root}/workloads/zoo or workloads/examples")


def warm(path: Path) -> None:
    """ptxas once for every module of the bundle (the SASS disk cache: engine/sass/cache.py)."""
    sys.path.insert(0, str(ROOT))
    from engine import sass
    from engine.workload.bundle import open_bundle
    with open_bundle(path) as b:
        for rel in sorted({L.ptx for L in b.launches if not L.opaque}):
            try:
                sass.analyse(b.ptx_text(rel))
            except (sass.SassUnavailable, sass.SassError):
                pass


def one_run(root: Path, path: Path, threads: int, cpus: str | None) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "r.json"
        cmd = [sys.executable, "-m", "simtscope", "run", "--workload", str(path), "--timing", "--threads", str(threads),
               "--json", str(out)]
        if cpus:
            cmd = ["taskset", "-c", cpus] + cmd
        t0 = time.perf_counter()
        p = subprocess.run(cmd, cwd=root, capture_output=True, text=True, env=_env(root))
        proc = time.perf_counter() - t0
        if not out.exists():
            raise SystemExit(f"{' '.join(cmd)} (in {root}) failed:\n{p.stderr[-2000:]}")
        d = json.loads(out.read_text())
    launches = [{**{k: v for k, v in L.items() if k != "wall_s"},
                 "stats": {k: v for k, v in (L.get("stats") or {}).items() if k != "wall_s"}} for L in d["launches"]]
    return {"wall": d["wall_s"], "proc": proc, "result": json.dumps([launches, d["outputs"]], sort_keys=True),
            "launch_walls": [L.get("wall_s") for L in d["launches"]]}


SPLIT = r"""
import contextlib, io, sys, time, collections
from engine import timing
from engine.workload import replay
T = collections.defaultdict(float)
def wrap(obj, name, key):
    f = getattr(obj, name)
    def g(*a, **k):
        t = time.thread_time()
        try:
            return f(*a, **k)
        finally:
            T[key] += time.thread_time() - t
    setattr(obj, name, g)
for obj, name, key in [(replay.WorkloadRunner, "__init__", "init"), (replay.WorkloadRunner, "_module", "modules"),
                       (timing.TimingSim, "sass_mode", "sass_mode"), (timing.TimingSim, "_simulate", "simulate"),
                       (timing.TimingSim, "launch", "launch"), (timing.TimingSim, "flush", "flush"),
                       (replay, "run_workload", "run")]:
    wrap(obj, name, key)
from simtscope import cli
sys.argv = ["simtscope", "run", "--workload", sys.argv[1], "--timing", "--threads", sys.argv[2]]
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    try:
        cli.main()
    except SystemExit:
        pass
eager = not hasattr(replay.WorkloadRunner, "prepare")       # (main before par2: modules loaded in __init__)
print(f"{T['run']:8.2f} {T['init'] - (T['modules'] if eager else 0):8.2f} {T['modules']:8.2f} {T['sass_mode']:9.2f} "
      f"{T['launch'] - T['simulate'] - T['sass_mode']:8.2f} {T['flush']:6.2f} {T['simulate']:9.2f}")
"""


def split(roots: dict, names: list[str], threads: list[int], cpus: str | None) -> int:
    print(f"{'bundle':26s} {'tree':5s} {'T':>2s} {'run':>8s} {'buffers':>8s} {'modules':>8s} {'sass_mode':>9s} "
          f"{'launch':>8s} {'flush':>6s} {'simulate':>9s}   (CPU s of the run's thread)")
    for name in names:
        path = bundle_path(ROOT, name)
        warm(path)
        for r, root in roots.items():
            for t in threads:
                cmd = [sys.executable, "-c", SPLIT, str(path), str(t)]
                if cpus:
                    cmd = ["taskset", "-c", cpus] + cmd
                p = subprocess.run(cmd, cwd=root, capture_output=True, text=True, env=_env(root))
                print(f"{name:26s} {r:5s} {t:2d} {p.stdout.strip() or p.stderr[-300:]}", flush=True)
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bundles", default=BUNDLES, help="names in workloads/zoo or workloads/examples, or paths")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--root", default=str(ROOT), help="the checkout to time (default: this one)")
    ap.add_argument("--baseline", help="another built checkout, run the same way (alternating)")
    ap.add_argument("--cpus", help="taskset -c list for every run, e.g. 0,1")
    ap.add_argument("--json", help="write the walls, ratios and a digest of the statistics here")
    ap.add_argument("--fresh-ir", action="store_true",
                    help="lower every module in every run (SIMTSCOPE_IR_CACHE=0: no disk cache of lowered modules; "
                         "without it, a tree that has the cache lowers a bundle in its first run only)")
    ap.add_argument("--warm-only", action="store_true", help="only compile the bundles' modules with ptxas (cache)")
    ap.add_argument("--split", action="store_true", help="where the run's thread spends its CPU time, per bundle")
    a = ap.parse_args(argv)
    if a.fresh_ir:
        os.environ["SIMTSCOPE_IR_CACHE"] = "0"      # (every run's environment is this one's: _env)
    if a.warm_only:
        for name in a.bundles.split(","):
            warm(bundle_path(ROOT, name))
        return 0
    threads = [int(t) for t in a.threads.split(",")]
    roots = {"this": Path(a.root).resolve()} | ({"base": Path(a.baseline).resolve()} if a.baseline else {})
    if a.split:
        return split(roots, a.bundles.split(","), threads, a.cpus)
    rows, doc, bad = [], {}, 0
    for name in a.bundles.split(","):
        path = bundle_path(ROOT, name)
        warm(path)
        walls = {(r, t): [] for r in roots for t in threads}
        procs = {(r, t): [] for r in roots for t in threads}
        per_launch = {(r, t): [] for r in roots for t in threads}
        results = set()
        for _ in range(a.repeat):
            for r, root in roots.items():
                for t in threads:
                    res = one_run(root, path, t, a.cpus)
                    walls[r, t].append(res["wall"])
                    procs[r, t].append(res["proc"])
                    per_launch[r, t].append(res["launch_walls"])
                    results.add(res["result"])
                    print(f"  {name} {r} T{t}: {res['wall']:.2f} s", file=sys.stderr, flush=True)
        same = len(results) == 1
        bad += not same
        for r in roots:
            med = {t: statistics.median(walls[r, t]) for t in threads}
            pmed = {t: statistics.median(procs[r, t]) for t in threads}
            doc.setdefault(name, {})[r] = {f"T{t}": walls[r, t] for t in threads} | {
                f"T{t}_process": procs[r, t] for t in threads} | {
                f"T{t}_launches": per_launch[r, t] for t in threads} | {
                f"ratio_T{t}": med[threads[0]] / med[t] for t in threads[1:]} | {
                "identical": same, "digests": sorted(hashlib.sha256(x.encode()).hexdigest()[:16] for x in results)}
            rows.append((name, r, " ".join(f"{min(walls[r, t]):7.2f} {med[t]:7.2f}" for t in threads),
                         " ".join(f"{med[threads[0]] / med[t]:5.2f}x" for t in threads[1:]),
                         " ".join(f"{pmed[t]:6.2f}" for t in threads), same))
    print(f"machine: {host_desc()}")
    for r, root in roots.items():
        print(f"engine build, {r}: {engine_build_of(root)}")
    head = " ".join(f"{'T' + str(t) + ' best':>7s} {'median':>7s}" for t in threads)
    phead = " ".join(f"{'proc T' + str(t):>6s}" for t in threads)
    print(f"{'bundle':26s} {'tree':5s} {head}  {'ratio (T' + str(threads[0]) + ' median / median)':>12s}  {phead}  "
          "statistics")
    for name, r, w, ratio, proc, same in rows:
        print(f"{name:26s} {r:5s} {w}  {ratio:>12s}  {proc}  {'identical' if same else 'DIFFER'}")
    print(f"(wall: the run's own, seconds; proc T: the median wall of the whole process, interpreter start, imports "
          f"and simulator creation included; {a.repeat} run(s) each, fresh process"
          + (f", pinned to CPUs {a.cpus}" if a.cpus else "") + ")")
    if a.json:
        Path(a.json).write_text(json.dumps(doc, indent=1))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
