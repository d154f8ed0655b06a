"""Address space of a timing model per simulation thread, this checkout against a baseline checkout, in one run.

    python benchmarks/pool_memory.py [--baseline /work/main] [--threads 1,2,8,16,32] [--case sgemm_tiled16_256]

For each checkout (each built: `setup.py build_ext --inplace`) and thread count, a fresh interpreter builds
`TimingSim("h200", threads=N)`, runs one suite case and reports how much its address space (VmSize) grew,
and the case's wall time. The table gives MiB per extra thread and the ratio against the baseline. Wall
times on a shared 2-core machine are only a sanity check (no slowdown from shared malloc arenas).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

CHILD = r"""
import json, re, sys, time
def vm():
    return int(re.search(r"VmSize:\s+(\d+)", open("/proc/self/status").read()).group(1)) * 1024
from engine.timing import TimingSim
from engine.cases import load_suite
case = load_suite()[sys.argv[2]]
base = vm()
sim = TimingSim("h200", threads=int(sys.argv[1]))
t0 = time.perf_counter()
sim.run_case(case)
print(json.dumps({"threads": sim.threads, "grew": vm() - base, "wall_s": time.perf_counter() - t0}))
"""


def measure(root: Path, threads: int, case: str) -> dict:
    p = subprocess.run([sys.executable, "-c", CHILD, str(threads), case], cwd=root, capture_output=True, text=True,
                       timeout=1800)
    if p.returncode:
        return {"error": p.stderr.strip().splitlines()[-1][:80]}
    return json.loads(p.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--baseline", default="/work/main")
    ap.add_argument("--threads", default="1,2,8,16,32")
    ap.add_argument("--case", default="sgemm_tiled16_256")
    a = ap.parse_args()
    here = Path(__file__).resolve().parent.parent
    ns = [int(t) for t in a.threads.split(",")]
    rows = {(name, n): measure(root, n, a.case) for n in ns for name, root in (("base", Path(a.baseline)),
                                                                             ("this", here))}
    print(f"case {a.case}; address space grown by building the model and running the case (MiB)")
    print(f"{'threads':>7} | {'baseline':>9} {'wall s':>7} | {'this':>9} {'wall s':>7} | {'ratio':>6}")
    for n in ns:
        b, t = rows[("base", n)], rows[("this", n)]
        if "error" in b or "error" in t:
            print(f"{n:>7} | {b.get('error', '')} | {t.get('error', '')}")
            continue
        print(f"{n:>7} | {b['grew'] / 2**20:9.0f} {b['wall_s']:7.1f} | {t['grew'] / 2**20:9.0f} {t['wall_s']:7.1f} | "
              f"{t['grew'] / b['grew']:6.2f}")
    if len(ns) > 1:
        lo, hi = ns[0], ns[-1]
        for name in ("base", "this"):
            d = (rows[(name, hi)]["grew"] - rows[(name, lo)]["grew"]) / (hi - lo) / 2**20
            print(f"{name}: {d:.1f} MiB per extra thread ({lo} -> {hi} threads)")


if __name__ == "__main__":
    main()
