"""Server: REST API and Socket.IO frames with socketio.test_client (no network), on SYNTHETIC runs."""
from __future__ import annotations

import io
import json
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from engine.recording import STATE_INDEX
from tests.fixtures.servers import synthetic_app, wait_done
from webapp import socketio, wire
from webapp.store import RunReader

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    a = synthetic_app(tmp_path_factory.mktemp("srv"))
    yield a
    a.extensions["simtscope"].jobs.shutdown()


@pytest.fixture(scope="module")
def client(app):
    return app.test_client()


def _get(client):
    return lambda path: client.get(path).get_json()


@pytest.fixture(scope="module")
def done_run(client):
    r = client.post("/api/runs", json={"workload": "case:sgemm_tiled16_256", "config": "synthetic",
                                       "overrides": ["ctas=120"], "record_sms": "0,2-3"})
    assert r.status_code == 201
    run = wait_done(_get(client), r.get_json()["id"])
    assert run["status"] == "done", run
    return run


def frames(sc) -> list[dict]:
    return [wire.decode(m["args"][0]) for m in sc.get_received() if m["name"] == "frame"]


def ask(sc, event, payload) -> dict:
    """Emit a request, return its frame, acknowledge it (as the browser does)."""
    sc.emit(event, payload)
    got = frames(sc)
    assert len(got) == 1, [g["kind"] for g in got]
    sc.emit("ack", {"seq": got[0]["seq"]})
    return got[0]


def test_run_lifecycle_list_download_import_delete(client, done_run, tmp_path):
    runs = client.get("/api/runs").get_json()
    mine = [r for r in runs if r["id"] == done_run["id"]]
    assert mine and mine[0]["status"] == "done" and {"id", "status", "name"} <= set(mine[0])
    assert done_run["cycles"] > 0 and done_run["warp_insts"] > 0
    dl = client.get(f"/api/runs/{done_run['id']}/download")
    assert dl.status_code == 200 and dl.data[:16] == b"SQLite format 3\x00"
    imp = client.post("/api/runs/import", data={"run": (io.BytesIO(dl.data), "x.simtrun")},
                      content_type="multipart/form-data")
    assert imp.status_code == 201
    new = imp.get_json()
    assert new["status"] == "done" and new["cycles"] == done_run["cycles"] and new["id"] != done_run["id"]
    bad = client.post("/api/runs/import", data={"run": (io.BytesIO(b"not a run" * 100), "x.simtrun")},
                      content_type="multipart/form-data")
    assert bad.status_code == 400 and "not an SQLite database" in bad.get_json()["error"]
    assert client.delete(f"/api/runs/{new['id']}").status_code == 204
    assert client.get(f"/api/runs/{new['id']}").status_code == 404


@pytest.mark.parametrize("body,status,msg", [
    ({"workload": "case:nope", "config": "synthetic"}, 404, "unknown workload"),
    ({"workload": "case:saxpy_1M", "config": "a100x"}, 400, "unknown config"),
    ({"workload": "case:saxpy_1M", "config": "synthetic", "level": "max"}, 400, "'level' must be one of"),
    ({"workload": "case:saxpy_1M", "config": "synthetic", "overrides": ["rm -rf /"]}, 400, "key=value"),
    ({"workload": "case:saxpy_1M", "config": "synthetic", "record_sms": "3-1"}, 400, "bad range"),
    ({"workload": "case:saxpy_1M", "config": "synthetic", "interval": 3}, 400, "'interval' must be"),
    ([1, 2], 400, "send a JSON object"),
])
def test_create_run_refuses_bad_requests(client, body, status, msg):
    r = client.post("/api/runs", json=body)
    assert r.status_code == status and msg in r.get_json()["error"]


