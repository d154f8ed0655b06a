"""Issue 13: what the 16-core device fuzz pass of 1 December (docs/reliability.md, "device host") found,
one test each. The PTX crashes run in a sandboxed child (tests/fuzz/sandbox.py), as the fuzzer does, so a
regression shows as a failed test, not a dead test process."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.fuzz import sandbox

ROOT = Path(__file__).resolve().parents[1]

SINK_PTX = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p, .param .u32 n)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    .reg .pred %p<2>;
    ld.param.u64 %rd1, [p];
    SINK
    ld.param.u32 %r2, [n];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
    ret;
}
"""


def _run_sink(inst: str, timing: bool = False) -> str:
    """Launch SINK_PTX with `inst` in place of SINK (functional core, or the timing model) and return the
    words it stored: every thread stores n = 7 after the instruction that writes to '_'."""
    from engine.device import Device
    dev = Device()
    k = dev.load_ptx(SINK_PTX.replace("SINK", inst), "sink.ptx").kernel("k")
    buf = dev.malloc(64 * 4)
    if timing:
        from engine.timing import TimingSim
        TimingSim("h200", overrides=["gpu.num_sms=2"], device=dev).launch(k, 1, 64, [buf, 7], max_cycles=50_000)
    else:
        dev.launch(k, 1, 64, [buf, 7])
    return repr(set(np.frombuffer(dev.read(buf, 64 * 4), dtype=np.uint32).tolist()))


@pytest.mark.parametrize("inst", ["ld.param.u32 _, [n];", "ld.param.u32 _, [p];", "ld.global.u32 _, [%rd1];",
                                  "ld.global.s8 _, [%rd1];", "mbarrier.pending_count.b64 _, %rd1;"])
@pytest.mark.parametrize("timing", [False, True])
def test_a_scalar_load_or_count_into_the_sink_runs_and_writes_nothing(inst, timing):
    """`ld.param.u32 _, [relu_param_0];` (three mutants: elementwise, norm, control) killed the process with
    SIGSEGV: the 4-byte scalar fast path of h_ld wrote to the sink's missing slot (R + 0xffffffff).
    mbarrier.pending_count did the same. ir_check lets '_' through there because the handler must skip it."""
    out = sandbox.run_case(lambda a: _run_sink(*a), (inst, timing), time_limit=120)
    assert (out.status, out.message) == ("ok", "{7}"), out


@pytest.mark.parametrize("src, orig, mutant", [
    ("validation/ptx/elementwise.sm90.ptx", "ld.param.u32 \t%r2, [relu_param_0];", "ld.param.u32 _, [relu_param_0];"),
    ("validation/ptx/norm.sm90.ptx", "ld.param.u32 \t%r32, [softmax_warp_param_2];",
     "ld.param.u32 _, [softmax_warp_param_2];"),
    ("tests/fixtures/ptx/nvcc/control.sm80.ptx", "ld.param.u32 \t%r13, [k_switch_param_2];",
     "ld.param.u32 _, [k_switch_param_2];")])
def test_the_fuzzers_sigsegv_mutants_launch(src, orig, mutant):
    """The three reproducers as the fuzzer found them (crash-SIGSEGV-4b6828eb79, -5de42f2047, -56506e04ee):
    each launches every kernel in the functional core and the timing model without dying."""
    from tests.fuzz import targets
    text = (ROOT / src).read_text()
    assert orig in text
    out = sandbox.run_case(targets.ptx, text.replace(orig, mutant, 1), time_limit=300)
    assert out.status == "ok", out
    assert ":timing:" in out.message and "SIGSEGV" not in out.message


def _mlp_bundle(tmp_path: Path) -> Path:
    import tarfile
    with tarfile.open(ROOT / "workloads" / "examples" / "example_mlp_b64_fp32.tar.xz") as tf:
        tf.extractall(tmp_path, filter="data")
    return next(p for p in tmp_path.iterdir() if p.is_dir())


