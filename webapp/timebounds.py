"""Every request bounded in time (issue 13). Three bounds, each a config value:

  REQUEST_IDLE_S   the socket timeout of each connection (serve.py's request handler): a client that sends
                   nothing for this long (a stalled header, a stalled body) is disconnected. Socket.IO's
                   own pings (every 25 s) keep a live websocket well inside it.
  REQUEST_BODY_S   the time to receive a whole request body (BodyDeadline, WSGI middleware): a client that
                   drips an upload slowly enough to stay under the idle timeout gets 408 once this passes.
  REQUEST_WORK_S   the time a heavy handler may work (a run-file import's check of every chunk, an upload's
                   unpacking and PTX checks, a bundle import): `deadline()` gives the request's Deadline,
                   whose check() the loops call; past it the request ends with 503 and the reason, and
                   nothing is stored.

Everything else a request does is bounded by its input: body sizes (MAX_CONTENT_LENGTH and the upload
limits), window queries (at most MAX_BUCKETS buckets), simulations (never in a request: worker processes
with RUN_MAX_CYCLES / RUN_MAX_WARP_INSTS and WORKER_MEM_BYTES).
"""
from __future__ import annotations

import time

from flask import current_app, g, has_app_context
from werkzeug.exceptions import RequestTimeout
from werkzeug.serving import WSGIRequestHandler


class WorkTimeout(Exception):
    """A request's handler passed REQUEST_WORK_S."""


class Deadline:
    def __init__(self, seconds: float | None):
        self.seconds = seconds
        self.end = time.monotonic() + seconds if seconds else None

    def check(self, what: str = "the request") -> None:
        if self.end is not None and time.monotonic() > self.end:
            raise WorkTimeout(f"{what} took longer than this server's limit of {self.seconds:g} s (REQUEST_WORK_S)")


def deadline() -> Deadline:
    """The current request's work deadline (one per request, started at its first use); outside a request
    (a script, a test calling the store directly) one that never passes."""
    if not has_app_context():
        return Deadline(None)
    d = g.get("_work_deadline")
    if d is None:
        d = g._work_deadline = Deadline(current_app.config.get("REQUEST_WORK_S"))
    return d


class _TimedInput:
    """wsgi.input that raises RequestTimeout once the body has taken longer than `seconds` to arrive."""

    def __init__(self, stream, seconds: float):
        self._s, self._end, self._seconds = stream, time.monotonic() + seconds, seconds

    def _check(self):
        if time.monotonic() > self._end:
            raise RequestTimeout(f"the request body took longer than {self._seconds:g} s to arrive (REQUEST_BODY_S)")

    def read(self, *a):
        self._check()
        out = self._s.read(*a)
        self._check()
        return out

    def readline(self, *a):
        self._check()
        out = self._s.readline(*a)
        self._check()
        return out

    def __iter__(self):
        while True:
            line = self.readline()
            if not line:
                return
            yield line


class BodyDeadline:
    """WSGI middleware: a request body must arrive within `seconds` (0 or None: no bound)."""

    def __init__(self, wsgi_app, seconds: float | None):
        self.wsgi_app, self.seconds = wsgi_app, seconds

    def __call__(self, environ, start_response):
        if self.seconds and environ.get("wsgi.input") is not None:
            environ["wsgi.input"] = _TimedInput(environ["wsgi.input"], self.seconds)
        return self.wsgi_app(environ, start_response)


def request_handler(idle_s: float | None):
    """A werkzeug request handler whose connections time out after `idle_s` seconds without data."""
    class IdleTimeoutHandler(WSGIRequestHandler):
        timeout = idle_s or None
    return IdleTimeoutHandler
