"""memstream_sim.py: the H200 memstream and memlat studies (benchmarks/hw/memstream.cu, memlat.cu) replayed on the simulator.

Runs the same kernels (PTX made by `nvcc -ptx -arch=sm_90 -O3 benchmarks/hw/memstream.cu`, committed as
benchmarks/hw/memstream.sm90.ptx) with the same grids on the h200 configuration, each launch on a flushed
L2 as ncu's --cache-control all, and prints simulator vs hardware side by side: gpc__cycles_elapsed.max,
GB/s at the SM clock, DRAM bytes read/written and L2 sector hit rate
(benchmarks/hw/results/h200_memstream_ncu.csv, launches in h200_memstream_launches.txt). memlat's
launches (ch4_g132_b256_i124, ...: one warp-wide load in flight per warp, PTX benchmarks/hw/memlat.sm90.ptx,
results h200_memlat_*) also print cycles per loop trip, (cycles - 3000) / trips on both sides.

usage: python benchmarks/memstream_sim.py [--only wr1_4MB,cp1_16MB] [--max-mb 16] [--set KEY=VALUE ...]
"""
from __future__ import annotations

import argparse
import collections
import csv
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from engine.device import Device  # noqa: E402
from engine.timing import TimingSim  # noqa: E402

RES = HERE / "hw" / "results"
PTX = HERE / "hw" / "memstream.sm90.ptx"
LAT_PTX = HERE / "hw" / "memlat.sm90.ptx"
LAT_KINDS = {"ch4": "_Z9bench_ch4PK6float4Pfii", "ch1": "_Z9bench_ch1PKfPfii", "cpch4": "_Z11bench_cpch4PK6float4PS_ii"}
TRIP_BASE = 3000   # cycles of an empty kernel under ncu (calibration.md 5), taken off before dividing by trips
MB = 1 << 20
# kind -> (PTX kernel, read arrays, written arrays, elements per thread)
KINDS = {
    "wr1": ("_Z9bench_wr1Pffi", 0, 1, 1), "rd1": ("_Z9bench_rd1PKfPfi", 1, 0, 1),
    "cp1": ("_Z9bench_cp1PKfPfi", 1, 1, 1), "sx1": ("_Z9bench_sx1fPKfPfi", 2, 1, 1),
    "va1": ("_Z9bench_va1PKfS0_Pfi", 2, 1, 1), "r3w1": ("_Z10bench_r3w1PKfS0_S0_Pfi", 3, 1, 1),
    "wr4": ("_Z9bench_wr4P6float4fi", 0, 1, 4), "rd4": ("_Z9bench_rd4PK6float4Pfi", 1, 0, 4),
    "cp4": ("_Z9bench_cp4PK6float4PS_i", 1, 1, 4), "cpgs4": ("_Z11bench_cpgs4PK6float4PS_i", 1, 1, 4),
}


