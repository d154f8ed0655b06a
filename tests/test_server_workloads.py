"""Whole-model workloads in the server: bundles listed beside the cases, a workload run with the real timing
engine (launch table, child runs with timelines for the chosen launches), compare, and bundle uploads:
a good one is listed and runs; each kind of bad bundle gets a 400 naming the field or launch, leaves
nothing behind, and the server keeps serving."""
from __future__ import annotations

import io
import json
import tarfile
import zipfile
from pathlib import Path

import numpy as np
import pytest

from engine.workload.bundle import open_bundle
from engine.workload.replay import run_workload
from tests.fixtures.servers import wait_done
from tests.test_workload import saxpy_bundle
from webapp import create_app
from webapp.measured import run_measured
from webapp.store import RunReader

ROOT = Path(__file__).resolve().parent.parent
MLP = "bundle:example_mlp_b64_fp32"


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    a = create_app({"TESTING": True, "DATA_DIR": str(tmp_path_factory.mktemp("wl")), "MAX_WORKERS": 1,
                    "BUNDLE_MAX_UPLOAD": 2 * 2**20, "BUNDLE_MAX_UNPACKED": 4 * 2**20, "BUNDLE_MAX_LAUNCHES": 50})
    yield a
    a.extensions["simtscope"].jobs.shutdown()


@pytest.fixture(scope="module")
def client(app):
    return app.test_client()


def get(client, path):
    r = client.get(path)
    assert r.status_code == 200, r.get_json()
    return r.get_json()


@pytest.fixture(scope="module")
def mlp_run(client):
    r = client.post("/api/runs", json={"workload": MLP, "config": "h200", "launches": "0,2", "name": "mlp base"})
    assert r.status_code == 201, r.get_json()
    run = wait_done(lambda p: get(client, p), r.get_json()["id"], timeout=300)
    assert run["status"] == "done", run
    return run


def test_bundles_are_listed_beside_the_cases(client):
    ws = get(client, "/api/workloads")
    ids = {w["id"]: w for w in ws}
    assert "case:softmax_4096x128" in ids
    for name in ("example_mlp_b64_fp32", "example_cnn_b4_32x32_fp16", "example_attention_b1_t128_d128_fp16"):
        w = ids[f"bundle:{name}"]
        assert w["kind"] == "bundle" and w["source"] == "examples"
    for p in sorted((ROOT / "workloads" / "zoo").glob("*.tar.xz")):             # the model zoo too
        assert ids[f"bundle:{p.name.removesuffix('.tar.xz')}"]["source"] == "zoo"
    mlp = ids[MLP]
    with open_bundle(ROOT / "workloads" / "examples" / "example_mlp_b64_fp32.tar.xz") as b:
        assert mlp["launches"] == len(b.launches) == 3
        assert mlp["labels"] == [L.label for L in b.launches]
        assert mlp["hw_cycles"] == [L.hw_cycles_mean for L in b.launches]


