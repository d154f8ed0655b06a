"""The `simtscope` command line: run, validate, serve.

The top layer: it may import the engine and the web app; neither imports it (docs/architecture.md).

    simtscope run --case sgemm_tiled16_256
    simtscope run --ptx k.ptx --kernel saxpy --grid 4096 --block 256 \
                  --arg i32=1048576 --arg f32=0.75 --arg f32[1048576]=uniform:-1:1 --arg f32[1048576]=zeros
    simtscope validate --functional --json out.json
    simtscope serve
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from pathlib import Path

# numpy's OpenBLAS starts a thread per core at import and keeps them spinning for a while after each BLAS call
# (the reference results of GEMM cases); those spinning threads compete with the simulation's own threads
# (--threads), so the command line runs BLAS on one thread unless the caller set otherwise. Before numpy's import.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from engine.outpaths import file_problem, folder_problem  # noqa: E402
from engine.resources import missing_module  # noqa: E402


def _dim3(s: str) -> tuple[int, int, int]:
    parts = [int(x) for x in s.split(",") if x.strip()]
    if not 1 <= len(parts) <= 3 or any(p <= 0 for p in parts):
        raise argparse.ArgumentTypeError(f"expected 1 to 3 positive integers like 64,64,1, got {s!r}")
    return tuple(parts + [1] * (3 - len(parts)))


def _whole(lo: int, hi: int | None = None, note: str = ""):
    """an argparse type: a whole number in [lo, hi] (hi None: no upper end), else argparse's one-line error"""
    def parse(s: str) -> int:
        try:
            n = int(s)
        except ValueError:
            n = None
        if n is None or n < lo or (hi is not None and n > hi):
            want = f"a whole number >= {lo}" if hi is None else f"a whole number from {lo} to {hi}"
            raise argparse.ArgumentTypeError(f"expected {want}{note}, got {s[:80]!r}")
        return n
    return parse


_threads = _whole(0, note=" (0: the cores available)")
_count = _whole(0)


_ARG_RE = re.compile(r"^(?P<t>[a-z]\d+)(\[(?P<n>\d+)\])?=(?P<v>.*)$")


def parse_arg(spec: str):
    """`i32=5`, `f32=0.75`, `u64=7`, or a buffer `f32[N]=zeros|iota|const:V|uniform:LO:HI[:SEED]|int:LO:HI[:SEED]`."""
    try:
        return _parse_arg(spec)
    except (ValueError, IndexError):            # a number that is not one, or an init missing its fields
        raise argparse.ArgumentTypeError(
            f"bad --arg {spec[:80]!r}: expected TYPE=NUMBER (i32=5, f32=0.75) or TYPE[N]=INIT with INIT one of zeros, "
            "iota, const:V, uniform:LO:HI[:SEED], int:LO:HI[:SEED]") from None


def _parse_arg(spec: str):
    m = _ARG_RE.match(spec)
    if not m:
        raise argparse.ArgumentTypeError(f"bad --arg {spec!r}: expected TYPE=VALUE or TYPE[N]=INIT")
    t, n, v = m.group("t"), m.group("n"), m.group("v")
    if n is None:
        return {"kind": "scalar", "dtype": t, "value": float(v) if t.startswith("f") else int(v, 0)}
    from engine.cases import NP_DTYPES
    if t not in NP_DTYPES:
        raise argparse.ArgumentTypeError(f"bad --arg {spec!r}: unknown type {t}")
    parts = v.split(":")
    a = {"kind": "buffer", "dtype": t, "count": int(n), "output": True}
    if parts[0] in ("zeros", "iota"):
        a["init"] = parts[0]
    elif parts[0] == "const":
        a.update(init="const", value=float(parts[1]))
    elif parts[0] == "uniform":
        a.update(init="random_uniform", lo=float(parts[1]), hi=float(parts[2]),
                 seed=int(parts[3]) if len(parts) > 3 else 1)
    elif parts[0] == "int":
        a.update(init="random_int", lo=int(parts[1]), hi=int(parts[2]), seed=int(parts[3]) if len(parts) > 3 else 1)
    else:
        raise argparse.ArgumentTypeError(f"bad --arg {spec[:80]!r}: unknown buffer init {parts[0][:40]!r} "
                                         "(zeros, iota, const:V, uniform:LO:HI[:SEED], int:LO:HI[:SEED])")
    return a


