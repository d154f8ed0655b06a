"""timing.sass_div (docs/sass.md "Integer division"): with timing.sass = regs, integer div/rem take the issue
slots, pipe and dependence chain of the SASS ptxas expands them into; every other instruction keeps its PTX
cost, and results never change."""
from __future__ import annotations

import numpy as np
import pytest

from engine import sass
from engine.config import ConfigError, load_config

needs_tools = pytest.mark.skipif(sass.find_tools() is None, reason=f"SASS tools: {sass.why_missing()}")

# out[tid] = a chain of 8 signed divisions: x = d / x, x starting at tid + 1 (a divisor that changes with every
# step, so ptxas cannot hoist its reciprocal: 8 full division sequences)
DIVS = """
.version 8.0
.target sm_90
.address_size 64
.visible .entry divs(.param .u64 out, .param .u32 d)
{
    .reg .b32 %r<20>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [d];
    mov.u32 %r2, %tid.x;
    add.s32 %r3, %r2, 1;
    div.s32 %r4, %r1, %r3;
    or.b32 %r4, %r4, 1;
    div.s32 %r5, %r1, %r4;
    or.b32 %r5, %r5, 1;
    div.s32 %r6, %r1, %r5;
    or.b32 %r6, %r6, 1;
    rem.s32 %r7, %r1, %r6;
    or.b32 %r7, %r7, 1;
    div.u32 %r8, %r1, %r7;
    or.b32 %r8, %r8, 1;
    div.s32 %r9, %r1, %r8;
    or.b32 %r9, %r9, 1;
    rem.u32 %r10, %r1, %r9;
    or.b32 %r10, %r10, 1;
    div.s32 %r11, %r1, %r10;
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.u32 %rd3, %r2, 4;
    add.s64 %rd2, %rd2, %rd3;
    st.global.u32 [%rd2], %r11;
    ret;
}
"""
# the same arithmetic chain without divisions (multiplies instead), and a float division
NODIV = DIVS.replace("div.s32", "mul.lo.s32").replace("rem.s32", "mul.lo.s32").replace("div.u32", "mul.lo.s32") \
            .replace("rem.u32", "mul.lo.s32").replace(".entry divs(", ".entry nodivs(")


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SIMTSCOPE_CACHE_DIR", str(tmp_path / "cache"))


def _reference(d: int, n: int) -> np.ndarray:
    out = np.zeros(n, np.int64)
    for t in range(n):
        x = t + 1
        for k, op in enumerate(("s/", "s/", "s/", "s%", "u/", "s/", "u%", "s/")):
            q = abs(d) // abs(x) * (1 if (d >= 0) == (x >= 0) else -1)   # C: truncation towards zero
            x = q if op[1] == "/" else d - q * x
            if k < 7:
                x |= 1
        out[t] = x
    return out.astype(np.int32)


def _run(src: str, kernel: str, sass_div: int, threads: int = 32):
    from engine.timing import TimingSim
    sim = TimingSim("h200", overrides=[f"timing.sass_div={sass_div}", "gpu.num_sms=1"])
    dev = sim.device
    out = dev.alloc((threads,), np.int32)
    res = sim.launch(dev.load_ptx(src).kernel(kernel), 1, threads, (out, 1_000_003))
    return dev.from_device(out), res.stats


def test_imad_high_halves_are_their_own_class():
    """IMAD.HI and IMAD.WIDE take the FMA-heavy pipe 4 cycles (divmix.cu on the H200), other IMADs 2."""
    from engine.sass.classes import UNIT_OF, WEIGHT, sass_class
    assert sass_class("IMAD", ".HI.U32") == sass_class("IMAD", ".WIDE.U32") == sass_class("IMAD", ".WIDE") == "imad_hi"
    assert sass_class("IMAD", ".MOV.U32") == sass_class("IMAD") == sass_class("VIADD") == "imad"
    assert UNIT_OF["imad_hi"] == UNIT_OF["imad"] == "fp32" and WEIGHT["imad_hi"] == 2 * WEIGHT["imad"] == 4


def test_timing_sass_div_is_a_checked_setting():
    assert load_config("h200")["timing.sass_div"] == 1      # the preset: divisions as ptxas's SASS
    assert load_config("a100")["timing.sass_div"] == 0
    assert load_config("h200", ["timing.sass_div=0"])["timing.sass_div"] == 0
    with pytest.raises(ConfigError, match="timing.sass_div"):
        load_config("h200", ["timing.sass_div=2"])