def _read_buffers(root: str) -> str:
    from engine.workload.bundle import open_bundle
    with open_bundle(root) as b:
        return repr({bid: len(b.buffer_bytes(bid) or b"") for bid in b.buffers})


def test_an_rng_buffer_too_large_for_memory_is_a_bundle_error_naming_it(tmp_path):
    """A manifest asking for a 2 GiB rng-initialised buffer made buffer_bytes raise a raw MemoryError (the
    generator built 4 GiB of uint64 temporaries at once). Now it is generated in chunks, and a buffer that
    still does not fit (here under a 1 GiB address-space limit) is a BundleError naming the buffer."""
    import json
    from engine.workload.bundle import BundleError
    root = _mlp_bundle(tmp_path)
    m = json.loads((root / "manifest.json").read_text())
    b = next(x for x in m["buffers"] if x["id"] == "b4")
    b.update(bytes=2 << 30, init={"rng": "uniform", "dtype": "f32", "seed": 1, "lo": 0, "hi": 1})
    (root / "manifest.json").write_text(json.dumps(m))
    out = sandbox.run_case(_read_buffers, str(root), time_limit=120, mem_limit=1 << 30, expected=(BundleError,))
    assert (out.status, out.type) == ("rejected", "BundleError"), out
    assert out.message == ("buffers[b4]: 2147483648 bytes of rng data cannot be allocated here "
                           "(out of host memory)"), out


def test_a_chunked_rng_buffer_matches_the_generator_element_by_element():
    """The chunked generator gives exactly splitmix64's sequence across chunk boundaries (the suite's
    definition: element i is the (i+1)-th output from the seed)."""
    from engine.cases import splitmix64
    from engine.workload import bundle
    n = bundle.RNG_CHUNK + 5
    got = np.frombuffer(bundle.rng_bytes({"rng": "int", "dtype": "i32", "seed": 12345, "lo": 0, "hi": 1 << 30},
                                         4 * n + 2), dtype=np.int32, count=n)
    want = (splitmix64(12345, n) % np.uint64(1 << 30)).astype(np.int32)
    assert np.array_equal(got, want)


@pytest.mark.parametrize("info", [{"name": "seed"}, {"name": "seed", "config": None, "workload": None}])
def test_a_run_file_naming_no_config_imports_with_an_unknown_config(tmp_path, info):
    """The fuzzer's meta mutant (escaped-IntegrityError-e19cab59f0): 'info' without config, and the
    recording's config with "name": null, made the catalogue insert NULL into runs.config
    (sqlite3.IntegrityError). A null nested field counts as absent (as the check lets it through): the run
    imports with config '?' and the recording's workload name."""
    import json
    import sqlite3
    from tests.fixtures.synthetic_recording import SyntheticSim
    from webapp.store import RunWriter
    from webapp.store.catalogue import Catalogue
    p = tmp_path / "r.simtrun"
    SyntheticSim(num_sms=2, slots=8, ctas=6, seed=5).run(RunWriter(p, {"name": "r", "config": "h200"}))
    con = sqlite3.connect(p)
    rec = json.loads(con.execute("SELECT value FROM meta WHERE key='recording'").fetchone()[0])
    assert rec["config"]["name"] == "synthetic" and "config_name" not in rec
    rec["config"]["name"] = None
    con.execute("UPDATE meta SET value=? WHERE key='recording'", (json.dumps(rec),))
    con.execute("UPDATE meta SET value=? WHERE key='info'", (json.dumps(info),))
    con.commit()
    con.close()
    run = Catalogue(tmp_path / "s").import_run(p, imported=True)
    assert (run["name"], run["config"], run["workload"], run["status"]) == ("seed (imported)", "?", "synthetic", "done")


