"""Loops laid out as ptxas's SASS (engine/sass/unroll.py, timing.sass_unroll): the plan read from the SASS,
results unchanged for every trip count, the unrolled body in the SASS's order, and the fallbacks."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engine import sass
from engine.ptx import load as ptx_load

ROOT = Path(__file__).resolve().parent.parent
NAIVE = ROOT / "validation" / "ptx" / "sgemm_naive.sm90.ptx"
needs_tools = pytest.mark.skipif(sass.find_tools() is None, reason=f"SASS tools: {sass.why_missing()}")

# out[t] = sum over i < n of a[256 i + t] * a[256 i + 128 + t]: a loop counting up to a register bound
DOT = """.version 8.0
.target sm_90
.address_size 64

.visible .entry dot(
	.param .u64 dot_param_0,
	.param .u64 dot_param_1,
	.param .u32 dot_param_2
)
{
	.reg .pred 	%p<3>;
	.reg .b32 	%r<8>;
	.reg .f32 	%f<8>;
	.reg .b64 	%rd<8>;

	ld.param.u64 	%rd1, [dot_param_0];
	ld.param.u64 	%rd2, [dot_param_1];
	ld.param.u32 	%r1, [dot_param_2];
	cvta.to.global.u64 	%rd1, %rd1;
	cvta.to.global.u64 	%rd2, %rd2;
	mov.u32 	%r2, %tid.x;
	mul.wide.u32 	%rd3, %r2, 4;
	add.s64 	%rd4, %rd1, %rd3;
	mov.f32 	%f1, 0f00000000;
	mov.u32 	%r3, 0;
	setp.eq.s32 	%p1, %r1, 0;
	@%p1 bra 	$L_done;
$L_loop:
	ld.global.nc.f32 	%f2, [%rd4];
	ld.global.nc.f32 	%f3, [%rd4+512];
	fma.rn.f32 	%f1, %f2, %f3, %f1;
	add.s64 	%rd4, %rd4, 1024;
	add.s32 	%r3, %r3, 1;
	setp.ne.s32 	%p2, %r3, %r1;
	@%p2 bra 	$L_loop;
$L_done:
	add.s64 	%rd5, %rd2, %rd3;
	st.global.f32 	[%rd5], %f1;
	ret;
}
"""
# the same loop with the test written `!(counter == bound)`
DOT_EQ = DOT.replace("setp.ne.s32 \t%p2, %r3, %r1;\n\t@%p2 bra", "setp.eq.s32 \t%p2, %r3, %r1;\n\t@!%p2 bra")
# a loop the guard cannot express: counter < bound
DOT_LT = DOT.replace("setp.ne.s32 \t%p2, %r3, %r1;", "setp.lt.s32 \t%p2, %r3, %r1;")


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SIMTSCOPE_CACHE_DIR", str(tmp_path / "cache"))


def _dot(src: str, n: int, unroll: int):
    from engine.timing import TimingSim
    sim = TimingSim("h200", overrides=[f"timing.sass_unroll={unroll}", "gpu.num_sms=1", "timing.sass=regs"])
    dev = sim.device
    a = np.random.default_rng(n).standard_normal(256 * max(n, 1)).astype(np.float32)
    da, out = dev.to_device(a), dev.alloc((128,), np.float32)
    res = sim.launch(dev.load_ptx(src).kernel("dot"), 1, 128, (da, out, n))
    ref = np.zeros(128, np.float32)
    for i in range(n):
        ref = (a[256 * i:256 * i + 128].astype(np.float64) * a[256 * i + 128:256 * i + 256] + ref).astype(np.float32)
    return dev.from_device(out), ref, res.stats


@needs_tools
def test_the_plan_takes_ptxas_factor_and_the_counted_loop():
    src = NAIVE.read_text()
    plans, skipped = sass.unroll.plan(ptx_load(src), sass.analyse(src))
    # sgemm_naive's PTX K loop (4 steps, 8 loads) is 16 steps / 32 LDGs in one SASS block: 4 copies
    assert [(p.line, p.factor, p.step, p.bound, p.after_add) for p in plans] == [(73, 4, -4, ("imm", 0), True)]
    assert skipped == []
    plans, _ = sass.unroll.plan(ptx_load(DOT), sass.analyse(DOT))
    assert [(p.factor, p.step, p.bound[0], p.after_add) for p in plans] == [(4, 1, "reg", True)]


@needs_tools
def test_results_are_unchanged_for_every_trip_count():
    for n in (0, 1, 2, 3, 4, 5, 7, 8, 9, 17):
        on, ref, st_on = _dot(DOT, n, 1)
        off, _, st_off = _dot(DOT, n, 0)
        assert np.array_equal(on, off), n                  # the same operations in the same order per lane
        np.testing.assert_allclose(on, ref, rtol=1e-5, atol=1e-5)
        assert st_on["sass_unrolled_loops"] == ["dot line 29 x4"]
        assert "loops unrolled as ptxas's SASS (timing.sass_unroll): dot line 29 x4" in st_on["timing_mode_reason"]
        assert "sass_unrolled_loops" not in st_off


# the same loop counting up to an immediate (9 iterations whatever n > 0 says)
DOT_IMM = DOT.replace("setp.ne.s32 \t%p2, %r3, %r1;", "setp.ne.s32 \t%p2, %r3, 9;")


@needs_tools
@pytest.mark.parametrize("src,bound", [(DOT_EQ, "reg"), (DOT_IMM, "imm")], ids=["eq_negated", "imm_bound"])
def test_other_counted_shapes_are_guarded_too(dev, src, bound):
    """`setp.eq` + `@!p bra`, and an immediate bound counted up to (`sub d, 9, r`); ptxas keeps the first
    rolled and unrolls the second completely, so DOT's SASS (the same lines) stands in for theirs."""
    assert src != DOT
    res = sass.unroll.unroll(ptx_load(src), sass.analyse(DOT))
    assert [(p.factor, p.step, p.bound[0]) for p in res.loops] == [(4, 1, bound)]
    for n in (1, 3, 4, 6, 9):
        a = np.random.default_rng(n).standard_normal(256 * 9).astype(np.float32)
        outs = []
        for unrolled in (False, True):
            m = dev.load_ptx(src)
            if unrolled:
                m.replace_program(res.program)
            da, out = dev.to_device(a), dev.alloc((128,), np.float32)
            dev.launch(m.kernel("dot"), 1, 128, (da, out, n))
            outs.append(dev.from_device(out))
        assert np.array_equal(outs[0], outs[1]), n


