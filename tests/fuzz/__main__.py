"""The long fuzz run: `python -m tests.fuzz --target ptx --budget SECONDS --out DIR [--seed N]`.

Generates inputs for one front end, runs them in batches in forked children under a 3 GiB address-space
limit and a per-case time limit (tests/fuzz/sandbox.py), and writes every crash, hang or escaped
exception to DIR/<target>/ as a reproducer (the input) plus a .txt with the outcome. DIR/<target>/
summary.json counts the inputs tried, the time, the outcomes and the distinct findings; it is rewritten
after every batch, so an interrupted run still says what it did.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import random
import time
from collections import Counter
from pathlib import Path

from . import inputs, sandbox

MAX_SAVED = 30      # reproducers kept per crash/hang kind


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__.split("\n\n")[0])
    ap.add_argument("--target", choices=sorted(inputs.TARGETS), default="ptx")
    ap.add_argument("--budget", type=float, default=60.0, help="seconds to run")
    ap.add_argument("--out", type=Path, default=Path("fuzz-out"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--batch", type=int, default=25, help="inputs per forked child")
    ap.add_argument("--time-limit", type=float, default=20.0, help="seconds per input")
    a = ap.parse_args(argv)
    summary = fuzz(a.target, a.budget, a.out, a.seed, a.batch, a.time_limit, log=print)
    print(json.dumps({k: v for k, v in summary.items() if k != "findings"}, indent=1))
    return 1 if summary["findings"] else 0


def fuzz(target: str, budget: float, out: Path | None, seed: int, batch: int = 25, time_limit: float = 20.0,
         log=None) -> dict:
    """Run `target` for `budget` seconds; returns the summary (also written to out/target/summary.json)."""
    t_init = time.monotonic()
    source = inputs.TARGETS[target](random.Random(seed))
    folder = out / target if out else None
    if folder:
        folder.mkdir(parents=True, exist_ok=True)
    if log:
        log(f"{target}: inputs ready after {time.monotonic() - t_init:.1f} s (imports, seed files); fuzzing for {budget:g} s")
    t0 = time.monotonic()
    counts: Counter = Counter()
    findings: dict[str, dict] = {}
    details: Counter = Counter()          # ok/rejected by the first word of the answer (or the error type)
    n = 0
    size = min(batch, 10)               # a first small batch measures the time per input
    while time.monotonic() - t0 < budget:
        t_batch = time.monotonic()
        items = [source.next() for _ in range(size)]
        outs = sandbox.run_batch(source.run, [x for _, x in items], time_limit=time_limit,
                                 expected=source.expected())
        for (origin, x), o in zip(items, outs):
            n += 1
            counts[o.status] += 1
            if o.status in ("ok", "rejected"):
                words = (o.type or o.message).split()
                details[f"{o.status}:{words[0][:40] if words else ''}"] += 1
            if o.finding:
                # an escaped exception is told apart by its message; a crash or a hang says nothing, so
                # each input that crashes is kept (up to MAX_SAVED per kind)
                key = f"{o.status}:{o.type}:{o.message.splitlines()[0][:120] if o.message else ''}"
                f = findings.setdefault(key, {"status": o.status, "type": o.type, "message": o.message[:3000],
                                              "origin": origin, "count": 0, "files": []})
                f["count"] += 1
                if len(f["files"]) < (MAX_SAVED if o.status != "escaped" else 1):
                    digest = hashlib.sha1(source.dump(x)).hexdigest()[:10]
                    name = f"{o.status}-{o.type}-{digest}{source.suffix}"
                    f["files"].append(name)
                    if folder:
                        (folder / name).write_bytes(source.dump(x))
                        (folder / (name + ".txt")).write_text(f"{o.status} {o.type} (from {origin})\n{o.message}\n")
                    if log:
                        log(f"finding {key} -> {name}")
        per_input = (time.monotonic() - t_batch) / len(items)
        left = budget - (time.monotonic() - t0)      # the next batch ends about when the budget does
        size = max(1, min(batch, int(left / max(per_input, 1e-3))))
        summary = {"target": target, "seed": seed, "inputs": n, "seconds": round(time.monotonic() - t0, 1),
                   "outcomes": dict(counts),
                   "details": dict(details.most_common(12)), "distinct_findings": len(findings),
                   "findings": list(findings.values())}
        if folder:
            (folder / "summary.json").write_text(json.dumps(summary, indent=1))
    return summary


if __name__ == "__main__":
    raise SystemExit(main())