def test_a_workload_run_records_every_launch_and_timelines_for_the_chosen(client, app, mlp_run):
    d = get(client, f"/api/workload-runs/{mlp_run['id']}")
    rows = d["workload"]["launches"]
    # the same simulation through the engine's API directly: identical cycles and instructions per launch
    from engine.timing import TimingSim
    with open_bundle(ROOT / "workloads" / "examples" / "example_mlp_b64_fp32.tar.xz") as b:
        ref = run_workload(b, sim=TimingSim("h200")).as_json()
    assert [r["sim_cycles"] for r in rows] == [r["sim_cycles"] for r in ref["launches"]]
    assert [r["warp_insts"] for r in rows] == [r["warp_insts"] for r in ref["launches"]]
    assert [r["dominant_stall"] for r in rows] == [r["dominant_stall"] for r in ref["launches"]]
    assert d["workload"]["summary"]["sim_cycles"] == ref["summary"]["sim_cycles"]
    assert d["workload"]["summary"]["outputs_pass"] is True
    assert mlp_run["cycles"] == ref["summary"]["sim_cycles"]
    # the bundle was measured on the H200 and the run simulates it unchanged: its gap is the model's error
    assert d["workload"]["measured"] == {"device": "NVIDIA H200", "sim_gpu": "NVIDIA H200", "comparable": True,
                                         "why": ""}
    for r in rows:
        assert r["bound"] in ("compute", "memory", "latency")
        assert 0 <= r["compute_util"] <= 1 and 0 <= r["dram_util"] <= 1
    # launches 0 and 2 have child runs holding their timeline; launch 1 has none
    assert [r.get("child") for r in rows] == [f"{mlp_run['id']}-L0", None, f"{mlp_run['id']}-L2"]
    assert all(rows[i]["child_status"] == "done" for i in (0, 2))
    for i in (0, 2):
        child = get(client, f"/api/runs/{rows[i]['child']}")
        assert child["status"] == "done" and child["parent"] == mlp_run["id"]
        with app.app_context():                  # its summary shows the launch's measured cycles beside its own
            m = run_measured(app.extensions["simtscope"].cat, child)
        assert m["cycles"] == rows[i]["hw_cycles"] and m["comparable"] is True
        assert m["source"] == f"bundle example_mlp_b64_fp32, launch {i}" and m["tool"].startswith("Nsight Compute")
        assert child["cycles"] == rows[i]["sim_cycles"]
        rr = RunReader(Path(app.config["DATA_DIR"]) / "runs" / f"{rows[i]['child']}.simtrun")
        try:
            assert rr.meta["recording"]["kernels"][0]["name"] == rows[i]["kernel"]
            assert rr.meta["info"]["launch"] == i and rr.meta["info"]["parent"] == mlp_run["id"]
            assert rr.end_cycle >= rows[i]["sim_cycles"]
        finally:
            rr.close()
    # the run list shows the workload, not its children (unless asked)
    listed = [r["id"] for r in get(client, "/api/runs")]
    assert mlp_run["id"] in listed and rows[0]["child"] not in listed
    assert rows[0]["child"] in [r["id"] for r in get(client, "/api/runs?children=1")]


def test_a_run_without_a_config_gets_the_calibrated_preset(client):
    """Not the first preset in name order (a100): the one the explorer's forms choose and the command line
    defaults to."""
    r = client.post("/api/runs", json={"workload": MLP, "launches": "none", "level": "summary"})
    assert r.status_code == 201, r.get_json()
    assert r.get_json()["config"] == "h200"
    client.post(f"/api/runs/{r.get_json()['id']}/cancel")


def test_detail_defaults_and_bad_launch_specs(client):
    r = client.post("/api/runs", json={"workload": MLP, "config": "h200", "launches": "1-3"})
    assert r.status_code == 400 and "1-3 is outside 0..2" in r.get_json()["error"]
    r = client.post("/api/runs", json={"workload": MLP, "config": "h200", "launches": "x"})
    assert r.status_code == 400 and "cannot read 'x'" in r.get_json()["error"]
    r = client.post("/api/runs", json={"workload": "bundle:nope", "config": "h200"})
    assert r.status_code == 404 and "no bundle 'nope'" in r.get_json()["error"]
    r = client.post("/api/runs", json={"workload": MLP, "config": "h200", "level": "off", "launches": "0"})
    assert r.status_code == 400 and "records no timeline" in r.get_json()["error"]


