"""Issue 13: every request is bounded in time (webapp/timebounds.py): a silent connection is closed after
REQUEST_IDLE_S, a body that drips in slower than REQUEST_BODY_S gets 408, and a heavy handler that works
past REQUEST_WORK_S ends with 503 and the reason, storing nothing."""
from __future__ import annotations

import io
import socket
import threading
import time

import pytest

from tests.fixtures.servers import synthetic_app
from tests.fixtures.synthetic_recording import SyntheticSim
from webapp.store import RunWriter


@pytest.fixture(scope="module")
def runfile(tmp_path_factory):
    p = tmp_path_factory.mktemp("rf") / "r.simtrun"
    SyntheticSim(num_sms=2, slots=8, ctas=6, seed=5).run(RunWriter(p, {"name": "r"}))
    return p.read_bytes()


class SlowStream(io.BytesIO):
    """A request body that arrives 64 bytes every 0.1 s."""

    def read(self, n=-1):
        time.sleep(0.1)
        return super().read(64 if n is None or n < 0 else min(n, 64))

    def readline(self, n=-1):
        time.sleep(0.1)
        return super().readline(64 if n is None or n < 0 else min(n, 64))


def _multipart(field: str, name: str, data: bytes) -> tuple[bytes, str]:
    boundary = "XyZbOuNdArY"
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"{field}\"; filename=\"{name}\"\r\n"
            f"Content-Type: application/octet-stream\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
    return body, f"multipart/form-data; boundary={boundary}"


def test_a_body_that_drips_in_gets_408(tmp_path, runfile):
    app = synthetic_app(tmp_path / "d", REQUEST_BODY_S=0.5)
    try:
        body, ctype = _multipart("run", "r.simtrun", runfile)
        t0 = time.monotonic()
        r = app.test_client().post("/api/runs/import", input_stream=SlowStream(body),
                                   content_type=ctype, content_length=len(body))
        assert r.status_code == 408, r.get_data(as_text=True)
        assert r.get_json()["error"] == "the request body took longer than 0.5 s to arrive (REQUEST_BODY_S)"
        assert time.monotonic() - t0 < 5                 # not the ~80 s the whole body would take
        assert app.test_client().get("/api/runs").get_json() == []
    finally:
        app.extensions["simtscope"].jobs.shutdown()


def test_a_heavy_handler_past_its_work_limit_gets_503_and_stores_nothing(tmp_path, runfile):
    app = synthetic_app(tmp_path / "d", REQUEST_WORK_S=1e-6)
    try:
        c = app.test_client()
        r = c.post("/api/runs/import", data={"run": (io.BytesIO(runfile), "r.simtrun")},
                   content_type="multipart/form-data")
        assert r.status_code == 503
        assert r.get_json()["error"] == ("checking the run file took longer than this server's limit of 1e-06 s "
                                         "(REQUEST_WORK_S)")
        assert c.get("/api/runs").get_json() == []
        runs = tmp_path / "d" / "runs"
        assert not [p.name for p in runs.iterdir()], list(runs.iterdir())
    finally:
        app.extensions["simtscope"].jobs.shutdown()
    app = synthetic_app(tmp_path / "d2")                  # the default limit: the same import succeeds
    try:
        r = app.test_client().post("/api/runs/import", data={"run": (io.BytesIO(runfile), "r.simtrun")},
                                   content_type="multipart/form-data")
        assert r.status_code == 201, r.get_json()
    finally:
        app.extensions["simtscope"].jobs.shutdown()


def test_a_silent_connection_is_closed_and_the_server_keeps_answering(tmp_path):
    from werkzeug.serving import make_server
    from webapp.timebounds import request_handler
    app = synthetic_app(tmp_path / "d")
    srv = make_server("127.0.0.1", 0, app, threaded=True, request_handler=request_handler(1.0))
    th = threading.Thread(target=srv.serve_forever, daemon=True)
    th.start()
    try:
        port = srv.server_port
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(b"POST /api/runs/import HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nabc")   # then silence
        s.settimeout(20)
        t0 = time.monotonic()
        got = b""
        while True:
            chunk = s.recv(4096)
            if not chunk:
                break
            got += chunk
        assert time.monotonic() - t0 < 15                # closed by the server, not by our 20 s timeout
        s.close()
        with socket.create_connection(("127.0.0.1", port)) as s2:
            s2.sendall(b"GET /api/runs HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            s2.settimeout(20)
            reply = b""
            while chunk := s2.recv(4096):
                reply += chunk
        assert reply.startswith(b"HTTP/1.1 200") and reply.rstrip().endswith(b"[]"), reply[:200]
    finally:
        srv.shutdown()
        app.extensions["simtscope"].jobs.shutdown()
