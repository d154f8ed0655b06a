"""The explorer's sweep page and its API.

    GET  /sweeps                     the page (templates/sweeps.html, static/js/sweep/sweep-page.js)
    GET  /api/sweeps                 every sweep of this run store: id, name, status, done / total
    GET  /api/sweeps/<id>            one sweep: its spec and every point (values, status, run_id, metrics)
    POST /api/sweeps                 start a small sweep on local workers: {cases: [names], bundles: [workload
                                     ids], sets: [..], config, workers, name}; larger ones: `simtscope sweep`
                                     (same store). A bundle is named by its id in GET /api/workloads (the
                                     project's bundle:<name>, or an upload's); the server resolves it to its file.

The page polls the sweep while it runs, so points appear as the driver stores them (the driver may be
this server's child or a `simtscope sweep` started from a terminal on the same run store).
"""
from __future__ import annotations

import atexit
import json
import os
import queue
import subprocess
import sys
import threading

from flask import Blueprint, Flask, current_app, jsonify, render_template

from engine.config import ConfigError, list_configs

from .. import services
from ..api import ApiError, json_object, show
from ..bundles import bundle_path
from .index import SweepIndex
from .spec import SweepError

bp = Blueprint("sweeps", __name__)
MAX_PAGE_POINTS = 24            # the page starts small sweeps; bigger ones belong on the command line
MAX_CASES = 64                  # names (or patterns) in 'cases'
MAX_SETS = 16                   # --set strings in 'sets' (axes)
MAX_FIELD = 2000                # characters of one case name or --set string


class _Drivers:
    """Sweep driver processes started from the page (python -m webapp.sweep.driver), killed with the server."""

    def __init__(self):
        self.lock = threading.Lock()
        self.procs: dict[str, subprocess.Popen] = {}
        self.starts: queue.Queue = queue.Queue()
        threading.Thread(target=self._loop, name="simtscope-sweeps", daemon=True).start()
        atexit.register(self.stop_all)

    def running(self, sweep_id: str) -> bool:
        with self.lock:
            p = self.procs.get(sweep_id)
            return p is not None and p.poll() is None

    def start(self, sweep_id: str, body: dict, data_dir: str) -> None:
        """Start a driver from this object's long-lived thread: the driver's parent-death signal is tied
        to the thread that started it, and a request's thread ends with the request."""
        done = threading.Event()
        self.starts.put((sweep_id, body, data_dir, done))
        if not done.wait(30):
            raise RuntimeError("the sweep launcher thread did not start the driver within 30 s")

    def _loop(self) -> None:
        while True:
            sweep_id, body, data_dir, done = self.starts.get()
            try:
                self._spawn(sweep_id, body, data_dir)
            finally:
                done.set()

    def _spawn(self, sweep_id: str, body: dict, data_dir: str) -> None:
        env = dict(os.environ)
        paths = [p for p in sys.path if p and os.path.isdir(p)]
        env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys([os.getcwd()] + paths))
        log = open(os.path.join(data_dir, "sweeps", f"{sweep_id}.log"), "ab")
        p = subprocess.Popen([sys.executable, "-m", "webapp.sweep.driver"], stdin=subprocess.PIPE, stdout=log,
                             stderr=log, env=env, close_fds=True)
        log.close()
        p.stdin.write(json.dumps({**body, "data": data_dir, "parent_pid": os.getpid()}).encode())
        p.stdin.close()
        with self.lock:
            self.procs[sweep_id] = p

    def live(self) -> list[str]:
        with self.lock:
            return [sid for sid, p in self.procs.items() if p.poll() is None]

    def exit_code(self, sweep_id: str) -> int | None:
        """The exit code of the driver this server started for the sweep, None while it runs (or if none)."""
        with self.lock:
            p = self.procs.get(sweep_id)
        return None if p is None else p.poll()

    def stop_all(self) -> None:
        with self.lock:
            procs = list(self.procs.values())
        for p in procs:
            if p.poll() is None:
                p.terminate()


_MAKE = threading.Lock()


def _index() -> SweepIndex:
    ext = current_app.extensions
    with _MAKE:
        if "simtscope-sweeps" not in ext:
            ext["simtscope-sweeps"] = SweepIndex(current_app.config["DATA_DIR"])
    return ext["simtscope-sweeps"]


def _drivers() -> _Drivers:
    """Made on the first sweep started from the page (its thread is not needed before)."""
    ext = current_app.extensions
    with _MAKE:
        if "simtscope-sweep-drivers" not in ext:
            ext["simtscope-sweep-drivers"] = _Drivers()
    return ext["simtscope-sweep-drivers"]


@bp.get("/sweeps")
def page():
    return render_template("sweeps.html", max_points=MAX_PAGE_POINTS,
                           max_workers=current_app.config["MAX_WORKERS"])


@bp.get("/api/sweeps")
def list_sweeps():
    return jsonify(_index().list())


