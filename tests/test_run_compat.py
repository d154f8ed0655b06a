"""Run files recorded by earlier versions still open: in the store and through the server's API.

tests/fixtures/runs/sgemm_tiled16_256.run2.simtrun was recorded (simtscope-run/2, SMs 0 and 3 in full) before
issue 12 made run files self-describing; sgemm_tiled16_256.run2.answers.json holds what the server answered for
it then (a digest of every column of the meta, window and snapshot frames: shape, sum, NaN count, CRC of the values).
Regenerate the answers only on purpose:  python -m tests.test_run_compat --write
"""
from __future__ import annotations

import io
import json
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

from tests.fixtures.servers import synthetic_app
from webapp import socketio, wire
from webapp.store import RunReader

RUNS = Path(__file__).resolve().parent / "fixtures" / "runs"
V2 = RUNS / "sgemm_tiled16_256.run2.simtrun"
ANSWERS = RUNS / "sgemm_tiled16_256.run2.answers.json"

REQUESTS = [
    ("meta", {}),
    ("window", {"a": 0, "b": 22741, "res": 1024, "heat_sm": 3}),
    ("window", {"a": 4000, "b": 4600, "res": 1, "heat_sm": 0}),
    ("window", {"a": 0, "b": 30000, "res": 64, "heat_sm": 0}),
    ("snapshot", {"cycle": 5000, "sm": 3}),
    ("snapshot", {"cycle": 12000, "sm": 0}),
]


def _digest(v):
    """A value of a decoded frame, reduced to something JSON can hold and that changes with any value."""
    if isinstance(v, np.ndarray):
        flat = np.ascontiguousarray(v).ravel()
        as_num = flat.astype(np.float64) if flat.dtype.kind == "f" else flat.astype(np.int64)
        return {"shape": list(v.shape), "sum": float(np.nansum(as_num)), "nan": int(np.isnan(as_num).sum()),
                "crc": zlib.crc32(as_num.tobytes())}
    if isinstance(v, dict):
        return {k: _digest(x) for k, x in sorted(v.items()) if k not in ("seq", "id", "run")}
    if isinstance(v, (list, tuple)):
        return [_digest(x) for x in v]
    if isinstance(v, float):
        return round(v, 9)
    return v


def answers(app, client, run_id: str) -> list:
    sc = socketio.test_client(app, flask_test_client=client)
    out = []
    for i, (kind, payload) in enumerate(REQUESTS):
        sc.emit(kind, {"run": run_id, "id": i, **payload})
        got = [wire.decode(m["args"][0]) for m in sc.get_received() if m["name"] == "frame"]
        assert len(got) == 1 and got[0]["kind"] == kind, got
        sc.emit("ack", {"seq": got[0]["seq"]})
        out.append(_digest(got[0]))
    sc.disconnect()
    return out


def _import(client, path: Path) -> dict:
    r = client.post("/api/runs/import", data={"run": (io.BytesIO(path.read_bytes()), path.name)},
                    content_type="multipart/form-data")
    assert r.status_code == 201, r.get_json()
    return r.get_json()


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    a = synthetic_app(tmp_path_factory.mktemp("compat"))
    yield a
    a.extensions["simtscope"].jobs.shutdown()


def test_a_run2_file_opens_in_the_store():
    r = RunReader(V2)
    stats = r.meta["stats"]
    assert r.status == "done" and r.end_cycle == stats["gpu_sim_cycle"] == 22741
    assert int(r.pc_stats()["issued"].sum()) == stats["warp_insts"] == 2420736
    c = r.counters(0, r.end_cycle, 1 << 20)
    assert int(c["ctr_gpu"]["issued"].sum()) == stats["warp_insts"]
    assert int(c["cycles"].sum()) == r.end_cycle
    # every cycle of a recorded SM's slot is in exactly one warp-state run
    k, s, e, st, pc, cta = r.warp_runs(3, 0, r.end_cycle)
    assert np.array_equal(np.bincount(k, weights=e - s, minlength=r.slots), np.full(r.slots, r.end_cycle))
    r.close()


def test_a_run2_file_opens_through_the_server_api(app):
    client = app.test_client()
    run = _import(client, V2)
    assert run["status"] == "done" and run["cycles"] == 22741
    assert client.get(f"/api/runs/{run['id']}").get_json()["status"] == "done"
    got = answers(app, client, run["id"])
    assert got == json.loads(ANSWERS.read_text())


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        a = synthetic_app(Path(d))
        c = a.test_client()
        ANSWERS.write_text(json.dumps(answers(a, c, _import(c, V2)["id"]), indent=0, sort_keys=True) + "\n")
        a.extensions["simtscope"].jobs.shutdown()
    print(f"wrote {ANSWERS}")