def _print_launch(res, out=sys.stdout):
    print(f"kernel      {res.kernel}  grid {res.grid}  block {res.block}  CTAs {res.ctas}", file=out)
    print(f"warp insts  {res.warp_insts:,}   thread insts {res.thread_insts:,}", file=out)
    print(f"wall time   {res.wall_s:.3f} s   ({res.warp_insts_per_s / 1e6:.2f} M warp insts/s)", file=out)
    top = sorted(res.op_counts.items(), key=lambda kv: -kv[1])
    print("per opcode  " + "  ".join(f"{k}:{v:,}" for k, v in top), file=out)


def cmd_run(a) -> int:
    from engine import errors
    from engine.cases import load_suite, make_buffer
    from engine.device import Device
    from engine.runner import run_case

    sources = [f for f, v in (("--workload", a.workload), ("--trace", a.trace), ("--case", a.case), ("--ptx", a.ptx))
               if v]
    if len(sources) > 1:                                 # (the first one used to win, the others silently ignored)
        print(f"simtscope run: error: {' and '.join(sources)} each name what to run: give one of them", file=sys.stderr)
        return 2
    if a.launches and not a.workload:
        print("simtscope run: error: --launches picks launches of a --workload bundle", file=sys.stderr)
        return 2
    # options of one source given with another (they were silently ignored)
    for owner, opts in (("--ptx", (("--kernel", a.kernel), ("--grid", a.grid), ("--block", a.block),
                                   ("--shared", a.shared or None), ("--arg", a.arg))),
                        ("--case", (("--cases", a.cases),)),
                        ("--trace", (("--allow-unknown-opcodes", a.allow_unknown_opcodes or None),))):
        given = [f for f, v in opts if v is not None]
        if given and not getattr(a, owner[2:]):
            what = f"{' and '.join(given)} {'goes' if len(given) == 1 else 'go'} with {owner}"
            print(f"simtscope run: error: {what}" + (f", not with {sources[0]}" if sources else f": add {owner}"),
                  file=sys.stderr)
            return 2
    if not (a.timing or a.launches or a.trace):         # a functional run: no timing model to configure
        given = [f for f, v in (("--config", a.config), ("--set", a.set or None), ("--threads", a.threads))
                 if v is not None]
        if given:
            verb = "configures" if len(given) == 1 else "configure"
            print(f"simtscope run: error: {' and '.join(given)} {verb} the timing model, which a run without --timing "
                  "does not use: add --timing", file=sys.stderr)
            return 2
    a.config = a.config or "h200"
    if a.workload:
        from engine.workload.commands import cmd_run_workload
        return cmd_run_workload(a)
    if a.trace:
        from engine.traces.commands import cmd_run_trace
        return cmd_run_trace(a)
    if a.case:
        suite = load_suite(a.cases)
        case = suite[a.case]
        if a.timing:
            return _run_timing_case(a, case)
        run = run_case(case, Device())
        if run.fault:
            print(run.fault)
            return 2
        _print_launch(run.launch)
        status = {True: "PASS", False: "FAIL", None: "UNCHECKED (reference unknown)"}[run.passed]
        errs = "  ".join(f"{k}: {v:.3g}" for k, v in run.errors.items())
        print(f"outputs     {status}  {errs}")
        _write_json(a, {"case": case.name, "sim_cycles": None, "warp_insts": run.launch.warp_insts,
                        "wall_s": run.wall_s, "outputs_pass": run.passed, "errors": run.errors})
        return 0 if run.passed is not False else 1
    if not (a.ptx and a.kernel and a.grid and a.block):
        print("simtscope run: give --workload BUNDLE, --trace DIR, --case NAME, or --ptx FILE --kernel NAME --grid X,Y,Z --block X,Y,Z", file=sys.stderr)
        return 2
    dev = Device()
    try:
        mod = dev.load_ptx(Path(a.ptx))
        kernel = mod.kernel(a.kernel)
    except (errors.PTXError, KeyError, OSError) as e:
        msg = e.args[0] if isinstance(e, KeyError) and e.args else e     # (a KeyError's str() quotes its message)
        print(f"simtscope run: error: {msg}", file=sys.stderr)
        return 2
    args, bufs = [], []
    for i, spec in enumerate(a.arg or []):
        if spec["kind"] == "scalar":
            args.append(spec["value"])
        else:
            spec["name"] = f"arg{i}"
            b = dev.to_device(make_buffer(spec))
            bufs.append((i, b))
            args.append(b)
    sim = None
    try:
        if a.timing:
            from engine.timing import TimingSim, format_stats
            sim = TimingSim(a.config, overrides=a.set, device=dev, threads=a.threads)
            tres = sim.launch(kernel, a.grid, a.block, args, shared=a.shared, max_warp_insts=a.max_insts,
                              max_cycles=a.max_cycles)
            print(format_stats(tres.stats, a.kernel))
            print(f"wall time   {tres.wall_s:.3f} s")
            doc = {"kernel": a.kernel, "sim_cycles": tres.cycles, "warp_insts": tres.warp_insts,
                   "wall_s": tres.wall_s, "threads": sim.threads, "stats": tres.stats}
        else:
            res = dev.launch(kernel, a.grid, a.block, args, shared=a.shared, max_warp_insts=a.max_insts)
            _print_launch(res)
            doc = {"kernel": a.kernel, "sim_cycles": None, "warp_insts": res.warp_insts, "wall_s": res.wall_s}
    except errors.SimError as e:
        print(str(e), file=sys.stderr)
        return 2
    doc["outputs"] = {}
    for i, b in bufs:
        arr = dev.from_device(b)
        print(f"arg{i}: {arr.dtype}[{arr.size}] sum={float(np.sum(arr.astype(np.float64))):.6g} "
              f"first={arr[:4].tolist()}")
        doc["outputs"][f"arg{i}"] = {"dtype": str(arr.dtype), "count": int(arr.size),
                                     "sum": float(np.sum(arr.astype(np.float64))),
                                     "first": arr[:4].astype(np.float64).tolist()}
    _write_json(a, doc)
    return 0