def _zip_needing_version(version_x10: int) -> bytes:
    """A valid zip whose central directory says extracting it needs zip version version_x10 / 10 (the
    fuzzer's 11.8, 13.4, 16.9, 17.3): Python's zipfile raises NotImplementedError on opening it."""
    import io
    import zipfile
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        z.writestr("b/manifest.json", b"{}")
    blob = bytearray(buf.getvalue())
    i = blob.index(b"PK\x01\x02")
    blob[i + 6:i + 8] = version_x10.to_bytes(2, "little")      # "version needed to extract"
    return bytes(blob)


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    from tests.fixtures.servers import synthetic_app
    app = synthetic_app(tmp_path_factory.mktemp("devpass"))
    yield app.test_client()
    app.extensions["simtscope"].jobs.shutdown()


def _post(client, url, field, name, data):
    import io
    return client.post(url, data={field: (io.BytesIO(data), name)}, content_type="multipart/form-data")


@pytest.mark.parametrize("version", [118, 134, 169, 173])
def test_an_uploaded_zip_needing_an_unknown_zip_version_is_a_400(client, version):
    """escaped-NotImplementedError-*: /api/uploads answered 500 (zipfile's NotImplementedError escaped
    from is_trace_zip)."""
    r = _post(client, "/api/uploads", "archive", "w.zip", _zip_needing_version(version))
    assert r.status_code == 400, r.get_json()
    assert r.get_json()["error"] == (f"the archive is a zip this server cannot read "
                                     f"(zip file version {version / 10:.1f})")


def test_a_bundle_zip_needing_an_unknown_zip_version_is_a_bundle_error(tmp_path):
    from engine.workload.bundle import BundleError, open_bundle
    p = tmp_path / "b.zip"
    p.write_bytes(_zip_needing_version(173))
    with pytest.raises(BundleError, match=r"b\.zip: not a readable zip archive \(zip file version 17\.3\)$"):
        open_bundle(p)


def test_an_uploaded_bundle_zip_needing_an_unknown_zip_version_is_a_400(client):
    r = _post(client, "/api/bundles", "bundle", "b.zip", _zip_needing_version(173))
    assert r.status_code == 400, r.get_json()
    assert "not a readable zip archive (zip file version 17.3)" in r.get_json()["error"], r.get_json()


def _vm_bytes() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmSize:"):
            return int(line.split()[1]) << 10
    raise AssertionError("no VmSize in /proc/self/status")


def _many_record_sms(n: int) -> str:
    """In a forked child: n launches with n record_sms values under 1 GiB of address space beyond what the
    child already has (a child of the test process inherits its whole address space, which grows over a
    run of the full suite, so an absolute limit would measure the suite, not the harness)."""
    import resource
    from tests.fuzz import targets
    resource.setrlimit(resource.RLIMIT_AS, (_vm_bytes() + (1 << 30), resource.RLIM_INFINITY))
    for s in range(n):
        targets.launch_call({"timing": True, "record_sms": [s], "grid": 1, "block": 32})
    sims = [v for k, v in targets._LAUNCH.items() if isinstance(k, tuple)]
    return repr((len(sims), sorted({s.threads for s in sims})))


def test_the_launch_fuzz_target_keeps_few_single_threaded_timing_models():
    """4,467 'configuration h200: out of memory building the GPU' in the device pass were the harness's:
    a child cached one TimingSim per record_sms value, each starting one simulation thread per core
    (~1.2 GiB of address space on the 16-core host) under a 3 GiB RLIMIT_AS. Now it keeps at most
    SIM_CACHE single-threaded models, so 12 record_sms values run within 1 GiB more address space (the
    old cache of 12 models of one thread per core needs ~1.9 GiB more on 2 cores)."""
    import resource
    from tests.fuzz import targets
    out = sandbox.run_case(_many_record_sms, 12, time_limit=300, mem_limit=resource.RLIM_INFINITY)
    assert (out.status, out.message) == ("ok", repr((targets.SIM_CACHE, [1]))), out


