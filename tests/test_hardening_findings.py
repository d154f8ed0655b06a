"""Issue 13: what the trace and upload fuzz targets found, one test each (docs/reliability.md lists them):
every case used to hang or to raise a raw exception (a 500 from the server); each is now refused with the
project's error naming what is wrong, or (a huge copy) runs at once."""
from __future__ import annotations

import io
import shutil
import tarfile
import zipfile
from pathlib import Path

import pytest


from tests.fixtures.servers import synthetic_app
from tests.fuzz import sandbox

ROOT = Path(__file__).resolve().parents[1]
VECADD = ROOT / "tests" / "fixtures" / "traces" / "vectoradd-100-32"


def _trace(tmp_path: Path, kernelslist: str | None = None, edit=None) -> Path:
    d = tmp_path / "t"
    shutil.copytree(VECADD, d)
    if kernelslist is not None:
        (d / "kernelslist.g").write_text(kernelslist)
    if edit is not None:
        p = d / "kernel-1.traceg"
        p.write_text(edit(p.read_text()))
    return d


def _run_trace(d: str) -> int:
    from engine.traces.run import run_trace
    return run_trace(d, "gtx1080").warp_insts


def test_a_huge_host_copy_fills_only_what_the_l2_can_hold(tmp_path):
    """MemcpyHtoD of 2^48-1 bytes (and one ending at the top of the address space) used to loop over every
    sector for hours; only the copy's last four L2 capacities can be resident, so only they are filled."""
    d = _trace(tmp_path, "MemcpyHtoD,0x7fffffffffffffff,281474976710655\nMemcpyHtoD,0xffffffffffffffe0,31\n"
                         "kernel-1.traceg\n")
    out = sandbox.run_case(_run_trace, str(d), time_limit=60)
    assert (out.status, out.message) == ("ok", "344"), out


def test_a_pc_past_256_mib_of_code_is_refused(tmp_path):
    """PC 0xffffffff made a 2 GiB PC map (minutes, or the memory limit)."""
    d = _trace(tmp_path, edit=lambda t: t.replace("00f0 ffffffff 0 EXIT 0 0", "ffffffff ffffffff 0 EXIT 0 0", 1))
    out = sandbox.run_case(_run_trace, str(d), time_limit=60)
    assert out.status == "rejected" and out.type == "SimError", out
    assert "kernel-1.traceg:47: PC 0xffffffff beyond 256 MiB of code" in out.message


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    app = synthetic_app(tmp_path_factory.mktemp("find"))
    yield app.test_client()
    app.extensions["simtscope"].jobs.shutdown()


def _zip(members: dict) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        for n, data in members.items():
            z.writestr(n, data)
    return buf.getvalue()


def _post(client, url, field, name, data, **form):
    return client.post(url, data={field: (io.BytesIO(data), name), **form}, content_type="multipart/form-data")


def test_a_zip_member_with_a_bad_crc_is_a_400(client):
    ptx = (ROOT / "validation" / "ptx" / "vector.sm90.ptx").read_bytes()
    blob = bytearray(_zip({"k.ptx": ptx}))
    blob[blob.index(b".version") + 2] ^= 0xFF                 # the member's data no longer matches its CRC
    r = _post(client, "/api/uploads", "archive", "w.zip", bytes(blob))
    assert r.status_code == 400
    assert r.get_json()["error"] == "archive member 'k.ptx' cannot be unpacked: Bad CRC-32 for file 'k.ptx'"


def test_a_trace_zip_member_outside_the_trace_folder_is_a_400(client):
    blob = _zip({"t/kernelslist.g": b"kernel-1.traceg\n", "t/kernel-1.traceg": b"", "notes.txt": b"x"})
    r = _post(client, "/api/uploads", "archive", "t.zip", blob)
    assert r.status_code == 400
    assert r.get_json()["error"].startswith("archive member 'notes.txt': a trace upload holds kernelslist.g and ")


@pytest.mark.parametrize("dtype", [["f32"], {"a": 1}])
def test_a_launch_argument_dtype_that_is_not_a_string_is_a_400(client, dtype):
    from tests.test_server_uploads import CASE, PTX
    case = {**CASE, "args": [{**CASE["args"][0], "dtype": dtype}] + CASE["args"][1:]}
    import json
    r = _post(client, "/api/uploads", "ptx", "vec.ptx", PTX.encode(), launch=json.dumps(case))
    assert r.status_code == 400
    assert r.get_json()["error"] == f"case 'tiny_saxpy': argument 'arg0' has unknown dtype {dtype!r}"


def test_a_damaged_bundle_tar_xz_is_a_400(client):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:xz") as t:
        data = b"{}" * 5000
        info = tarfile.TarInfo("b/manifest.json")
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
    blob = bytearray(buf.getvalue())
    blob[len(blob) // 2] ^= 0xFF                              # inside the xz stream
    r = _post(client, "/api/bundles", "bundle", "b.tar.xz", bytes(blob))
    assert r.status_code == 400
    assert "archive is truncated or corrupt (LZMAError" in r.get_json()["error"] or \
           "not a readable tar archive" in r.get_json()["error"], r.get_json()


def test_an_imported_time_past_sqlite_integers_is_refused(tmp_path):
    import sqlite3
    from tests.fixtures.synthetic_recording import SyntheticSim
    from webapp.store import RunWriter
    from webapp.store.catalogue import Catalogue
    p = tmp_path / "r.simtrun"
    SyntheticSim(num_sms=2, slots=8, ctas=6, seed=5).run(RunWriter(p, {"name": "r"}))
    con = sqlite3.connect(p)
    con.execute("UPDATE meta SET value='18446744073709551616' WHERE key='finished'")
    con.commit()
    con.close()
    with pytest.raises(ValueError, match=r"^cannot import: meta 'meta'.finished: expected a finite number, "
                                         r"found 18446744073709551616$"):
        Catalogue(tmp_path / "s").import_run(p)





def test_a_zip_member_name_longer_than_the_file_system_allows_is_a_400(client):
    from tests.test_server_uploads import CASE, PTX
    import json
    name = "a" * 300 + ".ptx"
    blob = _zip({name: PTX.encode(), "cases.json": json.dumps({**CASE, "ptx": name}).encode()})
    r = _post(client, "/api/uploads", "archive", "w.zip", blob)
    assert r.status_code == 400
    assert r.get_json()["error"].endswith("...: names are at most 200 bytes a part, 1024 in all")


def test_a_zip_whose_utf8_flagged_name_is_not_utf8_is_a_400(client):
    blob = bytearray(_zip({"k.ptx": b"x"}))
    for sig in (b"PK\x03\x04", b"PK\x01\x02"):             # set the UTF-8 flag, make the name invalid UTF-8
        i = blob.index(sig)
        flag_at = i + (6 if sig == b"PK\x03\x04" else 8)
        blob[flag_at + 1] |= 0x08                          # bit 11 of the flags
        name_at = i + (30 if sig == b"PK\x03\x04" else 46)
        blob[name_at] = 0xA9
    r = _post(client, "/api/uploads", "archive", "w.zip", bytes(blob))
    assert r.status_code == 400 and r.get_json()["error"] == "the archive is not a valid zip file", r.get_json()
