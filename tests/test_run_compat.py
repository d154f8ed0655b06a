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


def test_a_new_run_file_describes_itself(tmp_path):
    from engine import recording
    from tests.fixtures.synthetic_recording import SyntheticSim
    from webapp.store import RunWriter
    from webapp.store.layout import FORMAT
    SyntheticSim(ctas=4, level="full").run(RunWriter(tmp_path / "new.simtrun"))
    r = RunReader(tmp_path / "new.simtrun")
    assert r.meta["format"] == FORMAT != "simtscope-run/2"
    sch = r.rec["schema"]
    assert sch["warp_states"] == recording.WARP_STATES and sch["event_kinds"] == recording.EVENT_KINDS
    assert {t: recording.dtype_from_json(d) for t, d in sch["tables"].items()} == recording.TABLES


def _rewrite(path: Path, edit) -> None:
    """Change a run file's recording meta (and chunks) in place, as a later recorder might have written it."""
    from webapp.store import runfile
    con = runfile.connect(path)
    rec = runfile.get_meta(con, "recording")
    edit(con, rec)
    runfile.set_meta(con, recording=rec, format="simtscope-run/3")
    con.close()


def test_enum_names_come_from_the_file_not_from_the_code(tmp_path, app):
    """A file whose recorder named its states differently is shown with the file's names."""
    import shutil
    from engine import recording
    p = tmp_path / "renamed.simtrun"
    shutil.copy(V2, p)

    def rename(con, rec):
        sch = recording.schema()
        sch["warp_states"] = [f"{s}_v9" for s in sch["warp_states"]]
        rec["schema"] = sch
    _rewrite(p, rename)
    client = app.test_client()
    run = _import(client, p)
    sc = socketio.test_client(app, flask_test_client=client)
    sc.emit("meta", {"run": run["id"], "id": 1})
    (meta,) = [wire.decode(m["args"][0]) for m in sc.get_received() if m["name"] == "frame"]
    sc.disconnect()
    assert meta["states"][:2] == ["idle_v9", "selected_v9"] and len(meta["states"]) == 19
    from webapp.store.snapshot import snapshot
    names = snapshot(RunReader(p), 5000, 3)["warps"]["state_name"]
    assert names and all(s.endswith("_v9") for s in names)


def test_a_row_layout_the_code_does_not_know_is_read_from_the_file(tmp_path):
    """pc_stats rows with a field added by a later recorder: read with the file's layout, no code change."""
    import shutil
    from engine import recording
    from webapp.store import runfile
    p = tmp_path / "wider.simtrun"
    shutil.copy(V2, p)
    old = RunReader(p).pc_stats()
    sch = recording.schema()
    wide = sch["tables"]["pc_stats"]
    wide["names"].append("replays")
    wide["formats"].append(["<u4", []])
    wide["offsets"].append(wide["itemsize"])
    wide["itemsize"] += 8
    new_dt = recording.dtype_from_json(wide)
    rows = np.zeros(len(old), new_dt)
    for f in old.dtype.names:
        rows[f] = old[f]
    rows["replays"] = np.arange(len(old)) * 3

    def widen(con, rec):
        rec["schema"] = sch
        con.execute("DELETE FROM chunks WHERE tbl='raw:pc_stats'")
        runfile.put_chunk(con, "raw:pc_stats", 0, 0, 0, 1, rows)
    _rewrite(p, widen)
    r = RunReader(p)
    got = r.pc_stats()
    assert got.dtype.names == new_dt.names and np.array_equal(got["replays"], rows["replays"])
    assert np.array_equal(got["issued"], old["issued"]) and np.array_equal(got["stalls"], old["stalls"])
