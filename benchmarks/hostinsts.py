"""Host instructions and simulated cache misses of the timing engine, counted by valgrind: a deterministic A/B.

    python benchmarks/hostinsts.py --cases saxpy_1M,reduce_shfl_4M [--baseline DIR] [--set KEY=VALUE ...]

Wall and CPU time on a shared machine move by 10-60 % between runs of one launch (performance.md), more than
most speed changes. This counts instead, under `valgrind --tool=callgrind --cache-sim=yes`, what the
simulation itself executes (only inside gs_tsim_run: not Python, not the set-up): host instructions (Ir) and
the misses of valgrind's simulated L1 data and instruction caches (32 KiB each). The counts are the same on
every run of the same build, so a 1 % change is visible; what they do not show is the cost of a miss in the
last-level cache or in memory (the simulated last level is this host's L3 as one direct-mapped cache), which
is where a memory-bound launch spends much of its time: use it beside benchmarks/timing.py, not instead.
valgrind does not run AVX-512 code, so on a host that has it count portable builds (SIMTSCOPE_PORTABLE=1).

Per case, this checkout (with --set overrides) and, with --baseline, the built checkout in DIR (without
them): warp instructions, sim cycles, Ir, Ir per warp instruction, D1 and I1 misses, and the ratios. Each
launch runs in a fresh process about 50 times slower than natively (saxpy_1M: ~3 minutes).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from engine_build import engine_build_of

CHILD = r"""
import json, os, sys
os.environ["OPENBLAS_NUM_THREADS"] = "1"
root, name, over = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
sys.path.insert(0, root)
from engine.cases import load_suite
from engine.runner import prepare
from engine.timing import TimingSim
case = load_suite()[name]
sim = TimingSim("h200", over, threads=1)
kernel, args, _, bufs = prepare(case, sim.device)
sim.flush()
try:
    sim.sass_mode(kernel.module, kernel.name)       # ptxas and the re-lowering, outside gs_tsim_run anyway
except TypeError:                                   # (older checkouts: sass_mode(module))
    sim.sass_mode(kernel.module)
st = sim.launch(kernel, case.grid, case.block, args, shared=case.shared).stats
print(json.dumps({"insts": st["warp_insts"], "cycles": st["gpu_sim_cycle"]}))
"""
EVENTS = ("Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw")


def count(root: Path, name: str, overrides: list[str]) -> dict:
    """one launch under callgrind: the launch's counts and the events collected inside gs_tsim_run"""
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run(["valgrind", "--tool=callgrind", "--cache-sim=yes", "--toggle-collect=gs_tsim_run",
                              f"--callgrind-out-file={tmp}/cg.out", sys.executable, "-c", CHILD, str(root), name,
                              json.dumps(overrides)], capture_output=True, text=True, check=False)
    if out.returncode:
        hint = ""
        if "SIGILL" in out.stderr or "unhandled instruction" in out.stderr:
            hint = (f"\n(valgrind cannot run this build's instructions: the engine in {root} is "
                    f"'{engine_build_of(root)}'; build it with SIMTSCOPE_PORTABLE=1 python setup.py build_ext "
                    "--inplace --force to count it)")
        raise SystemExit(f"{name} in {root}: {out.stderr.strip()[-2000:]}{hint}")
    m = re.search(r"Collected : ([\d ]+)", out.stderr)
    if not m:
        raise SystemExit(f"{name} in {root}: no callgrind totals in valgrind's output")
    ev = dict(zip(EVENTS, (int(v) for v in m.group(1).split())))
    return {**json.loads(out.stdout.strip().splitlines()[-1]), **ev}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default="saxpy_1M")
    ap.add_argument("--baseline", metavar="DIR", help="a built checkout to count the same launches in")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="config override for this checkout's launches (not the baseline's)")
    a = ap.parse_args(argv)
    if shutil.which("valgrind") is None:
        raise SystemExit("hostinsts.py needs valgrind (callgrind) on the PATH")
    here = Path(__file__).resolve().parent.parent
    sides = [("new", here, a.set)] + ([("base", Path(a.baseline).resolve(), [])] if a.baseline else [])
    print(f"callgrind inside gs_tsim_run, one thread; this checkout {here}" + (f" with {a.set}" if a.set else "")
          + (f"; baseline {sides[1][1]}" if a.baseline else ""))
    head = f"{'case':26s} {'side':5s} {'warp insts':>11s} {'cycles':>9s} {'Ir':>15s} {'Ir/inst':>8s} {'D1 miss':>12s} {'I1 miss':>11s}"
    print(head)
    for name in a.cases.split(","):
        res = {}
        for side, root, over in sides:
            r = res[side] = count(root, name, over)
            print(f"{name:26s} {side:5s} {r['insts']:11,d} {r['cycles']:9,d} {r['Ir']:15,d} {r['Ir'] / r['insts']:8.0f} "
                  f"{r['D1mr'] + r['D1mw']:12,d} {r['I1mr']:11,d}", flush=True)
        if a.baseline:
            n, b = res["new"], res["base"]
            print(f"{name:26s} {'new/base':>17s} {'same' if (n['insts'], n['cycles']) == (b['insts'], b['cycles']) else 'DIFFERENT'}"
                  f"{'':9s} Ir {n['Ir'] / b['Ir']:.4f}x, D1 misses {(n['D1mr'] + n['D1mw']) / (b['D1mr'] + b['D1mw']):.4f}x, "
                  f"I1 misses {n['I1mr'] / max(1, b['I1mr']):.4f}x", flush=True)


if __name__ == "__main__":
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    main()
