"""Opening a bundle archive with and without the disk cache of unpacked archives (engine/workload/unpacked.py): the
wall time of open_bundle plus reading every buffer and PTX file, unpacked each time (SIMTSCOPE_BUNDLE_CACHE=0's path)
against read from the cache (after one open has stored it), in the same run.

    python benchmarks/bundle_open.py [--bundles workloads/zoo/mlp_b128_fp16.tar.xz,...] [--repeat 3]

The cache goes to a temporary folder (SIMTSCOPE_CACHE_DIR), removed at the end.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def read_all(path: Path, cache: bool) -> float:
    from engine.workload.bundle import open_bundle
    t = time.perf_counter()
    with open_bundle(path, cache=cache) as b:
        for k in b.buffers:
            b.buffer_bytes(k)
        for p in {L.ptx for L in b.launches if L.ptx}:
            b.ptx_text(p)
    return time.perf_counter() - t


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bundles", default=",".join(str(p.relative_to(ROOT)) for p in
                                                  sorted((ROOT / "workloads" / "zoo").glob("*.tar.xz"))))
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["SIMTSCOPE_CACHE_DIR"] = tmp
        os.environ.pop("SIMTSCOPE_BUNDLE_CACHE", None)
        print(f"{'bundle':36s} {'MB':>6s} {'unpacked s':>10s} {'cached s':>9s} {'ratio':>7s}   (medians of {a.repeat})")
        for name in a.bundles.split(","):
            path = (ROOT / name) if not Path(name).is_absolute() else Path(name)
            read_all(path, True)                   # stores the entry
            cold, warm = [], []
            for _ in range(a.repeat):
                cold.append(read_all(path, False))
                warm.append(read_all(path, True))
            c, w = statistics.median(cold), statistics.median(warm)
            print(f"{path.name:36s} {path.stat().st_size / 1e6:6.1f} {c:10.3f} {w:9.3f} {c / w:6.1f}x", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