def test_frames_decode_meta_window_snapshot(app, client, done_run):
    sc = socketio.test_client(app, flask_test_client=client)
    m = ask(sc, "meta", {"run": done_run["id"], "id": 1})
    assert m["kind"] == "meta" and m["id"] == 1 and m["status"] == "done" and m["record_sms"] == [0, 2, 3]
    assert m["groups"]["pc_stats"]["cols"]["issued"].sum() == done_run["warp_insts"]
    # the H200's measurement of the same case rides along for the summary; the synthetic sim is no preset,
    # so its gap to it is not called an error
    hw = json.loads((ROOT / "validation" / "h200_results.json").read_text())["cases"]["sgemm_tiled16_256"]["ncu"]
    assert m["measured"]["cycles"] == hw["gpc__cycles_elapsed.max"] and m["measured"]["device"] == "NVIDIA H200"
    assert m["measured"]["comparable"] is False and m["measured"]["why"] == "the simulated configuration cannot be read"
    w = ask(sc, "window", {"run": done_run["id"], "a": 0, "b": 3000, "res": 4, "heat_sm": 2, "id": 2})
    g = w["groups"]
    assert set(g) == {"ctr", "strip", "strip_c", "heat", "cta", "kernel"}
    assert g["heat"]["cols"]["state"].shape == (16, g["heat"]["n"]) and g["heat"]["step"] == 4
    assert g["strip"]["sms"] == [0, 2, 3] and g["strip_c"]["sms"] == [1]
    assert g["cta"]["cols"]["start"].dtype.kind in "iu"         # offsets from cycle0, smallest type
    s = ask(sc, "snapshot", {"run": done_run["id"], "cycle": 1000, "sm": 2, "id": 3})
    assert s["warps"]["cols"]["state"].shape == (16,) and len(s["warps"]["text"]) == 16
    e = ask(sc, "window", {"run": done_run["id"], "a": 10, "b": 5, "id": 4})
    assert e["kind"] == "error" and "'b'" in e["message"]
    e = ask(sc, "meta", {"run": "nope", "id": 5})
    assert e["kind"] == "error" and "no run 'nope'" in e["message"]
    e = ask(sc, "snapshot", {"run": done_run["id"], "cycle": 100, "sm": "x", "id": 6})
    assert e["kind"] == "error" and "'sm' must be a number" in e["message"]
    sc.disconnect()


