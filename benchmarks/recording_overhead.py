"""Recording overhead: a timing simulation recorded into a run file, against the same simulation unrecorded,
and run-file bytes per million warp instructions.

    python benchmarks/recording_overhead.py [--cases sgemm_tiled16_256,softmax_4096x128] [--repeat 3]

Per case and level: CPU seconds (process time) and wall seconds, each the best of --repeat (this machine
is shared; the variants run round robin after one warm-up run), of the whole run_case (setup, simulation,
drains, the store), for
  off                      no recording
  <level> engine           the engine records, the rows are dropped (a null sink): the engine's share
  <level> + run file       the engine records into a RunWriter in the same thread
  ... on a thread          through BackgroundSink (what a server worker does): the store's work
                           overlaps the simulation when a second core is free (wall time drops, CPU not)
Goals: summary at most 1.3x, full at most 2x of off.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.cases import load_suite  # noqa: E402
from engine.timing import TimingSim  # noqa: E402
from webapp.store import RunWriter  # noqa: E402
from webapp.store.background import BackgroundSink  # noqa: E402

GOALS = {"summary": 1.3, "full": 2.0}


class Null:
    def begin(self, meta):
        pass

    def append(self, table, chunk):
        pass

    def end(self, stats, status):
        pass


def timed(case, level: str, sink_kind: str, sms=None) -> tuple[float, int, int]:
    """(cpu seconds, warp instructions, run-file bytes) of one run."""
    sim = TimingSim("h200", record=level if sink_kind != "none" else "off", record_sms=sms)
    path = None
    if sink_kind in ("file", "bg"):
        path = Path(tempfile.mkdtemp()) / "r.simtrun"
        sink = RunWriter(path) if sink_kind == "file" else BackgroundSink(RunWriter(path))
    else:
        sink = Null() if sink_kind == "null" else None
    t0, w0 = time.process_time(), time.perf_counter()
    run = sim.run_case(case, sink=sink)
    cpu, wall = time.process_time() - t0, time.perf_counter() - w0
    size = path.stat().st_size if path else 0
    if path:
        for p in path.parent.iterdir():
            p.unlink()
        path.parent.rmdir()
    return cpu, wall, run.timing.stats["warp_insts"], size


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", default="sgemm_tiled16_256,softmax_4096x128")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    suite = load_suite()
    print("| case | recording | CPU s | × off (CPU) | wall s | × off (wall) | goal | run file MiB | KiB per M warp insts |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for name in a.cases.split(","):
        case = suite[name]
        variants = [("off", "none", None), ("summary engine", "null", None), ("summary + run file", "file", None),
                    ("full engine", "null", None), ("full + run file", "file", None),
                    ("full + run file on a thread", "bg", None), ("full SMs 0-7 + run file", "file", list(range(8)))]
        def level_of(label):
            return "full" if label.startswith("full") else ("summary" if label.startswith("summary") else "off")
        timed(case, "off", "none")      # warm-up: the first simulator's fresh pages would burden "off" alone
        results = {label: [] for label, _k, _s in variants}
        for _ in range(a.repeat):       # round robin, so drift on a shared machine touches every variant
            for label, kind, sms in variants:
                results[label].append(timed(case, level_of(label), kind, sms))
        base = None
        for label, kind, sms in variants:
            level = level_of(label)
            runs = results[label]
            cpu = min(r[0] for r in runs)
            wall = min(r[1] for r in runs)
            insts, size = runs[0][2], runs[0][3]
            base = (cpu, wall) if base is None else base
            goal = GOALS.get(level, "")
            mib = f"{size / 2**20:.1f}" if size else ""
            per = f"{size / 1024 / (insts / 1e6):.0f}" if size else ""
            print(f"| {name} | {label} | {cpu:.2f} | {cpu / base[0]:.2f} | {wall:.2f} | {wall / base[1]:.2f} | "
                  f"{goal and f'≤ {goal}'} | {mib} | {per} |", flush=True)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    sys.exit(main())
