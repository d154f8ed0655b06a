"""A zipped Accel-Sim trace directory uploaded to the explorer becomes a workload that runs trace-driven in
the worker; bad trace archives get errors naming the member and the problem, and leave nothing behind."""
from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from tests import trace_gen as tg
from tests.fixtures.servers import wait_done

FIX = Path(__file__).resolve().parent / "fixtures" / "traces"


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    from webapp import create_app
    a = create_app({"TESTING": True, "DATA_DIR": str(tmp_path_factory.mktemp("trup")), "DEMO_RUNS": False})
    yield a
    a.extensions["simtscope"].jobs.shutdown()


def zip_dir(d: Path, prefix="") -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for p in sorted(d.iterdir()):
            z.write(p, prefix + p.name)
    return buf.getvalue()


def post(client, data: bytes, name="t.zip", **form):
    return client.post("/api/uploads", data={"archive": (io.BytesIO(data), name), **form},
                       content_type="multipart/form-data")


def test_trace_zip_upload_runs(app):
    c = app.test_client()
    r = post(c, zip_dir(FIX / "vectoradd-100-32", prefix="vectoradd-100-32-trace/"), name="va.zip")
    assert r.status_code == 201, r.get_json()
    (w,) = r.get_json()["workloads"]
    assert w["kind"] == "trace" and w["id"].endswith(":trace") and w["name"] == "trace _Z6vecAddIfEvPT_S1_S1_i"
    (listed,) = [x for x in c.get("/api/workloads").get_json() if x["id"] == w["id"]]
    assert listed["config"] == "gtx1080"                 # binary version 61: the page starts it on that preset
    run = c.post("/api/runs", json={"workload": w["id"], "config": "gtx1080", "level": "full"}).get_json()
    done = wait_done(lambda p: c.get(p).get_json(), run["id"], timeout=120)
    assert done["status"] == "done", done
    from webapp.store import RunReader
    rd = RunReader(app.extensions["simtscope"].cat.run_path(run["id"]))
    assert rd.meta["stats"]["warp_insts"] == 344
    assert rd.rec["kernels"][0]["pc_text"][0] == "MOV R1"


def _bad_version(tmp_path):
    text = tg.header(block=(32, 1, 1), version=9)
    return zip_dir(tg.write_dir(tmp_path / "v", {"kernel-1.traceg": text}))


@pytest.mark.parametrize("make,msg", [
    (lambda t: _bad_version(t), r"^kernel-1.traceg:12: unsupported accelsim tracer version 9"),
    (lambda t: zip_dir(tg.write_dir(t / "m", {"kernel-1.traceg": "x"}), "a/") + b"", None),
])
def test_bad_trace_zips(app, tmp_path, make, msg):
    c = app.test_client()
    before = sorted(p.name for p in app.extensions["simtscope"].cat.work_dir.iterdir())
    r = post(c, make(tmp_path))
    assert r.status_code == 400
    err = r.get_json()["error"]
    if msg:
        import re
        assert re.search(msg, err), err
    else:
        assert "expected a header line" in err and "kernel-1.traceg:1:" in err
    assert sorted(p.name for p in app.extensions["simtscope"].cat.work_dir.iterdir()) == before


def test_trace_zip_members_checked(app, tmp_path):
    c = app.test_client()
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("kernelslist.g", "kernel-1.traceg\n")
        z.writestr("sub/kernel-1.traceg", "x")
    r = post(c, buf.getvalue())
    assert r.status_code == 400 and "archive member 'sub/kernel-1.traceg': a trace upload holds" in r.get_json()["error"]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("a/kernelslist.g", "kernel-1.traceg\n")
        z.writestr("b/kernelslist.g", "kernel-1.traceg\n")
    r = post(c, buf.getvalue())
    assert r.status_code == 400 and "2 kernelslist.g files" in r.get_json()["error"]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:        # a bomb: 64 MiB of zeros
        z.writestr("kernelslist.g", "kernel-1.traceg\n")
        z.writestr("kernel-1.traceg", b"\0" * (64 << 20))
    r = post(c, buf.getvalue())
    assert r.status_code == 400 and "compression ratio over 1000" in r.get_json()["error"]


def test_a_trace_is_suggested_the_preset_of_its_gpu_generation():
    from webapp.workloads import suggested_config
    assert [suggested_config(v) for v in (61, 70, 80, 90)] == ["gtx1080", "v100", "a100", "h200"]
    assert suggested_config(75) == suggested_config(None) == suggested_config("61") == "h200"
