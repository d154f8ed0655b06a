"""Functional core speed: warp instructions per second on validation cases, beside numpy.

    python benchmarks/functional.py [--cases sgemm_tiled16_512,reduce_smem_4M] [--repeat 3]

For each case: the simulated launch (CPU time of the launch only: buffers, module load and the output
check are outside the timed region) and, as a sanity baseline measured in the same run, numpy computing
the same result (the case's float64 reference). Prints a table and the ratio; the goal is at least
20 million warp instructions per second on one core.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")          # one core for numpy too
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.cases import REFERENCES, load_suite  # noqa: E402
from engine.device import Device  # noqa: E402
from engine.runner import prepare  # noqa: E402

GOAL = 20e6


def bench(case, repeat: int):
    best = None
    for _ in range(repeat):
        dev = Device()
        kernel, args, inputs, _ = prepare(case, dev)
        t0 = time.process_time()
        res = dev.launch(kernel, case.grid, case.block, args, shared=case.shared)
        cpu = time.process_time() - t0
        if best is None or cpu < best[1]:
            best = (res.warp_insts, cpu)
    ref = REFERENCES[case.data["check"]]
    t0 = time.process_time()
    ref(case.data.get("params", {}), inputs)
    np_cpu = time.process_time() - t0
    return best[0], best[1], np_cpu


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default="sgemm_tiled16_512,reduce_smem_4M")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args(argv)
    suite = load_suite()
    print(f"{'case':24s} {'warp insts':>12s} {'sim CPU s':>10s} {'M winst/s':>10s} {'numpy CPU s':>12s} "
          f"{'sim/numpy':>10s} {'vs goal':>8s}")
    for name in a.cases.split(","):
        n, cpu, np_cpu = bench(suite[name], a.repeat)
        rate = n / cpu
        print(f"{name:24s} {n:12,d} {cpu:10.3f} {rate / 1e6:10.2f} {np_cpu:12.4f} {cpu / max(np_cpu, 1e-9):10.1f}x "
              f"{rate / GOAL:7.2f}x")


if __name__ == "__main__":
    main()
