"""No server path in what the server answers (issue 13): every error endpoint is walked with bad input and
its answer checked for the server's folders (the run store, the project, the temporary folder, the home
folder, Python's prefix); the messages themselves are written without paths (nothing had to be cut by
webapp/redact.py, which logs when it does), and a failure message that does hold one is cut before it is
sent."""
from __future__ import annotations

import io
import json
import logging
import os
import sys
import tempfile
import zipfile
from pathlib import Path

import pytest

from tests.fixtures.servers import synthetic_app
from tests.test_server import frames

ROOT = Path(__file__).resolve().parent.parent


def _zip(members: dict[str, bytes]) -> bytes:
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w") as f:
        for k, v in members.items():
            f.writestr(k, v)
    return b.getvalue()


def _file(field: str, data: bytes, name: str, **form) -> dict:
    return {"data": {field: (io.BytesIO(data), name), **form}, "content_type": "multipart/form-data"}


SUITE_MISSING_PTX = json.dumps({"format": "gpu-validation-suite/1", "cases": [
    {"name": "x", "ptx": "missing.ptx", "kernel": "k", "grid": [1], "block": [1], "args": []}]}).encode()
BAD_PTX = b".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n  frobnicate.u32 %r1;\n}\n"

# (method, url, keyword arguments, expected status, a substring of the error)
CASES = [
    ("post", "/api/runs", {"json": {"workload": "case:nope"}}, 404,
     "unknown workload 'case:nope': no case 'nope' in the validation suite"),
    ("post", "/api/runs", {"json": {"workload": "bundle:nope"}}, 404, "no bundle 'nope' among the project's bundles"),
    ("post", "/api/runs", {"json": {"workload": "zz:nope"}}, 404, "no uploaded workload 'zz'"),
    ("post", "/api/runs", {"json": {"workload": "nocolon"}}, 404, "is not of the form source:case"),
    ("post", "/api/runs", {"json": {"workload": "case:saxpy_1M", "config": "nope"}}, 400, "unknown config 'nope'"),
    ("post", "/api/runs", {"data": "not json"}, 400, "send a JSON object"),
    ("get", "/api/runs/nope", {}, 404, "no run 'nope'"),
    ("get", "/api/runs/nope/download", {}, 404, "no run 'nope'"),
    ("get", "/api/runs/nope/counters.csv", {}, 404, "no run 'nope'"),
    ("get", "/api/runs/nope/range", {}, 404, "no run 'nope'"),
    ("get", "/api/runs/nope/warp", {}, 404, "no run 'nope'"),
    ("get", "/api/runs/nope/trace.json", {}, 404, "no run 'nope'"),
    ("delete", "/api/runs/nope", {}, 404, "no run 'nope'"),
    ("post", "/api/runs/nope/cancel", {}, 404, "no run 'nope'"),
    ("get", "/api/workload-runs/nope", {}, 404, "no run 'nope'"),
    ("get", "/api/workload-runs/compare?a=x&b=y", {}, 404, "no run 'x'"),
    ("delete", "/api/workloads/nope", {}, 404, "no uploaded workload 'nope'"),
    ("get", "/api/sweeps/nope", {}, 404, "no sweep 'nope'"),
    ("post", "/api/sweeps", {"json": {"cases": ["nope"], "sets": ["l2.size_kib=1024"]}}, 400,
     "--only 'nope': no case of the validation suite matches"),
    ("post", "/api/runs/import", _file("run", b"garbage", "x.simtrun"), 400, "cannot import: not an SQLite database"),
    ("post", "/api/runs/import", _file("run", b"SQLite format 3\x00" + bytes(200), "x.simtrun"), 400, "cannot import"),
    ("post", "/api/uploads", _file("ptx", BAD_PTX, "k.ptx", launch="{}"), 400, ""),
    ("post", "/api/uploads", _file("archive", b"PK\x03\x04junk", "a.zip"), 400, "not a valid zip file"),
    ("post", "/api/uploads", _file("archive", _zip({"cases.json": SUITE_MISSING_PTX}), "a.zip"), 400, ""),
    ("post", "/api/bundles", _file("bundle", _zip({"x.txt": b"hi"}), "b.zip"), 400,
     "b.zip: the archive must hold one folder with manifest.json at its root"),
    ("post", "/api/bundles", _file("bundle", _zip({"manifest.json": b"{}"}), "b.zip"), 400,
     "b.zip:manifest.json: format None is not 'gpu-workload/1'"),
    ("post", "/api/bundles", _file("bundle", b"\xfd7zXZ\x00junk", "b.tar.xz"), 400, "b.tar.xz"),
    ("get", "/api/nothing", {}, 404, "not found"),
]


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    a = synthetic_app(tmp_path_factory.mktemp("paths") / "data")
    yield a
    a.extensions["simtscope"].jobs.shutdown()


