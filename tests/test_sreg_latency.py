"""A special-register read (S2R: %tid, %laneid, %smid, ...) takes sm.sreg_latency_cycles and its reader waits on the
short scoreboard, as measured on the H200 by benchmarks/hw/sreg.cu (docs/calibration.md 5w). The kernels are that
microbenchmark's own PTX: each of 256 rounds reads the clock, the source, adds it, reads the clock again, so the
kernel's clock readings are the model's latency and can be checked against the H200's (32 cycles per round for
%smid, 14 with an add in its place)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engine import sass
from engine.config import ConfigError, load_config
from engine.timing import TimingSim

PTX = Path(__file__).resolve().parents[1] / "benchmarks" / "hw" / "sreg.sm90.ptx"
ROUNDS = 256
needs_tools = pytest.mark.skipif(sass.find_tools() is None, reason=f"SASS tools: {sass.why_missing()}")


def _round(op: int, overrides: list[str] | None = None, threads: int = 128) -> tuple[float, dict, np.ndarray]:
    """sreg_lat<op>: (cycles per round from the kernel's own clock readings, warp 0; stalls per issue; out)"""
    sim = TimingSim("h200", overrides=overrides or [])
    mod = sim.device.load_ptx(PTX.read_text(), PTX.name)
    k = mod.kernel(f"_Z8sreg_latILi{op}EEviPj")
    sim.sass_mode(mod, k.name)
    buf = sim.device.to_device(np.zeros(2048, np.uint32))
    sim.flush()
    st = sim.launch(k, 1, threads, [np.int32(ROUNDS), buf]).stats
    out = sim.device.from_device(buf)
    return float(out[0]) / ROUNDS, st["stalls_per_issue"], out


def test_an_s2r_read_takes_the_measured_latency_and_is_a_short_scoreboard_wait():
    add, add_st, _ = _round(0)
    smid, smid_st, out = _round(1)
    assert add == 14.0                          # the H200: 14.00 (VIADD -> SEL -> IADD -> clock)
    assert smid == 14.0 - 4 + 22                # the H200: 32.00, the add's 4 cycles replaced by S2R's 22
    assert smid_st["short_scoreboard"] > 1.5 and add_st["short_scoreboard"] < 0.2, (smid_st, add_st)
    assert smid_st["wait"] < add_st["wait"], (smid_st, add_st)
    # what the kernel computes: acc = tid + 256 * smid (one CTA: SM 0 in the model)
    assert list(out[1024:1028]) == [0, 1, 2, 3]


def test_with_the_latency_off_an_s2r_read_is_the_misc_pipe_and_a_wait():
    smid, st, _ = _round(1, ["sm.sreg_latency_cycles=0"])
    assert smid == 14.0 and st["short_scoreboard"] < 0.2, st


def test_clock_reads_and_constant_loads_keep_their_own_latency():
    clock, _, _ = _round(4)
    ldconst, _, _ = _round(5)
    assert clock == 14.0                        # CS2R: fixed latency, not an S2R
    assert ldconst == _round(5, ["sm.sreg_latency_cycles=0"])[0] and ldconst > 30


@needs_tools
def test_the_sass_timing_counts_the_s2r_on_a_dependence_chain():
    sim = TimingSim("h200", overrides=["timing.sass=auto"])
    mod = sim.device.load_ptx(PTX.read_text(), PTX.name)
    k = mod.kernel("_Z8sreg_latILi2EEviPj")          # %warpid: S2R SR_VIRTID, SHF, SGXT
    assert sim.sass_mode(mod, k.name)["mode"] == "sass"
    hops = mod.sass.costs["sreg_hops"]
    movs = PTX.read_text().count("%smid;") + PTX.read_text().count("%warpid;")
    # every S2R read is on its line's chain once (the asm block's other instructions share its line, and its chain)
    assert hops.max() == 1 and int((hops > 0).sum()) >= movs == 34
    buf = sim.device.to_device(np.zeros(2048, np.uint32))
    sim.flush()
    st = sim.launch(k, 1, 128, [np.int32(ROUNDS), buf]).stats
    assert st["stalls_per_issue"]["short_scoreboard"] > 1.0, st["stalls_per_issue"]


def test_the_latency_is_checked_when_the_configuration_is_loaded():
    assert load_config("h200")["sm.sreg_latency_cycles"] == 22
    assert load_config("a100")["sm.sreg_latency_cycles"] == 0
    with pytest.raises(ConfigError, match="sm.sreg_latency_cycles"):
        load_config("h200", ["sm.sreg_latency_cycles=1000"])


def test_only_s2r_reads_go_to_the_misc_pipe_and_other_moves_keep_their_type_s_pipe():
    ptx = """
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<4>; .reg .f32 %f<3>; .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  mov.f32 %f1, 0f3F800000;
  mov.f32 %f2, %f1;
  mov.u32 %r2, %ctaid.x;
  add.s32 %r3, %r1, %r2;
  cvt.rn.f32.s32 %f1, %r3;
  add.f32 %f2, %f2, %f1;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd2, %rd1, %rd2;
  st.global.f32 [%rd2], %f2;
  ret;
}
"""
    sim = TimingSim("h200")
    k = sim.device.load_ptx(ptx, "moves.ptx").kernel("k")
    buf = sim.device.to_device(np.zeros(32, np.float32))
    units = sim.launch(k, 1, 32, [buf]).stats["unit_insts"]
    # %tid (S2R) on misc; %ctaid (S2UR), add.s32, cvt, mul.wide, add.s64 on int; both mov.f32 and add.f32 on fp32
    assert (units["misc"], units["int"], units["fp32"]) == (1, 5, 3), units
    assert list(sim.device.from_device(buf)) == [1.0 + t for t in range(32)]
