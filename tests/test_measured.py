"""Whether a simulation's gap to a hardware measurement is the model's error (engine/measured.py): only when it
simulates the measured device unchanged. Checked on the rule itself, on the validation suite's measurements
(read back from validation/h200_results.json), and where the command line prints it: `validate` of the suite
and the table of a workload run say "not the model's error" for another GPU's preset or a changed H200."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.config import load_config
from engine.measured import case_measurement, comparison, hardware_changes, named_comparison

ROOT = Path(__file__).resolve().parent.parent
HW = json.loads((ROOT / "validation" / "h200_results.json").read_text())


def test_the_preset_of_the_measured_device_is_compared_as_error():
    c = comparison(load_config("h200"), "NVIDIA H200")
    assert c == {"device": "NVIDIA H200", "sim_gpu": "NVIDIA H200", "comparable": True, "why": ""}
    # simulator settings and the timing model's choices keep the GPU; so does restating a preset value
    c = comparison(load_config("h200", ["sim.threads=2", "sim.quantum_cycles=64", "timing.sass=off",
                                        "l2.size_kib=61440"]), "NVIDIA H200")
    assert c["comparable"] is True
    # device names as drivers spell them: separators and case do not matter
    assert comparison(load_config("a100"), "NVIDIA A100-SXM4-40GB")["comparable"] is True


@pytest.mark.parametrize("config, overrides, device, why", [
    ("a100", [], "NVIDIA H200", "simulated NVIDIA A100 SXM4 40GB, measured on NVIDIA H200"),
    ("h200", ["l2.size_kib=30720"], "NVIDIA H200", "l2.size_kib=30720 changes the simulated NVIDIA H200"),
    ("h200", ["l2.size_kib = 30720", "dram.bandwidth_gbps=1200"], "NVIDIA H200",
     "l2.size_kib=30720, dram.bandwidth_gbps=1200 change the simulated NVIDIA H200"),
    ("h200", ["gpu.num_sms=66", "l2.size_kib=30720", "dram.bandwidth_gbps=1200", "l1.hit_latency_cycles=40"], "NVIDIA H200",
     "gpu.num_sms=66, l2.size_kib=30720, dram.bandwidth_gbps=1200 … change the simulated NVIDIA H200"),
    ("h200", [], None, "the measurement does not name its device"),
    ("h200", [], "", "the measurement does not name its device"),
])
def test_another_gpu_or_a_changed_one_is_a_difference(config, overrides, device, why):
    c = comparison(load_config(config, overrides), device)
    assert c["comparable"] is False and c["why"] == why


def test_the_last_override_of_a_key_decides():
    assert hardware_changes(load_config("h200", ["l2.size_kib=30720", "l2.size_kib=61440"])) == []
    assert hardware_changes(load_config("h200", ["l2.size_kib=61440", "l2.size_kib=30720"])) == ["l2.size_kib=30720"]


def test_a_configuration_that_cannot_be_read_is_not_compared_as_error():
    c = named_comparison("no_such_preset", [], "NVIDIA H200")
    assert c == {"device": "NVIDIA H200", "sim_gpu": None, "comparable": False,
                 "why": "the simulated configuration cannot be read"}
    assert named_comparison("h200", ["l2.size_kib=-1"], "NVIDIA H200")["comparable"] is False
    assert named_comparison("h200", [], "NVIDIA H200")["comparable"] is True


def test_a_validation_case_measurement_is_the_results_file_row():
    n = HW["cases"]["sgemm_tiled16_256"]["ncu"]
    m = case_measurement("sgemm_tiled16_256")
    assert m["device"] == HW["header"]["gpu"] == "NVIDIA H200"
    assert m["tool"] == f"Nsight Compute {HW['header']['ncu']}"
    assert m["cycles"] == n["gpc__cycles_elapsed.max"]
    assert m["dram_bytes"] == n["dram__bytes_read.sum"] + n["dram__bytes_write.sum"]
    assert m["l2_hit_rate"] == pytest.approx(n["lts__t_sector_hit_rate.pct"] / 100)
    assert m["sass_warp_insts"] == n["smsp__inst_executed.sum"]


def test_no_measurement_for_an_unknown_case_or_an_unreadable_file(tmp_path):
    assert case_measurement("no_such_case") is None
    assert case_measurement("saxpy_1M", tmp_path / "missing.json") is None
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert case_measurement("saxpy_1M", bad) is None
    bad.write_text(json.dumps({"header": {}, "cases": {"saxpy_1M": {"ncu": {}}}}))
    assert case_measurement("saxpy_1M", bad) is None                # no cycles: nothing to compare with
    bad.write_text(json.dumps({"cases": []}))
    assert case_measurement("saxpy_1M", bad) is None


def test_validate_on_another_gpu_says_its_figures_are_differences():
    from engine.validate import validate
    lines = []
    res = validate(config="a100", only="saxpy_1M", out=lines.append)
    notes = [x for x in lines if x.startswith("note:")]
    assert notes == ["note:     the differences below are not the model's error: simulated NVIDIA A100 SXM4 40GB, "
                     "measured on NVIDIA H200",
                     "note:     these are differences, not the model's error: simulated NVIDIA A100 SXM4 40GB, "
                     "measured on NVIDIA H200"]
    assert res["summary"]["measured"]["comparable"] is False
    lines.clear()
    res = validate(config="h200", only="saxpy_1M", out=lines.append)
    assert not [x for x in lines if x.startswith("note:")] and res["summary"]["measured"]["comparable"] is True


def test_a_workload_table_on_another_gpu_says_so():
    from engine.timing import TimingSim
    from engine.workload.bundle import open_bundle
    from engine.workload.replay import format_table, run_workload
    with open_bundle(ROOT / "workloads" / "examples" / "example_mlp_b64_fp32.tar.xz") as b:
        res = run_workload(b, sim=TimingSim("a100", threads=1))
    s = res.summary()
    assert s["measured"] == {"device": "NVIDIA H200", "sim_gpu": "NVIDIA A100 SXM4 40GB", "comparable": False,
                             "why": "simulated NVIDIA A100 SXM4 40GB, measured on NVIDIA H200"}
    total = [x for x in format_table(res).splitlines() if x.startswith("total:")]
    assert total and total[0].endswith("(not the model's error: simulated NVIDIA A100 SXM4 40GB, measured on NVIDIA H200)")
    with open_bundle(ROOT / "workloads" / "examples" / "example_mlp_b64_fp32.tar.xz") as b:
        res = run_workload(b)                                        # functional only: nothing compared
    assert res.summary()["measured"] is None
