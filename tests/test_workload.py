"""gpu-workload/1 bundles: reading, checking, simulating; the examples run with outputs passing."""
from __future__ import annotations

import filecmp
import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import numpy as np
import pytest

from engine.workload.bundle import BundleError, Limits, f32_to_bf16_bits, bf16_bits_to_f32, open_bundle
from engine.workload.replay import parse_launches, run_workload
from engine.workload.writer import BundleWriter

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "workloads" / "examples"
SHARED = ROOT.parent / "shared" / "workloads" / "examples"
SAXPY_PTX = (ROOT / "validation" / "ptx" / "vector.sm90.ptx").read_text()


def _files(base: Path):
    return sorted(p.relative_to(base) for p in base.rglob("*") if p.is_file())


@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/workloads is not present on this machine")
def test_examples_are_a_byte_identical_copy():
    assert _files(EXAMPLES) == _files(SHARED)
    for rel in _files(SHARED):
        assert filecmp.cmp(EXAMPLES / rel, SHARED / rel, shallow=False), f"{rel} differs from ../shared"


def saxpy_bundle(n=4096, a=0.5, **kw) -> BundleWriter:
    """A two-launch workload written with the writer: y = a*x + y twice (so the second reads the first)."""
    x = np.linspace(-1, 1, n, dtype=np.float32)
    y = np.ones(n, np.float32)
    w = BundleWriter("saxpy_twice", description="test")
    w.buffer("x", data=x.tobytes(), role="input")
    w.buffer("y", data=y.tobytes(), role="output")
    p = w.ptx("saxpy", SAXPY_PTX)
    for i in range(2):
        w.launch("saxpy", p, grid=(n // 256,), block=(256,), shared_bytes=0,
                 args=[w.value(n, "s32"), w.value(a, "f32"), w.ptr("x"), w.ptr("y")], name=f"step{i}", op="saxpy")
    exp = (y + a * x + a * x).astype(np.float32)
    w.output("y", "f32", (n,), exp.tobytes(), tol=1e-6)
    w.hardware({"device": "test"}, [{"cycles": [5000, 5100]}, {"cycles": [4900]}])
    return w


@pytest.mark.parametrize("form", ["folder", "bundle.tar.xz", "bundle.zip"])
def test_writer_roundtrip_and_functional_run(tmp_path, form):
    w = saxpy_bundle()
    dest = w.save(tmp_path / form)
    with open_bundle(dest) as b:
        assert b.name == "saxpy_twice" and len(b.launches) == 2
        assert b.launches[0].hw_cycles_mean == 5050 and b.launches[1].label == "step1"
        res = run_workload(b)
    assert res.outputs_pass, res.outputs
    from engine.device import Device
    dev = Device()
    k = dev.load_ptx(SAXPY_PTX).kernel("saxpy")
    ref = dev.launch(k, 16, 256, [4096, 0.5, dev.alloc(4096), dev.alloc(4096)])
    assert [r.warp_insts for r in res.launches] == [ref.warp_insts] * 2
    assert all(r.sim_cycles is None for r in res.launches)


def test_timed_subset_and_json(tmp_path):
    from engine.timing import TimingSim
    dest = saxpy_bundle().save(tmp_path / "b")
    with open_bundle(dest) as b:
        res = run_workload(b, sim=TimingSim("h200"), timed={1})
    d = res.as_json()
    assert d["outputs_pass"] is True
    L0, L1 = d["launches"]
    assert L0["sim_cycles"] is None and L0["hw_cycles"] == 5050 and "err" not in L0
    assert L1["sim_cycles"] > 0 and L1["hw_cycles"] == 4900
    assert L1["err"] == pytest.approx((L1["sim_cycles"] - 4900) / 4900)
    s = d["summary"]
    assert s["sim_cycles"] == L1["sim_cycles"] and s["hw_cycles"] == 5050 + 4900
    assert s["err_total"] == pytest.approx(L1["err"]) and s["mae_launch"] == pytest.approx(abs(L1["err"]))
    assert L1["warp_insts"] == L0["warp_insts"] > 0


def test_wrong_output_fails(tmp_path):
    w = saxpy_bundle()
    w.files["expect/y.bin"] = np.zeros(4096, np.float32).tobytes()
    with open_bundle(w.save(tmp_path / "b")) as b:
        res = run_workload(b)
    assert not res.outputs_pass and res.outputs[0].error > 1


def test_parse_launches():
    assert parse_launches("3,7-9", 10) == {3, 7, 8, 9}
    assert parse_launches(None, 3) == {0, 1, 2}
    with pytest.raises(ValueError, match="outside 0..9"):
        parse_launches("7-12", 10)
    with pytest.raises(ValueError, match="not an index"):
        parse_launches("a-b", 10)


def test_bf16_rounding():
    v = np.array([1.0, 1.00390625, 1.01171875, -2.5, np.inf], np.float32)
    bits = f32_to_bf16_bits(v)
    assert bf16_bits_to_f32(bits).tolist() == [1.0, 1.0, 1.015625, -2.5, np.inf]


# ---------------------------------------------------------------------- the rng init (FORMAT.md)
RNG_INITS = {"f32": {"rng": "uniform", "lo": -1.0, "hi": 1.0}, "f16": {"rng": "uniform", "lo": -0.5, "hi": 0.5},
             "bf16": {"rng": "uniform", "lo": 0.0, "hi": 4.0}, "i32": {"rng": "int", "lo": -1000, "hi": 1000},
             "u32": {"rng": "int", "lo": 0, "hi": 1 << 32}}


@pytest.mark.parametrize("dtype", sorted(RNG_INITS))
@pytest.mark.parametrize("nbytes", [0, 1, 2, 3, 4, 6, 7, 4096, 4099])
def test_rng_fills_exactly_the_declared_bytes_by_the_suite_definition(dtype, nbytes):
    """Every rng dtype of FORMAT.md: `bytes` long whatever the size, element i from the (i+1)-th splitmix64
    output (validation/README.md), a zero tail when the size is not a multiple of the element size."""
    from engine.cases import splitmix64
    from engine.workload.bundle import DTYPES, rng_bytes
    init = {**RNG_INITS[dtype], "dtype": dtype, "seed": 1234567}
    got = rng_bytes(init, nbytes)
    isz = 2 if dtype in ("f16", "bf16") else 4
    n = nbytes // isz
    assert len(got) == nbytes and got[n * isz:] == bytes(nbytes - n * isz)
    z = splitmix64(1234567, n)
    if init["rng"] == "uniform":
        v = (init["lo"] + (init["hi"] - init["lo"]) * ((z >> np.uint64(40)).astype(np.float64) * 2.0**-24)).astype(np.float32)
        want = f32_to_bf16_bits(v) if dtype == "bf16" else v.astype(DTYPES[dtype])
    else:
        want = ((z % np.uint64(init["hi"] - init["lo"])).astype(np.int64) + init["lo"]).astype(DTYPES[dtype])
    assert got[:n * isz] == want.tobytes()


def test_rng_u32_is_splitmix64s_low_word_as_the_readme_checks_it():
    """validation/README.md's check values: S = 1234567 gives 6457827717110365317, 3203168211198807973,
    9817491932198370423; an int init over [0, 2^32) keeps their low 32 bits."""
    from engine.workload.bundle import rng_bytes
    got = np.frombuffer(rng_bytes({"rng": "int", "dtype": "u32", "seed": 1234567, "lo": 0, "hi": 1 << 32}, 12), np.uint32)
    assert got.tolist() == [v & 0xFFFFFFFF for v in (6457827717110365317, 3203168211198807973, 9817491932198370423)]


@pytest.mark.parametrize("dtype", ["i8", "u8", "i16", "u16", "i64", "u64", "f64", "bool", "f8"])
def test_rng_of_a_dtype_outside_the_format_is_refused_by_name(tmp_path, dtype):
    """FORMAT.md's rng dtypes are f32|f16|bf16|i32|u32: others are refused by the manifest check (naming the
    field) and by the generator itself (it used to give an i64 buffer twice its bytes, a u8 one a quarter)."""
    from engine.workload.bundle import rng_bytes
    init = {"rng": "int", "dtype": dtype, "seed": 1, "lo": 0, "hi": 100}
    with pytest.raises(ValueError) as ei:
        rng_bytes(init, 64)
    assert str(ei.value) == f"rng dtype {dtype!r} is not one of ['bf16', 'f16', 'f32', 'i32', 'u32'] (gpu-workload/1)"
    m, files = _good(tmp_path)
    m["buffers"][0]["init"] = init
    with pytest.raises(BundleError) as ei:
        open_bundle(_write(tmp_path, m, files))
    assert f"buffers[0].init.dtype: {dtype!r} is not one of ['bf16', 'f16', 'f32', 'i32', 'u32']" in str(ei.value)



@pytest.mark.parametrize("dtype,lo,hi,ok", [
    ("i32", -2**31, 2**31, True), ("i32", 0, 2**31 + 1, False), ("i32", -2**31 - 1, 0, False),
    ("u32", 0, 2**32, True), ("u32", -1, 10, False), ("u32", 0, 2**32 + 1, False),
    ("f32", -2**62, 2**62, True), ("f32", -2**63, 2**63, False), ("f32", 0, 2**70, False)])
def test_an_int_rng_whose_values_do_not_fit_its_dtype_is_refused_by_name(tmp_path, dtype, lo, hi, ok):
    """An int rng draws lo .. hi - 1; values outside the dtype used to wrap silently (i32 with hi past 2^31),
    and a span past 2^64 raised a raw OverflowError when the buffer was filled. The manifest check refuses
    both, naming the buffer, the values and the dtype's range; a range that fits loads and fills in range."""
    m, files = _good(tmp_path)
    m["buffers"][0]["init"] = {"rng": "int", "dtype": dtype, "seed": 3, "lo": lo, "hi": hi}
    path = _write(tmp_path, m, files)
    if not ok:
        with pytest.raises(BundleError) as ei:
            open_bundle(path)
        assert f"buffers[0].init: int values lo .. hi - 1 = {lo} .. {hi - 1} do not fit {dtype}" in str(ei.value)
        return
    from engine.workload.bundle import rng_bytes
    v = np.frombuffer(rng_bytes(open_bundle(path).buffers[m["buffers"][0]["id"]].init, 4096),
                      {"i32": np.int32, "u32": np.uint32, "f32": np.float32}[dtype]).astype(np.float64)
    assert v.min() >= lo and v.max() <= hi and len(np.unique(v)) > 900


# ---------------------------------------------------------------------- bad input
def _write(tmp_path, manifest: dict, files: dict | None = None) -> Path:
    d = tmp_path / "bad"
    d.mkdir(exist_ok=True)
    (d / "manifest.json").write_text(json.dumps(manifest))
    for rel, data in (files or {}).items():
        p = d / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    return d


def _good(tmp_path) -> tuple[dict, dict]:
    w = saxpy_bundle()
    return json.loads(w.manifest_bytes()), dict(w.files)


@pytest.mark.parametrize("mutate,where,msg", [
    (lambda m: m.update(format="gpu-workload/2"), "manifest.json", "format 'gpu-workload/2' is not"),
    (lambda m: m.update(name="a b"), "name", "is not a name"),
    (lambda m: m["buffers"][0].update(bytes=-1), "buffers[0].bytes", "outside"),
    (lambda m: m["buffers"][1].update(id="x"), "buffers[1].id", "duplicate buffer id"),
    (lambda m: m["buffers"][0]["init"].update(file="buffers/nope.bin"), "buffers[0].init.file", "missing"),
    (lambda m: m["buffers"][0]["init"].update(file="../etc/passwd"), "buffers[0].init.file", "leaves the bundle"),
    (lambda m: m["buffers"][0].update(bytes=8), "buffers[0].init.file", "holds 16384 bytes, the buffer has 8"),
    (lambda m: m["launches"][1]["args"][2].update(buffer="zz"), "launches[1].args[2].buffer", "no buffer"),
    (lambda m: m["launches"][0]["args"][3].update(offset=1 << 20), "launches[0].args[3].offset", "outside buffer y"),
    (lambda m: m["launches"][0]["args"][0].update(type="i32"), "launches[0].args[0].type", "not a PTX scalar"),
    (lambda m: m["launches"][0].update(grid=[0, 1, 1]), "launches[0].grid[0]", "outside 1.."),
    (lambda m: m["launches"][0].update(block=[64, 32, 1]), "launches[0].block", "more than 1024"),
    (lambda m: m["launches"][0].update(ptx="ptx/missing.ptx"), "launches[0].ptx", "missing"),
    (lambda m: m["launches"][0].pop("kernel"), "launches[0].kernel", "non-empty string"),
    (lambda m: m["outputs"][0].update(shape=[8192]), "outputs[0]", "past buffer y"),
    (lambda m: m["outputs"][0].update(dtype="f8"), "outputs[0].dtype", "not one of"),
    (lambda m: m["hardware"]["launches"].pop(), "hardware.launches", "1 entries for 2 launches"),
    (lambda m: m.update(launches={}), "launches", "expected a list"),
])
def test_malformed_manifest_names_the_field(tmp_path, mutate, where, msg):
    m, files = _good(tmp_path)
    mutate(m)
    with pytest.raises(BundleError, match=msg) as ei:
        open_bundle(_write(tmp_path, m, files))
    assert where in str(ei.value)


def test_truncated_manifest_and_short_buffer(tmp_path):
    m, files = _good(tmp_path)
    d = _write(tmp_path, m, files)
    (d / "manifest.json").write_text(json.dumps(m)[:-40])
    with pytest.raises(BundleError, match=r"manifest.json: not valid JSON: .* line 1"):
        open_bundle(d)
    (d / "manifest.json").write_text(json.dumps(m))
    (d / "buffers" / "x.bin").write_bytes(b"\0" * 100)
    with pytest.raises(BundleError, match=r"buffers\[0\].init.file: buffers/x.bin holds 100 bytes"):
        open_bundle(d)


def test_argument_count_mismatch_names_the_launch(tmp_path):
    m, files = _good(tmp_path)
    m["launches"][1]["args"].pop()
    with open_bundle(_write(tmp_path, m, files)) as b:
        res = run_workload(b)
    assert res.launches[0].error is None and res.launches[0].warp_insts > 0
    assert "launch 1 (saxpy): the bundle gives 3 argument(s), entry saxpy in ptx/saxpy_" in res.launches[1].error
    assert "takes 4" in res.launches[1].error
    assert not res.outputs_pass


def test_unsupported_ptx_names_launch_file_and_line(tmp_path):
    m, files = _good(tmp_path)
    rel = m["launches"][1]["ptx"]
    text = files[rel].decode()
    files[rel] = text.replace("ret;", "cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%rd1], [%rd2, {%r1}], [%rd3];\n\tret;", 1).encode()
    with open_bundle(_write(tmp_path, m, files)) as b:
        res = run_workload(b)
    err = res.launches[1].error
    assert err.startswith("launch 1 (saxpy): ") and rel in err and "cp.async.bulk.tensor" in err
    assert res.launches[0].error == err.replace("launch 1", "launch 0")   # both launches use the module


@pytest.mark.parametrize("threads", [1, 2])
def test_a_module_that_fails_to_lower_ahead_names_its_launches_as_inline(tmp_path, threads):
    """With 2 threads the modules are lowered on another thread (WorkloadRunner background): a module that
    does not load gives every launch of it the same error as with 1 thread (and no background), the other
    launches still run, and the GIL switch interval is back to what it was."""
    import sys
    from engine.timing import TimingSim
    m, files = _good(tmp_path)
    rel = m["launches"][1]["ptx"]
    files[rel] = files[rel].decode().replace("ret;", "bogus.op %r1;\n\tret;", 1).encode()
    before = sys.getswitchinterval()
    with open_bundle(_write(tmp_path, m, files)) as b:
        res = run_workload(b, sim=TimingSim("h200", threads=threads))
    assert sys.getswitchinterval() == before
    errs = [r.error for r in res.launches]
    assert errs[1] == f"launch 1 (saxpy): {rel}:50:2: unknown instruction 'bogus'"
    assert errs[0] == errs[1].replace("launch 1", "launch 0")       # both launches use the module
    assert all(r.sim_cycles is None for r in res.launches) and not res.outputs_pass


@pytest.mark.parametrize("kind", ["zip-slip", "symlink", "two-tops", "truncated", "too-big"])
def test_hostile_archives(tmp_path, kind):
    src = saxpy_bundle().save(tmp_path / "ok")
    arch = tmp_path / ("b.zip" if kind in ("zip-slip", "two-tops") else "b.tar.xz")
    limits = Limits()
    if kind == "zip-slip":
        with zipfile.ZipFile(arch, "w") as zf:
            zf.writestr("saxpy_twice/manifest.json", (src / "manifest.json").read_bytes())
            zf.writestr("../evil.txt", b"x")
        msg = "parent path"
    elif kind == "two-tops":
        with zipfile.ZipFile(arch, "w") as zf:
            zf.writestr("a/manifest.json", b"{}")
            zf.writestr("b/manifest.json", b"{}")
        msg = "one folder with manifest.json"
    else:
        with tarfile.open(arch, "w:xz") as tf:
            tf.add(src, arcname="saxpy_twice")
            if kind == "symlink":
                ti = tarfile.TarInfo("saxpy_twice/link")
                ti.type, ti.linkname = tarfile.SYMTYPE, "/etc/passwd"
                tf.addfile(ti)
        if kind == "truncated":
            data = arch.read_bytes()
            arch.write_bytes(data[: len(data) // 2])
            msg = "truncated or corrupt"
        elif kind == "too-big":
            limits = Limits(max_bytes=10_000)
            msg = "more than the limit of 10000 bytes"
        else:
            msg = "not a plain file"
    with pytest.raises(BundleError, match=msg):
        open_bundle(arch, limits)
    assert not (tmp_path / "evil.txt").exists()


# ---------------------------------------------------------------------- the real examples
@pytest.mark.parametrize("name", ["example_mlp_b64_fp32", "example_cnn_b4_32x32_fp16",
                                  "example_attention_b1_t128_d128_fp16"])
def test_examples_run_functionally_with_outputs_passing(name):
    with open_bundle(EXAMPLES / f"{name}.tar.xz") as b:
        res = run_workload(b)
        n = len(b.launches)
    assert res.outputs_pass, [(o.output.buffer, o.error) for o in res.outputs]
    assert len(res.launches) == n and all(r.warp_insts > 0 and r.error is None for r in res.launches)


def test_cli_run_and_validate_workloads(tmp_path):
    ex = EXAMPLES / "example_cnn_b4_32x32_fp16.tar.xz"
    out = tmp_path / "r.json"
    cmd = [sys.executable, "-m", "simtscope", "run", "--workload", str(ex), "--launches", "4-5", "--json", str(out)]
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert p.returncode == 0, p.stderr
    assert "outputs PASS" in p.stdout and "triton_per_fused" in p.stdout
    d = json.loads(out.read_text())
    assert [L["sim_cycles"] is not None for L in d["launches"]] == [False] * 4 + [True] * 2
    assert d["outputs_pass"] and d["summary"]["timed"] == 2 and d["wall_s"] > 0
    vj = tmp_path / "v.json"
    p = subprocess.run([sys.executable, "-m", "simtscope", "validate", "--workloads", str(ex), "--json", str(vj)],
                       capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert p.returncode == 0, p.stderr
    v = json.loads(vj.read_text())
    w = v["workloads"]["example_cnn_b4_32x32_fp16"]
    assert all(L["sim_cycles"] > 0 and L["hw_cycles"] > 0 for L in w["launches"])
    assert v["summary"]["outputs_passed"] == 1 and v["summary"]["workloads"] == 1
    assert v["summary"]["mae_model_total"] == pytest.approx(abs(w["summary"]["err_total"]))
    bad = subprocess.run([sys.executable, "-m", "simtscope", "run", "--workload", str(tmp_path / "nope.zip")],
                         capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert bad.returncode == 2 and "nope.zip: no such file" in bad.stderr


@pytest.mark.parametrize("what", [["--workloads", str(EXAMPLES)], ["--traces", "traces"]])
def test_validate_functional_refuses_workloads_and_traces_by_name(what):
    """`validate --functional` checks the suite's outputs; with --workloads or --traces it used to run the
    timing validation anyway. It now stops at once (exit 2), naming the option and what to use instead."""
    p = subprocess.run([sys.executable, "-m", "simtscope", "validate", "--functional", *what],
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert f"validate --functional checks the suite's outputs only, not {what[0]}" in p.stderr
    assert ("simtscope run --workload BUNDLE" if what[0] == "--workloads" else "no outputs to check") in p.stderr
    assert p.stdout == ""


def test_every_timed_launch_says_how_it_was_timed(tmp_path):
    """The JSON and the table say, per launch and in total, whether SASS costs or the PTX timed it."""
    from engine.timing import TimingSim
    from engine.workload.replay import format_table
    dest = saxpy_bundle().save(tmp_path / "b")
    with open_bundle(dest) as b:
        res = run_workload(b, sim=TimingSim("h200", overrides=["timing.sass=off"]), timed={0, 1})
    d = res.as_json()
    for L in d["launches"]:
        assert L["timing_mode"] == "ptx" and L["timing_mode_reason"] == "timing.sass = off"
        assert "sim_sass_warp_insts" not in L
    assert d["summary"]["timing_modes"] == {"sass": 0, "ptx": 2}
    assert d["summary"]["mae_sass_warp_insts"] is None
    assert "timing: 0 launch(es) with SASS costs, 2 as PTX (PTX: timing.sass = off)" in format_table(res)


@pytest.mark.skipif(not hasattr(os, "setpriority"), reason="no per-thread priorities here")
def test_modules_are_lowered_ahead_at_the_lowest_priority_after_the_buffers(tmp_path, monkeypatch):
    """With 2 threads the lowering thread starts once the bundle's buffers are filled (it would share the GIL
    with the filling) and runs at nice 19 (the simulation threads keep the cores); the run's own thread keeps
    its priority, and the results are those of 1 thread."""
    import threading
    from engine.timing import TimingSim
    from engine.workload import replay
    seen = []
    real_lower = replay.WorkloadRunner._lower

    def lower(self, rel):
        seen.append((threading.get_native_id(), os.getpriority(os.PRIO_PROCESS, threading.get_native_id()),
                     len(self.addr) == len(self.bundle.buffers)))
        return real_lower(self, rel)
    monkeypatch.setattr(replay.WorkloadRunner, "_lower", lower)
    m, files = _good(tmp_path)
    mine = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    with open_bundle(_write(tmp_path, m, files)) as b:
        two = run_workload(b, sim=TimingSim("h200", threads=2))
        ahead = list(seen)
        one = run_workload(b, sim=TimingSim("h200", threads=1))
    assert ahead and all(tid != threading.get_native_id() and nice == 19 and filled for tid, nice, filled in ahead)
    assert seen[len(ahead):] and all(tid == threading.get_native_id() and nice == mine for tid, nice, _ in seen[len(ahead):])
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == mine
    assert two.outputs_pass and [r.sim_cycles for r in two.launches] == [r.sim_cycles for r in one.launches]
