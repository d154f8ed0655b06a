"""The parts of capture that run without a GPU: labels from Inductor's code, ncu's CSV, PTX entry
parameters for the driver replay, rewriting a bundle's manifest, the zoo bundles' provenance."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.workload.bundle import open_bundle
from engine.workload.capture.cuda_replay import entry_params
from engine.workload.capture.labels import call_site_labels, extern_calls, label_launches, module_path
from engine.workload.capture.measure import hardware_section, parse_ncu_csv, rewrite_manifest
from engine.workload.capture.synthetic import init_for

ROOT = Path(__file__).resolve().parent.parent
ZOO = ROOT / "workloads" / "zoo"

CODE = '''
# Topologically Sorted Source Nodes: [conv2d], Original ATen: [aten.convolution]
triton_tem_fused_convolution_0 = async_compile.triton('triton_tem_fused_convolution_0', """ ... """)
class Runner:
    def call(self, args):
        with torch.cuda._DeviceGuard(0):
            # Topologically Sorted Source Nodes: [conv2d], Original ATen: [aten.convolution]
            stream0 = get_raw_stream(0)
            triton_tem_fused_convolution_0.run(arg1_1, arg0_1, buf0, 32, 1, 1, stream=stream0)
            # Topologically Sorted Source Nodes: [batch_norm, x, conv2d_1], Original ATen: [aten._native_batch_norm_legit_no_training, aten.relu, aten.convolution]
            triton_tem_fused_bn_relu_conv_2.run(buf1, arg6_1, buf2, 64, 1, 1, stream=stream0)
            # Topologically Sorted Source Nodes: [add], Original ATen: [aten.add]
            triton_poi_fused_add_3.run(buf2, buf3, 64, stream=stream0)
'''


def test_module_paths_from_dynamo_spellings():
    assert module_path("L['self'].layer1[0]._modules['conv1']") == "layer1.0.conv1"
    assert module_path("L['self'].h[11].attn.qkv") == "h.11.attn.qkv"
    assert module_path("L['fn'][2]") == "2"
    assert module_path("layer4.1.bn2") == "layer4.1.bn2"


def test_call_site_labels_take_the_last_source_node_with_a_module():
    mods = {"conv2d": "conv1", "batch_norm": "bn1", "conv2d_1": "layer1.0.conv1"}
    sites = call_site_labels(CODE, mods)
    assert [s["kernel"] for s in sites] == ["triton_tem_fused_convolution_0", "triton_tem_fused_bn_relu_conv_2",
                                            "triton_poi_fused_add_3"]
    assert sites[0] == {"kernel": "triton_tem_fused_convolution_0", "module": "conv1", "op": "convolution",
                        "nodes": ["conv2d"]}
    assert sites[1]["module"] == "layer1.0.conv1"
    assert sites[1]["op"] == "_native_batch_norm_legit_no_training+relu+convolution"
    assert sites[2]["module"] is None          # no module: the launch keeps its kernel name as label
    assert extern_calls(CODE) == []
    assert extern_calls("def call(args):\n    extern_kernels.mm(buf0, arg1, out=buf1)\n"
                        "    torch.ops.aten._scaled_dot_product_flash_attention.default(q, k, v)\n") == \
        ["extern_kernels.mm", "torch.ops.aten._scaled_dot_product_flash_attention.default"]


def test_a_reused_kernel_gets_each_call_sites_label():
    """Inductor calls one conv kernel for every block of the same shape: each launch is its own layer."""
    code = "".join(f"    # Topologically Sorted Source Nodes: [conv2d_{i}], Original ATen: [aten.convolution]\n"
                   f"    triton_tem_fused_convolution_3.run(buf{i}, arg{i}, buf{i + 1}, stream=stream0)\n"
                   for i in range(3))
    sites = call_site_labels(code, {f"conv2d_{i}": f"layer1.{i}.conv1" for i in range(3)})
    launches = [{"kernel": "triton_tem_fused_convolution_3"} for _ in range(3)]
    assert label_launches(launches, sites) == 3
    assert [L["module"] for L in launches] == ["layer1.0.conv1", "layer1.1.conv1", "layer1.2.conv1"]


def test_relabel_refuses_another_graph_and_accepts_renumbered_kernels(tmp_path):
    from engine.workload.capture.relabel import apply
    from tests.test_workload import saxpy_bundle
    dest = saxpy_bundle().save(tmp_path / "s.zip")
    site = {"module": "layer.0", "op": "saxpy", "nodes": ["y"]}
    with pytest.raises(SystemExit, match="not the bundle's launches"):
        apply([{**site, "kernel": "other"}, {**site, "kernel": "saxpy"}], str(dest))
    # the same kernels numbered differently by another compile: labelled by position
    n = apply([{**site, "kernel": "saxpy_7"}, {**site, "kernel": "saxpy_9", "module": "layer.1"}], str(dest))
    assert n == 2
    with open_bundle(dest) as b:
        assert [L.module for L in b.launches] == ["layer.0", "layer.1"]


def test_ncu_csv_rows_and_hardware_section():
    text = ('==PROF== Connected to process 1\n'
            '"ID","Kernel Name","gpc__cycles_elapsed.max","gpu__time_duration.sum","smsp__inst_executed.sum",'
            '"dram__bytes_read.sum","dram__bytes_write.sum","lts__t_sector_hit_rate.pct"\n'
            '"","","cycle","ns","inst","byte","byte","%"\n'
            '"0","k0","7,959","4,448","111,872","30,000","4,816","41.5"\n'
            '"1","k1","5,209","2,656","100,352","135,680","0","74.47"\n'
            '"2","k0","7,948","4,400","111,872","30,000","4,816","41.0"\n'
            '"3","k1","5,332","2,700","100,352","135,680","0","74.0"\n')
    rows = parse_ncu_csv(text)
    assert [r["gpc__cycles_elapsed.max"] for r in rows] == [7959, 5209, 7948, 5332]
    hw = hardware_section("NVIDIA H200", [[rows[0], rows[2]], [rows[1], rows[3]]], [4500.0, 2700.0], "2025.3.1")
    assert hw["launches"][0]["cycles"] == [7959, 7948] and hw["launches"][0]["dram_bytes"] == 34816
    assert hw["launches"][1]["l2_hit_rate"] == pytest.approx(0.7447) and hw["launches"][1]["event_ns"] == 2700.0
    assert hw["tool"].startswith("Nsight Compute 2025.3.1, --clock-control none --cache-control all")


def test_entry_params_of_triton_ptx():
    ptx = (ROOT / "workloads" / "examples")
    with open_bundle(ptx / "example_cnn_b4_32x32_fp16.tar.xz") as b:
        L = b.launches[1]
        ps = entry_params(b.ptx_text(L.ptx), L.kernel)
    assert [t for t, _ in ps] == ["u64"] * 5 + ["u32", "u64", "u64"]
    assert len(ps) == len(L.args)


def test_rewrite_manifest_of_an_archive(tmp_path):
    from tests.test_workload import saxpy_bundle
    dest = saxpy_bundle().save(tmp_path / "s.tar.xz")
    rewrite_manifest(dest, lambda m: {**m, "description": "rewritten"})
    with open_bundle(dest) as b:
        assert b.description == "rewritten" and len(b.launches) == 2 and b.root.name == "saxpy_twice"


def test_synthetic_ranges():
    w = init_for("layer1.0.conv1.weight", (64, 64, 3, 3), "f16", 5)
    assert (w["lo"], w["hi"]) == (-2.0 ** -5, 2.0 ** -5)        # fan-in 576: 2^k ~ 24
    assert (init_for("bn1.running_var", (64,), "f16", 5)["lo"], init_for("bn1.bias", (64,), "f16", 5)["hi"]) == \
        (0.5, 2.0 ** -5)


@pytest.mark.parametrize("path", sorted(ZOO.glob("*.tar.xz")), ids=lambda p: p.name)
def test_zoo_bundles_are_complete(path):
    """Every zoo bundle names its launches and carries two Nsight Compute measurements per launch."""
    with open_bundle(path) as b:
        assert b.manifest["source"]["device"] == "NVIDIA H200" and b.outputs
        assert all(len(L.hw_cycles) == 2 and L.hw.get("event_ns") for L in b.launches)
        assert all(L.kernel.startswith("triton_") for L in b.launches)
        assert any(L.module for L in b.launches)
        reused = [L for L in b.launches if sum(M.kernel == L.kernel for M in b.launches) > 1 and L.module]
        if reused:                          # a kernel reused across layers is labelled per call, not once
            assert len({L.module for L in reused}) > 1
        if b.manifest.get("synthetic"):
            assert any("rng" in (buf.init or {}) for buf in b.buffers.values())
