"""Opaque launches and measured gaps, without a GPU.

`tests/fixtures/profiler/recorded_pass_trace.json` is a torch.profiler (Kineto) Chrome trace of one recorded
pass cut down to the events capture reads, with the field names torch 2.x writes: a fill kernel (`zero_`)
before the first Triton launch, a cuBLAS GEMM (`extern_kernels.mm`) between two Triton launches of the
`saxpy` entry, the recorder's host copies (not kernels) and flow events. The capture path with
--allow-opaque (torch_capture.finish_launches: everything after the profiled pass) turns it and the
recorded Triton launches into a bundle, which is then read, replayed and printed."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.workload.bundle import BundleError, open_bundle
from engine.workload.capture.labels import extern_sites
from engine.workload.capture.measure import gaps, hardware_section, rewrite_manifest
from engine.workload.capture.opaque import (OpaqueError, kernels_from_trace, merge, opaque_entry, place_opaque,
                                            short_name)
from engine.workload.capture.torch_capture import CaptureError, finish_launches, parse_inductor
from engine.workload.replay import format_table, run_workload
from tests.test_workload import saxpy_bundle

ROOT = Path(__file__).resolve().parent.parent
TRACE = json.loads((ROOT / "tests" / "fixtures" / "profiler" / "recorded_pass_trace.json").read_text())
GEMM = ("sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32_warpgroupsize1x1x1_execute_segment_k_off_"
        "kernel__5x_cublas")
CODE = '''
def call(args):
    arg0_1, arg1_1, arg2_1 = args
    with torch.cuda._DeviceGuard(0):
        buf0 = empty_strided_cuda((4096, ), (1, ), torch.float32)
        buf0.zero_()
        # Topologically Sorted Source Nodes: [y], Original ATen: [aten.add]
        triton_poi_fused_saxpy_0.run(arg0_1, buf0, 4096, stream=stream0)
        buf1 = empty_strided_cuda((64, 64), (64, 1), torch.float32)
        # Topologically Sorted Source Nodes: [linear], Original ATen: [aten.mm]
        extern_kernels.mm(arg1_1, arg2_1, out=buf1)
        # Topologically Sorted Source Nodes: [y_1], Original ATen: [aten.add]
        triton_poi_fused_saxpy_0.run(arg0_1, buf0, 4096, stream=stream0)
    return (buf0, buf1, )
'''
MODS = {"y": "step", "linear": "fc1", "y_1": "step"}


def test_kernels_of_the_trace_in_start_order_with_their_aten_op():
    ks = kernels_from_trace(TRACE)
    assert [short_name(k.name) for k in ks] == ["at::native::vectorized_elementwise_kernel", "saxpy", GEMM, "saxpy"]
    assert [k.dur_ns for k in ks] == [1792, 2528, 12345, 2496]
    assert [k.op for k in ks] == ["aten::fill_", None, "aten::mm", None]
    assert ks[2].grid == [66, 1, 1] and ks[2].block == [384, 1, 1] and ks[2].shared_bytes == 213248
    assert ks[0].start_ns < ks[1].start_ns < ks[2].start_ns < ks[3].start_ns
    assert kernels_from_trace({"traceEvents": []}) == [] and kernels_from_trace([]) == []
    with pytest.raises(OpaqueError, match=r"trace event 0 \('k'\): a kernel without a numeric ts/dur"):
        kernels_from_trace([{"ph": "X", "cat": "kernel", "name": "k", "ts": "soon"}])


def test_merge_places_the_triton_launches_and_refuses_a_trace_that_does_not_match():
    ks = kernels_from_trace(TRACE)
    order = merge(["saxpy", "saxpy"], ks)
    assert [(kind, x if kind == "triton" else short_name(x.name)) for kind, x in order] == [
        ("opaque", "at::native::vectorized_elementwise_kernel"), ("triton", 0), ("opaque", GEMM), ("triton", 1)]
    with pytest.raises(OpaqueError, match=r"the profiler saw 2 of the 3 recorded Triton launches \(first missing: "
                                          r"launch 2, saxpy\)"):
        merge(["saxpy"] * 3, ks)
    with pytest.raises(OpaqueError, match="the profiler saw Triton kernel saxpy where launch 1 \\(relu\\) was recorded"):
        merge(["saxpy", "relu", "saxpy"], ks)


def test_extern_sites_count_the_triton_calls_before_them():
    assert extern_sites(CODE, MODS) == [{"call": "extern_kernels.mm", "after": 1, "module": "fc1", "op": "mm",
                                         "nodes": ["linear"]}]
    code = ("def call(args):\n    buf3 = torch.ops.aten._scaled_dot_product_flash_attention.default(q, k, v)\n"
            "    triton_red_fused_0.run(buf3, stream=stream0)\n    extern_kernels.bmm(a, b, out=c)\n")
    assert [(s["call"], s["after"]) for s in extern_sites(code, {})] == [
        ("torch.ops.aten._scaled_dot_product_flash_attention.default", 0), ("extern_kernels.bmm", 1)]


def test_opaque_entries_take_the_site_of_their_aten_op_and_the_measured_clock():
    ks = kernels_from_trace(TRACE)
    gemm = ks[2]
    sites = [{"call": "extern_kernels.addmm", "after": 1, "module": "fc0", "op": "addmm", "nodes": ["l0"]},
             {"call": "extern_kernels.mm", "after": 1, "module": "fc1", "op": "mm", "nodes": ["l1"]}]
    launches, n = place_opaque([{"kernel": "saxpy"}, {"kernel": "saxpy"}], merge(["saxpy", "saxpy"], ks), sites, 1980.0)
    assert n == 2 and [L["kernel"] for L in launches] == [ks[0].name, "saxpy", GEMM, "saxpy"]
    assert launches[2]["module"] == "fc1" and launches[2]["extern_call"] == "extern_kernels.mm"   # by op, not position
    assert launches[0].get("module") is None and launches[0]["op"] == "fill_"    # no site: the profiler's op
    assert launches[2]["measured"]["cycles"] == round(12345 * 1.98) and launches[2]["measured"]["clock_mhz"] == 1980.0
    no_clock = opaque_entry(gemm, None, None)
    assert no_clock["measured"] == {"ns": 12345, "tool": no_clock["measured"]["tool"]} and no_clock["op"] == "mm"


def _captured(tmp_path, clock=(1980.0, "test clock")) -> Path:
    """What capture(allow_opaque=True) writes for the traced pass: the recorded Triton launches (the saxpy
    bundle's two, no hardware section yet), then finish_launches with the profiler's trace."""
    w = saxpy_bundle()
    del w.manifest["hardware"]
    assert finish_launches(w, CODE, [], MODS, TRACE, clock) == 2
    return w.save(tmp_path / "captured.tar.xz")


def test_capture_with_allow_opaque_writes_a_valid_bundle_and_replay_counts_the_measured_time(tmp_path):
    from engine.timing import TimingSim
    dest = _captured(tmp_path)
    with open_bundle(dest) as b:
        assert [L.opaque for L in b.launches] == [True, False, True, False]
        assert b.manifest["source"]["opaque_clock"] == "test clock" and "output_code.py" in \
            {p.name for p in b.root.iterdir()}
        g = b.launches[2]
        assert (g.kernel, g.module, g.op, g.label) == (GEMM, "fc1", "mm", "fc1")
        assert g.measured["ns"] == 12345 and g.hw_cycles == [24443.0] and b.launches[0].hw_cycles == [3548.0]
        assert b.launches[1].hw_cycles == [] and b.launches[1].name == "step0"
        res = run_workload(b)                                  # functional: the opaque launches are skipped
        assert res.outputs_pass and res.summary()["opaque"] == 2 and res.summary()["sim_cycles"] is None
        timed = run_workload(b, sim=TimingSim("h200"))
    d = timed.as_json()
    rows = d["launches"]
    assert [r["sim_cycles"] is None for r in rows] == [True, False, True, False]
    assert [r.get("opaque", False) for r in rows] == [True, False, True, False] and "error" not in rows[2]
    assert rows[2]["hw_cycles"] == 24443 and rows[2]["opaque_ns"] == 12345 and rows[2]["timed"] is False
    assert rows[0]["note"].startswith("opaque launch (no PTX: at::native::vectorized_elementwise_kernel): not sim")
    assert rows[2]["note"].startswith("opaque launch (no PTX: sm90_xmma_gemm") and "12.35 µs = 24,443 cycles" in \
        rows[2]["note"]
    s = d["summary"]
    assert d["outputs_pass"] and s["opaque"] == 2 and s["opaque_cycles"] == 3548 + 24443
    assert s["sim_cycles"] == rows[1]["sim_cycles"] + rows[3]["sim_cycles"] + 3548 + 24443
    assert s["hw_cycles"] == 3548 + 24443 and s["err_total"] is None and s["errors"] == 0
    table = format_table(timed)
    row = next(ln for ln in table.splitlines() if ln.startswith("  2 fc1"))
    assert row.split()[4:6] == ["opaque", "24,443"] and "incl. 2 opaque launch(es): 27,991 measured cycles" in table
    assert "    opaque launch (no PTX: sm90_xmma" in table


def test_measuring_keeps_the_opaque_launches_own_time(tmp_path):
    """measure.py replays only the PTX launches: ncu rows and event times line up with them, an opaque
    launch's hardware entry says so and its own measurement stays its time."""
    dest = _captured(tmp_path)
    rows = [[{"gpc__cycles_elapsed.max": c, "gpu__time_duration.sum": 2000.0, "smsp__inst_executed.sum": 100.0,
              "dram__bytes_read.sum": 0.0, "dram__bytes_write.sum": 0.0, "lts__t_sector_hit_rate.pct": 50.0}]
            for c in (5000.0, 4900.0)]
    hw = hardware_section("NVIDIA H200", rows, [None, 2600.0, None, 2500.0], "2025.3.1", [True, False, True, False],
                          [None, 0.0, None, 9000.0, 11600.0])
    assert [L.get("cycles") for L in hw["launches"]] == [None, [5000.0], None, [4900.0]]
    assert hw["launches"][0] == {"opaque": True} and hw["launches"][1]["start_ns"] == 0.0
    # after an opaque launch (not replayed) the gap is not known
    assert "gap_ns" not in hw["launches"][1] and "gap_ns" not in hw["launches"][3] and "gaps_tool" not in hw
    rewrite_manifest(dest, lambda m: {**m, "hardware": hw})
    with open_bundle(dest) as b:
        assert [L.hw_cycles for L in b.launches] == [[3548.0], [5000.0], [24443.0], [4900.0]]


def test_capture_refuses_a_trace_that_misses_a_recorded_launch(tmp_path):
    w = saxpy_bundle()
    del w.manifest["hardware"]
    trace = {"traceEvents": [e for e in TRACE["traceEvents"] if not (e.get("cat") == "kernel" and e["ts"] > 5040080)]}
    with pytest.raises(CaptureError, match=r"--allow-opaque: the profiler saw 1 of the 2 recorded Triton launches"):
        finish_launches(w, CODE, [], MODS, trace, (1980.0, ""))


def test_reader_checks_the_new_launch_keys(tmp_path):
    def bundle(**extra):
        w = saxpy_bundle()
        del w.manifest["hardware"]
        w.launch("cublas_gemm", None, grid=(1,), block=(1,), shared_bytes=0, args=[], opaque=True, **extra)
        return w.save(tmp_path / f"b{len(list(tmp_path.iterdir()))}")
    with pytest.raises(BundleError, match=r"launches\[2\]\.measured\.ns: expected a finite number > 0, got -5"):
        open_bundle(bundle(measured={"ns": -5}))
    with pytest.raises(BundleError, match=r"launches\[2\]\.measured: expected an object, got str"):
        open_bundle(bundle(measured="fast"))
    w = saxpy_bundle()
    w.manifest["launches"][0]["measured"] = {"ns": 5}
    with pytest.raises(BundleError, match=r"launches\[0\]\.measured: only an opaque launch carries its own measurement"):
        open_bundle(w.save(tmp_path / "plain"))
    w = saxpy_bundle()
    w.manifest["hardware"]["launches"][1]["gap_ns"] = "long"
    with pytest.raises(BundleError, match=r"hardware\.launches\[1\]\.gap_ns: expected a finite number >= 0"):
        open_bundle(w.save(tmp_path / "gap"))
    with open_bundle(bundle()) as b:                 # an opaque launch without any time: shown, counted as 0
        assert b.launches[2].opaque and b.launches[2].hw_cycles == []
        res = run_workload(b)
    assert res.outputs_pass and res.as_json()["launches"][2]["note"].endswith("counts in the totals")


def test_gaps_from_a_back_to_back_replay():
    """start_ns: each launch's event after the first launch's, plus the end; event_ns: each launch alone."""
    assert gaps([1000.0, 2000.0, None, 500.0], [0.0, 1500.0, None, 5000.0, 5600.0]) == [
        {"start_ns": 0.0, "gap_ns": 0.0}, {"start_ns": 1500.0, "gap_ns": 500.0}, {}, {"start_ns": 5000.0}]
    assert gaps([1000.0, 2000.0], [0.0, 900.0, 3000.0]) == [{"start_ns": 0.0, "gap_ns": 0.0},
                                                              {"start_ns": 900.0, "gap_ns": 0.0}]   # floored at 0
    assert gaps([1000.0], []) == [{}]


def gap_bundle(tmp_path) -> Path:
    """The saxpy bundle with measured gaps (hardware gap_ns/start_ns), an opaque GEMM between its launches."""
    w = saxpy_bundle()
    w.launch("cublas_gemm", None, grid=(66,), block=(384,), shared_bytes=0, args=[], name="gemm", op="mm",
             opaque=True, measured={"ns": 2000, "cycles": 3960, "clock_mhz": 1980.0})
    w.manifest["launches"].insert(1, w.manifest["launches"].pop())
    w.hardware({"device": "NVIDIA H200", "gaps_tool": "test"},
               [{"cycles": [5000], "gap_ns": 0.0, "start_ns": 0.0}, {"opaque": True},
                {"cycles": [4900], "gap_ns": 1500.0, "start_ns": 6000.0}])
    return w.save(tmp_path / "gaps.zip")


def test_replay_reports_measured_gaps(tmp_path):
    with open_bundle(gap_bundle(tmp_path)) as b:
        assert b.gaps_measured and [L.gap_ns for L in b.launches] == [0.0, None, 1500.0]
        res = run_workload(b)
    d = res.as_json()
    assert [L.get("gap_ns") for L in d["launches"]] == [0.0, None, 1500.0]
    assert d["summary"]["gaps_ns"] == 1500.0 and d["outputs_pass"]
    with open_bundle(ROOT / "workloads" / "examples" / "example_mlp_b64_fp32.tar.xz") as b:
        assert not b.gaps_measured


def test_cli_run_marks_opaque_launches(tmp_path):
    out = tmp_path / "r.json"
    p = subprocess.run([sys.executable, "-m", "simtscope", "run", "--workload", str(gap_bundle(tmp_path)), "--timing",
                        "--json", str(out)], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert p.returncode == 0, p.stderr
    row = next(ln for ln in p.stdout.splitlines() if ln.startswith("  1 gemm"))
    assert row.split()[4:6] == ["opaque", "3,960"]
    assert "measured gaps between launches 1.5 µs" in p.stdout and "outputs PASS" in p.stdout
    d = json.loads(out.read_text())
    assert d["launches"][1]["opaque"] is True and d["launches"][1]["sim_cycles"] is None
    assert d["summary"]["sim_cycles"] == d["launches"][0]["sim_cycles"] + d["launches"][2]["sim_cycles"] + 3960


def test_inductor_settings_from_the_command_line():
    assert parse_inductor(["max_autotune_gemm_backends=ATEN", "triton.cudagraphs=false", "max_autotune=True",
                           "coordinate_descent_tuning_radius=2"]) == {
        "max_autotune_gemm_backends": "ATEN", "triton.cudagraphs": False, "max_autotune": True,
        "coordinate_descent_tuning_radius": 2}
    assert parse_inductor(None) == {}
    with pytest.raises(CaptureError, match="--inductor 'max_autotune': expected KEY=VALUE"):
        parse_inductor(["max_autotune"])
