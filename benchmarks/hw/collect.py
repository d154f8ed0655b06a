#!/usr/bin/env python3
"""Collect the raw output of run_all.sh into one JSON file and print a summary table.

Contract: ``collect.py --work DIR --out FILE`` reads, for every benchmark binary NAME listed in
DIR/benches.txt: NAME.out (stdout; only lines starting with "RESULT " are kept), NAME.err,
NAME.rc, NAME.build.log and NAME.sass (``cuobjdump -sass`` of the binary that ran), plus the
nvidia-smi files (smi_before.csv, smi_after.csv, smi_samples.csv, phases.txt, env.txt). It
writes FILE (JSON; layout in docs/calibration.md) and prints one line per figure, SASS check
included. Standard library only: it runs on the GPU machine's python3.
"""
import argparse
import collections
import csv
import datetime
import fnmatch
import json
import os
import re
import statistics
import sys

FUNC_RE = re.compile(r"Function : (\S+)")
# an instruction line of cuobjdump -sass: "/*0120*/  @!P0 OPCODE.MODS ..."
INSN_RE = re.compile(r"^\s+/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)")


def parse_sass(path):
    """Returns {mangled function name: Counter(opcode -> count)}."""
    funcs = collections.defaultdict(collections.Counter)
    cur = None
    if not os.path.exists(path):
        return funcs
    with open(path, errors="replace") as f:
        for line in f:
            m = FUNC_RE.search(line)
            if m:
                cur = m.group(1)
                continue
            m = INSN_RE.match(line)
            if m and cur:
                funcs[cur][m.group(1)] += 1
    return funcs


def mangled_prefix(spec):
    """'lat_k<FFMA>' -> '_Z5lat_kI4FFMAE'; 'chase<1>' -> '_Z5chaseILi1EE'; 'empty_k' -> '_Z7empty_k'."""
    m = re.match(r"^(\w+)(?:<(.*)>)?$", spec)
    if not m:
        return None
    name, args = m.group(1), m.group(2)
    p = "_Z%d%s" % (len(name), name)
    if args:
        parts = []
        for a in (x.strip() for x in args.split(",")):
            parts.append("Li%sE" % a if re.fullmatch(r"-?\d+", a) else "%d%s" % (len(a), a))
        p += "I" + "".join(parts) + "E"
    return p


def sass_check(funcs, spec, expect):
    pre = mangled_prefix(spec)
    names = [f for f in funcs if pre and f.startswith(pre)]
    if not names:
        return {"function": None, "ok": False, "note": "kernel %s not found in SASS" % spec}
    fn = names[0]
    ops = funcs[fn]
    pats = [p for p in expect.split("|") if p]
    matched = {op: n for op, n in ops.items() if any(fnmatch.fnmatchcase(op, p) for p in pats)}
    return {
        "function": fn,
        "expect": expect,
        "matched": matched,
        "ok": bool(matched),
        "top_opcodes": dict(ops.most_common(12)),
    }


def read(path, default=""):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return default


def smi_samples(work):
    """nvidia-smi samples (timestamp, sm MHz, mem MHz, power W, temp C, util %, pstate)."""
    rows = []
    for r in csv.reader(read(os.path.join(work, "smi_samples.csv")).splitlines()):
        if len(r) < 7:
            continue
        try:
            t = datetime.datetime.strptime(r[0].strip(), "%Y/%m/%d %H:%M:%S.%f").timestamp()
            num = lambda s: float(re.sub(r"[^0-9.]", "", s) or "nan")
            rows.append({"t": t, "sm_mhz": num(r[1]), "mem_mhz": num(r[2]), "power_w": num(r[3]),
                         "temp_c": num(r[4]), "util_pct": num(r[5]), "pstate": r[6].strip()})
        except ValueError:
            continue
    return rows


def phases(work):
    out = {}
    for line in read(os.path.join(work, "phases.txt")).splitlines():
        p = line.split()
        if len(p) == 3:
            out.setdefault(p[1], {})[p[0].lower()] = float(p[2])
    return out


