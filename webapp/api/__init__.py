"""REST API under /api: runs.py (runs: list, create, get, delete, download, import, CSV), catalog.py
(configs, workloads), uploads.py (new workloads), workload_runs.py (bundles: upload, launch tables, compare),
fidelity.py (the preset against the hardware). Errors are JSON {"error": message} with a 4xx status."""
from __future__ import annotations

from flask import Flask, jsonify, request
from werkzeug.exceptions import HTTPException

from engine.errors import show  # noqa: F401 - the API's modules quote values with it (from . import show)

from ..timebounds import WorkTimeout


class ApiError(Exception):
    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.message, self.status = message, status


def json_object(hint: str) -> dict:
    """The request's body as a JSON object, else ApiError(hint): a body that is not JSON (or not sent as
    application/json), not UTF-8, or not an object. A body nested deeper than Python's parser recurses
    (about 1,000 levels) is refused by name; Flask's get_json(silent=True) only catches ValueError."""
    try:
        body = request.get_json(silent=True)
    except RecursionError:
        raise ApiError("the JSON body is nested too deeply (a run or sweep spec is a flat object)") from None
    if not isinstance(body, dict):
        raise ApiError(hint)
    bad = _not_text(body)
    if bad is not None:
        raise ApiError(f"{bad}: not Unicode text (a lone surrogate escape such as \\ud800)")
    return body


def _not_text(node, path: str = "") -> str | None:
    """The path ('name', 'sets[2]', a key's own name) of the first string in a parsed JSON body that is not
    Unicode text: JSON's \\ud800 escapes parse to lone surrogates, which UTF-8 (SQLite, run files, the
    log) cannot encode. The body parsed, so it is at most ~1,000 levels deep."""
    stack = [(node, path)]
    while stack:
        v, where = stack.pop()
        if isinstance(v, str):
            try:
                v.encode("utf-8")
            except UnicodeEncodeError:
                return where if where.startswith("a key") else f"'{where}'" if where else "the body"
        elif isinstance(v, dict):
            for k, x in v.items():
                stack.append((k, f"a key of '{where}'" if where else "a key of the body"))
                stack.append((x, f"{where}.{k[:40]}" if where else k[:40]))
        elif isinstance(v, list):
            stack.extend((x, f"{where}[{i}]") for i, x in enumerate(v))
    return None


def register(app: Flask) -> None:
    from . import catalog, fidelity, runs, uploads, workload_runs
    for mod in (runs, catalog, uploads, workload_runs, fidelity):
        app.register_blueprint(mod.bp)

    from ..redact import app_folders, scrub

    def public(msg) -> str:
        return scrub(str(msg), app_folders(app))

    @app.errorhandler(ApiError)
    def _api_error(e: ApiError):
        return jsonify(error=public(e.message)), e.status

    @app.errorhandler(WorkTimeout)
    def _work_timeout(e: WorkTimeout):
        return jsonify(error=public(e)), 503

    @app.errorhandler(HTTPException)
    def _http_error(e: HTTPException):
        if request.path.startswith("/api/"):
            msg = e.description
            if e.code == 413:
                limit = app.config["MAX_CONTENT_LENGTH"] // 2**20
                msg = f"the upload is larger than the server's limit of {limit} MiB"
            return jsonify(error=public(msg)), e.code
        return e