@needs_tools
def test_a_division_chain_costs_its_sass_and_results_do_not_change():
    on, st_on = _run(DIVS, "divs", 1)
    off, st_off = _run(DIVS, "divs", 0)
    np.testing.assert_array_equal(on, _reference(1_000_003, 32))
    np.testing.assert_array_equal(on, off)
    assert st_on["warp_insts"] == st_off["warp_insts"]
    # 8 dependent divisions: as one int slot each (4 cycles) the chain is short; as ptxas's sequences
    # (I2F, MUFU.RCP, F2I, multiply-adds, compares: ~100 cycles each in the model, the H200's 130-138) it is not
    assert st_on["gpu_sim_cycle"] - st_off["gpu_sim_cycle"] > 8 * 60
    assert st_on["timing_mode"] == "ptx" and st_on["sass_warp_insts"] is None     # still PTX timing otherwise
    assert st_on["timing_mode_reason"].endswith("integer division as ptxas's SASS (timing.sass_div))")
    assert "timing.sass_div" not in st_off["timing_mode_reason"]


@needs_tools
def test_the_issue_slots_of_divisions_bound_many_warps():
    """32 warps of divisions on one SM: each division takes its ~20-27 SASS issue slots on its sub-core, so
    the launch takes at least 8 warps x 8 divisions x ~20 slots per sub-core, where one PTX slot each gave ~8 x 8."""
    _, st_on = _run(DIVS, "divs", 1, threads=1024)
    _, st_off = _run(DIVS, "divs", 0, threads=1024)
    assert st_on["gpu_sim_cycle"] - st_off["gpu_sim_cycle"] > 8 * 8 * 15


@needs_tools
def test_kernels_without_integer_division_are_unchanged():
    on, st_on = _run(NODIV, "nodivs", 1, threads=256)
    off, st_off = _run(NODIV, "nodivs", 0, threads=256)
    np.testing.assert_array_equal(on, off)
    assert st_on["gpu_sim_cycle"] == st_off["gpu_sim_cycle"]
    assert st_on["stall_cycles"] == st_off["stall_cycles"]
    assert "timing.sass_div" not in st_on["timing_mode_reason"]


@needs_tools
def test_a_division_path_counts_its_imad_hi_and_guard_hops():
    """ptxas's div.s32: two IMAD.HI (half rate on the H200: 4 FMA-pipe cycles each, 9.3 cycles latency) and two
    compare -> guarded-instruction hops (~13 cycles) on its dependence chain (divmix.cu, calibration.md 5q)."""
    from pathlib import Path
    from engine.ptx import load as ptx_load
    program = ptx_load(Path(__file__).resolve().parent.parent / "validation" / "ptx" / "conv.sm90.ptx")
    costs = sass.costs_for(program)
    f = next(f for f in program.functions if f.name == "im2col_3x3")
    divs = [pc for pc in range(f.entry_pc, f.end_pc) if costs.costs["issue16"][pc] >= 16 * 20]
    assert len(divs) == 3                                           # idx / P, p / (H*W), hw / W
    for pc in divs:
        c = costs.classes[pc]
        assert c["imad_hi"] == 2 and c["sfu"] == 1 and c["conv"] == 2
        assert costs.costs["hi_hops"][pc] == 2 and costs.costs["pred_hops"][pc] == 2
        # the FMA pipe's work: IMADs (and VIADDs) at 2 cycles, IMAD.HIs at 4
        assert costs.costs["pipe16"][pc] == 16 * (2 * c.get("imad", 0) + 4 * c["imad_hi"])


@needs_tools
def test_measured_hop_latencies_lengthen_a_division_chain():
    _, base = _run(DIVS, "divs", 1)
    from engine.timing import TimingSim
    sim = TimingSim("h200", overrides=["gpu.num_sms=1", "sm.imad_hi_latency_cycles=9", "sm.sass_pred_guard_cycles=13"])
    out = sim.device.alloc((32,), np.int32)
    res = sim.launch(sim.device.load_ptx(DIVS).kernel("divs"), 1, 32, (out, 1_000_003))
    np.testing.assert_array_equal(sim.device.from_device(out), _reference(1_000_003, 32))
    # 8 dependent divisions, each with ~2 IMAD.HI (+5 cycles) and ~2 guard hops (+9) on its chain
    assert res.stats["gpu_sim_cycle"] - base["gpu_sim_cycle"] >= 8 * (2 * 5 + 2 * 9) * 0.7
    assert load_config("h200")["sm.imad_hi_latency_cycles"] == 0 and load_config("h200")["sm.sass_pred_guard_cycles"] == 0
    with pytest.raises(ConfigError, match="sm.sass_pred_guard_cycles"):
        load_config("h200", ["sm.sass_pred_guard_cycles=1000"])
