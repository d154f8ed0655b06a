"""Issue 13: a run-file import checks the whole file first (webapp/store/validate.py). A damaged or hostile
file is refused with one ValueError("cannot import: ...") naming the meta key or the chunk and the problem,
and leaves nothing in the store (no run file, no catalogue row); a good file, of either readable format,
imports and reads."""
from __future__ import annotations

import io
import json
import shutil
import sqlite3
from pathlib import Path

import pytest
import zstandard

from tests.fixtures.servers import synthetic_app
from tests.fixtures.synthetic_recording import SyntheticSim
from webapp.store import RunReader, RunWriter
from webapp.store.catalogue import Catalogue
from webapp.store.validate import RunFileInvalid, check_run_file

V2 = Path(__file__).resolve().parent / "fixtures" / "runs" / "sgemm_tiled16_256.run2.simtrun"


@pytest.fixture(scope="module")
def seed(tmp_path_factory) -> Path:
    p = tmp_path_factory.mktemp("seed") / "seed.simtrun"
    SyntheticSim(num_sms=2, slots=8, ctas=6, seed=5).run(RunWriter(p, {"name": "seed"}))
    return p


def _copy(seed: Path, tmp_path: Path, edit) -> Path:
    p = tmp_path / "bad.simtrun"
    shutil.copy(seed, p)
    con = sqlite3.connect(p)
    edit(con)
    con.commit()
    con.close()
    return p


def _set_meta(key, value):
    return lambda con: con.execute("UPDATE meta SET value=? WHERE key=?", (value, key))


def _edit_rec(fn):
    def edit(con):
        rec = json.loads(con.execute("SELECT value FROM meta WHERE key='recording'").fetchone()[0])
        fn(rec)
        con.execute("UPDATE meta SET value=? WHERE key='recording'", (json.dumps(rec),))
    return edit


def _chunk(tbl, fn):
    """Re-pack the first chunk of `tbl` with its decompressed bytes changed by fn(bytearray)."""
    def edit(con):
        cid, data = con.execute("SELECT id, data FROM chunks WHERE tbl=? ORDER BY id LIMIT 1", (tbl,)).fetchone()
        raw = bytearray(zstandard.ZstdDecompressor().decompress(data))
        fn(raw)
        con.execute("UPDATE chunks SET data=? WHERE id=?", (zstandard.compress(bytes(raw)), cid))
    return edit


BAD = [
    ("meta recording not JSON", _set_meta("recording", "{\"level\": "), "meta 'recording': not valid JSON"),
    ("meta value not UTF-8", _set_meta("info", b"\xff\xfe{}".decode("latin-1")), None),
    ("num_sms a string", _edit_rec(lambda r: r.update(num_sms="x")),
     "meta 'recording'.num_sms: expected an integer in [1, 4096], found 'x'"),
    ("record_sms out of range", _edit_rec(lambda r: r.update(record_sms=[0, 9])),
     "meta 'recording'.record_sms: expected distinct SM numbers in increasing order, each in [0, 1]"),
    ("a bogus level", _edit_rec(lambda r: r.update(level="verbose")),
     "meta 'recording'.level: expected one of off, summary, full, found 'verbose'"),
    ("a row layout of strings", _edit_rec(lambda r: r["schema"]["tables"]["pc_stats"]["formats"].__setitem__(0, ["<U8", []])),
     "meta 'recording'.schema.tables.pc_stats.formats (issued): expected [a numeric type such as '<u4', [dims]], found ['<U8', []]"),
    ("a layout missing a field the explorer reads", _edit_rec(lambda r: r["schema"]["tables"]["pc_stats"]["names"].__setitem__(2, "pcx")),
     "meta 'recording'.schema.tables.pc_stats: expected a field 'pc' of kind u and shape ()"),
    ("duplicate state names", _edit_rec(lambda r: r["schema"]["warp_states"].__setitem__(1, r["schema"]["warp_states"][0])),
     "meta 'recording'.schema.warp_states: expected 1 to 254 distinct names"),
    ("status unknown", _set_meta("status", json.dumps("exploded")),
     "meta 'meta'.status: expected one of created, running, done"),
    ("created not a number", _set_meta("created", json.dumps({"a": 1})), "meta 'meta'.created: expected a finite number"),
    ("a null end cycle", _set_meta("end_cycle", "null"), "meta 'end_cycle' is null (a field is either absent or has a value)"),
    ("a null message", _set_meta("message", "null"), "meta 'message' is null"),
    ("a null progress value", _set_meta("progress", json.dumps({"cycle": None})),
     "meta 'progress'.cycle: expected a number, found None"),
    ("unknown format", _set_meta("format", json.dumps("simtscope-run/99")), None),
    ("unknown stored table", lambda con: con.execute("UPDATE chunks SET tbl='raw:nope' WHERE tbl='kernel'"),
     "unknown table"),
    ("a warp-state chunk for an SM not recorded", lambda con: con.execute("UPDATE chunks SET key=5 WHERE tbl='ws'"),
     "SM 5 has no warp-state recording (record_sms [0, 1])"),
    ("damaged compressed data", lambda con: con.execute("UPDATE chunks SET data=x'28b52ffd00ff' WHERE tbl='cta'"),
     "the compressed data is damaged"),
    ("row count that does not match the data", lambda con: con.execute("UPDATE chunks SET n=n+1 WHERE tbl='kernel'"),
     "decompresses to 20 bytes, expected 40 (2 rows)"),
    ("a level a table does not have", lambda con: con.execute("UPDATE chunks SET level=3 WHERE tbl='cta'"),
     "level 3 is not a level of 'cta'"),
    ("cycles past 2^62", lambda con: con.execute("UPDATE chunks SET hi=9223372036854775807 WHERE tbl='cta'"),
     "is not within [0, 2^62)"),
    ("a text cell where an integer belongs", lambda con: con.execute("UPDATE chunks SET lo='zero' WHERE tbl='cta'"),
     "column 'lo' holds a text, expected integer"),
    ("a slot state past the state names", _chunk("slot", lambda raw: raw.__setitem__(0, 200)),
     "a warp state outside the 19 recorded states"),
    ("a CTA on an SM the GPU lacks", _chunk("cta", lambda raw: raw.__setitem__(slice(-4 * 6, -4 * 6 + 1), b"\x09")),
     "a CTA span on an SM >= 2"),
    ("a ws carry-in of the wrong size", lambda con: con.execute("UPDATE chunks SET extra=x'00' WHERE tbl='ws'"),
     "carry-in of 1 bytes, expected"),
    ("chunks without a recording", lambda con: con.execute("DELETE FROM meta WHERE key='recording'"),
     "the file has recorded chunks but no meta 'recording'"),
]


