"""Whole-model simulation speed: the zoo's GPT-2-small and ResNet-18 bundles, functional and timed.

    python benchmarks/workloads.py [--bundles workloads/zoo/gpt2_small_t256_fp16.tar.xz,...] [--config h200]

Per bundle, in one process, on one simulation thread unless --threads says otherwise: CPU seconds and warp instructions per second of the whole forward pass in
the functional core and in the timing model (every launch timed, cold caches), beside the single-kernel
timing rate of a validation case measured in the same run (the baseline: sgemm_tiled16_512). The goal of
issue 8: a whole GPT-2-small forward in timing mode in under 2 minutes on one core.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.cases import load_suite  # noqa: E402
from engine.runner import prepare  # noqa: E402
from engine.timing import TimingSim  # noqa: E402
from engine.workload.bundle import open_bundle  # noqa: E402
from engine.workload.replay import run_workload  # noqa: E402

DEFAULT = ",".join(str(ROOT / "workloads" / "zoo" / f) for f in
                   ("gpt2_small_t256_fp16.tar.xz", "resnet18_b1_224_fp16.tar.xz", "resnet18_b16_224_fp16.tar.xz"))
GOAL_S = 120.0


def _cpu(fn):
    t0 = time.process_time()
    r = fn()
    return r, time.process_time() - t0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bundles", default=DEFAULT)
    ap.add_argument("--config", default="h200")
    ap.add_argument("--baseline", default="sgemm_tiled16_512")
    ap.add_argument("--threads", type=int, default=1, help="simulation threads (1: the one-core figure)")
    a = ap.parse_args(argv)
    case = load_suite()[a.baseline]
    sim = TimingSim(a.config, threads=a.threads)
    kernel, args, _, _ = prepare(case, sim.device)
    sim.flush()
    res, t = _cpu(lambda: sim.launch(kernel, case.grid, case.block, args, shared=case.shared))
    base = res.warp_insts / t
    print(f"baseline {a.baseline}: {res.warp_insts:,d} warp insts in {t:.2f} s CPU = {base / 1e6:.2f} M/s (timing)")
    print(f"{'bundle':28s} {'launches':>8s} {'warp insts':>13s} {'func s':>8s} {'func M/s':>9s} {'timing s':>9s} "
          f"{'timing M/s':>10s} {'vs baseline':>11s} {'sim cycles':>12s} {'outputs':>8s} {'goal 120 s':>10s}")
    for path in a.bundles.split(","):
        with open_bundle(path) as b:
            fres, ft = _cpu(lambda: run_workload(b))
            tres, tt = _cpu(lambda: run_workload(b, sim=TimingSim(a.config, threads=a.threads)))
        w = tres.summary()["warp_insts"]
        print(f"{b.name:28s} {len(b.launches):8d} {w:13,d} {ft:8.1f} {w / ft / 1e6:9.2f} {tt:9.1f} "
              f"{w / tt / 1e6:10.2f} {w / tt / base:10.2f}x {tres.summary()['sim_cycles']:12,d} "
              f"{'pass' if tres.outputs_pass and fres.outputs_pass else 'FAIL':>8s} "
              f"{'met' if tt < GOAL_S else 'missed':>10s}", flush=True)


if __name__ == "__main__":
    main()