def _write_json(a, doc: dict) -> None:
    if getattr(a, "json", None):
        Path(a.json).write_text(json.dumps(doc, indent=1, default=float))


def _run_timing_case(a, case) -> int:
    from engine.timing import TimingSim, format_stats
    sim = TimingSim(a.config, overrides=a.set, threads=a.threads)
    run = sim.run_case(case, max_cycles=a.max_cycles, max_warp_insts=a.max_insts)
    if run.fault:
        print(run.fault)
        return 2
    print(format_stats(run.timing.stats, case.kernel))
    print(f"wall time   {run.timing.wall_s:.3f} s   ({run.timing.warp_insts / max(run.timing.wall_s, 1e-9) / 1e6:.2f} M warp insts/s, "
          f"{sim.threads} thread{'s' if sim.threads != 1 else ''})")
    status = {True: "PASS", False: "FAIL", None: "UNCHECKED (reference unknown)"}[run.passed]
    print(f"outputs     {status}  " + "  ".join(f"{k}: {v:.3g}" for k, v in run.errors.items()))
    _write_json(a, {"case": case.name, "config": sim.config.name, "sim_cycles": run.timing.cycles,
                    "warp_insts": run.timing.warp_insts, "wall_s": run.timing.wall_s, "threads": sim.threads,
                    "outputs_pass": run.passed,
                    "errors": run.errors, "stats": run.timing.stats})
    return 0 if run.passed is not False else 1


