"""The model's side of sched_fair.cu: the same kernels (PTX built here with nvcc -ptx) in simtscope's timing
model, with each warp scheduler policy, summarised as sched_fair_summary.py summarises the H200's records.
Run from the repository root with the project's Python:

    python benchmarks/hw/sim_fair.py [--sms 8] [--policies gto,lrr] [--hw sched_fair.out.gz] [--set k=v ...]

--sms: SMs in the model (the launch has ctas_per_sm CTAs on each; every SM runs the same work, and the
figures are per SM, so a few SMs give what 132 give at a fraction of the time; ld_l2 is the mode where
the L2's load depends on the SM count).
"""
from __future__ import annotations

import argparse
import gzip
import json
import pathlib
import sys

import numpy as np

HW = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HW.parent.parent))
sys.path.insert(0, str(HW))
from engine.timing import TimingSim  # noqa: E402
from sched_fair_summary import parse, summarize  # noqa: E402
from sim_hw import one_entry, ptx_of  # noqa: E402

MODES = {"ld_l1": (0, 256), "ffma": (1, 256), "ld_l2": (2, 128), "ld_bcast": (3, 256), "ld_2line": (4, 256),
         "ld_8line": (5, 256), "ld_32line": (6, 64)}   # sched_fair.cu's main(): mode, iters
KNAME = "_Z6fair_kILi{m}EEvPKfjjifPfP4WRec"


def run_policy(ptx: str, policy: str, sms: int, extra: list[str], configs) -> dict:
    # ptxas's registers for occupancy (timing.sass = regs), as on the H200: 8 CTAs of 256 threads per SM
    sim = TimingSim("h200", overrides=[f"sm.scheduler={policy}", f"gpu.num_sms={sms}", "timing.sass=regs", *extra])
    dev = sim.device
    buf = dev.alloc(((16 << 20) // 4,), np.float32)
    dev.write(buf, np.zeros((16 << 20) // 4, np.float32))
    sink = dev.alloc((1024,), np.float32)
    rec = dev.alloc((sms * 8 * 8 * 22,), np.uint32)       # WRec: 9 x u64 + 4 x u32 = 88 bytes
    out = {}
    for mode, cps in configs:
        m, iters = MODES[mode]
        name = KNAME.format(m=m)
        k = dev.load_ptx(one_entry(ptx, name)).kernel(name)
        mask, stride = (1023, 256) if m != 2 else ((16 << 20) // 4 - 1, 256 * sms * cps * 8)
        sim.flush()
        if m == 2:   # as the H200 run: the buffer is in the L2 (a host copy leaves it there)
            dev.write(buf, np.zeros((16 << 20) // 4, np.float32))
        nw = sms * cps * 8
        res = sim.launch(k, sms * cps, 256, (buf, mask, stride, iters, 0.999, sink, rec))
        raw = dev.from_device(rec, np.uint8)[: nw * 88].reshape(nw, 88)
        c = raw[:, :72].copy().view(np.uint64).reshape(nw, 9)
        u = raw[:, 72:].copy().view(np.uint32).reshape(nw, 4)
        recs = [(int(u[i, 0]), int(u[i, 1]), int(u[i, 2]), int(u[i, 3]), [int(x) for x in c[i]]) for i in range(nw)]
        out[(mode, cps, iters)] = (summarize(recs), res.cycles)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sms", type=int, default=8)
    ap.add_argument("--policies", default="gto,lrr")
    ap.add_argument("--modes", default="ld_l1,ffma,ld_l2,ld_bcast,ld_2line,ld_8line,ld_32line")
    ap.add_argument("--cps", default="8,2", help="CTAs per SM")
    ap.add_argument("--hw", help="the H200's sched_fair.out(.gz)")
    ap.add_argument("--set", action="append", default=[])
    a = ap.parse_args()
    ptx = ptx_of("sched_fair.cu", "sm_90")
    configs = [(m, int(c)) for c in a.cps.split(",") for m in a.modes.split(",")]
    hw = {}
    if a.hw:
        op = gzip.open if a.hw.endswith(".gz") else open
        with op(a.hw, "rt") as f:
            hw = {k: summarize(v) for k, v in parse(f).items()}
    keys = ("first_end", "median_end", "active", "age_rank", "start_spread")
    print(f"{'mode':6s} {'cps':>3s} {'who':>5s} {'cycles':>8s} " + " ".join(f"{k:>11s}" for k in keys))
    res = {p: run_policy(ptx, p, a.sms, a.set, configs) for p in a.policies.split(",")}
    for mode, cps in configs:
        iters = MODES[mode][1]
        rows = [(p, *res[p][(mode, cps, iters)]) for p in res]
        if (mode, cps, iters) in hw:
            h = hw[(mode, cps, iters)]
            rows.append(("H200", h, h.get("cycles_median", 0)))
        for who, s, cyc in rows:
            print(f"{mode:6s} {cps:3d} {who:>5s} {int(s.get('cycles_median', cyc)):8d} "
                  + " ".join(f"{s.get(k, float('nan')):11.3f}" for k in keys), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