def server_folders(app) -> list[str]:
    found = [app.config["DATA_DIR"], app.instance_path, str(ROOT), tempfile.gettempdir(), os.path.expanduser("~"),
             sys.prefix, *app.config["BUNDLE_DIRS"]]
    return sorted({f for f in found if f and f != "/"})


def test_no_error_response_names_a_server_folder(app, caplog):
    client, folders = app.test_client(), server_folders(app)
    with caplog.at_level(logging.WARNING, logger="webapp.redact"):
        for method, url, kw, status, want in CASES:
            r = getattr(client, method)(url, **kw)
            body = r.get_data(as_text=True)
            assert r.status_code == status, (method, url, body)
            err = r.get_json()["error"]
            assert want.lower() in err.lower(), (method, url, err)
            assert not [f for f in folders if f in body], (method, url, body)
    # the sites write their messages without paths: the last check had nothing to cut
    assert not [r.getMessage() for r in caplog.records if r.name == "webapp.redact"]


def test_a_failure_message_holding_a_server_path_is_cut_to_the_file_name(app):
    """A run's failure text comes from the simulator (an exception's str); if one names a file of the run
    store, the answer names the file only."""
    client = app.test_client()
    run = client.post("/api/runs", json={"workload": "case:saxpy_1M", "config": "synthetic"}).get_json()
    cat = app.extensions["simtscope"].cat
    data = app.config["DATA_DIR"]
    cat.mark_final(run["id"], "failed", f"PTXSyntaxError: {data}/uploads/ab12/kernel.ptx:4:2: bad token "
                                        f"(see {tempfile.gettempdir()}/simtscope-x/y.json)")
    for got in (client.get(f"/api/runs/{run['id']}").get_json(),
                next(r for r in client.get("/api/runs").get_json() if r["id"] == run["id"])):
        assert got["message"] == "PTXSyntaxError: kernel.ptx:4:2: bad token (see y.json)", got["message"]


def test_socket_error_frames_name_no_server_folder(app):
    from webapp import socketio
    client = app.test_client()
    sc = socketio.test_client(app, flask_test_client=client)
    for payload in ({"run": "nope", "id": 1}, {"id": 2}, {"run": 5, "id": 3}):
        sc.emit("meta", payload)
        (f,) = frames(sc)
        sc.emit("ack", {"seq": f["seq"]})
        assert f["kind"] == "error", f
        assert not [d for d in server_folders(app) if d in f["message"]], f
    sc.disconnect()


def test_a_worker_stores_its_failure_without_the_server_folders(tmp_path):
    """The failure message a worker writes into the run file (which a client can download as it is) names
    files, not the server's folders: the run store's (from the job's run-file path), the bundle's and the
    cases file's; a message without a path is unchanged."""
    from webapp.jobs.worker import failure, job_folders
    store = tmp_path / "srv" / "data"
    job = {"path": str(store / "runs" / "r1.simtrun"), "bundle": "/opt/bundles/zoo/m.tar.xz",
           "cases": "/opt/suites/mine/cases.json"}
    assert set(job_folders(job)) == {str(store / "runs"), str(store), "/opt/bundles/zoo", "/opt/suites/mine"}
    e = ValueError(f"cannot read {store}/uploads/ab/k.ptx and /opt/bundles/zoo/m.tar.xz "
                   f"(cases /opt/suites/mine/cases.json)")
    assert failure(e, job_folders(job)) == "ValueError: cannot read k.ptx and m.tar.xz (cases cases.json)"
    assert failure(KeyError("x")) == "KeyError: 'x'"
    assert failure(RuntimeError("RuntimeError: as it was")) == "RuntimeError: as it was"
    assert job_folders({"path": "relative/r.simtrun", "bundle": None}) == ()
