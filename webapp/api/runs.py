"""Runs: GET/POST /api/runs, GET/DELETE /api/runs/<id>, POST /api/runs/<id>/cancel,
GET /api/runs/<id>/download, POST /api/runs/import, GET /api/runs/<id>/counters.csv."""
from __future__ import annotations

import json
import re
import sqlite3
import tempfile
from pathlib import Path

from flask import Blueprint, Response, after_this_request, current_app, jsonify, request, send_file

from engine.recording import LEVELS

from .. import services
from ..jobs.worker import load_factory
from ..measured import list_gap
from ..metrics import counters_csv
from ..ranges import range_totals, warp_history
from ..trace_export import trace_events
from ..store import runfile
from ..timebounds import deadline
from ..store.catalogue import LIVE
from ..bundles import bundle_path
from ..redact import app_folders, scrub
from ..workloads import resolve
from . import ApiError, json_object, show
from .workload_runs import create_workload_run

bp = Blueprint("runs", __name__, url_prefix="/api/runs")
MAX_ID = 300                    # workload ids: <upload id>:<case name> (case names are short)
_OVERRIDE = re.compile(r"^[A-Za-z_][\w.]*=[^\n]{0,200}$")


def _progress(run: dict) -> dict | None:
    path = services.get().cat.run_path(run["id"])
    if run["status"] not in LIVE or not path.is_file():
        return None
    try:
        return runfile.read_meta(path, "progress")
    except sqlite3.DatabaseError:
        return None


def _public(run: dict) -> dict:
    out = {**run, "progress": _progress(run)}
    if out.get("message"):                             # a failure's text: no server path (webapp/redact.py)
        out["message"] = scrub(out["message"], app_folders(current_app))
    return out


def parse_sms(v) -> list[int] | None:
    """None / "" / "all" -> None (every SM); "0-3,8" or [0, 1, 2] -> sorted list of SM indices."""
    if v is None or v == "" or v == "all":
        return None
    if isinstance(v, str):
        out = set()
        for part in v.split(","):
            m = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?", part)
            if not m:
                raise ApiError(f"record_sms: cannot read {show(part)}; use a list like 0-3,8")
            lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
            if hi < lo or hi - lo > 4096:
                raise ApiError(f"record_sms: bad range {show(part)}; SM indices are 0 to 4095")
            out.update(range(lo, hi + 1))
        v = sorted(out)
    if not isinstance(v, list) or not v or any(not isinstance(s, int) or isinstance(s, bool) or not 0 <= s < 4096
                                               for s in v):
        raise ApiError("record_sms must be 'all', a list of SM indices, or ranges like 0-3,8")
    return sorted(set(v))


@bp.get("")
def list_runs():
    svc = services.get()
    runs = svc.cat.list_runs()
    if request.args.get("children") != "1":            # a workload's per-launch runs: under their workload
        runs = [r for r in runs if not r.get("parent")]
    return jsonify([{**_public(r), "vs_measured": list_gap(svc.cat, r)} for r in runs])


@bp.post("")
def create_run():
    svc = services.get()
    body = json_object("send a JSON object: {workload, config, overrides, level, record_sms, interval, name}")
    wid = body.get("workload")
    if not isinstance(wid, str) or not 0 < len(wid) <= MAX_ID:
        raise ApiError(f"'workload' must be a workload id of at most {MAX_ID} characters (see GET /api/workloads)")
    try:
        bundle = bundle_path(svc.cat, wid, current_app.config["BUNDLE_DIRS"])
        case = None if bundle else resolve(svc.cat, wid)[1]
    except (KeyError, ValueError) as e:
        why = e.args[0] if isinstance(e, KeyError) and e.args else e     # a KeyError's str() is its repr
        raise ApiError(f"unknown workload {show(wid)}: {str(why)[:200]}", 404) from None
    configs = svc.configs()
    config = body.get("config") or svc.default_config(configs)
    if config not in configs:
        raise ApiError(f"unknown config {show(config)}; known: {', '.join(configs) or 'none'}")
    overrides = body.get("overrides") or []
    if isinstance(overrides, str):
        overrides = [o.strip() for o in overrides.replace(",", "\n").splitlines() if o.strip()]
    if not isinstance(overrides, list) or len(overrides) > 64 or \
            any(not isinstance(o, str) or not _OVERRIDE.match(o) for o in overrides):
        raise ApiError("'overrides' must be a list of key=value strings like l2.size_kib=30720")
    check = getattr(load_factory(current_app.config["SIM_FACTORY"]), "check", None)
    if check is not None:                              # the worker would fail on it: say so now, with the valid values
        try:
            check(config, overrides)
        except ValueError as e:
            raise ApiError(f"config {config}: {e}") from None
    level = body.get("level") or current_app.config["DEFAULT_LEVEL"]
    if level not in LEVELS:
        raise ApiError(f"'level' must be one of {', '.join(LEVELS)}")
    sms = parse_sms(body.get("record_sms"))
    interval = body.get("interval") or current_app.config["DEFAULT_INTERVAL"]
    if not isinstance(interval, int) or isinstance(interval, bool) or not 16 <= interval <= 1 << 20:
        raise ApiError("'interval' must be an integer number of cycles in [16, 1048576]")
    if bundle is not None:                             # a whole model: api/workload_runs.py
        run = create_workload_run(svc, wid, body, config, overrides, level, sms, interval)
        return jsonify(_public(run)), 201
    name = str(body.get("name") or f"{case} on {config}")[:120]
    run = svc.cat.create_run(name, wid, config, overrides, level, sms, interval)
    svc.jobs.submit(run["id"])
    return jsonify(_public(run)), 201


