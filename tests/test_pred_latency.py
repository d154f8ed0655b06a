"""sm.pred_use_latency_cycles (engine/csrc/tsm.c, calibration.md 5m): a predicate a compare writes is ready for
an instruction that writes no predicate (a guard, selp's operand) that long after the compare issues; predicate
logic reading it waits the pipe's latency only. Checked on one warp's dependent chains, timed as written."""
from __future__ import annotations

import numpy as np
import pytest

from engine.config import ConfigError, load_config
from engine.timing import TimingSim

HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"
N = 32


def _kernel(use: str) -> str:
    """N steps of a dependent chain: setp then either selp (reads the predicate as an operand) or and.pred
    (predicate logic) followed by a selp on a constant-ready predicate."""
    lines = [".visible .entry k(.param .u64 p_out)", "{", "  .reg .pred %p<80>;", "  .reg .f32 %f<80>;",
             "  .reg .b64 %rd;", "  ld.param.u64 %rd, [p_out];", "  mov.f32 %f0, 0f3F800000;",
             "  setp.gt.f32 %p70, %f0, 0f00000000;"]
    for i in range(N):
        lines.append(f"  setp.gt.f32 %p{i}, %f{i}, 0f40000000;")
        if use == "select":
            lines.append(f"  selp.f32 %f{i + 1}, 0f3F800000, %f{i}, %p{i};")
        else:                       # the chain goes through predicate logic, then a register
            lines.append(f"  and.pred %p{i + 40}, %p{i}, %p70;")
            lines.append(f"  add.f32 %f{i + 1}, %f{i}, 0f3F800000;")
    lines += [f"  selp.f32 %f{N + 1}, %f{N}, 0f00000000, %p{N - 1 + (0 if use == 'select' else 40)};",
              f"  st.global.f32 [%rd], %f{N + 1};", "  ret;", "}"]
    return HEAD + "\n".join(lines) + "\n"


def _cycles(use: str, latency: int) -> tuple[int, float]:
    sim = TimingSim("h200", overrides=["timing.sass=off", f"sm.pred_use_latency_cycles={latency}"])
    k = sim.device.load_ptx(_kernel(use)).kernel("k")
    out = sim.device.alloc(1, np.float32)
    r = sim.launch(k, 1, 32, [out])
    return r.stats["gpu_sim_cycle"], float(sim.device.from_device(out)[0])


def test_a_compare_feeding_a_select_waits_the_predicate_latency():
    base, v0 = _cycles("select", 0)
    slow, v1 = _cycles("select", 13)
    assert v0 == v1 == 0.0                      # (every compare false: the last selp picks 0; the same either way)
    fp32 = load_config("h200")["pipes.fp32.latency_cycles"]
    # each of the N steps waits 13 instead of the setp's pipe latency
    assert slow - base == pytest.approx(N * (13 - fp32), abs=13)


def test_predicate_logic_reading_it_waits_the_pipe_only():
    base, v0 = _cycles("logic", 0)
    slow, v1 = _cycles("logic", 13)
    assert v0 == v1 == N + 1.0
    assert slow - base <= 13                    # only the final selp's guard-like read


def test_the_setting_is_checked():
    assert load_config("h200")["sm.pred_use_latency_cycles"] == 0
    with pytest.raises(ConfigError, match="sm.pred_use_latency_cycles"):
        load_config("h200", ["sm.pred_use_latency_cycles=101"])
