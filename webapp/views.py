"""The page: one HTML shell; the explorer itself is static ES modules (static/js/)."""
from __future__ import annotations

from flask import Blueprint, render_template

bp = Blueprint("views", __name__)


@bp.get("/")
def index():
    return render_template("index.html")


@bp.get("/workload")
def workload():
    """A workload run: its launches on one timeline, the per-layer table (static/js/workload-main.js)."""
    return render_template("workload.html")


@bp.get("/fidelity")
def fidelity():
    """The preset against the hardware: every measured case and model (static/js/fidelity-main.js)."""
    return render_template("fidelity.html")
