"""Byte-identity of the timing model's results between two checkouts (for speed work that must not change them).

    python benchmarks/identity.py --out /tmp/new.json [--root DIR] [--quick]
    python benchmarks/identity.py --compare /tmp/base.json /tmp/new.json

The first form runs a fixed set of launches with the checkout at --root (default: this one; build it
first) and writes, per launch, the statistics (all but wall_s), a SHA-256 of every recording table
(full recording) and of the outputs; the second form diffs two such files and exits 1 on any
difference. The set covers streaming, GEMM (naive, tiled, register-blocked), wmma, reductions,
shared and global atomics, softmax, im2col, the three warp schedulers, the modelled i-cache and fetch unit, two
threads, and every launch of a workload bundle (statistics only).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

# (case, overrides, threads)
RUNS = [
    ("saxpy_1M", [], 1),
    ("vector_add_1M", [], 1),
    ("reduce_smem_4M", [], 1),
    ("reduce_shfl_4M", [], 1),
    ("softmax_4096x128", [], 1),
    ("sgemm_naive_256", [], 1),
    ("sgemm_tiled16_256", [], 1),
    ("sgemm_rb64_512", [], 1),
    ("hgemm_wmma_simple_512", [], 1),
    ("hgemm_wmma_tiled_512", [], 1),
    ("hist_smem_256bins_4M", [], 1),
    ("hist_global_32bins_4M", [], 1),
    ("im2col_3x3_n1", [], 1),
    ("sgemm_tiled16_256", ["sm.scheduler=lrr"], 1),
    ("sgemm_tiled16_256", ["sm.scheduler=two_level"], 1),
    ("reduce_smem_4M", ["sm.scheduler=two_level", "sm.icache=model"], 1),
    ("saxpy_1M", ["sm.icache=model"], 1),
    ("sgemm_tiled16_256", ["sm.icache=model", "sm.fetch_insts=2"], 1),
    ("sgemm_tiled16_256", [], 2),
    ("hist_smem_256bins_4M", [], 2),
]
QUICK = {"saxpy_1M", "sgemm_tiled16_256", "hist_smem_256bins_4M", "reduce_smem_4M"}
BUNDLE = "workloads/examples/example_mlp_b64_fp32.tar.xz"


class Hasher:
    """a recording sink that hashes every table's bytes"""
    def __init__(self):
        self.h = {}

    def begin(self, meta):
        pass

    def append(self, table, chunk):
        self.h.setdefault(table, hashlib.sha256()).update(chunk.tobytes())

    def end(self, stats, status):
        pass

    def digests(self):
        return {k: v.hexdigest() for k, v in sorted(self.h.items())}


def _stats(st):
    return {k: v for k, v in (st or {}).items() if k != "wall_s"}


def measure(root: Path, quick: bool) -> dict:
    sys.path.insert(0, str(root))
    from engine.cases import load_suite
    from engine.runner import run_case
    from engine.timing import TimingSim
    from engine.workload.bundle import open_bundle
    from engine.workload.replay import run_workload
    suite = load_suite()
    out = {}
    for name, sets, threads in RUNS:
        if quick and name not in QUICK:
            continue
        key = f"{name} {' '.join(sets)} T{threads}".replace("  ", " ")
        t0 = time.perf_counter()
        sim = TimingSim("h200", overrides=sets, record="full", threads=threads)
        sink = Hasher()
        sim.flush()

        def launcher(kernel, c, args, sim=sim, sink=sink):
            return None, sim.launch(kernel, c.grid, c.block, args, shared=c.shared, sink=sink)
        run = run_case(suite[name], sim.device, launcher=launcher, keep_outputs=True)
        outs = hashlib.sha256()
        for k in sorted(run.outputs):
            outs.update(run.outputs[k].tobytes())
        out[key] = {"passed": run.passed, "stats": _stats(run.timing.stats), "tables": sink.digests(),
                    "outputs": outs.hexdigest()}
        print(f"{key:55s} {time.perf_counter() - t0:6.1f} s  cycles {run.timing.stats['gpu_sim_cycle']}", flush=True)
    if not quick:
        t0 = time.perf_counter()
        with open_bundle(root / BUNDLE) as b:
            res = run_workload(b, sim=TimingSim("h200", threads=1))
        out["bundle " + BUNDLE] = [[r.sim_cycles, _stats(r.stats)] for r in res.launches]
        print(f"{'bundle ' + Path(BUNDLE).name:55s} {time.perf_counter() - t0:6.1f} s", flush=True)
    return out


def compare(a: dict, b: dict) -> int:
    bad = 0
    for k in sorted(set(a) | set(b)):
        if k not in a or k not in b:
            print(f"only in one: {k}")
            bad += 1
        elif a[k] != b[k]:
            bad += 1
            print(f"DIFFERS: {k}")
            x, y = a[k], b[k]
            if isinstance(x, dict):
                for f in ("passed", "outputs", "tables"):
                    if x.get(f) != y.get(f):
                        print(f"   {f}: {x.get(f)} != {y.get(f)}")
                for s in sorted(set(x["stats"]) | set(y["stats"])):
                    if x["stats"].get(s) != y["stats"].get(s):
                        print(f"   {s}: {str(x['stats'].get(s))[:100]} != {str(y['stats'].get(s))[:100]}")
    print("identical" if not bad else f"{bad} launches differ", f"({len(set(a) & set(b))} compared)")
    return 1 if bad else 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out")
    ap.add_argument("--root", default=str(Path(__file__).resolve().parent.parent))
    ap.add_argument("--quick", action="store_true", help="4 launches, no bundle")
    ap.add_argument("--compare", nargs=2, metavar=("BASE", "NEW"))
    a = ap.parse_args(argv)
    if a.compare:
        return compare(*(json.loads(Path(p).read_text()) for p in a.compare))
    if not a.out:
        ap.error("--out or --compare")
    res = measure(Path(a.root).resolve(), a.quick)
    Path(a.out).write_text(json.dumps(res, indent=1, sort_keys=True, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
