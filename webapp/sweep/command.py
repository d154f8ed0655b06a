"""`simtscope sweep`: its arguments and handler (the top-level CLI registers them with add_parser)."""
from __future__ import annotations

import argparse
import sys

USAGE = """examples:
  simtscope sweep --cases validation/cases.json --only saxpy_1M,sgemm_tiled16_256 \\
      --set l2.size_kib=30720,61440 --workers 2 --json s.json
  simtscope sweep --only 'sgemm_*' --set gpu.num_sms=66,132 --scheduler tcp://head:8786

Each point is one run in the run store (--data, the explorer's folder) and one row of
OUT/results.csv; a point already done (same workload, resolved configuration and version) is reused."""


def add_parser(sub) -> argparse.ArgumentParser:
    s = sub.add_parser("sweep", help="run workloads over the cross product of configuration values (Dask)",
                       epilog=USAGE, formatter_class=argparse.RawDescriptionHelpFormatter)
    src = s.add_mutually_exclusive_group()
    src.add_argument("--cases", help="cases.json (default: the project's validation/cases.json)")
    src.add_argument("--workload", nargs="+", metavar="PATH", help="gpu-workload/1 bundle folders")
    src.add_argument("--trace", nargs="+", metavar="DIR", help="Accel-Sim trace directories")
    s.add_argument("--only", help="with --cases: comma-separated case names (* wildcards)")
    s.add_argument("--set", action="append", default=[], metavar="KEY=V1,V2,...",
                   help="a swept configuration key and its values (repeat for a cross product)")
    s.add_argument("--config", default="h200", help="the GPU configuration the values override")
    where = s.add_mutually_exclusive_group()
    where.add_argument("--workers", type=int, help="local worker processes (default: the cores available)")
    where.add_argument("--scheduler", help="an existing Dask scheduler, e.g. tcp://HOST:8786")
    s.add_argument("--data", help="the run store folder (default: ./instance, as simtscope serve)")
    s.add_argument("--out", help="results folder (default: DATA/sweeps/<sweep id>)")
    s.add_argument("--name", help="a name for the sweep (shown in the explorer)")
    s.add_argument("--json", help="write the points and the file list as JSON here")
    s.add_argument("--no-progress", action="store_true", help="no progress bar")
    s.set_defaults(fn=cmd_sweep)
    return s


def cmd_sweep(a) -> int:
    from engine.config import ConfigError

    from .driver import run_sweep
    from .sources import bundle_workloads, case_workloads, trace_workloads
    from .spec import SweepError, SweepSpec, parse_sets

    if a.workers is not None and a.workers < 1:
        print("simtscope sweep: --workers must be at least 1", file=sys.stderr)
        return 2
    if a.only and (a.workload or a.trace):
        print("simtscope sweep: --only selects cases of --cases; it does not apply to --workload/--trace",
              file=sys.stderr)
        return 2
    try:
        if a.workload:
            workloads = bundle_workloads(a.workload)
        elif a.trace:
            workloads = trace_workloads(a.trace)
        else:
            workloads = case_workloads(a.cases, a.only)
        spec = SweepSpec(workloads, a.config, parse_sets(a.set), name=a.name or "")
        points = spec.points()
    except (SweepError, ConfigError) as e:
        print(f"simtscope sweep: {e}", file=sys.stderr)
        return 2
    data = a.data or "instance"
    print(f"sweep {spec.id}: {len(spec.workloads)} workload(s) x {len(spec.configurations())} configuration(s) "
          f"= {len(points)} points; runs in {data}", file=sys.stderr)
    try:
        res = run_sweep(spec, data, out_dir=a.out, workers=a.workers, scheduler=a.scheduler,
                        progress=not a.no_progress, json_path=a.json)
    except SweepError as e:
        print(f"simtscope sweep: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\nstopped: the points done so far are kept; run the same command again to resume", file=sys.stderr)
        return 130
    _print_table(res)
    print(f"{res['ran']} point(s) simulated, {res['reused']} reused; results in {res['out_dir']}")
    for f in res["files"].values():
        print(f"  {f}")
    return 0 if res["status"] == "done" else 1


def _print_table(res: dict) -> None:
    axes = list(res["sweep"]["axes"])
    head = (f"{'workload':26s} " + " ".join(f"{k:>16s}" for k in axes)
            + f" {'status':>8s} {'cycles':>12s} {'IPC':>8s} {'L2 hit':>7s} {'DRAM MB':>9s}")
    print(head)
    for p in res["points"]:
        vals = " ".join(f"{p['values'][k]:>16s}" for k in axes)
        cyc = p.get("sim_cycles")
        print(f"{p['workload'].split(':', 1)[-1]:26s} {vals} {p['status']:>8s} "
              + (f"{cyc:12,d} {p['ipc']:8.1f} {p['l2_hit_rate']:7.3f} {p['dram_bytes'] / 1e6:9.2f}" if cyc else ""))
