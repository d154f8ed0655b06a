"""Read cta_starts.cu's output (benchmarks/hw/results/h200_cta_starts.out.gz) and print what it settles
about launch and dispatch (docs/calibration.md 5i).

    python benchmarks/hw/cta_starts_report.py [benchmarks/hw/results/h200_cta_starts.out.gz]

clock64 is synchronised within a GPC only (each GPC has its own base), globaltimer is one clock for the GPU
at 32 ns steps: spreads within a GPC come from clock64, spreads across GPCs from globaltimer.
"""
from __future__ import annotations

import gzip
import json
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

GPC_GAP = 5000          # clock64 bases of two GPCs differ by millions of cycles; one GPC's starts by tens


def read_runs(path: Path) -> list[list[dict]]:
    """One list of CTA records per launch (a launch's records start again at CTA 0)."""
    opener = gzip.open if path.suffix == ".gz" else open
    runs: list[list[dict]] = []
    with opener(path, "rt") as f:
        for line in f:
            if not line.startswith("CTA "):
                continue
            r = json.loads(line[4:])
            if r["cta"] == 0:
                runs.append([])
            runs[-1].append(r)
    return runs


def gpc_groups(run: list[dict]) -> list[list[dict]]:
    """The launch's CTAs grouped by clock64 base (one group per GPC)."""
    rs = sorted(run, key=lambda r: r["c0"])
    groups = [[rs[0]]]
    for a, b in zip(rs, rs[1:]):
        if b["c0"] - a["c0"] > GPC_GAP:
            groups.append([])
        groups[-1].append(b)
    return groups


def per_sm(run: list[dict]) -> dict[int, list[dict]]:
    by = defaultdict(list)
    for r in run:
        by[r["sm"]].append(r)
    return {s: sorted(v, key=lambda r: r["c0"]) for s, v in by.items()}


def report(runs: list[list[dict]]) -> list[str]:
    out = []
    for run in runs:
        h = run[0]
        name = f"{h['case']:10s} grid {h['grid']:5d} block {h['block']:4d} smem {h['smem'] >> 10:3d} KiB"
        sms = per_sm(run)
        firsts = [v[0] for v in sms.values()]
        groups = gpc_groups(firsts)
        spread_gpc = max(max(r["c0"] for r in g) - min(r["c0"] for r in g) for g in groups)
        t0 = [r["t0"] for r in firsts]
        line = (f"{name}: {len(groups)} GPCs ({'/'.join(str(len(g)) for g in groups)} SMs); first CTA per SM starts "
                f"within {spread_gpc} cycles in a GPC, {max(t0) - min(t0)} ns across the GPU")
        first_d = [v[0]["c1"] - v[0]["c0"] for v in sms.values()]
        later_d = [r["c1"] - r["c0"] for v in sms.values() for r in v[1:]]
        line += f"; c1-c0 first {np.median(first_d):.0f}"
        if later_d:
            gaps = [b["c0"] - a["c1"] for v in sms.values() for a, b in zip(v, v[1:])]
            s2s = [b["c0"] - a["c0"] for v in sms.values() for a, b in zip(v, v[1:])]
            line += (f", later {np.median(later_d):.0f}; same SM: next start - previous c1 p10/p50/p90 "
                     f"{np.percentile(gaps, 10):.0f}/{np.median(gaps):.0f}/{np.percentile(gaps, 90):.0f}, "
                     f"start to start {np.median(s2s):.0f}")
        out.append(line)
    return out


if __name__ == "__main__":
    p = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parent / "results" / "h200_cta_starts.out.gz")
    print("\n".join(report(read_runs(p))))