@pytest.mark.parametrize("res", [1, 2, 16, 64, 256, 1024, 8192])
def test_windows_at_any_resolution_add_up_to_the_full_data(app, client, done_run, res):
    """The bucket counts of every resolution sum exactly to the full-resolution data."""
    sc = socketio.test_client(app, flask_test_client=client)
    end = done_run["cycles"]
    w = ask(sc, "window", {"run": done_run["id"], "a": 0, "b": end, "res": res, "heat_sm": 0, "id": 1})
    fine = ask(sc, "window", {"run": done_run["id"], "a": 0, "b": end, "res": 1, "heat_sm": 0, "id": 2})
    c, f = w["groups"]["ctr"], fine["groups"]["ctr"]
    assert c["cols"]["issued"].sum() == f["cols"]["issued"].sum() == done_run["warp_insts"]
    assert c["cols"]["cycles"].sum() == f["cols"]["cycles"].sum() == end
    assert np.array_equal(c["cols"]["hist"].sum(axis=0), f["cols"]["hist"].sum(axis=0))
    # heatmap: every bucket's dominant state is the most frequent state of the 1-cycle heatmap there
    h, h1 = w["groups"]["heat"], fine["groups"]["heat"]
    step = h["step"]
    assert step == res
    one = h1["cols"]["state"]
    for i in range(0, h["n"], max(1, h["n"] // 25)):
        lo = h["cycle0"] + i * step
        if lo + step > end:
            break
        seg = one[:, lo - h1["cycle0"]:lo - h1["cycle0"] + step]
        counts = np.stack([(seg == s).sum(axis=1) for s in range(len(STATE_INDEX))], axis=1)
        assert np.array_equal(h["cols"]["state"][:, i], np.argmax(counts, axis=1))
    sc.disconnect()


def test_a_client_that_never_reads_gets_at_most_the_window(app, client, done_run):
    sc = socketio.test_client(app, flask_test_client=client)
    svc = app.extensions["simtscope"]
    win = app.config["FLOW_WINDOW"]
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    for i in range(400):
        sc.emit("window", {"run": done_run["id"], "a": i, "b": i + 2000, "res": 1, "heat_sm": 0, "slot": f"s{i % 40}"})
        sc.emit("snapshot", {"run": done_run["id"], "cycle": i, "sm": 0})
    sent = sc.get_received()
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    assert len(sent) == win                     # the rest wait, newest per slot, in a bounded table
    sess = next(s for s in svc.sessions.values() if len(s.outstanding) == win)
    assert len(sess.pending) <= 16
    grown = sum(s.size_diff for s in after.compare_to(before, "filename"))
    assert grown < 8 * 2**20, f"server memory grew by {grown} bytes"
    # acknowledging frees credit: the newest pending requests are then served
    for m in sent:
        sc.emit("ack", {"seq": wire.decode(m["args"][0])["seq"]})
    more = frames(sc)
    assert 0 < len(more) <= win and all(f["kind"] in ("window", "snapshot") for f in more)
    sc.disconnect()


def test_progress_frames_wait_for_their_ack(app, client):
    r = client.post("/api/runs", json={"workload": "case:softmax_4096x128", "config": "synthetic",
                                       "overrides": ["ctas=200", "delay=0.01"]}).get_json()
    sc = socketio.test_client(app, flask_test_client=client)
    sc.emit("watch", {"run": r["id"]})
    time.sleep(1.5)
    got = frames(sc)
    assert len(got) == 1 and got[0]["kind"] == "progress" and got[0]["run"] == r["id"]
    seen = [got[0]["status"]]
    t0 = time.monotonic()
    while seen[-1] != "done" and time.monotonic() - t0 < 60:
        sc.emit("ack", {"seq": got[-1]["seq"]})
        time.sleep(0.3)
        got = frames(sc) or got
        seen.append(got[-1]["status"])
    assert seen[-1] == "done" and "running" in seen
    sc.disconnect()


def test_counters_csv(client, done_run):
    r = client.get(f"/api/runs/{done_run['id']}/counters.csv?a=0&b=100000&res=512")
    assert r.status_code == 200 and r.mimetype == "text/csv"
    lines = r.data.decode().strip().splitlines()
    assert lines[0].startswith("cycle_start,cycle_end,cycles,warp_insts,ipc")
    assert sum(int(x.split(",")[3]) for x in lines[1:]) == done_run["warp_insts"]


class _Rows:
    """A sink that keeps the recorder's warp-state rows (nothing of the store involved)."""

    def begin(self, meta):
        self.parts = []

    def append(self, table, chunk):
        if table == "warp_states":
            self.parts.append(np.array(chunk))

    def end(self, stats, status):
        pass


def test_heatmap_frame_matches_an_independent_count(app, client, done_run):
    """The 1-cycle heatmap of SM 3 equals each slot's state counted straight from the recorder's rows: the same
    deterministic SYNTHETIC recording, replayed in this process, walked row by row (last change at or before
    each cycle), without the store's code."""
    from tests.fixtures.synthetic_recording import SyntheticSim
    sc = socketio.test_client(app, flask_test_client=client)
    w = ask(sc, "window", {"run": done_run["id"], "a": 500, "b": 600, "res": 1, "heat_sm": 3, "id": 1})
    sc.disconnect()
    rec = RunReader(app.extensions["simtscope"].cat.run_path(done_run["id"])).rec
    sink = _Rows()
    SyntheticSim(num_sms=4, slots=16, ctas=120, interval=rec["interval"], level="full",
                 record_sms=rec["record_sms"]).run(sink)
    rows = np.concatenate(sink.parts)
    rows = rows[rows["sm"] == 3]
    want = np.full((16, 100), STATE_INDEX["idle"], np.uint8)
    for slot in range(16):
        mine = rows[rows["slot"] == slot]
        mine = mine[np.argsort(mine["cycle"], kind="stable")]
        for i, cycle in enumerate(range(500, 600)):
            before = mine[mine["cycle"] <= cycle]
            if len(before):
                want[slot, i] = before["state"][-1]
    heat = w["groups"]["heat"]
    assert heat["cycle0"] == 500 and heat["step"] == 1
    assert len(np.unique(want)) > 2                    # the window shows several states, not an idle SM
    assert np.array_equal(heat["cols"]["state"], want)
