"""Command-line front of whole workloads: `run --workload`, `validate --workloads`.

The top-level CLI registers these; they print the per-launch table and write the JSON documented in
docs/workloads.md.
"""
from __future__ import annotations

import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from .. import errors
from ..resources import data_path
from .bundle import ARCHIVE_SUFFIXES, BundleError, open_bundle
from .replay import format_table, parse_launches, run_workload

PROJECT_WORKLOADS = data_path("workloads")


def find_bundles(paths: list[str]) -> list[Path]:
    """Bundle folders/archives named, or found one level inside the folders named (sorted)."""
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir() and not (p / "manifest.json").is_file():
            inner = sorted(q for q in p.iterdir()
                           if (q.is_dir() and (q / "manifest.json").is_file())
                           or (q.is_file() and q.name.lower().endswith(ARCHIVE_SUFFIXES)))
            if not inner:
                sub = sorted(q for q in p.iterdir() if q.is_dir())
                inner = [b for s in sub for b in find_bundles([str(s)])] if sub else []
            if not inner:
                raise BundleError(str(p), "no bundle (manifest.json folder or archive) in this folder")
            out += inner
        else:
            out.append(p)
    return out


def _sim(config: str, overrides: list[str], threads: int | None = None):
    from ..timing import TimingSim
    return TimingSim(config, overrides=overrides, threads=threads)


def cmd_run_workload(a) -> int:
    try:
        bundle = open_bundle(a.workload)
    except BundleError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    with bundle:
        try:
            timed = parse_launches(a.launches, len(bundle.launches)) if (a.timing or a.launches) else set()
        except ValueError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        sim = _sim(a.config, a.set, getattr(a, "threads", None)) if timed else None

        def progress(i, n, run):
            state = "error" if run.error else (f"{run.sim_cycles:,d} cycles" if run.timed else "functional")
            print(f"  [{i + 1}/{n}] {run.launch.label[:60]}: {state} ({run.wall_s:.2f} s)", file=sys.stderr,
                      flush=True)
        try:
            res = run_workload(bundle, sim=sim, timed=timed, progress=progress, max_warp_insts=a.max_insts,
                               max_cycles=getattr(a, "max_cycles", 0))
        except errors.LimitExceeded as e:           # a cap of the whole run (--max-insts / --max-cycles)
            print(f"error: the run failed: {e}", file=sys.stderr)
            return 2
    print(format_table(res))
    if a.json:
        Path(a.json).write_text(json.dumps(res.as_json(), indent=1))
    return 0 if res.outputs_pass else 1


def _validate_one(args) -> dict:
    path, config, overrides = args
    t0 = time.perf_counter()
    try:
        with open_bundle(path) as b:
            res = run_workload(b, sim=_sim(config, overrides))
            d = res.as_json()
            d["table"] = format_table(res)
            return d
    except BundleError as e:
        return {"workload": Path(path).name, "error": str(e), "outputs_pass": False, "launches": [],
                "summary": {}, "wall_s": time.perf_counter() - t0}


def validate_workloads(paths: list[str], config: str = "h200", overrides=None, jobs: int = 1, out=print,
                       json_path: str | None = None) -> dict:
    bundles = find_bundles(paths)
    work = [(str(p), config, list(overrides or [])) for p in bundles]
    t0 = time.perf_counter()
    if jobs > 1 and len(work) > 1:
        with ProcessPoolExecutor(max_workers=jobs) as ex:
            results = list(ex.map(_validate_one, work))
    else:
        results = [_validate_one(w) for w in work]
    workloads = {}
    errs_total, errs_launch = [], []
    for r in results:
        name = r["workload"]
        out(r.pop("table", None) or f"workload {name}: {r.get('error')}")
        out("")
        workloads[name] = r
        s = r.get("summary") or {}
        if s.get("err_total") is not None:
            errs_total.append(abs(s["err_total"]))
        errs_launch += [abs(L["err"]) for L in r["launches"] if L.get("err") is not None]
    passed = sum(1 for r in results if r.get("outputs_pass"))
    modes = {m: sum((r.get("summary") or {}).get("timing_modes", {}).get(m, 0) for r in results)
             for m in ("sass", "ptx")}
    sass_errs = [abs(L["sim_sass_warp_insts"] - L["hw_sass_warp_insts"]) / L["hw_sass_warp_insts"]
                 for r in results for L in r["launches"]
                 if L.get("sim_sass_warp_insts") and L.get("hw_sass_warp_insts") and L.get("err") is not None]
    summary = {"workloads": len(results), "outputs_passed": passed,
               "mae_model_total": float(np.mean(errs_total)) if errs_total else None,
               "mae_launch": float(np.mean(errs_launch)) if errs_launch else None,
               "launches": sum(len(r["launches"]) for r in results), "config": config,
               "timing_modes": modes, "mae_sass_warp_insts": float(np.mean(sass_errs)) if sass_errs else None,
               "wall_s": round(time.perf_counter() - t0, 3)}
    line = (f"{summary['workloads']} workloads, outputs {passed}/{len(results)} pass, {summary['launches']} launches")
    if summary["mae_model_total"] is not None:
        line += (f", whole-model |error| mean {100 * summary['mae_model_total']:.1f}%, per-launch MAE "
                 f"{100 * summary['mae_launch']:.1f}%")
    out(line + f" ({summary['wall_s']:.1f} s)")
    whys = sorted({((r.get("summary") or {}).get("measured") or {}).get("why") or "" for r in results} - {""})
    for why in whys:
        out(f"note: not the model's error: {why}")
    out(f"timing: {modes['sass']} launch(es) with SASS costs, {modes['ptx']} as PTX"
        + (f"; SASS warp instructions: MAE {100 * summary['mae_sass_warp_insts']:.1f}% against ncu"
           if summary["mae_sass_warp_insts"] is not None else ""))
    doc = {"mode": "workloads", "workloads": workloads, "summary": summary}
    if json_path:
        Path(json_path).write_text(json.dumps(doc, indent=1))
    return doc


def cmd_validate_workloads(a) -> int:
    paths = a.workloads or [str(PROJECT_WORKLOADS)]
    try:
        doc = validate_workloads(paths, a.config, a.set, a.jobs, json_path=a.json)
    except BundleError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    s = doc["summary"]
    return 0 if s["outputs_passed"] == s["workloads"] else 1
