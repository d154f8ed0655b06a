"""kloop2's ncu counters as the table of docs/calibration.md 5m: per kloop.cu configuration, the cycles per k-tile, the
bytes the SMs received from the crossbar against the bytes the L2 slices looked up (l1tex__m_xbar2l1tex_read_bytes.sum /
32 x lts__t_sectors_srcunit_tex_op_read.sum: above 1 when reads are coalesced in front of the slices), and the slices'
sectors per L2 cycle (average and busiest slice) over the launch. Run from the repository root:

    python benchmarks/hw/kloop_ncu_table.py [REGEX]      # default: the cp.async 3-stage 4 x 256 rows
"""
from __future__ import annotations

import csv
import gzip
import json
import pathlib
import re
import sys

CSV = pathlib.Path(__file__).resolve().parent / "results" / "h200_kloop_ncu.csv.gz"


def rows():
    """(RESULT dict, ncu row dict) per kloop configuration; l2/hot configurations ran twice (the first launch
    brings the lines into the L2), dram ones once: the last launch of each is the measured one"""
    text = gzip.open(CSV, "rt").read().splitlines()
    results = [json.loads(x[7:]) for x in text if x.startswith("RESULT ")]
    table = [x for x in text if x.startswith('"')]
    data = list(csv.reader(table))
    head, body = data[0], data[2:]                       # data[1]: units
    pos = 0
    for r in results:
        n = 1 if r["mode"] == "dram" else 2
        yield r, dict(zip(head, body[pos + n - 1]))
        pos += n


def num(row, key):
    return float(row[key].replace(",", ""))


def main():
    pat = re.compile(sys.argv[1] if len(sys.argv) > 1 else r"^cp_s3_cp4_t256")
    print(f"{'kloop RESULT':32s} {'cyc/tile':>8s} {'recv/served':>11s} {'sect/L2clk avg':>14s} {'max':>6s}")
    for r, row in rows():
        if not pat.search(r["name"]):
            continue
        served = 32 * num(row, "lts__t_sectors_srcunit_tex_op_read.sum")
        recv = num(row, "l1tex__m_xbar2l1tex_read_bytes.sum")
        cyc = num(row, "lts__cycles_elapsed.avg")
        print(f"{r['name']:32s} {r['cyc_per_tile_median']:8.0f} {recv / served if served else 0:11.2f} "
              f"{num(row, 'lts__t_sectors.avg') / cyc:14.2f} {num(row, 'lts__t_sectors.max') / cyc:6.2f}")


if __name__ == "__main__":
    main()
