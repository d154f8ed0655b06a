"""Which reads the H200 merges in front of its L2 slices: ncu's L2 request coalescer (lrc__) and slice (lts__)
counters per launch, from the device runs of 2 December (session 4; docs/calibration.md 5s). Run from the
repository root:

    python benchmarks/hw/lrc_table.py            # kloop.cu shdram / shdramG / shdramskD, hot16k / hot4k, suite cases
    python benchmarks/hw/lrc_table.py REGEX      # only the rows whose name matches

Columns: sectors the SMs received from the crossbar (l1tex__m_xbar2l1tex_read_sectors), the reads the coalescer
merged with an earlier one (lrc__request_sectors_op_read_coalescing_achieved_type_hardware) as a share of them, the
slices' tag lookups for the SMs (lts__t_sectors_srcunit_tex_op_read) and how many of those hit (lookup_hit: a
lookup of a sector whose DRAM fill is under way counts as a hit), the far partition's lookups (srcunit_ltcfabric),
and the DRAM sectors read.
"""
from __future__ import annotations

import csv
import gzip
import io
import json
import pathlib
import re
import sys

RES = pathlib.Path(__file__).resolve().parent / "results"
SOURCES = [  # (ncu CSV, RESULT lines naming its launches in order or None)
    ("h200_kloop_lrc_ncu.csv.gz", "h200_kloop_lrc.out"),
    ("h200_kloop_lrc_hot_ncu.csv.gz", None),
    ("h200_suite_lrc_ncu.csv.gz", None),
]


def ncu_rows(path: pathlib.Path) -> list[dict]:
    lines = [x for x in gzip.open(path, "rt").read().splitlines() if x.startswith('"')]
    data = list(csv.reader(io.StringIO("\n".join(lines))))
    head = data[0]
    return [dict(zip(head, r)) for r in data[1:] if r and r[0].isdigit()]


def num(row: dict, key: str) -> float:
    v = row.get(key, "")
    try:
        return float(v.replace(",", ""))
    except ValueError:
        return float("nan")


def named_rows():
    for csv_name, result_name in SOURCES:
        rows = ncu_rows(RES / csv_name)
        names = None
        if result_name:
            names = [json.loads(x[7:])["name"] for x in (RES / result_name).read_text().splitlines()
                     if x.startswith("RESULT ")]
        for i, r in enumerate(rows):
            kernel = r.get("Kernel Name", "?").split("(")[0].replace("void ", "")
            grid = r.get("Grid Size", "").replace(" ", "")
            name = names[i] if names and i < len(names) else f"{kernel} {grid}"
            yield name, r


def main() -> None:
    pat = re.compile(sys.argv[1]) if len(sys.argv) > 1 else None
    print(f"{'launch':36s} {'received':>9s} {'merged':>9s} {'share':>6s} {'lookups':>9s} {'hits':>9s} "
          f"{'far':>8s} {'DRAM':>8s}   (sectors)")
    for name, r in named_rows():
        if pat and not pat.search(name):
            continue
        rec = num(r, "l1tex__m_xbar2l1tex_read_sectors.sum")
        merged = num(r, "lrc__request_sectors_op_read_coalescing_achieved_type_hardware.sum")
        print(f"{name:36s} {rec:9.0f} {merged:9.0f} {100 * merged / rec if rec else 0:5.1f}% "
              f"{num(r, 'lts__t_sectors_srcunit_tex_op_read.sum'):9.0f} "
              f"{num(r, 'lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum'):9.0f} "
              f"{num(r, 'lts__t_sectors_srcunit_ltcfabric.sum'):8.0f} {num(r, 'dram__bytes_read.sum') / 32:8.0f}")


if __name__ == "__main__":
    main()
