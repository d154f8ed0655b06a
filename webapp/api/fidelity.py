"""GET /api/fidelity (the preset against the hardware, from this store's runs: webapp/fidelity.py) and
POST /api/fidelity/runs {"what": "cases" | "bundles"} (simulate the rows that have no run yet)."""
from __future__ import annotations

from flask import Blueprint, current_app, jsonify

from .. import services
from ..fidelity import KINDS, fidelity, queue_missing
from . import ApiError, json_object, show

bp = Blueprint("fidelity", __name__, url_prefix="/api/fidelity")


def _config() -> str:
    config = current_app.config["DEFAULT_CONFIG"]
    if config not in services.get().configs():
        raise ApiError(f"the preset {config} is not among this server's configurations", 404)
    return config


@bp.get("")
def get_fidelity():
    return jsonify(fidelity(services.get().cat, _config()))


@bp.post("/runs")
def simulate_missing():
    body = json_object('send a JSON object: {"what": "cases" | "bundles"}')
    what = body.get("what")
    if what not in KINDS:
        raise ApiError(f"'what' must be one of {', '.join(KINDS)}, not {show(what)}")
    cfg = current_app.config
    made = queue_missing(services.get(), what, _config(), "summary", cfg["DEFAULT_INTERVAL"])
    return jsonify({"queued": made}), 201