def _run_or_404(run_id: str) -> dict:
    run = services.get().cat.sync_run(run_id)
    if run is None:
        raise ApiError(f"no run {run_id!r}", 404)
    return run


@bp.get("/<run_id>")
def get_run(run_id: str):
    return jsonify(_public(_run_or_404(run_id)))


@bp.post("/<run_id>/cancel")
def cancel_run(run_id: str):
    _run_or_404(run_id)
    if not services.get().jobs.cancel(run_id):
        raise ApiError(f"run {run_id} is not queued or running", 409)
    return jsonify(ok=True)


@bp.delete("/<run_id>")
def delete_run(run_id: str):
    svc = services.get()
    _run_or_404(run_id)
    svc.jobs.cancel(run_id)
    svc.readers.drop(run_id)
    svc.jobs.delete(run_id)
    return "", 204


@bp.get("/<run_id>/download")
def download(run_id: str):
    """A consistent copy of the run file (SQLite backup: safe while the run is still being written)."""
    run = _run_or_404(run_id)
    src_path = services.get().cat.run_path(run_id)
    if not src_path.is_file():
        raise ApiError(f"run {run_id} has no run file yet", 409)
    tmp = tempfile.NamedTemporaryFile(suffix=".simtrun", delete=False)
    tmp.close()
    src = runfile.connect(src_path, readonly=True)
    dst = sqlite3.connect(tmp.name)
    try:
        src.backup(dst)
        dst.execute("PRAGMA journal_mode=DELETE")
    finally:
        dst.close()
        src.close()

    @after_this_request
    def _cleanup(resp):
        Path(tmp.name).unlink(missing_ok=True)
        return resp

    safe = re.sub(r"[^\w.-]+", "_", run["name"])[:60]
    return send_file(tmp.name, as_attachment=True, download_name=f"{safe}-{run_id}.simtrun",
                     mimetype="application/vnd.sqlite3")


@bp.post("/import")
def import_run():
    f = request.files.get("run")
    if f is None:
        raise ApiError("send the run file as multipart field 'run'")
    with tempfile.NamedTemporaryFile(suffix=".simtrun", delete=False) as tmp:
        f.save(tmp)
    try:
        run = services.get().cat.import_run(tmp.name, request.form.get("name") or None, imported=True,
                                            check=deadline().check)
    except ValueError as e:
        raise ApiError(str(e)) from None
    finally:
        Path(tmp.name).unlink(missing_ok=True)
    return jsonify(_public(run)), 201


@bp.get("/<run_id>/counters.csv")
def counters(run_id: str):
    _run_or_404(run_id)
    try:
        a = int(request.args.get("a", 0))
        b = int(request.args.get("b", 1 << 62))
        res = max(1, int(request.args.get("res", 1)))
    except ValueError:
        raise ApiError("a, b and res must be integers") from None
    with services.get().readers.get(run_id) as r:
        r.refresh()
        b = min(b, max(r.end_cycle, a + 1))
        c = r.counters(a, b, res)
        text = counters_csv(c, r.rec)
    return Response(text, mimetype="text/csv",
                    headers={"Content-Disposition": f"attachment; filename=counters-{run_id}-{a}-{b}.csv"})


def _ints(**spec) -> dict:
    """Integer query arguments: name -> (default or None if required, lo, hi); ApiError naming a bad one."""
    out = {}
    for k, (dflt, lo, hi) in spec.items():
        raw = request.args.get(k)
        if raw is None and dflt is None:
            raise ApiError(f"'{k}' is required")
        try:
            v = int(raw) if raw is not None else dflt
        except ValueError:
            raise ApiError(f"'{k}' must be an integer, got {raw!r}") from None
        if not lo <= v <= hi:
            raise ApiError(f"'{k}' = {v} is outside [{lo}, {hi}]")
        out[k] = v
    return out


@bp.get("/<run_id>/range")
def range_(run_id: str):
    """Totals over cycles [a, b): GPU counters and, for a recorded SM, its warps' exact state cycles."""
    _run_or_404(run_id)
    q = _ints(a=(None, 0, 1 << 62), b=(None, 1, 1 << 62), sm=(0, 0, 1 << 16))
    with services.get().readers.get(run_id) as r:
        try:
            return jsonify(range_totals(r, q["a"], q["b"], q["sm"]))
        except ValueError as e:
            raise ApiError(str(e)) from None


@bp.get("/<run_id>/warp")
def warp(run_id: str):
    """One warp slot's state runs around a cycle: the pinned warp's instruction history."""
    _run_or_404(run_id)
    q = _ints(sm=(None, 0, 1 << 16), slot=(None, 0, 1 << 16), cycle=(None, 0, 1 << 62))
    with services.get().readers.get(run_id) as r:
        try:
            return jsonify(warp_history(r, q["sm"], q["slot"], q["cycle"]))
        except (ValueError, LookupError) as e:
            raise ApiError(str(e)) from None


@bp.get("/<run_id>/trace.json")
def trace(run_id: str):
    """The run in Chrome's JSON trace format (opens in ui.perfetto.dev); ?sms=0-3: whose warp states."""
    run = _run_or_404(run_id)
    sms = parse_sms(request.args.get("sms")) if request.args.get("sms") else None
    with services.get().readers.get(run_id) as r:
        body = trace_events(r, run, sms)
    safe = re.sub(r"[^\w.-]+", "_", run["name"])[:60]
    return Response(json.dumps(body, separators=(",", ":")), mimetype="application/json",
                    headers={"Content-Disposition": f"attachment; filename={safe}-{run_id}.trace.json"})