def hw_rows(study: str = "memstream") -> dict:
    """label -> ncu metrics of that launch (floats)."""
    lab = {}
    for line in (RES / f"h200_{study}_launches.txt").read_text().splitlines():
        p = line.split()
        if p and p[0] == "LAUNCH":
            lab[int(p[1])] = p[2]
    lines = (RES / f"h200_{study}_ncu.csv").read_text().splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith('"ID"'))
    out = collections.defaultdict(dict)
    for r in csv.DictReader(lines[start:]):
        out[lab[int(r["ID"])]][r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
    return dict(out)


def parse_lat(label: str) -> tuple[str, int, int, int]:
    """memlat label ch4_g132_b256_i124 -> (kind, grid, block, trips)."""
    k, g, b, i = label.split("_")
    return k, int(g[1:]), int(b[1:]), int(i[1:])


def parse(label: str) -> tuple[str, int, int]:
    p = label.split("_")
    grid = int(p[2][1:]) if len(p) > 2 and p[2].startswith("g") else 0
    return p[0], int(p[1][:-2]), grid


def run_lat(sim: TimingSim, dev: Device, mod, label: str) -> dict:
    """One memlat launch: 64 MiB arrays of zeros, as memlat.cu."""
    kind, grid, block, trips = parse_lat(label)
    nbytes = 64 * MB
    a, b, d = dev.malloc(nbytes), dev.malloc(nbytes), dev.malloc(4096)   # zero-filled, as memlat's memset
    n = nbytes // 4
    args = {"ch4": [a, d, n // 4, trips], "ch1": [a, d, n, trips], "cpch4": [a, b, n // 4, trips]}[kind]
    sim.flush()
    t0 = time.perf_counter()
    r = sim.launch(mod.kernel(LAT_KINDS[kind]), (grid,), (block, 1, 1), args)
    wall = time.perf_counter() - t0
    for buf in (a, b, d):
        dev.free(buf)
    s = r.stats
    width = 4 if kind == "ch1" else 16
    return {"cycles": s["gpu_sim_cycle"], "dram_rd": s["dram_read_bytes"], "dram_wr": s["dram_write_bytes"],
            "l2_hit": s["L2_hit_rate"], "bytes": grid * block * trips * width * (2 if kind == "cpch4" else 1),
            "wall_s": wall, "trips": trips}


def run_one(sim: TimingSim, dev: Device, mod, label: str) -> dict:
    kind, mb, grid = parse(label)
    name, nrd, nwr, _ = KINDS[kind]
    n = mb * MB // 4
    n4, T = n // 4, 256
    bufs = [dev.malloc(mb * MB) for _ in range(4)]
    A, B, C, D = bufs
    g1, g4 = (n + T - 1) // T, (n4 + T - 1) // T
    args = {"wr1": ((g1,), [A, 0.5, n]), "rd1": ((g1,), [A, D, n]), "cp1": ((g1,), [A, B, n]),
            "sx1": ((g1,), [0.75, A, B, n]), "va1": ((g1,), [A, B, C, n]), "r3w1": ((g1,), [A, B, C, D, n]),
            "wr4": ((g4,), [A, 0.5, n4]), "rd4": ((g4,), [A, D, n4]), "cp4": ((g4,), [A, B, n4]),
            "cpgs4": ((grid,), [A, B, n4])}[kind]
    sim.flush()
    t0 = time.perf_counter()
    r = sim.launch(mod.kernel(name), args[0], (T, 1, 1), args[1])
    wall = time.perf_counter() - t0
    for b in bufs:
        dev.free(b)
    s = r.stats
    return {"cycles": s["gpu_sim_cycle"], "dram_rd": s["dram_read_bytes"], "dram_wr": s["dram_write_bytes"],
            "l2_hit": s["L2_hit_rate"], "bytes": (nrd + nwr) * mb * MB, "wall_s": wall}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="comma-separated labels (default: all up to --max-mb)")
    ap.add_argument("--max-mb", type=int, default=16, help="largest MB per array to simulate (default 16)")
    ap.add_argument("--set", action="append", default=[], help="config override KEY=VALUE (repeatable)")
    ap.add_argument("--json", help="write the rows here")
    a = ap.parse_args(argv)
    hw, hw_lat = hw_rows(), hw_rows("memlat")
    labels = [s for s in a.only.split(",") if s] or [
        lb for lb in hw if parse(lb)[0] in KINDS and parse(lb)[1] <= a.max_mb] + [
        lb for lb in hw_lat if parse_lat(lb)[1] * parse_lat(lb)[2] * parse_lat(lb)[3] <= 132 * 256 * 124]
    dev = Device()
    sim = TimingSim("h200", overrides=a.set, device=dev)
    mod, lat_mod = dev.load_ptx(PTX), dev.load_ptx(LAT_PTX)
    print(f"{'launch':22} {'sim cyc':>9} {'hw cyc':>9} {'err':>7} {'sim GB/s':>9} {'hw GB/s':>9} "
          f"{'DRAM rd MB s/h':>15} {'DRAM wr MB s/h':>15} {'L2 hit s/h':>11}")
    rows = []
    for lb in labels:
        lat = lb in hw_lat
        h = hw_lat[lb] if lat else hw[lb]
        s = run_lat(sim, dev, lat_mod, lb) if lat else run_one(sim, dev, mod, lb)
        hc = h["gpc__cycles_elapsed.max"]
        gb = lambda cyc: s["bytes"] / (cyc / 1980e6) / 1e9  # noqa: E731
        err = (s["cycles"] - hc) / hc * 100
        rows.append({"label": lb, **s, "hw_cycles": hc, "err_pct": err,
                     "hw_dram_rd": h["dram__bytes_read.sum"], "hw_dram_wr": h["dram__bytes_write.sum"],
                     "hw_l2_hit": h["lts__t_sector_hit_rate.pct"] / 100})
        print(f"{lb:22} {s['cycles']:9,} {int(hc):9,} {err:+6.1f}% {gb(s['cycles']):9.0f} {gb(hc):9.0f} "
              f"{s['dram_rd'] / 1e6:7.1f}/{h['dram__bytes_read.sum'] / 1e6:<7.1f} "
              f"{s['dram_wr'] / 1e6:7.1f}/{h['dram__bytes_write.sum'] / 1e6:<7.1f} "
              f"{s['l2_hit']:5.2f}/{h['lts__t_sector_hit_rate.pct'] / 100:<5.2f}"
              + (f"  per trip {(s['cycles'] - TRIP_BASE) / s['trips']:6.0f}/{(hc - TRIP_BASE) / s['trips']:<6.0f}"
                 if lat else ""), flush=True)
    if rows:
        mae = sum(abs(r["err_pct"]) for r in rows) / len(rows)
        print(f"cycle MAE over {len(rows)} launches: {mae:.1f} %")
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