# --- second device pass (22:27 UTC): the two run-file findings ---------------------------------------------

def test_dominant_sparse_of_runs_that_cover_no_bucket_is_all_empty():
    """escaped-IndexError-12cee0d118: a recording whose warp-state runs all end where they start (or lie
    outside the window) gave np.add.reduceat an empty array and one group start (IndexError). No piece
    means no group: every bucket is `empty`, as dominant(bucket_durations(...)) says."""
    from webapp.store.lod import bucket_durations, dominant, dominant_sparse
    key, start, end, state = [0, 1, 1], [100, 5000, 40], [100, 6000, 30], [2, 3, 1]
    got = dominant_sparse(key, start, end, state, 2, 0, 16, 6, empty=255)
    assert got.shape == (2, 16) and got.dtype == np.uint8 and (got == 255).all()
    assert not bucket_durations(key, start, end, state, 2, 0, 16, 6, 4).any()
    assert dominant_sparse([], [], [], [], 3, 0, 4, 2).shape == (3, 4)


def test_a_run_file_chunk_that_does_not_fit_in_memory_is_refused_naming_it(tmp_path, monkeypatch):
    """escaped-MemoryError-d8be76c7c2: a chunk within the 256 MiB limit that this process cannot hold made
    the run-file check raise a raw MemoryError from zstandard; it is a RunFileInvalid naming the chunk."""
    import shutil
    from webapp.store import validate
    src = Path(__file__).resolve().parent / "fixtures" / "runs" / "sgemm_tiled16_256.run2.simtrun"
    run = tmp_path / "r.simtrun"
    shutil.copy(src, run)
    validate.check_run_file(run)                      # the file itself is fine

    class Starved:                                    # not a subclass of the C type: only what the check calls
        def decompress(self, data, max_output_size=0):
            raise MemoryError
    monkeypatch.setattr(validate.zstandard, "ZstdDecompressor", Starved)
    with pytest.raises(validate.RunFileInvalid, match=r"chunk .*bytes of decompressed data do not fit in "
                                                      r"this process's memory"):
        validate.check_run_file(run)


@pytest.mark.parametrize("fmt", [",u2", "2u2", "(2,)<u4", "<u4,<u4", "S4", "<c8", "O", "<f1", "|f1"])
def test_a_run_file_row_format_numpy_would_parse_as_code_is_refused_naming_it(tmp_path, fmt):
    """The third device pass's run-file finding (escaped-SyntaxError-d6db37b35b): a row layout's format
    ',u2' reached np.dtype, which reads comma strings through ast.literal_eval and raised SyntaxError.
    Only the formats the recorder writes (byte order, u/i 1-8 bytes, f 2-8) get to numpy ('<f1', which
    numpy does not know, raised a raw TypeError there); any other string is
    refused (the catalogue's ValueError "cannot import: ...") naming the table and the field."""
    import json
    import sqlite3
    from tests.fixtures.synthetic_recording import SyntheticSim
    from webapp.store import RunWriter
    from webapp.store.catalogue import Catalogue
    p = tmp_path / "r.simtrun"
    SyntheticSim(num_sms=2, slots=8, ctas=6, seed=5).run(RunWriter(p, {"name": "r", "config": "h200"}))
    con = sqlite3.connect(p)
    rec = json.loads(con.execute("SELECT value FROM meta WHERE key='recording'").fetchone()[0])
    d = rec["schema"]["tables"]["sm_counters"]
    name = d["names"][-1]
    d["formats"][-1][0] = fmt
    con.execute("UPDATE meta SET value=? WHERE key='recording'", (json.dumps(rec),))
    con.commit()
    con.close()
    with pytest.raises(ValueError, match=rf"^cannot import: .*schema\.tables\.sm_counters\.formats \({name}\): "
                                         r"expected \[a numeric type"):
        Catalogue(tmp_path / "s").import_run(p, imported=True)
