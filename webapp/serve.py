"""`simtscope serve [--host H] [--port P] [--data DIR]`: start the explorer.

On a fresh machine it starts on 127.0.0.1:5000 with the embedded defaults (SQLite run store in DIR,
default ./instance), queues the demo workloads on the H200 config if no run of them exists yet, and
prints the address. Environment variables for development and tests only: SIMTSCOPE_SIM_FACTORY and
SIMTSCOPE_CONFIG_LISTER name another simulator factory / config lister (module:function).
"""
from __future__ import annotations

import logging
import os
import socket
import sys
from pathlib import Path

from engine.outpaths import folder_problem


def queue_demos(app) -> list[str]:
    """Queue a run of each demo workload (webapp/workloads.py: the suite's DEMOS and the DEMO_BUNDLES models)
    that has no run yet (any status but failed, cancelled or interrupted), on the app's default config."""
    from .api import ApiError
    from .api.workload_runs import create_workload_run
    from .services import Services
    from .workloads import DEMO_BUNDLES, DEMOS
    svc: Services = app.extensions["simtscope"]
    configs = svc.configs()
    if not configs:
        return []
    config = svc.default_config(configs)
    have = {r["workload"] for r in svc.cat.list_runs() if r["status"] not in ("failed", "cancelled", "interrupted")}
    level, interval = app.config["DEFAULT_LEVEL"], app.config["DEFAULT_INTERVAL"]
    made = []
    for name in DEMOS:
        wid = f"case:{name}"
        if wid in have:
            continue
        run = svc.cat.create_run(f"{name} on {config} (demo)", wid, config, [], level, None, interval)
        svc.jobs.submit(run["id"])
        made.append(run["id"])
    for name, launches in DEMO_BUNDLES:
        wid = f"bundle:{name}"
        if wid in have:
            continue
        with app.app_context():
            try:
                run = create_workload_run(svc, wid, {"launches": launches, "name": f"{name} on {config} (demo)"},
                                          config, [], level, None, interval)
            except ApiError:                # (a tree without the zoo's bundles: no whole-model demo)
                continue
        made.append(run["id"])
    return made


class _NotProduction(logging.Filter):
    """Flask-SocketIO warns that werkzeug "appears to be used in a production deployment" whenever stdin is
    not a terminal (a service, nohup, CI). The explorer is a local tool served by werkzeug by design
    (docs/explorer.md), so that line says nothing true: it is dropped; every other warning passes."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "appears to be used in a production deployment" not in record.getMessage()


def quiet_werkzeug() -> None:
    """werkzeug's request lines off (warnings and errors stay), and the production-deployment warning dropped."""
    log = logging.getLogger("werkzeug")
    log.setLevel(logging.WARNING)
    if not any(isinstance(f, _NotProduction) for f in log.filters):
        log.addFilter(_NotProduction())


def serve(args) -> int:
    from . import create_app, socketio
    cfg = {}
    data = getattr(args, "data", None)
    cfg["DATA_DIR"] = str(Path(data).resolve()) if data else str(Path.cwd() / "instance")
    why = folder_problem(cfg["DATA_DIR"])   # the run store's folder, made here, so that a bad one is one line
    if why is None:
        try:
            Path(cfg["DATA_DIR"]).mkdir(parents=True, exist_ok=True)
        except OSError as e:
            why = e.strerror or str(e)
    if why:
        what = f"--data {data}" if data else f"the default run store {cfg['DATA_DIR']}"
        print(f"simtscope serve: {what}: cannot keep the run store there ({why})", file=sys.stderr)
        return 2
    host, port = args.host, int(args.port)
    try:                                    # the address first: a port in use must not leave demo runs queued behind it
        with socket.create_server((host, port), family=socket.AF_INET6 if ":" in host else socket.AF_INET):
            pass
    except OSError as e:
        print(f"simtscope serve: cannot listen on {host}:{port}: {e.strerror or e}", file=sys.stderr)
        return 2
    for env, key in (("SIMTSCOPE_SIM_FACTORY", "SIM_FACTORY"), ("SIMTSCOPE_CONFIG_LISTER", "CONFIG_LISTER")):
        if os.environ.get(env):
            cfg[key] = os.environ[env]
    app = create_app(cfg)
    if not getattr(args, "no_demo", False):
        made = queue_demos(app)
        if made:
            print(f"queued {len(made)} demo run(s): they simulate in the background", flush=True)
    print(f"simtscope explorer: http://{host}:{port}/   (run store: {app.config['DATA_DIR']})", flush=True)
    quiet_werkzeug()
    try:
        from .timebounds import request_handler
        socketio.run(app, host=host, port=port, allow_unsafe_werkzeug=True, use_reloader=False, log_output=False,
                     request_handler=request_handler(app.config["REQUEST_IDLE_S"]))
    except OSError as e:
        print(f"simtscope serve: cannot listen on {host}:{port}: {e.strerror or e}", file=sys.stderr)
        return 2
    return 0
