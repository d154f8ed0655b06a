"""pipe_own.cu's launches in the simulator beside the H200's (docs/calibration.md 5u): the same PTX
(benchmarks/hw/pipe_own.sm90.ptx, nvcc's for the binary that ran), the H200's Nsight Compute ratios from
benchmarks/hw/results/h200_pipe_own_ncu.csv.gz.

    python benchmarks/hw/sim_pipe_own.py
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))
from engine.timing import TimingSim  # noqa: E402
from ncu_stalls import launches, stalls  # noqa: E402

PTX = HERE / "pipe_own.sm90.ptx"
NCU = HERE / "results" / "h200_pipe_own_ncu.csv.gz"
PIPES = {0: ("sfu", -1e-3), 1: ("fp64", 0.999), 2: ("fp32", 0.999)}
REASONS = ["wait", "math_pipe_throttle", "mio_throttle", "not_selected", "short_scoreboard"]


def h200() -> dict[tuple[int, int], dict]:
    """{(op, threads): {cycles, reason: ratio}} from the ncu file, launches in pipe_own.cu's order"""
    return {(int(d["kernel"].split("<")[1][0]), int(d["launch__block_size"])): {"cycles": d["gpc__cycles_elapsed.max"]}
            | stalls(d) for d in launches(NCU)}


def simulate(op: int, threads: int, config: str = "h200") -> dict:
    """one launch of pipe_k<op> (one CTA, 64 rounds) in the simulator: {cycles, stalls_per_issue, out}"""
    sim = TimingSim(config)
    k = sim.device.load_ptx(PTX.read_text(), PTX.name).kernel(f"_Z6pipe_kILi{op}EEvfiPf")
    buf = sim.device.to_device(np.zeros(1024, np.float32))
    sim.flush()
    st = sim.launch(k, 1, threads, [np.float32(PIPES[op][1]), np.int32(64), buf]).stats
    return {"cycles": st["gpu_sim_cycle"], "stalls": st["stalls_per_issue"], "out": sim.device.from_device(buf)[:threads]}


def main() -> int:
    hw = h200()
    print(f"{'pipe':5s} {'threads':>7s} {'cycles sim / H200':>20s}  " + "  ".join(f"{r:>22s}" for r in REASONS))
    for op, (name, _) in PIPES.items():
        for threads in (128, 1024):
            s, h = simulate(op, threads), hw[op, threads]
            cells = "  ".join(f"{s['stalls'].get(r, 0.0):9.2f} / {h.get(r, 0.0):9.2f}" for r in REASONS)
            print(f"{name:5s} {threads:7d} {s['cycles']:9,d} / {h['cycles']:8,.0f}  {cells}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
