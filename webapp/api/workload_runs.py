"""Whole-model workloads: POST /api/bundles (upload a gpu-workload/1 bundle), GET /api/bundles/limits,
GET /api/workload-runs/<id> (the launch table), GET /api/workload-runs/compare?a=&b= (speed-up per launch).
A workload run is created through POST /api/runs with a bundle's workload id (create_workload_run below).
docs/explorer.md describes the store design (one workload run file + one child run per detailed launch)."""
from __future__ import annotations

import re
import sqlite3
from functools import lru_cache
from pathlib import Path

from flask import Blueprint, current_app, jsonify, request

from .. import services
from ..bundles import UploadRefused, describe, find_bundle, import_bundle, upload_limits
from ..measured import workload_measured
from ..store.catalogue import FINAL, LIVE
from ..store.workload_run import read_workload
from . import ApiError, show

bp = Blueprint("workload_runs", __name__, url_prefix="/api")
SMALL_WORKLOAD = 8          # at most this many launches: every launch gets its timeline by default
_RANGE = re.compile(r"^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$")


def parse_detail(v, n: int) -> list[int]:
    """The launches recorded cycle by cycle: None -> all when n <= SMALL_WORKLOAD else none; 'none' / '' ->
    none; 'all'; '0,3-5' or [0, 3] -> those (each in 0..n-1)."""
    if v is None:
        return list(range(n)) if n <= SMALL_WORKLOAD else []
    if isinstance(v, list):
        if any(not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < n for i in v):
            raise ApiError(f"'launches' must hold launch indices in 0..{n - 1}")
        return sorted(set(v))
    if not isinstance(v, str):
        raise ApiError("'launches' must be 'all', 'none', a list of indices or ranges like 0,3-5")
    v = v.strip()
    if v in ("", "none"):
        return []
    if v == "all":
        return list(range(n))
    out = set()
    for part in v.split(","):
        m = _RANGE.match(part)
        if not m:
            raise ApiError(f"launches: cannot read {show(part.strip())}; use indices and ranges like 0,3-5")
        a, b = int(m.group(1)), int(m.group(2) or m.group(1))
        if b < a or b >= n:
            raise ApiError(f"launches: {show(part.strip(), quote=False)} is outside 0..{n - 1} (the workload has {n} launches)")
        out.update(range(a, b + 1))
    return sorted(out)


def create_workload_run(svc, wid: str, body: dict, config: str, overrides: list[str], level: str,
                        sms, interval: int) -> dict:
    """A workload run and its child runs (one per detailed launch), queued."""
    desc = find_bundle(svc.cat, wid)
    if desc is None:
        raise ApiError(f"unknown workload {wid!r}", 404)
    n = desc["launches"]
    opaque = set(desc.get("opaque") or [])
    detail = [i for i in parse_detail(body.get("launches"), n) if i not in opaque]   # not simulated: no timeline
    if level == "off" and detail:
        raise ApiError("recording 'off' records no timeline: choose summary or full for the detailed launches, "
                       "or no launches")
    name = str(body.get("name") or f"{desc['name']} on {config}")[:120]
    run = svc.cat.create_run(name, wid, config, overrides, level, sms, interval, kind="workload",
                             options={"detail": detail, "launches": n})
    for i in detail:
        svc.cat.create_run(f"{name} · launch {i} {desc['labels'][i]}"[:160], wid, config, overrides, level, sms,
                           interval, parent=run["id"], options={"launch": i}, rid=f"{run['id']}-L{i}")
    svc.jobs.submit(run["id"])
    return run


@lru_cache(maxsize=64)
def _clock_mhz(config: str, overrides: tuple) -> float | None:
    """The run's SM clock (measured gaps in ns are drawn in cycles at it); None when the config is gone."""
    from engine.config import load_config
    try:
        return float(load_config(config, list(overrides)).to_dict()["gpu"]["sm_clock_mhz"])
    except Exception:                      # noqa: BLE001 - a deleted or unreadable config: gaps stay in ns
        return None