def clock_summary(samples, t0, t1):
    s = [x for x in samples if t0 <= x["t"] <= t1]
    if not s:
        return None
    sm = [x["sm_mhz"] for x in s]
    return {"n": len(s), "sm_mhz_median": statistics.median(sm), "sm_mhz_min": min(sm),
            "sm_mhz_max": max(sm), "mem_mhz_median": statistics.median(x["mem_mhz"] for x in s),
            "power_w_max": max(x["power_w"] for x in s), "temp_c_max": max(x["temp_c"] for x in s)}


# figures quoted in docs/calibration.md's headline table: (key, group, name, extra field or None)
KEY_FIGURES = [
    ("l1_hit_latency_cycles", "latency_curve", "curve_ca_16KiB", None),
    ("l2_hit_latency_cycles_cg", "latency_curve", "curve_cg_4MiB", None),
    ("l2_hit_latency_cycles_via_l1_miss", "latency_curve", "curve_ca_4MiB", None),
    ("dram_latency_cycles_tlb_hit", "latency", "dram_cold_tlb_hit", None),
    ("dram_latency_ns_tlb_hit", "latency", "dram_cold_tlb_hit", "ns_per_hop"),
    ("dram_latency_cycles_random_1GiB", "latency_curve", "curve_cg_1GiB", None),
    ("dram_latency_ns_random_1GiB", "latency_curve", "curve_cg_1GiB", "ns_per_hop"),
    ("shared_load_latency_cycles", "latency", "shared_load", None),
    ("constant_latency_cycles_256B", "latency", "constant_256B", None),
    ("constant_uniform_latency_cycles_64B", "latency", "constant_uniform_64B", None),
    ("dram_read_GBps", "bandwidth", "dram_read", None),
    ("dram_write_GBps", "bandwidth", "dram_write", None),
    ("dram_copy_GBps", "bandwidth", "dram_copy", None),
    ("l2_read_GBps_20MiB", "bandwidth", "l2_read_20MiB", None),
    ("l1_read_B_per_clk_per_sm", "bandwidth", "l1_read_per_sm", None),
    ("smem_read_128bit_B_per_clk_per_sm", "bandwidth", "smem_read_128bit_per_sm", None),
    ("ffma_latency_cycles", "alu_latency", "FFMA", None),
    ("ffma_thread_ops_per_clk_per_sm", "alu_throughput", "FFMA", None),
    ("mma_f16_f32_latency_cycles", "tensor_latency", "MMA_M16N8K16_F16_F32", None),
    ("mma_f16_f32_per_clk_per_sm", "tensor_throughput", "MMA_M16N8K16_F16_F32", None),
    ("empty_kernel_back_to_back_us", "launch", "empty_kernel_back_to_back", None),
    ("syncthreads_32warps_cycles", "barrier", "syncthreads_32warps", None),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--quiet", action="store_true", help="write the files, print nothing")
    a = ap.parse_args()
    benches = read(os.path.join(a.work, "benches.txt")).split()
    samples = smi_samples(a.work)
    ph = phases(a.work)
    results, runs = [], {}
    for b in benches:
        funcs = parse_sass(os.path.join(a.work, b + ".sass"))
        rc = read(os.path.join(a.work, b + ".rc"), "missing").strip()
        n0 = len(results)
        for line in read(os.path.join(a.work, b + ".out")).splitlines():
            if not line.startswith("RESULT "):
                continue
            try:
                r = json.loads(line[len("RESULT "):])
            except json.JSONDecodeError as e:
                print("unparsable line in %s.out: %s" % (b, e), file=sys.stderr)
                continue
            r["bench"] = b
            r["sass_check"] = sass_check(funcs, r.get("kernel", ""), r.get("sass_expect", ""))
            results.append(r)
        p = ph.get(b, {})
        runs[b] = {
            "rc": rc, "n_results": len(results) - n0,
            "stderr_tail": read(os.path.join(a.work, b + ".err"))[-2000:],
            "build_log_tail": read(os.path.join(a.work, b + ".build.log"))[-2000:],
            "seconds": (p["end"] - p["begin"]) if "begin" in p and "end" in p else None,
            "smi_clocks_during_run": clock_summary(samples, p.get("begin", 0), p.get("end", 0)),
        }
    by = {(r["group"], r["name"]): r for r in results}
    key = {}
    for k, g, n, field in KEY_FIGURES:
        r = by.get((g, n))
        if r is not None:
            key[k] = r["extra"].get(field) if field else r["value"]
    clocks = [r["value"] for r in results if r["name"].startswith("sm_clock_")]
    doc = {
        "format": "simtscope-hw-microbench/1",
        "env": read(os.path.join(a.work, "env.txt")),
        "smi_before_csv": read(os.path.join(a.work, "smi_before.csv")),
        "smi_after_csv": read(os.path.join(a.work, "smi_after.csv")),
        "sm_clock_mhz_in_kernel": {"values": clocks,
                                   "median": statistics.median(clocks) if clocks else None},
        "key_figures": key,
        "runs": runs,
        "results": results,
        "smi_samples": samples,
    }
    with open(a.out, "w") as f:
        json.dump(doc, f, indent=1)

    with open(os.path.splitext(a.out)[0] + "_summary.txt", "w") as f:
        print_summary(doc, f)
    if not a.quiet:
        print_summary(doc, sys.stdout)


def print_summary(doc, f):
    """A compact table (about 80 columns): figures, the latency curve, key figures, runs."""
    results = doc["results"]
    w = lambda *x: print(*x, file=f)
    w("%-44s %10s %-13s %-19s %s" % ("group/name", "value", "unit", "min..max", "sass"))
    curve = {}
    for r in results:
        if r["group"] == "latency_curve":
            m = re.match(r"curve_(ca|cg)_(.+)", r["name"])
            if m:
                curve.setdefault(m.group(2), {})[m.group(1)] = r
            continue
        if r["name"].startswith("sm_clock_"):
            continue
        w("%-44s %10.4g %-13s %-19s %s" % (
            (r["group"] + "/" + r["name"])[:44], r["value"], r["unit"][:13],
            ("%.4g..%.4g" % (r["min"], r["max"]))[:19], "ok" if r["sass_check"]["ok"] else "NO"))
    if curve:
        w("\nlatency curve (cycles per dependent load; ns for .cg)")
        w("%-8s %9s %9s %9s" % ("size", "ld(ca)", "ld.cg", "cg ns"))
        for size, d in curve.items():
            ca, cg = d.get("ca"), d.get("cg")
            w("%-8s %9.1f %9.1f %9.1f" % (size, ca["value"] if ca else float("nan"),
                                          cg["value"] if cg else float("nan"),
                                          cg["extra"].get("ns_per_hop", float("nan")) if cg else float("nan")))
    w("\nkey figures:")
    for k, v in doc["key_figures"].items():
        w("  %-40s %s" % (k, "%.5g" % v if isinstance(v, (int, float)) else v))
    w("\nruns:")
    for b, r in doc["runs"].items():
        c = r["smi_clocks_during_run"] or {}
        w("  %-10s rc=%s results=%d secs=%s smi_sm_mhz=%s..%s" % (
            b, r["rc"], r["n_results"],
            "%.1f" % r["seconds"] if r["seconds"] is not None else "?",
            c.get("sm_mhz_min"), c.get("sm_mhz_max")))
        if r["rc"] != "0":
            w("    stderr: " + r["stderr_tail"][-600:].replace("\n", "\n    "))
    bad = [r["bench"] + ":" + r["name"] for r in results if not r["sass_check"]["ok"]]
    w("\n%d figures; expected SASS missing for %d%s; in-kernel SM clock %s MHz (values %s)" % (
        len(results), len(bad), (": " + ", ".join(bad[:8])) if bad else "",
        doc["sm_clock_mhz_in_kernel"]["median"],
        ", ".join("%.0f" % c for c in doc["sm_clock_mhz_in_kernel"]["values"])))

if __name__ == "__main__":
    main()