@needs_tools
def test_the_unrolled_body_is_issued_in_the_sass_order():
    src = NAIVE.read_text()
    prog = ptx_load(src)
    res = sass.unroll.unroll(prog, sass.analyse(src))
    new, origin = res.program, res.origin
    assert len(new.insts) == len(origin) and len(new.pc_text) == len(origin)
    from engine._ffi import E
    bra = [int(o) == E.op["bra"] for o in new.insts["op"]]
    ops = [str(o) for o in new.pc_op]
    # the UNR block: after the guard branch `@!pg bra ORIG`, up to the next branch
    first_guard = origin.index(-1)
    start = bra.index(True, first_guard) + 1
    end = bra.index(True, start)
    body = [ops[i] for i in range(start, end)]
    assert body.count("ld.global.nc.f32") == 32 and body.count("fma.rn.f32") == 16
    # ptxas's SASS (validation/sass/sgemm_naive.sm90.ptxas.sass) issues 13 LDGs before the first FFMA, then
    # three more batches between FFMAs: the PTX as list-scheduled issues all 32 loads first
    first_fma = body.index("fma.rn.f32")
    assert body[:first_fma].count("ld.global.nc.f32") == 13
    last_ld = len(body) - 1 - body[::-1].index("ld.global.nc.f32")
    assert body[first_fma:last_ld].count("fma.rn.f32") == 8
    # the loop body: 4 copies + the remainder loop; its back edge: the guard's, the two UNR exits, the remainder's
    counts = np.bincount([o for o in origin if o >= 0], minlength=len(prog.insts))
    assert (counts == 5).sum() == 21 and (counts == 4).sum() == 1 and set(counts.tolist()) == {1, 4, 5}
    assert origin.count(-1) == 4                      # two guards of two instructions


