"""The explorer's app factory: the Flask app, its blueprints and the Flask-SocketIO object.

    from webapp import create_app, socketio    # webapp/__init__.py loads this module on first use
"""
from __future__ import annotations

import os
from pathlib import Path

from flask import Flask
from flask_socketio import SocketIO

from .workloads import DEFAULT_CONFIG

socketio = SocketIO()


def _asset_dir(name: str) -> str:
    here = Path(__file__).resolve().parent
    for cand in (here / name, here.parent / name):     # wheel install, then source checkout
        if cand.is_dir():
            return str(cand)
    raise RuntimeError(f"{name}/ not found next to {here}")


def create_app(test_config: dict | None = None) -> Flask:
    app = Flask(__package__, instance_relative_config=True, static_folder=_asset_dir("static"),
                template_folder=_asset_dir("templates"))
    app.config.from_mapping(
        DATA_DIR=None,                         # default: the instance folder
        MAX_CONTENT_LENGTH=32 * 2**20,         # request bodies (uploads, imports) above this get 413
        UPLOAD_MAX_FILE=8 * 2**20,             # one PTX / CUDA / JSON file
        UPLOAD_MAX_UNPACKED=64 * 2**20,        # everything inside an uploaded archive
        UPLOAD_MAX_TRACE=512 * 2**20,          # everything inside an uploaded trace directory (.zip)
        SIM_FACTORY="webapp.jobs.sims:timing_sim",
        CONFIG_LISTER="webapp.jobs.sims:timing_configs",
        MAX_WORKERS=max(1, (os.cpu_count() or 2) - 1),
        FLOW_WINDOW=4,                         # frames a socket client may have unacknowledged
        DEFAULT_CONFIG=DEFAULT_CONFIG,         # a run or sweep that names no config (the calibrated preset)
        DEFAULT_LEVEL="full",
        DEFAULT_INTERVAL=256,
        MAX_CTAS=1 << 20,                      # launches above this are refused at upload
        BUNDLE_DIRS=None,                      # folders of gpu-workload/1 bundles (default: workloads/examples)
        BUNDLE_MAX_UPLOAD=30 * 2**20,          # an uploaded bundle archive (.zip / .tar.xz), as sent
        BUNDLE_MAX_UNPACKED=256 * 2**20,       # everything it unpacks to
        BUNDLE_MAX_MEMBERS=4096,
        BUNDLE_MAX_MANIFEST=4 * 2**20,
        BUNDLE_MAX_LAUNCHES=5000,
        RUN_MAX_CYCLES=2_000_000_000,          # a run past this many simulated cycles ends as failed (0: no cap)
        RUN_MAX_WARP_INSTS=20_000_000_000,     # ... or past this many warp instructions (0: no cap)
        WORKER_MEM_BYTES=16 * 2**30,           # address-space limit (RLIMIT_AS) of each worker process
        REQUEST_IDLE_S=120,                    # a connection silent this long is closed (timebounds.py)
        REQUEST_BODY_S=300,                    # a request body must arrive within this (else 408)
        REQUEST_WORK_S=120,                    # a heavy handler (import, upload checks) may work this long (else 503)
    )
    if test_config is None:
        app.config.from_pyfile("config.py", silent=True)
    else:
        app.config.from_mapping(test_config)
    data = Path(app.config["DATA_DIR"] or app.instance_path)
    data.mkdir(parents=True, exist_ok=True)
    app.config["DATA_DIR"] = str(data)
    if app.config["BUNDLE_DIRS"] is None:
        from .bundles import default_dirs
        app.config["BUNDLE_DIRS"] = default_dirs()

    from . import api, bundles, services, stream, views
    from .timebounds import BodyDeadline
    app.wsgi_app = BodyDeadline(app.wsgi_app, app.config["REQUEST_BODY_S"])
    from .sweep import views as sweep_views
    services.init_app(app)
    bundles.init_app(app)
    app.register_blueprint(views.bp)
    api.register(app)
    sweep_views.register(app)
    stream.register(socketio)
    socketio.init_app(app, async_mode="threading", max_http_buffer_size=app.config["MAX_CONTENT_LENGTH"])
    return app
