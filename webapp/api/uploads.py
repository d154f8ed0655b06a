"""POST /api/uploads: a new workload from PTX, CUDA source (compiled with nvcc) or a zip, plus a launch
description in the cases.json format (form field or file `launch`, or cases.json inside the zip).
Checks live in webapp/uploads.py; this module only gathers the request's files."""
from __future__ import annotations

from pathlib import PurePosixPath

from flask import Blueprint, current_app, jsonify, request
from werkzeug.utils import secure_filename

from .. import services
from ..uploads import UploadError, check_ptx, compile_cu, is_trace_zip, parse_launch, store, store_trace, unpack_zip, _text
from ..workloads import list_workloads
from . import ApiError

bp = Blueprint("uploads", __name__, url_prefix="/api")


def _gather() -> tuple[dict[str, str], str | None, dict[str, str]]:
    """(PTX files by name, launch JSON text or None, other text files by name)."""
    limit = current_app.config["UPLOAD_MAX_FILE"]
    ptx, other, launch = {}, {}, None
    raw: list[tuple[str, bytes]] = []
    for field in ("ptx", "cu", "file"):
        for f in request.files.getlist(field):
            name = secure_filename(f.filename or "") or f"upload.{field}"
            raw.append((name, f.stream.read(limit + 1)))
    for f in request.files.getlist("archive"):
        data = f.stream.read(current_app.config["MAX_CONTENT_LENGTH"] + 1)
        raw += list(unpack_zip(data, limit, current_app.config["UPLOAD_MAX_UNPACKED"]).items())
    lf = request.files.get("launch")
    if lf is not None:
        launch = _text(secure_filename(lf.filename or "launch.json"), lf.stream.read(limit + 1), limit)
    elif request.form.get("launch"):
        launch = request.form["launch"]
    for name, data in raw:
        suffix = PurePosixPath(name).suffix.lower()
        if suffix == ".ptx":
            ptx[name] = _text(name, data, limit)
        elif suffix in (".cu", ".cuh", ".h"):
            other[name] = _text(name, data, limit)
            if suffix == ".cu":
                ptx[str(PurePosixPath(name).with_suffix(".ptx"))] = compile_cu(name, other[name])
        elif suffix == ".json" and PurePosixPath(name).name == "cases.json" and launch is None:
            launch = _text(name, data, limit)
        elif suffix in (".json", ".txt", ".md"):
            other[name] = _text(name, data, limit)
        else:
            raise UploadError(f"{name}: expected .ptx, .cu or a .zip of them (with cases.json)")
    return ptx, launch, other


def _upload_trace(svc, data: bytes):
    """A zipped Accel-Sim trace directory: stored as a workload `<id>:trace` (engine/traces)."""
    wid = svc.cat.new_workload_id()
    folder = svc.cat.work_dir / wid
    try:
        kernel, info = store_trace(data, folder, current_app.config["UPLOAD_MAX_TRACE"])
    except UploadError as e:
        raise ApiError(str(e)) from None
    name = (request.form.get("name") or f"trace {kernel}")[:80]
    svc.cat.add_workload(name, "trace", folder, ["trace"], info, wid=wid)
    mine = [w for w in list_workloads(svc.cat) if w.get("upload") == wid]
    return jsonify({"upload": wid, "workloads": mine}), 201


@bp.post("/uploads")
def upload():
    svc = services.get()
    arch = request.files.getlist("archive")
    if len(arch) == 1:                                 # a zipped trace directory holds kernelslist.g
        data = arch[0].stream.read(current_app.config["MAX_CONTENT_LENGTH"] + 1)
        if is_trace_zip(data):
            return _upload_trace(svc, data)
        arch[0].stream.seek(0)
    try:
        ptx, launch, other = _gather()
        if not ptx:
            raise UploadError("no PTX: upload a .ptx, a .cu (compiled with nvcc) or a .zip holding them")
        if launch is None:
            raise UploadError("no launch description: give cases.json-style JSON as field or file 'launch'")
        default = next(iter(ptx)) if len(ptx) == 1 else None
        cases = parse_launch(launch, default, current_app.config["MAX_CTAS"])
        check_ptx(cases, ptx)
    except UploadError as e:
        raise ApiError(str(e)) from None
    wid = svc.cat.new_workload_id()
    folder = svc.cat.work_dir / wid
    store(folder, cases, {**ptx, **other})
    name = (request.form.get("name") or cases[0]["name"])[:80]
    svc.cat.add_workload(name, "upload", folder, [c["name"] for c in cases], {"files": sorted(ptx)}, wid=wid)
    mine = [w for w in list_workloads(svc.cat) if w.get("upload") == wid]
    return jsonify({"upload": wid, "workloads": mine}), 201
