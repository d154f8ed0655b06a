"""Uploads: a good workload is stored and runnable; every kind of bad upload gets a clear 4xx error and
leaves nothing behind."""
from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest

from tests.fixtures.servers import synthetic_app, wait_done

ROOT = Path(__file__).resolve().parent.parent
PTX = (ROOT / "validation" / "ptx" / "vector.sm90.ptx").read_text()
CASE = {"name": "tiny_saxpy", "kernel": "saxpy", "grid": [8], "block": [128],
        "args": [{"kind": "scalar", "dtype": "u32", "value": 1024}, {"kind": "scalar", "dtype": "f32", "value": 2.0},
                 {"kind": "buffer", "dtype": "f32", "count": 1024, "init": "random_uniform", "lo": -1, "hi": 1,
                  "seed": 3},
                 {"kind": "buffer", "dtype": "f32", "count": 1024, "init": "zeros", "output": True}]}


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    app = synthetic_app(tmp_path_factory.mktemp("up"), MAX_CONTENT_LENGTH=2 * 2**20, UPLOAD_MAX_FILE=2**20,
                        UPLOAD_MAX_UNPACKED=3 * 2**20, MAX_CTAS=100000)
    yield app.test_client()
    app.extensions["simtscope"].jobs.shutdown()


def upload(client, files: dict, launch=None, **form):
    data = {k: (io.BytesIO(v), n) for k, (n, v) in files.items()}
    if launch is not None:
        data["launch"] = launch if isinstance(launch, str) else json.dumps(launch)
    data.update(form)
    return client.post("/api/uploads", data=data, content_type="multipart/form-data")


def zip_of(members: dict[str, bytes], method=zipfile.ZIP_DEFLATED) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buf.getvalue()


def test_a_good_upload_is_listed_and_runs(client):
    r = upload(client, {"ptx": ("vec.ptx", PTX.encode())}, CASE, name="mine")
    assert r.status_code == 201, r.get_json()
    wl = r.get_json()["workloads"]
    assert [w["name"] for w in wl] == ["tiny_saxpy"] and wl[0]["kind"] == "upload"
    assert any(w["id"] == wl[0]["id"] for w in client.get("/api/workloads").get_json())
    run = client.post("/api/runs", json={"workload": wl[0]["id"], "config": "synthetic"}).get_json()
    done = wait_done(lambda p: client.get(p).get_json(), run["id"])
    assert done["status"] == "done"


def test_a_zip_with_cases_json_is_accepted(client):
    suite = {"format": "gpu-validation-suite/1", "cases": [{**CASE, "ptx": "k/vec.ptx", "name": "zipped"}]}
    r = upload(client, {"archive": ("w.zip", zip_of({"k/vec.ptx": PTX.encode(), "cases.json": json.dumps(suite).encode()}))})
    assert r.status_code == 201, r.get_json()
    assert r.get_json()["workloads"][0]["name"] == "zipped"


def _bomb() -> bytes:
    return zip_of({"a.ptx": b"\n" * (3 * 2**20)})       # 3 MiB of newlines compress about 1000:1