@needs_tools
def test_sgemm_naive_keeps_its_results_and_gains_its_loads_in_flight():
    from engine.cases import load_suite
    from engine.timing import TimingSim
    case = load_suite()["sgemm_naive_256"]
    runs = {u: TimingSim("h200", overrides=[f"timing.sass_unroll={u}"]).run_case(case) for u in (0, 1)}
    assert runs[0].passed and runs[1].passed
    on, off = runs[1].timing.stats, runs[0].timing.stats
    assert on["sass_unrolled_loops"] == ["sgemm_naive line 73 x4"]
    # three memory round trips per 16 K steps instead of four (the H200: 39,329 cycles)
    assert on["gpu_sim_cycle"] < 0.8 * off["gpu_sim_cycle"]


@needs_tools
def test_loops_the_guard_cannot_express_are_left_alone():
    plans, skipped = sass.unroll.plan(ptx_load(DOT_LT), sass.analyse(DOT_LT))
    assert plans == [] and skipped == ["dot line 29: its exit test is not `counter != bound`"]
    on, ref, st = _dot(DOT_LT, 5, 1)
    np.testing.assert_allclose(on, ref, rtol=1e-5, atol=1e-5)
    assert "sass_unrolled_loops" not in st


def test_without_ptxas_nothing_is_unrolled(monkeypatch):
    from engine.sass import tools
    monkeypatch.setattr(tools, "_found", lambda: (None, "ptxas not found (pip install 'simtscope[sass]')"))
    on, ref, st = _dot(DOT, 6, 1)
    np.testing.assert_allclose(on, ref, rtol=1e-5, atol=1e-5)
    assert "ptxas not found" in st["timing_mode_reason"] and "sass_unrolled_loops" not in st


@needs_tools
def test_the_copies_fresh_registers_are_packed_again_with_the_same_results(monkeypatch):
    # every unrolled copy's definitions get fresh slots above the module's top; packing them again by liveness
    # keeps the warps' register files small (hgemm_wmma_simple: 588 slots, 157 KB per warp, before)
    monkeypatch.setenv("SIMTSCOPE_IR_CACHE", "0")        # (each run lowers: the second one without the packing)
    from engine.cases import load_suite
    from engine.timing import TimingSim, _lower_for_sass
    src = (ROOT / "validation" / "ptx" / "hgemm_wmma.sm90.ptx").read_text()
    before = {f.name: f.nregs for f in ptx_load(src).functions}
    low = _lower_for_sass(src, "hgemm_wmma.sm90.ptx", "sass loads", 1)
    assert [u[0] for u in low.state["unrolled"]] == ["hgemm_wmma_simple"] * 2
    after = {f.name: f.nregs for f in low.program.functions}
    assert after["hgemm_wmma_tiled"] == before["hgemm_wmma_tiled"]           # not unrolled: untouched
    assert before["hgemm_wmma_simple"] < after["hgemm_wmma_simple"] <= 2 * before["hgemm_wmma_simple"]

    case = load_suite()["sgemm_naive_256"]
    packed = TimingSim("h200").run_case(case)
    kept = []
    monkeypatch.setattr(sass.unroll, "repack", lambda program, funcs: kept.extend(f.nregs for f in program.functions))
    unpacked = TimingSim("h200").run_case(case)
    assert kept == [86]                                  # this run's program kept the fresh slots (37 packed)
    assert packed.passed and unpacked.passed
    assert packed.timing.stats["sass_unrolled_loops"] == ["sgemm_naive line 73 x4"]
    drop = ("wall_s", "sim_rate")
    assert {k: v for k, v in packed.timing.stats.items() if k not in drop} == \
           {k: v for k, v in unpacked.timing.stats.items() if k not in drop}
