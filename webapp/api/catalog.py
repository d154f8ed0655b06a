"""GET /api/configs, GET /api/workloads, DELETE /api/workloads/<id>, GET /api/limits."""
from __future__ import annotations

from flask import Blueprint, current_app, jsonify

from .. import services
from ..bundles import list_bundles
from ..workloads import DEMO_BUNDLES, DEMOS, list_workloads
from . import ApiError

bp = Blueprint("catalog", __name__, url_prefix="/api")


@bp.get("/configs")
def configs():
    return jsonify([{"name": n} for n in services.get().configs()])


@bp.get("/workloads")
def workloads():
    out = list_workloads(services.get().cat)
    for w in out:
        w["demo"] = w["kind"] == "builtin" and w["name"] in DEMOS
    bundles, demos = list_bundles(services.get().cat), {f"bundle:{name}" for name, _ in DEMO_BUNDLES}
    for w in bundles:
        w["demo"] = w["id"] in demos
    return jsonify(out + bundles)


@bp.delete("/workloads/<wid>")
def delete_workload(wid: str):
    if not services.get().cat.delete_workload(wid):
        raise ApiError(f"no uploaded workload {wid!r}", 404)
    return "", 204


@bp.get("/limits")
def limits():
    """What an upload or an import may be, so the forms can say it before anything is sent."""
    c = current_app.config
    return jsonify({"request_bytes": c["MAX_CONTENT_LENGTH"], "file_bytes": c["UPLOAD_MAX_FILE"],
                    "unpacked_bytes": c["UPLOAD_MAX_UNPACKED"], "max_ctas": c["MAX_CTAS"]})