@pytest.mark.parametrize("files,launch,msg", [
    ({"ptx": ("j.ptx", bytes(range(256)) * 40)}, CASE, "binary data, not a text file"),
    ({"ptx": ("v.ptx", PTX.encode())}, "{not json", "invalid JSON at line 1"),
    ({"ptx": ("v.ptx", PTX.encode())}, {**CASE, "grid": [2**31, 1, 1]}, "grid.x = 2147483648 is outside"),
    ({"ptx": ("v.ptx", PTX.encode())}, {**CASE, "block": [2048]}, "block.x = 2048 is outside"),
    ({"ptx": ("v.ptx", PTX.encode())}, {**CASE, "block": [32, 32, 2]}, "2048 threads is over CUDA's 1024"),
    ({"ptx": ("v.ptx", PTX.encode())}, {**CASE, "grid": [65535, 65535, 1]}, "CTAs is over this server's limit"),
    ({"ptx": ("v.ptx", PTX.encode())}, {**CASE, "kernel": "nope"}, "no kernel 'nope' in v.ptx"),
    ({"ptx": ("v.ptx", PTX.encode())}, {**CASE, "args": CASE["args"][:2]}, "takes 4 parameters, the case gives 2"),
    ({"ptx": ("v.ptx", b".version 8.0\n.target sm_90\n.entry k( {\n bogus;\n}")}, {**CASE, "kernel": "k"}, "v.ptx:"),
    ({"ptx": ("v.ptx", PTX.encode())}, {**CASE, "args": [{"kind": "buffer", "dtype": "f32", "count": 2**40}] * 4},
     "over the 1024 MiB limit"),
    ({"archive": ("t.zip", zip_of({"../../etc/evil.ptx": PTX.encode()}))}, CASE, "paths must be relative"),
    ({"archive": ("t.zip", zip_of({"/abs.ptx": PTX.encode()}))}, CASE, "paths must be relative"),
    ({"archive": ("t.zip", _bomb())}, CASE, "zip bomb"),
    ({"archive": ("t.zip", b"PK\x03\x04garbage")}, CASE, "not a valid zip file"),
    ({"archive": ("t.zip", zip_of({"x.exe": b"MZ"}))}, CASE, "only .cu, .cuh, .h, .json, .md, .ptx, .txt files"),
    ({}, CASE, "no PTX"),
    ({"ptx": ("v.ptx", PTX.encode())}, None, "no launch description"),
])
def test_bad_uploads_get_clear_errors(client, files, launch, msg):
    before = client.get("/api/workloads").get_json()
    r = upload(client, files, launch)
    assert r.status_code == 400, r.get_json()
    assert msg in r.get_json()["error"]
    assert client.get("/api/workloads").get_json() == before


def test_uploads_over_the_size_limit_get_413(client):
    r = upload(client, {"ptx": ("big.ptx", b"// x\n" * (3 * 2**20 // 5))}, CASE)
    assert r.status_code == 413 and "limit of 2 MiB" in r.get_json()["error"]


def test_a_file_over_the_per_file_limit_is_named(client):
    r = upload(client, {"ptx": ("big.ptx", b"// x\n" * (2**20 // 5 + 10))}, CASE)
    assert r.status_code == 400 and "big.ptx" in r.get_json()["error"] and "limit per file" in r.get_json()["error"]


def test_cuda_source_without_nvcc_or_with_errors_is_explained(client, monkeypatch):
    import webapp.uploads as up
    monkeypatch.setattr(up, "find_nvcc", lambda: None)
    r = upload(client, {"cu": ("k.cu", b"__global__ void k() {}")}, {**CASE, "kernel": "k", "args": []})
    assert r.status_code == 400 and "nvcc is not available" in r.get_json()["error"]


CU = b"""extern "C" __global__ void scale(int n, float a, float *x) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}
"""


def test_cuda_source_is_compiled_with_nvcc(client):
    import webapp.uploads as up
    if up.find_nvcc() is None:
        pytest.skip("no nvcc on this machine (PyPI's nvidia-cuda-nvcc provides one)")
    case = {"name": "cu_scale", "kernel": "scale", "grid": [4], "block": [128],
            "args": [{"kind": "scalar", "dtype": "i32", "value": 512}, {"kind": "scalar", "dtype": "f32", "value": 2.0},
                     {"kind": "buffer", "dtype": "f32", "count": 512, "init": "iota", "output": True}]}
    r = upload(client, {"cu": ("scale.cu", CU)}, {**case, "ptx": "scale.ptx"})
    assert r.status_code == 201, r.get_json()
    bad = upload(client, {"cu": ("broken.cu", b"__global__ void k( {")}, {**case, "ptx": "broken.ptx"})
    assert bad.status_code == 400 and "broken.cu: nvcc failed" in bad.get_json()["error"]