def test_compare_gives_speedup_per_launch(client, mlp_run):
    r = client.post("/api/runs", json={"workload": MLP, "config": "h200", "launches": "none",
                                       "overrides": ["l2.size_kib=30720", "dram.bandwidth_gbps=1200"], "name": "mlp small L2"})
    assert r.status_code == 201
    other = wait_done(lambda p: get(client, p), r.get_json()["id"], timeout=300)
    assert other["status"] == "done"
    assert get(client, f"/api/runs?children=1") and not [c for c in get(client, "/api/runs?children=1")
                                                         if c.get("parent") == other["id"]]
    c = get(client, f"/api/workload-runs/compare?a={mlp_run['id']}&b={other['id']}")
    a_rows = get(client, f"/api/workload-runs/{mlp_run['id']}")["workload"]["launches"]
    b_rows = get(client, f"/api/workload-runs/{other['id']}")["workload"]["launches"]
    assert len(c["launches"]) == 3
    for row, x, y in zip(c["launches"], a_rows, b_rows):
        assert row["speedup"] == pytest.approx(x["sim_cycles"] / y["sim_cycles"])
    assert c["total"]["speedup"] == pytest.approx(sum(x["sim_cycles"] for x in a_rows) /
                                                  sum(y["sim_cycles"] for y in b_rows))
    # the run list gives each run's whole-model gap to the measurement: an error for the H200 as it is, ...
    listed = {r["id"]: r for r in get(client, "/api/runs")}
    base = get(client, f"/api/workload-runs/{mlp_run['id']}")["workload"]["summary"]
    assert listed[mlp_run["id"]]["vs_measured"]["gap"] == pytest.approx(base["err_total"])
    assert listed[mlp_run["id"]]["vs_measured"]["comparable"] is True
    assert listed[other["id"]]["vs_measured"]["comparable"] is False
    # the other run halves the L2 and quarters the bandwidth: its gap to the measurement is a what-if
    assert get(client, f"/api/workload-runs/{other['id']}")["workload"]["measured"] == {
        "device": "NVIDIA H200", "sim_gpu": "NVIDIA H200", "comparable": False,
        "why": "l2.size_kib=30720, dram.bandwidth_gbps=1200 change the simulated NVIDIA H200"}
    r = client.get(f"/api/workload-runs/compare?a={mlp_run['id']}")
    assert r.status_code == 400


# ---------------------------------------------------------------------- uploads
def _pack(folder: Path, form: str) -> bytes:
    buf = io.BytesIO()
    if form == "zip":
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
            for p in sorted(folder.rglob("*")):
                if p.is_file():
                    z.write(p, f"{folder.name}/{p.relative_to(folder)}")
    else:
        with tarfile.open(fileobj=buf, mode="w:xz") as t:
            t.add(folder, arcname=folder.name)
    return buf.getvalue()


def send(client, data: bytes, filename: str):
    return client.post("/api/bundles", data={"bundle": (io.BytesIO(data), filename)},
                       content_type="multipart/form-data")


def stored(app) -> list[str]:
    return sorted(p.name for p in (Path(app.config["DATA_DIR"]) / "workloads").iterdir())


@pytest.fixture
def good(tmp_path) -> Path:
    return saxpy_bundle().save(tmp_path / "saxpy_twice")


def edit_manifest(folder: Path, fn) -> Path:
    m = json.loads((folder / "manifest.json").read_text())
    fn(m)
    (folder / "manifest.json").write_text(json.dumps(m))
    return folder


def test_limits_are_stated(client):
    lim = get(client, "/api/bundles/limits")
    assert lim["max_upload_bytes"] == 2 * 2**20 and lim["max_unpacked_bytes"] == 4 * 2**20
    assert lim["formats"] == [".zip", ".tar.xz"]


@pytest.mark.parametrize("form", ["zip", "tar.xz"])
def test_a_good_bundle_uploads_is_listed_and_runs(client, app, good, form):
    r = send(client, _pack(good, form), f"mine.{form}")
    assert r.status_code == 201, r.get_json()
    body = r.get_json()
    (w,) = body["workloads"]
    assert w["name"] == "saxpy_twice" and w["launches"] == 2 and w["labels"] == ["step0", "step1"]
    assert body["warnings"] == []
    assert w["id"] in [x["id"] for x in get(client, "/api/workloads")]
    run = client.post("/api/runs", json={"workload": w["id"], "config": "h200"}).get_json()
    run = wait_done(lambda p: get(client, p), run["id"], timeout=300)
    assert run["status"] == "done", run
    d = get(client, f"/api/workload-runs/{run['id']}")
    assert [r["label"] for r in d["workload"]["launches"]] == ["step0", "step1"]
    assert d["workload"]["summary"]["outputs_pass"] is True
    assert all(r.get("child") for r in d["workload"]["launches"])      # 2 launches: small, all detailed
    assert client.delete(f"/api/workloads/{w['upload']}").status_code == 204