def cmd_validate(a) -> int:
    from engine.cases import load_suite
    from engine.device import Device
    from engine.runner import run_case, save_outputs

    if a.functional and (a.workloads is not None or a.traces):
        what = "--workloads" if a.workloads is not None else "--traces"
        hint = ("`simtscope run --workload BUNDLE` runs a bundle functionally and checks its outputs"
                if a.workloads is not None else "a trace has no outputs to check")
        print(f"error: validate --functional checks the suite's outputs only, not {what}; {hint}", file=sys.stderr)
        return 2
    if a.hw and not Path(a.hw).is_file():
        print(f"simtscope validate: error: --hw {a.hw}: no such file (the hardware results to compare with)",
              file=sys.stderr)
        return 2
    if a.workloads is not None:
        from engine.workload.commands import cmd_validate_workloads
        return cmd_validate_workloads(a)
    if a.traces:
        from engine.traces.commands import cmd_validate_traces
        return cmd_validate_traces(a)
    if not a.functional:
        from engine.validate import validate
        res = validate(a.cases, a.hw, a.config, a.set, a.only, json_path=a.json, plot_path=a.plot, jobs=a.jobs)
        return 0 if res["summary"]["failed"] == 0 else 1
    suite = load_suite(a.cases)
    cases = suite.select(a.only)
    rows = []
    t0 = time.perf_counter()
    print(f"{'case':34s} {'result':9s} {'warp insts':>13s} {'wall s':>8s} {'M inst/s':>9s}  error")
    for c in cases:
        try:
            run = run_case(c, Device(), keep_outputs=bool(a.save_outputs))
        except Exception as e:  # a broken case must not stop the others
            print(f"{c.name:34s} {'ERROR':9s} {type(e).__name__}: {e}")
            rows.append({"name": c.name, "passed": False, "warp_insts": 0, "wall_s": 0.0, "error": str(e)})
            continue
        if a.save_outputs:
            save_outputs(run, Path(a.save_outputs))
        rows.append(run.as_json())
        res = {True: "pass", False: "FAIL", None: "unchecked"}[run.passed]
        w = run.launch.warp_insts if run.launch else 0
        err = run.fault or "  ".join(f"{k}={v:.2e}" for k, v in run.errors.items())
        print(f"{c.name:34s} {res:9s} {w:13,d} {run.wall_s:8.2f} {w / run.wall_s / 1e6 if run.wall_s else 0:9.2f}  {err}",
              flush=True)
    passed = sum(1 for r in rows if r["passed"] is True)
    failed = sum(1 for r in rows if r["passed"] is False)
    unchecked = sum(1 for r in rows if r["passed"] is None)
    total = len(rows)
    print(f"\n{passed}/{total} passed, {failed} failed, {unchecked} unchecked in {time.perf_counter() - t0:.1f} s")
    if a.json:
        Path(a.json).write_text(json.dumps({"mode": "functional", "cases": rows,
                                            "summary": {"passed": passed, "failed": failed, "unchecked": unchecked,
                                                        "total": total}}, indent=1))
    return 0 if failed == 0 else 1


