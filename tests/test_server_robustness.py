"""Robustness with the real server process: SIGKILL in the middle of a simulation, then a restart; and
20 concurrent socket clients scrubbing (a bounded loop on loopback) while the server stays responsive."""
from __future__ import annotations

import signal
import threading
import time

import pytest
import socketio as sio_client

from tests.fixtures.servers import ServerProcess, wait_done
from webapp import wire


@pytest.fixture
def server(tmp_path):
    s = ServerProcess(tmp_path / "data", synthetic=True).start()
    yield s
    s.stop()


def _new_run(server, **kw) -> dict:
    body = {"workload": "case:softmax_4096x128", "config": "synthetic", **kw}
    r = server.post("/api/runs", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def test_sigkill_mid_simulation_marks_the_run_interrupted_and_keeps_the_catalogue(server, tmp_path):
    finished = wait_done(server.get, _new_run(server, overrides=["ctas=40"])["id"])
    assert finished["status"] == "done"
    slow = _new_run(server, overrides=["ctas=3000", "delay=0.02"])
    t0 = time.monotonic()
    while server.get(f"/api/runs/{slow['id']}")["status"] != "running" or \
            not (server.get(f"/api/runs/{slow['id']}").get("progress") or {}).get("cycle"):
        assert time.monotonic() - t0 < 60, "the slow run never started"
        time.sleep(0.1)
    server.kill(signal.SIGKILL)
    lock = tmp_path / "data" / "runs" / f"{slow['id']}.lock"
    for _ in range(100):                  # the worker dies with the server (PR_SET_PDEATHSIG)
        import fcntl
        with open(lock, "a+") as f:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                time.sleep(0.1)
    else:
        pytest.fail("the worker outlived the server")
    again = ServerProcess(tmp_path / "data", synthetic=True)
    again.port, again.url = server.port, server.url
    again.start()
    try:
        runs = {r["id"]: r for r in again.get("/api/runs")}
        assert runs[slow["id"]]["status"] == "interrupted"
        assert "server stopped" in runs[slow["id"]]["message"]
        assert runs[finished["id"]]["status"] == "done" and runs[finished["id"]]["cycles"] == finished["cycles"]
        # the interrupted run keeps what it committed and can still be opened
        from webapp.store import RunReader
        rd = RunReader(tmp_path / "data" / "runs" / f"{slow['id']}.simtrun")
        assert rd.status == "interrupted" and rd.end_cycle > 0
        # and the server works as before
        assert wait_done(again.get, _new_run(again, overrides=["ctas=20"])["id"])["status"] == "done"
    finally:
        again.stop()


def test_twenty_clients_scrubbing_keep_the_server_responsive(server):
    run = wait_done(server.get, _new_run(server, overrides=["ctas=200"])["id"])
    end = run["cycles"]
    errors, counts = [], []

    def scrub(k: int):
        c = sio_client.Client(reconnection=False)
        box = {"ev": threading.Event(), "f": None}

        @c.on("frame")
        def _frame(data):
            f = wire.decode(data)
            c.emit("ack", {"seq": f["seq"]})
            box["f"] = f
            box["ev"].set()

        try:
            c.connect(server.url, transports=["websocket"], wait_timeout=20)
            n = 0
            for i in range(25):                                  # a bounded scrubbing loop
                cyc = (k * 997 + i * 131) % end
                for ev, payload in (("window", {"a": max(0, cyc - 500), "b": cyc + 500, "res": 1, "heat_sm": k % 4}),
                                    ("snapshot", {"cycle": cyc, "sm": k % 4})):
                    box["ev"].clear()
                    c.emit(ev, {"run": run["id"], "id": i, **payload})
                    if not box["ev"].wait(30):
                        raise TimeoutError(f"client {k}: no answer to {ev} {i}")
                    if box["f"]["kind"] == "error":
                        raise RuntimeError(box["f"]["message"])
                    n += 1
            counts.append(n)
        except Exception as e:                                   # noqa: BLE001 - reported below
            errors.append(f"{type(e).__name__}: {e}")
        finally:
            c.disconnect()

    threads = [threading.Thread(target=scrub, args=(k,)) for k in range(20)]
    for t in threads:
        t.start()
    listed = server.get("/api/runs")                         # REST answers while the clients scrub
    for t in threads:
        t.join(120)
    assert not errors, errors[:3]
    assert counts == [50] * 20 and any(r["id"] == run["id"] for r in listed)