def _workload(run_id: str) -> dict:
    svc = services.get()
    run = svc.cat.sync_run(run_id)
    if run is None:
        raise ApiError(f"no run {run_id!r}", 404)
    if run.get("kind") != "workload":
        raise ApiError(f"run {run_id} is a single-kernel run, not a workload run", 409)
    path = svc.cat.run_path(run_id)
    meta = {}
    if path.is_file():
        try:
            meta = read_workload(path)
        except (sqlite3.DatabaseError, ValueError) as e:
            raise ApiError(f"run {run_id}: cannot read its workload run file ({e})", 500) from None
    children = {c["id"]: svc.cat.sync_run(c["id"]) for c in svc.cat.child_runs(run_id)}
    wl = meta.get("workload") or {"launches": [], "detail": run["options"].get("detail", [])}
    wl.setdefault("clock_mhz", _clock_mhz(run["config"], tuple(run.get("overrides") or ())))
    wl["measured"] = workload_measured(svc.cat, run, (wl.get("summary") or {}).get("measured"))
    for row in wl["launches"]:
        c = children.get(row.get("child"))
        if c is not None:
            row["child_status"] = c["status"]
    return {"run": run, "workload": wl, "progress": meta.get("progress"),
            "live": run["status"] in LIVE, "final": run["status"] in FINAL}


@bp.get("/workload-runs/<run_id>")
def get_workload_run(run_id: str):
    return jsonify(_workload(run_id))


@bp.get("/workload-runs/compare")
def compare():
    """Speed-up of run b over run a per launch (a's simulated cycles / b's): the same bundle on two configs."""
    a_id, b_id = request.args.get("a"), request.args.get("b")
    if not a_id or not b_id:
        raise ApiError("give two workload runs: ?a=<run id>&b=<run id>")
    a, b = _workload(a_id), _workload(b_id)
    la, lb = a["workload"]["launches"], b["workload"]["launches"]
    if a["workload"].get("name") != b["workload"].get("name") or len(la) != len(lb) or \
            any(x.get("kernel") != y.get("kernel") for x, y in zip(la, lb)):
        raise ApiError(f"runs {a_id} and {b_id} simulated different workloads "
                       f"({a['workload'].get('name')}, {b['workload'].get('name')}): compare runs of one bundle")
    rows = []
    for x, y in zip(la, lb):
        # an opaque launch is not simulated: its measured time stands in on both sides (speed-up 1)
        ca = x.get("sim_cycles") or (x.get("hw_cycles") if x.get("opaque") else None)
        cb = y.get("sim_cycles") or (y.get("hw_cycles") if y.get("opaque") else None)
        rows.append({"index": x["index"], "label": x.get("label"), "kernel": x.get("kernel"),
                     "a_cycles": ca, "b_cycles": cb, "speedup": (ca / cb) if ca and cb else None,
                     "a_bound": x.get("bound"), "b_bound": y.get("bound"),
                     **({"opaque": True} if x.get("opaque") else {})})
    ta = sum(r["a_cycles"] or 0 for r in rows)
    tb = sum(r["b_cycles"] or 0 for r in rows)
    return jsonify({"a": a["run"], "b": b["run"], "launches": rows,
                    "total": {"a_cycles": ta, "b_cycles": tb, "speedup": (ta / tb) if ta and tb else None}})


@bp.get("/bundles/limits")
def limits():
    return jsonify(upload_limits(current_app.config))


@bp.post("/bundles")
def upload_bundle():
    f = request.files.get("bundle")
    if f is None:
        raise ApiError("send the bundle (.zip or .tar.xz) as multipart field 'bundle'")
    svc = services.get()
    try:
        w, warnings = import_bundle(svc.cat, f.stream, f.filename or "", current_app.config)
    except UploadRefused as e:
        raise ApiError(str(e)) from None
    mine = [describe(f"{w['id']}:{w['info']['bundle']}", Path(w["folder"]) / w["info"]["file"], "upload",
                     {"upload": w["id"], "upload_name": w["name"]})]     # (not the whole list: the zoo is slow)
    return jsonify({"upload": w["id"], "workloads": mine, "warnings": warnings}), 201