def cmd_serve(a) -> int:
    from webapp.serve import serve
    return serve(a)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="simtscope", description="cycle-level GPU simulator for PTX kernels")
    sub = p.add_subparsers(dest="cmd", required=True)

    r = sub.add_parser("run", help="run one case or one PTX kernel")
    r.add_argument("--case", help="case name from a cases.json")
    r.add_argument("--cases", help="cases.json (default: the project's validation/cases.json)")
    r.add_argument("--ptx", help="PTX file")
    r.add_argument("--kernel", help="kernel (.entry) name")
    r.add_argument("--grid", type=_dim3)
    r.add_argument("--block", type=_dim3)
    r.add_argument("--shared", type=_count, default=0, help="dynamic shared memory bytes")
    r.add_argument("--arg", type=parse_arg, action="append",
                   help="kernel argument in order: i32=5, f32=0.5, f32[N]=uniform:-1:1 (buffers are printed)")
    r.add_argument("--max-insts", type=_count, default=0, help="cap on warp instructions (0: none)")
    r.add_argument("--max-cycles", type=_count, default=0,
                   help="cap on simulated cycles (timing; 0: none); with --workload or --trace both caps cover "
                        "the whole run, and a run past one stops with the reason (exit status 2)")
    r.add_argument("--timing", action="store_true", help="simulate cycles with the timing model")
    r.add_argument("--config", help="GPU config name or TOML path (timing; default h200)")
    r.add_argument("--set", action="append", default=[], help="override a config value: l2.size_kib=30720")
    r.add_argument("--workload", help="a gpu-workload/1 bundle (folder, .zip or .tar.xz): all launches in order")
    r.add_argument("--launches", help="workload launches to time, e.g. 3,7-9 (the others run functionally); "
                                      "implies --timing for those")
    r.add_argument("--trace", help="an Accel-Sim trace directory (kernelslist.g + .traceg[.xz|.gz|.zst]): "
                                   "trace-driven timing, e.g. --config gtx1080 for Pascal traces")
    r.add_argument("--allow-unknown-opcodes", action="store_true",
                   help="time SASS opcodes missing from the tables as generic ALU ops (counted) instead of failing")
    r.add_argument("--json", help="write the result as JSON here")
    r.add_argument("--threads", type=_threads, default=None,
                   help="timing: simulation threads (default: the config's sim.threads, 0 = the cores available); "
                        "results are identical for any count")
    r.set_defaults(fn=cmd_run)

    v = sub.add_parser("validate", help="run every case of a suite and compare")
    v.add_argument("--functional", action="store_true", help="functional check only (outputs vs references)")
    v.add_argument("--cases", help="cases.json (default: the project's validation/cases.json)")
    v.add_argument("--only", help="comma-separated case names, * matching any run of characters; each must match")
    v.add_argument("--json", help="write results as JSON here")
    v.add_argument("--save-outputs", help="write every output buffer as DIR/<case>/<arg>.npy")
    v.add_argument("--hw", help="hardware results JSON (timing validation)")
    v.add_argument("--config", default="h200")
    v.add_argument("--set", action="append", default=[])
    v.add_argument("--plot", help="correlation scatter PNG (timing validation)")
    v.add_argument("--jobs", type=_whole(1), default=1, help="simulate this many cases at once (processes)")
    v.add_argument("--workloads", nargs="*", help="validate workload bundles (paths, or folders of bundles; "
                                                  "none: the project's workloads/) instead of cases")
    v.add_argument("--traces", nargs="+", help="Accel-Sim trace directories (or folders of them): run each, "
                                               "compare with an accelsim_log.txt beside it")
    v.add_argument("--allow-unknown-opcodes", action="store_true")
    v.set_defaults(fn=cmd_validate)

    from engine.workload.capture.cli import add_parser as add_capture
    add_capture(sub)

    missing = missing_module("flask", "dask")   # the explorer's dependencies: not needed to run or capture
    if missing:
        reason = f"sweeps need the explorer's dependencies ({missing}); install simtscope with them"
        w = sub.add_parser("sweep", help="design-space sweep (unavailable: " + reason + ")")
        w.set_defaults(fn=lambda a: (print(f"simtscope sweep: {reason}", file=sys.stderr), 2)[1])
    else:
        from webapp.sweep.command import add_parser as add_sweep
        add_sweep(sub)

    s = sub.add_parser("serve", help="start the web explorer")
    s.add_argument("--host", default="127.0.0.1")
    s.add_argument("--port", type=_whole(1, 65535), default=5000)
    s.add_argument("--data", help="folder for the run store (default: ./instance)")
    s.add_argument("--no-demo", action="store_true", help="do not queue the demo runs on first start")
    s.set_defaults(fn=cmd_serve)
    return p


# result files and folders, checked before hours of simulation, not after: (subcommand, option, file or folder)
_OUTPUTS = (("run", "json", file_problem), ("validate", "json", file_problem), ("validate", "plot", file_problem),
            ("validate", "save_outputs", folder_problem), ("sweep", "json", file_problem),
            ("sweep", "out", folder_problem))


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    for cmd, opt, check in _OUTPUTS:
        path = getattr(args, opt, None) if args.cmd == cmd else None
        why = check(path) if path else None
        if why:
            print(f"simtscope {args.cmd}: error: --{opt.replace('_', '-')} {path}: {why}", file=sys.stderr)
            return 2
    from engine.cases import SuiteError
    from engine.config import ConfigError
    from engine.errors import SimError
    try:
        return args.fn(args)
    except (ConfigError, SuiteError, SimError) as e:
        # what was typed is wrong (a configuration, an override, a case name or pattern, a cases file, a launch's
        # limits) or the simulation refused it: one line that names it, as argparse's own errors are, not a traceback
        print(f"simtscope {args.cmd}: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
