"""sreg.cu's latency launches in the simulator beside the H200's (docs/calibration.md 5w): the same PTX
(benchmarks/hw/sreg.sm90.ptx, nvcc's for the binary that ran), the H200's clock readings from
benchmarks/hw/results/h200_sreg.out and its Nsight Compute stall ratios from h200_sreg_ncu.csv.gz.

    python benchmarks/hw/sim_sreg.py [--set KEY=VALUE ...]
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))
from engine.timing import TimingSim  # noqa: E402
from ncu_stalls import launches, stalls  # noqa: E402

PTX = HERE / "sreg.sm90.ptx"
OUT = HERE / "results" / "h200_sreg.out"
NCU = HERE / "results" / "h200_sreg_ncu.csv.gz"
SOURCES = {0: "add", 1: "smid", 2: "warpid", 3: "globaltimer_lo", 4: "clock", 5: "ldconst"}
ROUNDS = 256
REASONS = ["short_scoreboard", "wait"]


def h200() -> dict[int, dict]:
    """{op: {cycles_per_round, reason: ratio}} for the latency kernels (128 threads)"""
    out: dict[int, dict] = {}
    for line in OUT.read_text().splitlines():
        r = json.loads(line.split(" ", 1)[1])
        if r["kernel"].startswith("sreg_lat"):
            out[int(r["kernel"].split("<")[1][0])] = {"cycles_per_round": r["cycles_per_round"]}
    for d in launches(NCU):
        if d["kernel"].startswith("void sreg_lat"):
            out[int(d["kernel"].split("<")[1][0])] |= stalls(d)
    return out


def simulate(op: int, overrides: list[str] | None = None) -> dict:
    """one launch of sreg_lat<op> (one CTA of 128 threads, 256 rounds): {cycles_per_round (the kernel's own
    clock readings, warp 0), stalls}"""
    sim = TimingSim("h200", overrides=overrides or [])
    k = sim.device.load_ptx(PTX.read_text(), PTX.name).kernel(f"_Z8sreg_latILi{op}EEviPj")
    buf = sim.device.to_device(np.zeros(2048, np.uint32))
    sim.flush()
    st = sim.launch(k, 1, 128, [np.int32(ROUNDS), buf]).stats
    lat = sim.device.from_device(buf)[:128:32].astype(np.float64)
    return {"cycles_per_round": float(lat.mean()) / ROUNDS, "stalls": st["stalls_per_issue"]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", action="append", default=[], help="a configuration override, e.g. sm.sreg_latency_cycles=0")
    a = ap.parse_args()
    hw = h200()
    print(f"{'source':15s} {'cycles per round sim / H200':>28s}  " + "  ".join(f"{r:>22s}" for r in REASONS))
    for op, name in SOURCES.items():
        s, h = simulate(op, a.set), hw[op]
        cells = "  ".join(f"{s['stalls'].get(r, 0.0):9.2f} / {h.get(r, 0.0):9.2f}" for r in REASONS)
        print(f"{name:15s} {s['cycles_per_round']:13.2f} / {h['cycles_per_round']:12.2f}  {cells}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
