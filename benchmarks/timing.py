"""Timing-model speed: warp instructions and simulated cycles per second, beside the functional core.

    python benchmarks/timing.py [--cases sgemm_tiled16_1024,saxpy_16M] [--config h200]

Per case, measured in the same process: the timing simulation (CPU seconds of the launch only) and the
functional-only run of the same launch. The goal is at least 2 million warp instructions per second in
timing mode on one core (published: GPGPU-Sim about 3 thousand, Accel-Sim about 12.5 thousand).
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.cases import load_suite  # noqa: E402
from engine.device import Device  # noqa: E402
from engine.runner import prepare  # noqa: E402
from engine.timing import TimingSim  # noqa: E402

GOAL = 2e6


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default="sgemm_tiled16_1024,saxpy_16M")
    ap.add_argument("--config", default="h200")
    a = ap.parse_args(argv)
    suite = load_suite()
    print(f"{'case':22s} {'warp insts':>12s} {'sim cycles':>11s} {'timing s':>9s} {'M winst/s':>10s} "
          f"{'M cycles/s':>10s} {'func s':>8s} {'func M winst/s':>15s} {'timing/func':>11s} {'vs goal':>8s}")
    for name in a.cases.split(","):
        case = suite[name]
        sim = TimingSim(a.config)
        kernel, args, _, _ = prepare(case, sim.device)
        sim.flush()
        t0 = time.process_time()
        res = sim.launch(kernel, case.grid, case.block, args, shared=case.shared)
        t_cpu = time.process_time() - t0
        dev = Device()
        k2, args2, _, _ = prepare(case, dev)
        t0 = time.process_time()
        fres = dev.launch(k2, case.grid, case.block, args2, shared=case.shared)
        f_cpu = time.process_time() - t0
        rate = res.warp_insts / t_cpu
        print(f"{name:22s} {res.warp_insts:12,d} {res.cycles:11,d} {t_cpu:9.2f} {rate / 1e6:10.2f} "
              f"{res.cycles / t_cpu / 1e6:10.3f} {f_cpu:8.2f} {fres.warp_insts / f_cpu / 1e6:15.2f} "
              f"{t_cpu / f_cpu:10.1f}x {rate / GOAL:7.2f}x")


if __name__ == "__main__":
    main()
