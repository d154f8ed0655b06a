"""Joins ncu_launch's launch list (stdout, LAUNCH lines) with Nsight Compute's CSV (--csv, one row per
metric) and prints one RESULT line per configuration: the median over its repeats of every metric.

    python3 ncu_launch_collect.py LAUNCH_STDOUT NCU_CSV > results.jsonl

Kernels are matched in launch order; a profiled kernel whose name, grid or block does not match the next
launch in the list is reported (UNMATCHED) and skipped. Standard library only.
"""
import csv
import json
import statistics
import sys


def launches(path):
    out = []
    for line in open(path):
        if line.startswith("LAUNCH "):
            out.append(json.loads(line[7:]))
    return out


def kernels(path):
    rows = {}
    with open(path, newline="") as f:
        lines = [ln for ln in f if ln.startswith('"')]
    for r in csv.DictReader(lines):
        k = rows.setdefault(int(r["ID"]), {"name": r["Kernel Name"], "grid": r["Grid Size"], "block": r["Block Size"],
                                           "m": {}})
        k["m"][r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
    return [rows[i] for i in sorted(rows)]


def dim(s):
    return int(s.strip("()").split(",")[0])


def main():
    ls, ks = launches(sys.argv[1]), kernels(sys.argv[2])
    groups, i = {}, 0
    for k in ks:
        if i < len(ls) and ls[i]["kernel"] + "(" in k["name"].replace("<", "(") and dim(k["grid"]) == ls[i]["grid"] \
                and dim(k["block"]) == ls[i]["block"]:
            L = ls[i]
            key = (L["case"], L["grid"], L["block"], L["smem"], L["param_bytes"], L["spin"])
            groups.setdefault(key, []).append(k["m"])
            i += 1
        else:
            print("UNMATCHED", json.dumps(k), file=sys.stderr)
    if i != len(ls):
        print(f"WARNING: {len(ls) - i} launches had no profile", file=sys.stderr)
    for (case, grid, block, smem, pbytes, spin), ms in groups.items():
        med = {m: statistics.median(x[m] for x in ms) for m in ms[0]}
        rng = {m: [min(x[m] for x in ms), max(x[m] for x in ms)] for m in ms[0]}
        e = med.get("gpc__cycles_elapsed.max", 0)
        print("RESULT " + json.dumps({
            "group": "ncu_launch", "name": f"{case}_g{grid}_b{block}_s{smem}_p{pbytes}_c{spin}",
            "value": e, "min": rng.get("gpc__cycles_elapsed.max", [0, 0])[0],
            "max": rng.get("gpc__cycles_elapsed.max", [0, 0])[1], "n": len(ms), "unit": "cycles",
            "method": "ncu --clock-control none --cache-control all: gpc__cycles_elapsed.max, median of repeats",
            "kernel": case, "extra": {"case": case, "grid": grid, "block": block, "smem": smem,
                                      "param_bytes": pbytes, "spin": spin, "metrics": med}}))


if __name__ == "__main__":
    main()
