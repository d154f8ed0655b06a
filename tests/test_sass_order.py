"""timing.sass_order (engine/ptx/schedule.py, docs/sass.md "SASS order"): a basic block's PTX issued with its
global loads where ptxas put them (1) or wholly in ptxas's order (2) instead of the front end's latency-first
list schedule. The scheduler is checked on a hand-made block with given SASS positions (no tools needed);
the timing effect on the Triton softmax launch whose 8 row loads ptxas spreads over the kernel."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engine import sass
from engine.config import ConfigError, load_config
from engine.device import Device
from engine.ptx import load as ptx_load

ROOT = Path(__file__).resolve().parent.parent
ATTENTION = ROOT / "workloads" / "examples" / "example_attention_b1_t128_d128_fp16.tar.xz"

needs_tools = pytest.mark.skipif(sass.find_tools() is None, reason=f"SASS tools: {sass.why_missing()}")

# two rows: load, scale, store; ptxas (as in the Triton softmax kernel, to save registers) loads row 1 only
# after row 0's multiply
PTX = """.version 8.0
.target sm_90
.address_size 64
.visible .entry rows(.param .u64 p_in, .param .u64 p_out)
{
	.reg .b32 %r<4>;
	.reg .f32 %f<6>;
	.reg .b64 %rd<8>;
	ld.param.u64 %rd1, [p_in];
	ld.param.u64 %rd2, [p_out];
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd3, %r1, 4;
	add.s64 %rd4, %rd1, %rd3;
	add.s64 %rd5, %rd2, %rd3;
	ld.global.f32 %f1, [%rd4];
	ld.global.f32 %f2, [%rd4+128];
	mul.f32 %f3, %f1, 0f40000000;
	mul.f32 %f4, %f2, 0f40400000;
	add.f32 %f5, %f3, 0f3F800000;
	st.global.f32 [%rd5], %f3;
	st.global.f32 [%rd5+128], %f4;
	st.global.f32 [%rd5+256], %f5;
	ret;
}
"""


def _line(text: str, needle: str) -> int:
    for i, s in enumerate(text.splitlines(), 1):
        if needle in s:
            return i
    raise AssertionError(needle)


def _sass_keys() -> dict[int, int]:
    """PTX line -> SASS position as ptxas might order it: row 0's load and multiply before row 1's load."""
    order = ["ld.param.u64 %rd1", "ld.param.u64 %rd2", "mov.u32 %r1", "mul.wide.u32", "add.s64 %rd4",
             "add.s64 %rd5", "ld.global.f32 %f1", "mul.f32 %f3", "ld.global.f32 %f2", "mul.f32 %f4",
             "add.f32 %f5", "st.global.f32 [%rd5]", "st.global.f32 [%rd5+128]", "st.global.f32 [%rd5+256]", "ret;"]
    return {_line(PTX, s): k for k, s in enumerate(order)}


def _order(program) -> list[str]:
    return [t.split()[0] + " " + t.split()[1] for t in program.pc_text if t.startswith(("ld.global", "mul.f32"))]


def test_latency_order_hoists_both_loads():
    assert _order(ptx_load(PTX)) == ["ld.global.f32 %f1,", "ld.global.f32 %f2,", "mul.f32 %f3,", "mul.f32 %f4,"]


def test_sass_loads_keep_the_second_load_after_the_first_rows_multiply():
    p = ptx_load(PTX, sass_keys=_sass_keys())
    assert _order(p) == ["ld.global.f32 %f1,", "mul.f32 %f3,", "ld.global.f32 %f2,", "mul.f32 %f4,"]
    # every instruction ptxas put before the load is placed before it, the rest by latency
    texts = p.pc_text
    assert texts.index(next(t for t in texts if t.startswith("ld.global.f32 %f2"))) > \
        texts.index(next(t for t in texts if t.startswith("add.s64 %rd5")))


def test_sass_all_is_ptxas_order_and_folded_instructions_go_before_their_user():
    keys = _sass_keys()
    del keys[_line(PTX, "mul.wide.u32")]          # folded by ptxas: placed just before add.s64 %rd4, its user
    p = ptx_load(PTX, sass_keys=keys, sass_all=True)
    assert [t.split(",")[0].rstrip(";") for t in p.pc_text] == [
        "ld.param.u64 %rd1", "ld.param.u64 %rd2", "mov.u32 %r1", "mul.wide.u32 %rd3", "add.s64 %rd4",
        "add.s64 %rd5", "ld.global.f32 %f1", "mul.f32 %f3", "ld.global.f32 %f2", "mul.f32 %f4",
        "add.f32 %f5", "st.global.f32 [%rd5]", "st.global.f32 [%rd5+128]", "st.global.f32 [%rd5+256]", "ret"]


def test_a_line_table_against_the_dependencies_cannot_reorder_them():
    """SASS positions that put a user before its load (an imperfect line table) never break a dependency,
    and the user does not hold its own load back (its key is raised to the load's): the order is the
    one of the correct table."""
    keys = _sass_keys()
    keys[_line(PTX, "mul.f32 %f4")] = 0           # row 1's multiply 'first' in SASS (else the independent
                                                  # add.f32 %f5 would pass the load it holds back)
    for sass_all in (False, True):
        assert ptx_load(PTX, sass_keys=keys, sass_all=sass_all).pc_text == \
            ptx_load(PTX, sass_keys=_sass_keys(), sass_all=sass_all).pc_text


def test_line_order_takes_each_lines_last_sass_instruction_outside_loops():
    from engine.sass import SassFunction, SassInst, line_order
    def i(op, line, depth=0):
        return SassInst(op, "", line, False, depth=depth)
    f = SassFunction("k", [i("LEA", 10), i("LDG", 11), i("LDG", 12),
                           i("STS", 10),                                  # line 10's store, after both loads
                           i("FFMA", 20, 1), i("FFMA", 20, 1), i("IADD3", 21, 1), i("FADD", 22), i("FADD", 21),
                           i("EXIT", 0)])
    # 10: its STS (3), not its address (0); 20 and 21 have copies in a loop: no key
    assert line_order({"k": f}) == {10: 3, 11: 1, 12: 2, 22: 7}


@pytest.mark.parametrize("sass_all", [False, True])
def test_every_order_gives_the_same_results(sass_all):
    x = np.arange(96, dtype=np.float32) * 0.5 - 3.0
    outs = []
    for keys in (None, _sass_keys()):
        dev = Device()
        m = dev.load_ptx(PTX)
        if keys is not None:
            m.reschedule(keys, sass_all)
            assert m.order == ("sass" if sass_all else "sass loads")
        a, b = dev.to_device(x), dev.alloc(96, np.float32)
        dev.launch(m.kernel("rows"), 1, 32, [a, b])
        outs.append(dev.from_device(b))
    np.testing.assert_array_equal(outs[0], outs[1])
    np.testing.assert_array_equal(outs[0][:32], x[:32] * 2.0)
    np.testing.assert_array_equal(outs[0][32:64], x[32:64] * 3.0)
    np.testing.assert_array_equal(outs[0][64:], x[:32] * 2.0 + 1.0)


def test_a_module_loaded_as_written_is_not_reordered():
    from engine.errors import SimError
    m = Device().load_ptx(PTX, schedule=False)
    with pytest.raises(SimError, match=r"<ptx>: loaded with schedule=False \(nvcc's order\): not reordered"):
        m.reschedule(_sass_keys())


def test_timing_sass_order_is_a_checked_setting():
    assert load_config("a100")["timing.sass_order"] == 0
    assert load_config("h200")["timing.sass_order"] == 1
    assert load_config("h200", ["timing.sass_order=2"])["timing.sass_order"] == 2
    with pytest.raises(ConfigError, match="timing.sass_order"):
        load_config("h200", ["timing.sass_order=3"])


def _softmax_launch(order: int) -> dict:
    """Launch 2 of the attention example (Triton's softmax over 256 rows of 128 halves, 8 CTAs of 2 warps),
    timed with the h200 preset and timing.sass_order = order: the launch's stats."""
    from engine.timing import TimingSim
    from engine.workload import open_bundle
    from engine.workload.replay import run_workload
    with open_bundle(ATTENTION) as b:
        res = run_workload(b, sim=TimingSim("h200", overrides=[f"timing.sass_order={order}"]), timed={2})
    assert res.outputs_pass
    return res.launches[2].stats


@needs_tools
def test_softmax_rows_wait_for_their_own_loads_in_sass_order():
    """ptxas keeps 48 registers by loading the 8 row vectors one or two at a time (its SASS reloads the
    same registers once the previous row is reduced): each row's DRAM round trip is exposed, as ncu's
    2.73 long_scoreboard cycles per issue show. The latency order issues all 8 loads at once."""
    lat, held = _softmax_launch(0), _softmax_launch(1)
    assert held["timing_mode_reason"] == ("timing.sass = regs (ptxas's registers per thread; "
                                          "global loads where ptxas put them)")
    assert lat["timing_mode_reason"] == "timing.sass = regs (ptxas's registers per thread)"
    assert lat["warp_insts"] == held["warp_insts"]
    assert held["gpu_sim_cycle"] > 1.6 * lat["gpu_sim_cycle"]       # H200: 14,028 cycles; latency order 6,597
    ls = lambda st: st["stalls_per_issue"]["long_scoreboard"]        # noqa: E731
    assert ls(held) > 3 * ls(lat)


@needs_tools
def test_a_simulator_in_another_order_reorders_the_module_back():
    from engine.timing import TimingSim
    dev = Device(num_sms=132)
    m = dev.load_ptx(PTX)
    x = np.arange(96, dtype=np.float32)
    a, b = dev.to_device(x), dev.alloc(96, np.float32)
    cycles = {}
    for order in (0, 2, 0, 1):
        sim = TimingSim("h200", overrides=[f"timing.sass_order={order}"], device=dev)
        r = sim.launch(m.kernel("rows"), 1, 32, [a, b])
        assert m.order == ("latency", "sass loads", "sass")[order]
        cycles.setdefault(order, []).append(r.stats["gpu_sim_cycle"])
        np.testing.assert_array_equal(dev.from_device(b)[:32], x[:32] * 2.0)
    assert cycles[0][0] == cycles[0][1]
