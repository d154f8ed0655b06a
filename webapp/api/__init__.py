"""REST API under /api: runs.py (runs: list, create, get, delete, download, import, CSV), catalog.py
(configs, workloads), uploads.py (new workloads), workload_runs.py (bundles: upload, launch tables, compare). Errors are JSON {"error": message} with a 4xx status."""
from __future__ import annotations

from flask import Flask, jsonify, request
from werkzeug.exceptions import HTTPException

from ..timebounds import WorkTimeout


class ApiError(Exception):
    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.message, self.status = message, status


def register(app: Flask) -> None:
    from . import catalog, runs, uploads, workload_runs
    for mod in (runs, catalog, uploads, workload_runs):
        app.register_blueprint(mod.bp)

    @app.errorhandler(ApiError)
    def _api_error(e: ApiError):
        return jsonify(error=e.message), e.status

    @app.errorhandler(WorkTimeout)
    def _work_timeout(e: WorkTimeout):
        return jsonify(error=str(e)), 503

    @app.errorhandler(HTTPException)
    def _http_error(e: HTTPException):
        if request.path.startswith("/api/"):
            msg = e.description
            if e.code == 413:
                limit = app.config["MAX_CONTENT_LENGTH"] // 2**20
                msg = f"the upload is larger than the server's limit of {limit} MiB"
            return jsonify(error=msg), e.code
        return e