@bp.get("/api/sweeps/<sweep_id>")
def get_sweep(sweep_id: str):
    sw = _index().get(sweep_id)
    if sw is None:
        raise ApiError(f"no sweep {sweep_id!r}", 404)
    drivers = current_app.extensions.get("simtscope-sweep-drivers")
    code = drivers.exit_code(sweep_id) if drivers is not None else None
    if sw["status"] == "running" and code is not None:
        _index().finish(sweep_id, "failed", f"the sweep driver exited with code {code} before finishing "
                                            f"(its log: sweeps/{sweep_id}.log in the run store)")
        sw = _index().get(sweep_id)
    return jsonify(sw)


@bp.post("/api/sweeps")
def start_sweep():
    from .driver import default_out_dir, spec_from_request
    body = json_object("send a JSON object: {cases: [names], bundles: [workload ids], "
                       "sets: ['l2.size_kib=30720,61440'], config, workers}")
    cases, bundles = body.get("cases", []), body.get("bundles", [])
    sets, config = body.get("sets"), body.get("config") or current_app.config["DEFAULT_CONFIG"]
    for key, what in (("cases", "validation case names"), ("bundles", "bundle workload ids")):
        v = body.get(key, [])
        if not isinstance(v, list) or len(v) > MAX_CASES or \
                not all(isinstance(c, str) and 0 < len(c) <= MAX_FIELD for c in v):
            raise ApiError(f"'{key}' must be a list of at most {MAX_CASES} {what} (each at most {MAX_FIELD} "
                           f"characters)")
    if not cases and not bundles:
        raise ApiError("a sweep needs at least one workload: 'cases' (validation case names) or 'bundles' "
                       "(bundle ids from GET /api/workloads)")
    paths = [_bundle_file(wid) for wid in bundles]
    if not isinstance(sets, list) or len(sets) > MAX_SETS or \
            not all(isinstance(s, str) and len(s) <= MAX_FIELD for s in sets):
        raise ApiError(f"'sets' must be a list of at most {MAX_SETS} strings like 'l2.size_kib=30720,61440' "
                       f"(each at most {MAX_FIELD} characters)")
    configs = list_configs()            # the engine's presets (a sweep runs the engine whatever the app's factory)
    if not isinstance(config, str) or config not in configs:   # a name, never a path on the server
        raise ApiError(f"unknown config {show(config)}; known: {', '.join(configs) or 'none'}")
    workers = body.get("workers", 1)
    max_workers = int(current_app.config["MAX_WORKERS"])
    if not isinstance(workers, int) or isinstance(workers, bool) or not 1 <= workers <= max_workers:
        raise ApiError(f"'workers' must be an integer from 1 to {max_workers} (this server's limit)")
    req = {"only": ",".join(c.replace(",", "") for c in cases), "bundles": paths,
           "sets": [s for s in sets if s.strip()], "config": config, "name": str(body.get("name") or "")[:120],
           "workers": workers}
    try:
        spec = spec_from_request(req)
        n = spec.count()            # before resolving any point: 8 axes of 10 values are 10^8 of them
        if n > MAX_PAGE_POINTS:
            raise ApiError(f"{n} points: the page starts sweeps of up to {MAX_PAGE_POINTS} points; run larger "
                           f"ones with `simtscope sweep` on the same run store (--data)")
        points = spec.points()
    except (SweepError, ConfigError) as e:
        raise ApiError(str(e)) from None
    drivers = _drivers()
    existing = _index().get(spec.id)
    if drivers.running(spec.id) or (existing and existing["status"] == "running"):
        raise ApiError(f"sweep {spec.id} is already running", 409)
    # one local cluster at a time from the page: they would share the cores (a driver whose sweep the index already
    # has as ended is only shutting its cluster down: a new sweep may start, as the page says the old one is done)
    busy = [sid for sid in drivers.live() if (_index().get(sid) or {}).get("status", "running") == "running"]
    if busy:
        raise ApiError(f"sweep {busy[0]} started from this page is still running: wait for it, or run "
                       f"more at once with `simtscope sweep`", 409)
    data_dir = current_app.config["DATA_DIR"]
    os.makedirs(os.path.join(data_dir, "sweeps"), exist_ok=True)
    # listed at once, as this server's until the driver registers itself (a driver that dies before that
    # is reported by get_sweep)
    _index().begin(spec, points, default_out_dir(data_dir, spec.id), pid=os.getpid())
    drivers.start(spec.id, req, data_dir)
    return jsonify({"id": spec.id, "name": spec.name, "points": len(points)}), 202


def _bundle_file(wid: str) -> str:
    """The file of a bundle the explorer lists (the project's or an upload), by its workload id: the page names
    workloads, never paths on the server."""
    try:
        p = bundle_path(services.get().cat, wid, current_app.config["BUNDLE_DIRS"])
    except KeyError as e:
        raise ApiError(f"unknown bundle {show(wid)}: {str(e.args[0] if e.args else e)[:200]}", 404) from None
    if p is None:
        raise ApiError(f"{show(wid)} is not a bundle (validation cases go in 'cases')")
    return str(p)


def register(app: Flask) -> None:
    app.register_blueprint(bp)