@pytest.mark.parametrize("edit,message", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_a_bad_run_file_is_refused_whole(seed, tmp_path, edit, message):
    bad = _copy(seed, tmp_path, edit)
    cat = Catalogue(tmp_path / "store")
    with pytest.raises(ValueError, match=r"^cannot import: ") as ei:
        cat.import_run(bad, imported=True)
    if message:
        assert message in str(ei.value), str(ei.value)
    assert cat.list_runs() == []
    assert sorted(p.name for p in (tmp_path / "store" / "runs").iterdir()) == []


def test_a_damaged_page_is_refused(seed, tmp_path):
    data = bytearray(seed.read_bytes())
    data[4096 * 3:4096 * 4] = b"\xa5" * 4096            # a b-tree page overwritten
    bad = tmp_path / "bad.simtrun"
    bad.write_bytes(bytes(data))
    cat = Catalogue(tmp_path / "store")
    with pytest.raises(ValueError, match=r"^cannot import: .*(damaged|malformed|unreadable)"):
        cat.import_run(bad)
    assert cat.list_runs() == [] and not any((tmp_path / "store" / "runs").iterdir())


def test_the_ws_state_check_reads_the_columns(seed, tmp_path):
    """A warp-state row whose state is past the names (the column is located from the file's layout)."""
    con = sqlite3.connect(seed)
    rec = json.loads(con.execute("SELECT value FROM meta WHERE key='recording'").fetchone()[0])
    n = con.execute("SELECT n FROM chunks WHERE tbl='ws' ORDER BY id LIMIT 1").fetchone()[0]
    con.close()
    from webapp.store.layout import schema_of
    dt = schema_of(rec).ws
    off = sum(n * dt.fields[f][0].itemsize for f in dt.names[:dt.names.index("state")])
    bad = _copy(seed, tmp_path, _chunk("ws", lambda raw: raw.__setitem__(off, 99)))
    with pytest.raises(RunFileInvalid, match=r"chunk \d+ \('ws', level 0, key \d\): a warp state outside the 19"):
        check_run_file(bad)


@pytest.mark.parametrize("path", ["seed", V2], ids=["run3", "run2"])
def test_good_files_import_and_read(seed, tmp_path, path):
    src = seed if path == "seed" else path
    cat = Catalogue(tmp_path / "store")
    run = cat.import_run(src, imported=True)
    assert run["status"] == "done" and run["name"].endswith(" (imported)")
    r = RunReader(cat.run_path(run["id"]))
    assert len(r.pc_stats()) > 0 and r.end_cycle > 0
    r.close()
    names = sorted(p.name for p in (tmp_path / "store" / "runs").iterdir())
    assert [n for n in names if n.endswith(".simtrun")] == [cat.run_path(run["id"]).name]
    assert not [n for n in names if n.startswith(".import-")]


def test_the_import_endpoint_says_what_is_wrong(seed, tmp_path):
    app = synthetic_app(tmp_path / "data")
    try:
        bad = _copy(seed, tmp_path, _edit_rec(lambda r: r.update(warp_slots_per_sm=-3)))
        r = app.test_client().post("/api/runs/import", data={"run": (io.BytesIO(bad.read_bytes()), "x.simtrun")},
                                   content_type="multipart/form-data")
        assert r.status_code == 400
        assert r.get_json()["error"] == ("cannot import: meta 'recording'.warp_slots_per_sm: expected an integer "
                                         "in [1, 1024], found -3")
        assert app.test_client().get("/api/runs").get_json() == []
    finally:
        app.extensions["simtscope"].jobs.shutdown()



def test_a_damaged_index_is_refused(tmp_path):
    """Found by the run-file fuzzer: a file whose index no longer matches its table passed SQLite's
    quick_check and failed later in the reader's indexed queries; integrity_check refuses it."""
    src = Path(__file__).resolve().parent / "fixtures" / "reliability" / "runfiles" / "damaged_index.simtrun"
    cat = Catalogue(tmp_path / "store")
    with pytest.raises(ValueError, match=r"^cannot import: the SQLite file is damaged \(integrity_check: "
                                         r"row 1 missing from index chunks_q"):
        cat.import_run(src)
    assert cat.list_runs() == []


def test_a_null_creation_time_is_refused(seed, tmp_path):
    """Found by the run-file fuzzer: meta 'created' = null reached the catalogue's NOT NULL column (and
    'message', 'end_cycle' = null the reader's int())."""
    bad = _copy(seed, tmp_path, _set_meta("created", "null"))
    with pytest.raises(ValueError, match=r"^cannot import: meta 'created' is null"):
        Catalogue(tmp_path / "store").import_run(bad)
