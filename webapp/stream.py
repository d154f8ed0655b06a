"""Socket.IO events: the client pulls run metadata, windows and snapshots; the server pushes progress.

Client -> server events (payloads are maps):
    meta {run, id}                         -> frame kind "meta"
    window {run, a, b, res, ..., slot, id} -> frame kind "window"   (frames.parse_window)
    snapshot {run, cycle, sm, id}          -> frame kind "snapshot"
    watch {run | null}                     -> "progress" frames while that run is live
    ack {seq}                              after the client has handled frame `seq`
Server -> client: event "frame" with one binary msgpack frame (wire.py).

Flow control (STYLE.md guideline 8; threading-mode emit() never blocks, so the server must not push what
the client has not asked for and taken): a client may have at most FLOW_WINDOW data frames not yet
acknowledged. Requests beyond that wait in a per-session slot keyed by (kind, slot), where a newer request
replaces an older one, so a client that never reads costs at most FLOW_WINDOW frames plus one pending
request per key (at most MAX_PENDING keys). Progress frames are sent only once the previous one is acked.
"""
from __future__ import annotations

import collections
import threading

from flask import current_app, request

from . import frames, services, wire
from .measured import run_measured
from .redact import app_folders, scrub
from .store import runfile

MAX_PENDING = 16
PROGRESS_PERIOD_S = 0.25


class Session:
    def __init__(self, sid: str, app, window: int):
        self.sid, self.app, self.window = sid, app, window
        self.lock = threading.Lock()
        self.pending: collections.OrderedDict = collections.OrderedDict()
        self.outstanding: dict[int, str] = {}        # seq -> "data" | "progress"
        self.seq = 0
        self.pumping = False
        self.watch: str | None = None
        self.last_progress = None

    def next_seq(self, kind: str) -> int:
        self.seq += 1
        self.outstanding[self.seq] = kind
        return self.seq

    def data_inflight(self) -> int:
        return sum(1 for k in self.outstanding.values() if k == "data")


def register(sio) -> None:
    if getattr(sio, "_simtscope_streams", False):
        return
    sio._simtscope_streams = True

    def session() -> Session | None:
        return services.get().sessions.get(request.sid)

    @sio.on("connect")
    def _connect(auth=None):
        svc = services.get()
        with svc.lock:
            svc.sessions[request.sid] = Session(request.sid, current_app._get_current_object(),
                                                int(current_app.config["FLOW_WINDOW"]))

    @sio.on("disconnect")
    def _disconnect(*_args):
        svc = services.get()
        with svc.lock:
            svc.sessions.pop(request.sid, None)

    def _submit(kind: str, payload, key: tuple) -> None:
        s = session()
        if s is None:
            return
        with s.lock:
            s.pending.pop(key, None)
            s.pending[key] = (kind, payload)          # newest last; a newer request replaces an older one
            while len(s.pending) > MAX_PENDING:
                s.pending.popitem(last=False)
            if s.pumping:
                return
            s.pumping = True
        _pump(sio, s)

    @sio.on("meta")
    def _meta(payload=None):
        _submit("meta", payload, ("meta", str((payload or {}).get("run"))[:64]))

    @sio.on("window")
    def _window(payload=None):
        slot = str((payload or {}).get("slot", "main"))[:32] if isinstance(payload, dict) else "main"
        _submit("window", payload, ("window", slot))

    @sio.on("snapshot")
    def _snapshot(payload=None):
        slot = str((payload or {}).get("slot", "main"))[:32] if isinstance(payload, dict) else "main"
        _submit("snapshot", payload, ("snapshot", slot))          # a compared run's snapshot has its own slot

    @sio.on("ack")
    def _ack(payload=None):
        s = session()
        if s is None or not isinstance(payload, dict):
            return
        with s.lock:
            s.outstanding.pop(payload.get("seq"), None)
            if s.pumping or not s.pending:
                return
            s.pumping = True
        _pump(sio, s)

    @sio.on("watch")
    def _watch(payload=None):
        s = session()
        if s is None:
            return
        run = payload.get("run") if isinstance(payload, dict) else None
        with s.lock:
            s.watch = run if isinstance(run, str) else None
            s.last_progress = None
        _ensure_ticker(sio, services.get())


