"""The model's stall mix beside the H200's, per suite case, for one checkout or two (accounting work).

    python benchmarks/stall_mix.py [--cases a,b,...] [--root DIR] [--baseline DIR] [--json OUT]

Each case runs whole, one thread, in a fresh process per checkout (H200 preset, no overrides). Printed: per case the
warp-cycles per issued instruction of the five reasons where the model and the H200 differ most (baseline > this /
H200), whether the cycles are identical between the checkouts, then per reason the median over the cases and the
median relative L1 distance of each case's mix from the H200's (sum over reasons but `selected` of |sim - hw|,
over the H200's sum). The H200's ratios are Nsight Compute's `smsp__average_warp_latency_issue_stalled_*` of the same
launch (engine/measured.case_measurement). docs/calibration.md 5u used it.
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
SHOWN = ["wait", "math_pipe_throttle", "short_scoreboard", "mio_throttle", "not_selected"]
MEDIANS = ["long_scoreboard", "wait", "short_scoreboard", "not_selected", "mio_throttle", "dispatch_stall",
           "math_pipe_throttle", "selected"]

_CHILD = r"""
import json, os, sys
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
root, names = sys.argv[1], sys.argv[2].split(",")
sys.path.insert(0, root)
from engine.cases import load_suite
from engine.measured import case_measurement
from engine.runner import prepare
from engine.timing import TimingSim
suite, out = load_suite(), {}
for n in names:
    case = suite[n]
    sim = TimingSim("h200", [], threads=1)
    kernel, args, _, bufs = prepare(case, sim.device)
    sim.flush()
    st = sim.launch(kernel, case.grid, case.block, args, shared=case.shared).stats
    m = case_measurement(n) or {}
    out[n] = {"sim": st["stalls_per_issue"], "hw": m.get("stalls"), "cycles": st["gpu_sim_cycle"],
              "hw_cycles": m.get("cycles")}
print(json.dumps(out))
"""


def run(root: Path, names: list[str]) -> dict:
    p = subprocess.run([sys.executable, "-c", _CHILD, str(root), ",".join(names)], capture_output=True, text=True)
    if p.returncode:
        raise SystemExit(f"{root}: {p.stderr.strip()[-2000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def distance(sim: dict, hw: dict) -> float:
    keys = (set(sim) | set(hw)) - {"selected"}
    total = sum(v for k, v in hw.items() if k != "selected")
    return sum(abs(sim.get(k, 0.0) - hw.get(k, 0.0)) for k in keys) / total if total else 0.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default="", help="suite cases (default: all)")
    ap.add_argument("--root", default=str(HERE), help="the checkout to measure (default: this one)")
    ap.add_argument("--baseline", default="", help="another built checkout, run beside it")
    ap.add_argument("--json", default="", help="write {checkout: {case: {sim, hw, cycles, hw_cycles}}} here")
    a = ap.parse_args()
    sys.path.insert(0, a.root)
    from engine.cases import load_suite
    names = a.cases.split(",") if a.cases else [c.name for c in load_suite().cases]
    roots = {"this": Path(a.root)} | ({"base": Path(a.baseline)} if a.baseline else {})
    with ThreadPoolExecutor(len(roots)) as ex:
        res = dict(zip(roots, ex.map(lambda r: run(r, names), roots.values())))
    new, base = res["this"], res.get("base")
    names = [n for n in names if new[n]["hw"]]
    fmt = (lambda n, r: f"{base[n]['sim'].get(r, 0):5.2f}>{new[n]['sim'].get(r, 0):5.2f}/{new[n]['hw'].get(r, 0):5.2f}") \
        if base else (lambda n, r: f"{new[n]['sim'].get(r, 0):5.2f}/{new[n]['hw'].get(r, 0):5.2f}")
    print(f"{'case':28s} {'same cycles' if base else 'cycles':>11s} " + " ".join(f"{r[:17]:>17s}" for r in SHOWN))
    for n in names:
        c = str(base[n]["cycles"] == new[n]["cycles"]) if base else f"{new[n]['cycles']:,}"
        print(f"{n:28s} {c:>11s} " + " ".join(f"{fmt(n, r):>17s}" for r in SHOWN))
    print(f"\nmedians over {len(names)} cases ({'baseline > this / H200' if base else 'this / H200'}):")
    for r in MEDIANS:
        hw = statistics.median(new[n]["hw"].get(r, 0.0) for n in names)
        mn = statistics.median(new[n]["sim"].get(r, 0.0) for n in names)
        mb = f"{statistics.median(base[n]['sim'].get(r, 0.0) for n in names):6.2f} > " if base else ""
        print(f"  {r:20s} {mb}{mn:6.2f} / {hw:6.2f}")
    dn = statistics.median(distance(new[n]["sim"], new[n]["hw"]) for n in names)
    db = f"{statistics.median(distance(base[n]['sim'], base[n]['hw']) for n in names):.3f} > " if base else ""
    print(f"relative L1 distance of a case's stall mix from the H200's, median: {db}{dn:.3f}")
    if a.json:
        Path(a.json).write_text(json.dumps(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