def _trunc_manifest(f: Path):
    text = (f / "manifest.json").read_text()
    (f / "manifest.json").write_text(text[: len(text) // 2])


def _no_buffer_file(f: Path):
    m = json.loads((f / "manifest.json").read_text())
    (f / m["buffers"][0]["init"]["file"]).unlink()


def _short_buffer_file(f: Path):
    m = json.loads((f / "manifest.json").read_text())
    p = f / m["buffers"][0]["init"]["file"]
    p.write_bytes(p.read_bytes()[:100])


BAD = {
    "malformed manifest": (lambda f: (f / "manifest.json").write_text("{\"format\": \"gpu-workload/1\", "),
                           "manifest.json: not valid JSON"),
    "truncated manifest": (_trunc_manifest, "manifest.json: not valid JSON"),
    "missing buffer file": (_no_buffer_file, "buffers[0].init.file: file 'buffers/x.bin' is missing"),
    "short buffer file": (_short_buffer_file, "buffers[0].init.file: buffers/x.bin holds 100 bytes, the buffer has 16384"),
    "argument count": (lambda f: edit_manifest(f, lambda m: m["launches"][1]["args"].pop()),
                       ("launches[1].args: 3 argument(s) given, entry saxpy in ptx/saxpy_", ".ptx takes 4")),
    "pointer offset": (lambda f: edit_manifest(f, lambda m: m["launches"][0]["args"][2].update(offset=99999)),
                       "launches[0].args[2].offset: offset 99999 is outside buffer x (16384 bytes)"),
    "unknown format": (lambda f: edit_manifest(f, lambda m: m.update(format="gpu-workload/9")),
                       "format 'gpu-workload/9' is not 'gpu-workload/1'"),
}


@pytest.mark.parametrize("what", list(BAD))
@pytest.mark.parametrize("form", ["zip", "tar.xz"])
def test_a_bad_bundle_is_refused_by_name_and_nothing_stays(client, app, good, what, form):
    spoil, message = BAD[what]
    spoil(good)
    before_files, before_list = stored(app), get(client, "/api/workloads")
    r = send(client, _pack(good, form), f"bad.{form}")
    assert r.status_code == 400, r.get_json()
    err = r.get_json()["error"]
    for m in (message if isinstance(message, tuple) else (message,)):
        assert m in err, err
    assert err.startswith(f"bad.{form}"), err
    assert ".incoming" not in err and "/tmp" not in err
    assert stored(app) == before_files and get(client, "/api/workloads") == before_list
    assert get(client, "/api/configs")                                 # still serving


def test_truncated_archive_unknown_suffix_and_size_limit(client, app, good):
    data = _pack(good, "tar.xz")
    r = send(client, data[: len(data) // 2], "cut.tar.xz")
    assert r.status_code == 400 and r.get_json()["error"].startswith("cut.tar.xz: archive is truncated or corrupt")
    r = send(client, data, "bundle.rar")
    assert r.status_code == 400
    assert r.get_json()["error"] == "bundle.rar: unknown archive format: upload a bundle as .zip or .tar.xz"
    big = np.random.default_rng(1).integers(0, 255, 3 * 2**20, dtype=np.uint8).tobytes()
    r = send(client, big, "big.zip")
    assert r.status_code == 400 and "larger than the upload limit of 2 MiB" in r.get_json()["error"]
    r = client.post("/api/bundles", data={}, content_type="multipart/form-data")
    assert r.status_code == 400 and "multipart field 'bundle'" in r.get_json()["error"]
    assert not [n for n in stored(app) if n.startswith(".incoming")]
    assert get(client, "/api/configs")


TRAP_PTX = """.version 8.0
.target sm_90
.address_size 64
.visible .entry boom(.param .u64 p)
{
    trap;
    ret;
}
"""


def test_failing_and_opaque_launches_are_reported_per_launch(client, app, tmp_path):
    """A launch that faults is a row with its error, an opaque launch (no PTX) a row marked opaque with its
    measured time counted in the totals; the other launches and the run still finish; the faulting launch's
    child gets a final status that says why, and the opaque launch gets no child (nothing to record)."""
    w = saxpy_bundle()
    p = w.ptx("boom", TRAP_PTX)
    w.launch("boom", p, grid=(1,), block=(32,), shared_bytes=0, args=[w.ptr("x")], name="boom")
    w.launch("cublas_gemm", None, grid=(1,), block=(1,), shared_bytes=0, args=[], name="extern gemm", opaque=True)
    w.hardware({"device": "test"}, [{"cycles": [5000]}, {"cycles": [4900]}, {"cycles": [100]}, {"cycles": [7000]}])
    r = send(client, _pack(w.save(tmp_path / "saxpy_twice"), "zip"), "mixed.zip")
    assert r.status_code == 201, r.get_json()
    wid = r.get_json()["workloads"][0]["id"]
    run = client.post("/api/runs", json={"workload": wid, "config": "h200", "launches": "all"}).get_json()
    run = wait_done(lambda q: get(client, q), run["id"], timeout=300)
    assert run["status"] == "done" and "a launch failed" in run["message"]
    d = get(client, f"/api/workload-runs/{run['id']}")
    rows = d["workload"]["launches"]
    assert [r.get("error") is None for r in rows] == [True, True, False, True]
    assert rows[2]["error"].startswith("launch 2 (boom): ") and "trap" in rows[2]["error"]
    assert rows[3]["opaque"] is True and rows[3]["hw_cycles"] == 7000 and "child" not in rows[3]
    assert rows[3]["note"] == ("opaque launch (no PTX: extern gemm): not simulated, its measured time counts in "
                               "the totals; measured 7,000 cycles")
    assert rows[0]["sim_cycles"] > 0 and rows[1]["sim_cycles"] > 0 and rows[3]["sim_cycles"] is None
    summ = d["workload"]["summary"]
    assert summ["outputs_pass"] is False and summ["opaque"] == 1 and summ["opaque_cycles"] == 7000
    assert summ["sim_cycles"] == sum(r["sim_cycles"] or 0 for r in rows) + 7000 and d["workload"]["clock_mhz"] == 1980
    kids = {c["id"]: c for c in get(client, "/api/runs?children=1") if c.get("parent") == run["id"]}
    assert kids[f"{run['id']}-L0"]["status"] == "done"
    assert kids[f"{run['id']}-L2"]["status"] == "faulted" and "trap" in kids[f"{run['id']}-L2"]["message"]
    assert f"{run['id']}-L3" not in kids and run["options"]["detail"] == [0, 1, 2]
    c = get(client, f"/api/workload-runs/compare?a={run['id']}&b={run['id']}")     # the opaque launch counts
    assert c["launches"][3] == {**c["launches"][3], "opaque": True, "a_cycles": 7000, "b_cycles": 7000, "speedup": 1.0}
    assert c["total"]["a_cycles"] == summ["sim_cycles"] - (rows[2]["sim_cycles"] or 0)
    assert client.delete(f"/api/runs/{run['id']}").status_code == 204
    assert not [c for c in get(client, "/api/runs?children=1") if c.get("parent") == run["id"]]
    assert not list((Path(app.config["DATA_DIR"]) / "runs").glob(f"{run['id']}*.simtrun"))