def _pump(sio, s: Session) -> None:
    """Serve pending requests while the client has credit. Runs in the thread of the event that called
    it; `pumping` makes sure only one thread serves a session at a time."""
    while True:
        with s.lock:
            if not s.pending or s.data_inflight() >= s.window:
                s.pumping = False
                return
            _key, (kind, payload) = s.pending.popitem(last=False)
            seq = s.next_seq("data")
        with s.app.app_context():
            data = _answer(kind, payload, seq)
        sio.emit("frame", data, to=s.sid)


def _answer(kind: str, payload, seq: int) -> bytes:
    req_id = payload.get("id") if isinstance(payload, dict) else None
    try:
        if not isinstance(payload, dict) or not isinstance(payload.get("run"), str):
            raise ValueError(f"a {kind} request is a map with a 'run' id")
        run_id = payload["run"]
        svc = services.get()
        run = svc.cat.get_run(run_id)
        if run is None:
            raise LookupError(f"no run {run_id!r}")
        if not svc.cat.run_path(run_id).is_file():
            raise LookupError(f"run {run_id} has not started yet (status {run['status']})")
        with svc.readers.get(run_id) as r:
            if kind == "meta":
                run = svc.cat.sync_run(run_id)
                measured = run_measured(svc.cat, run)                 # (only where there is a measurement)
                return wire.frame("meta", seq, req_id, **frames.meta_fields(r, run),
                                  **({"measured": measured} if measured else {}))
            if kind == "window":
                q = frames.parse_window(payload)
                g = frames.window_groups(r, q)
                return wire.frame("window", seq, req_id, run=run_id, a=q.a, b=q.b, res=q.res, slot=q.slot,
                                  end_cycle=r.end_cycle, status=r.status, groups=g)
            cycle = frames._int(payload, "cycle", 0, frames.MAX_CYCLE)
            sm = frames._int(payload, "sm", 0, 1 << 16)
            return wire.frame("snapshot", seq, req_id, run=run_id, **frames.snapshot_groups(r, cycle, sm))
    except (ValueError, LookupError, KeyError) as e:
        why = e.args[0] if isinstance(e, KeyError) and e.args else e
        return wire.frame("error", seq, req_id, request=kind, message=scrub(str(why), app_folders(current_app)))


# ---------------------------------------------------------------------- progress pushes
_tickers: dict[int, threading.Thread] = {}


def _ensure_ticker(sio, svc) -> None:
    with svc.lock:
        t = _tickers.get(id(svc))
        if t is not None and t.is_alive():
            return
        t = sio.start_background_task(_ticker, sio, svc)
        _tickers[id(svc)] = t


def _ticker(sio, svc) -> None:
    """Every PROGRESS_PERIOD_S: for each session watching a run, send its progress if it changed and the
    previous progress frame was acknowledged. Ends when no session watches anything."""
    idle = 0
    while idle < 40:
        with svc.lock:
            sessions = [s for s in svc.sessions.values() if s.watch]
        idle = 0 if sessions else idle + 1
        for s in sessions:
            with s.lock:
                if "progress" in s.outstanding.values() or not s.watch:
                    continue
                run_id = s.watch
            state = _progress_of(svc, run_id)
            if state is None or state == s.last_progress:
                continue
            with s.lock:
                s.last_progress = state
                seq = s.next_seq("progress")
            sio.emit("frame", wire.frame("progress", seq, None, run=run_id, **state), to=s.sid)
        sio.sleep(PROGRESS_PERIOD_S)


def _progress_of(svc, run_id: str) -> dict | None:
    run = svc.cat.get_run(run_id)
    if run is None:
        return None
    path = svc.cat.run_path(run_id)
    meta = {}
    if path.is_file():
        try:
            meta = runfile.read_meta(path)
        except Exception:                               # noqa: BLE001 - a file being created: try later
            return None
    if meta.get("status") in ("done", "faulted", "failed") and run["status"] in ("queued", "running"):
        run = svc.cat.sync_run(run_id)
    status = meta.get("status") if meta.get("status") not in (None, "created") else run["status"]
    if run["status"] in ("interrupted", "cancelled", "failed"):
        status = run["status"]
    return {"status": status, "progress": meta.get("progress"), "message": meta.get("message") or run["message"],
            "sealed_cycle": int(meta.get("sealed_cycle", 0)), "ctr_cycle": int(meta.get("ctr_cycle", 0)),
            "end_cycle": meta.get("end_cycle")}
