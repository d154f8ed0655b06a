"""ncu's view of divmix.cu's throughput kernels on the H200 (device request im2col, 2 December): per kernel the
warp instructions per clock per sub-core, issue-active share, the pipes each instruction went to (per instruction),
how busy the ALU / FMA / FMA-heavy pipes were, and the stall reasons per issue above 0.05. Reads
benchmarks/hw/results/h200_divmix_ncu.csv.gz (ncu --csv --page raw, first launch of each kernel).

    python benchmarks/hw/divmix_ncu_table.py [CSV(.gz)]
"""
from __future__ import annotations

import csv
import gzip
import io
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent


def main() -> None:
    path = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "results" / "h200_divmix_ncu.csv.gz"
    text = (gzip.open(path, "rt") if path.suffix == ".gz" else open(path)).read()
    rows = list(csv.reader(io.StringIO("".join(ln for ln in text.splitlines(True) if ln.startswith('"')))))
    idx = {h: i for i, h in enumerate(rows[0])}
    stalls = [h for h in rows[0] if "issue_stalled" in h]
    seen = set()
    print(f"{'kernel':34s} {'IPC/sub-core':>12s} {'issue%':>6s}  per instruction: alu  fma  heavy  xu   "
          "busy%: alu fma heavy  stalls per issue")
    for r in rows[2:]:
        name = r[idx["Kernel Name"]]
        if name in seen:
            continue
        seen.add(name)

        def g(h: str) -> float:
            try:
                return float(r[idx[h]].replace(",", ""))
            except (KeyError, ValueError):
                return float("nan")
        ins = g("smsp__inst_executed.sum")
        ipc = ins / (4 * g("launch__sm_count") if "launch__sm_count" in idx else 528) / g("sm__cycles_active.avg")
        per = [g(f"smsp__inst_executed_pipe_{p}.sum") / ins for p in ("alu", "fma", "fmaheavy", "xu")]
        busy = [g(f"smsp__pipe_{p}_cycles_active.avg.pct_of_peak_sustained_active") for p in ("alu", "fma", "fmaheavy")]
        st = " ".join(f"{h.split('stalled_')[1].split('_per')[0]} {g(h):.2f}" for h in stalls if g(h) > 0.05)
        short = name.split("(")[0].replace("void thr_k<", "").rstrip(">")
        print(f"{short:34s} {ipc:12.2f} {g('smsp__issue_active.avg.pct_of_peak_sustained_active'):6.1f}  "
              f"{per[0]:18.2f} {per[1]:4.2f} {per[2]:5.2f} {per[3]:4.2f}   {busy[0]:5.0f} {busy[1]:3.0f} {busy[2]:5.0f}  {st}")


if __name__ == "__main__":
    main()
