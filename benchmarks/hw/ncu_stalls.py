"""Nsight Compute's CSV (`--csv --print-units base --log-file`, as benchmarks/hw/stall_bench.sh writes it, plain or
gzipped) read per launch: the launches in file order, each {"kernel": its name, metric: value}, and a launch's
per-issue stall ratios by reason."""
from __future__ import annotations

import csv
import gzip
from pathlib import Path

PREFIX, SUFFIX = "smsp__average_warps_issue_stalled_", "_per_issue_active.ratio"


def launches(path: Path) -> list[dict]:
    opener = gzip.open if path.suffix == ".gz" else open
    rows: dict[str, dict] = {}
    with opener(path, "rt") as f:
        for r in csv.DictReader(line for line in f if not line.startswith("==")):
            launch = rows.setdefault(r["ID"], {"kernel": r["Kernel Name"]})
            launch[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
    return list(rows.values())


def stalls(launch: dict) -> dict[str, float]:
    """{reason: warp-cycles per issued instruction}, e.g. {"wait": 2.9, "short_scoreboard": 1.81, ...}"""
    return {k[len(PREFIX):-len(SUFFIX)]: v for k, v in launch.items() if k.startswith(PREFIX) and k.endswith(SUFFIX)}
