"""SASS-aware timing (engine/sass, docs/sass.md): the PTX -> SASS mapping checked against the SASS files of
the validation suite (validation/sass: offline ptxas of the same PTX), ptxas's register counts, the
per-execution cost of unrolled loops, the disk cache, and the pure-PTX mode when the tools are missing."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from engine import sass
from engine.config import ConfigError, load_config
from engine.ptx import load as ptx_load

ROOT = Path(__file__).resolve().parent.parent
VAL = ROOT / "validation"

needs_tools = pytest.mark.skipif(sass.find_tools() is None, reason=f"SASS tools: {sass.why_missing()}")


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SIMTSCOPE_CACHE_DIR", str(tmp_path / "cache"))


def reference_counts(module: str) -> dict[str, int]:
    """Instructions per function in validation/sass/MODULE.sm90.ptxas.sass (cuobjdump's listing)."""
    counts, cur = {}, None
    for line in (VAL / "sass" / f"{module}.sm90.ptxas.sass").read_text().splitlines():
        m = re.match(r"\s*Function : (\S+)", line)
        if m:
            cur = m.group(1)
            counts[cur] = 0
        elif cur and re.match(r"\s*/\*[0-9a-f]{4}\*/\s+\S", line):
            counts[cur] += 1
    return counts


def reference_regs(module: str) -> dict[str, int]:
    regs, cur = {}, None
    for line in (VAL / "sass" / f"{module}.sm90.ptxas.log").read_text().splitlines():
        m = re.search(r"Compiling entry function '(\w+)'", line)
        if m:
            cur = m.group(1)
        m = re.search(r"Used (\d+) registers", line)
        if m and cur:
            regs[cur] = int(m.group(1))
    return regs


@needs_tools
@pytest.mark.parametrize("module", ["conv", "sgemm_regblock", "norm", "hgemm_wmma"])
def test_every_sass_instruction_is_mapped_and_counts_match_ptxas(module):
    program = ptx_load(VAL / "ptx" / f"{module}.sm90.ptx")
    funcs = sass.analyse(program.source)
    ref = reference_counts(module)
    assert set(ref) <= set(funcs)
    costs = sass.costs_for(program)
    for name, n in ref.items():
        f = funcs[name]
        assert f.total == n, f"{name}: {f.total} SASS instructions, ptxas listing has {n}"
        k = costs.kernels[name]
        assert k.mapped == k.sass_insts == f.total - f.padding          # every executable one has a PTX home
        pf = program.kernels[name]
        assert costs.static[pf.entry_pc:pf.end_pc].sum() == pytest.approx(k.sass_insts)
        assert all(si.line > 0 for si in f.insts)


@needs_tools
@pytest.mark.parametrize("module", ["conv", "sgemm_regblock", "norm", "sgemm_tiled", "vector"])
def test_register_counts_are_ptxas_v(module):
    program = ptx_load(VAL / "ptx" / f"{module}.sm90.ptx")
    costs = sass.costs_for(program)
    for name, regs in reference_regs(module).items():
        assert costs.regs[program.kernels[name].index] == regs, name
        assert costs.kernels[name].registers == regs


def _pc_at(program, kernel, text):
    f = program.kernels[kernel]
    lines = program.source.splitlines()
    for pc in range(f.entry_pc, f.end_pc):
        if lines[int(program.insts["line"][pc]) - 1].strip().startswith(text):
            return pc
    raise AssertionError(f"no '{text}' in {kernel}")


@needs_tools
def test_expansions_and_folded_instructions():
    program = ptx_load(VAL / "ptx" / "conv.sm90.ptx")
    costs = sass.costs_for(program)
    div = _pc_at(program, "im2col_3x3", "div.s32")
    # a 32-bit signed division is a reciprocal-based sequence: MUFU.RCP, conversions, integer multiply-adds
    assert costs.costs["issue16"][div] >= 16 * 10
    assert costs.classes[div].get("sfu", 0) >= 1 and costs.classes[div].get("conv", 0) >= 1
    assert costs.classes[div].get("imad", 0) >= 3
    # parameter loads become constant-bank operands of the instructions that use them
    ldp = _pc_at(program, "im2col_3x3", "ld.param.u32")
    assert costs.costs["issue16"][ldp] == 0 and costs.costs["known"][ldp] == 1


@needs_tools
def test_an_unrolled_loop_costs_one_copy_per_execution():
    """softmax_warp's 4x-unrolled max loop: ptxas unrolls it 4x again and adds 2x and 1x remainders, so
    each load's line has 7 LDGs in the code; one execution of the PTX load is one LDG."""
    program = ptx_load(VAL / "ptx" / "norm.sm90.ptx")
    costs = sass.costs_for(program)
    pc = _pc_at(program, "softmax_warp", "ld.global.nc.f32 \t%f22")
    assert costs.static[pc] == 7
    assert costs.costs["issue16"][pc] == 16
    assert costs.classes[pc] == {"mem": 1}


@needs_tools
def test_results_are_cached_by_ptx_and_tools(monkeypatch, tmp_path):
    text = (VAL / "ptx" / "vector.sm90.ptx").read_text()
    first = sass.analyse(text)
    assert list((tmp_path / "cache" / "sass").glob("*.json"))

    def no_compile(*a, **k):
        raise AssertionError("compiled again")
    monkeypatch.setattr(sass, "compile_ptx", no_compile)
    again = sass.analyse(text)
    assert {n: [(i.opcode, i.line, i.block) for i in f.insts] for n, f in again.items()} == \
           {n: [(i.opcode, i.line, i.block) for i in f.insts] for n, f in first.items()}
    with pytest.raises(AssertionError, match="compiled again"):
        sass.analyse(text + "\n// another module\n")


@needs_tools
def test_ptxas_errors_are_reported():
    with pytest.raises(sass.SassError, match=r"ptxas failed: .*line 3"):
        sass.analyse(".version 8.0\n.target sm_90\nthis is not ptx\n")


def _run(case_name, overrides=()):
    from engine.cases import load_suite
    from engine.timing import TimingSim
    sim = TimingSim("h200", overrides=list(overrides))
    run = sim.run_case(load_suite()[case_name])
    assert run.passed
    return run.timing.stats


@needs_tools
def test_sass_mode_in_a_timing_run():
    on = _run("im2col_3x3_n1", ["timing.sass=auto"])
    off = _run("im2col_3x3_n1", ["timing.sass=off"])
    assert on["timing_mode"] == "sass" and off["timing_mode"] == "ptx"
    assert off["timing_mode_reason"] == "timing.sass = off"
    assert on["timing_mode_reason"] == "global loads where ptxas put them"     # the h200 preset's sass_order 1
    assert on["warp_insts"] == off["warp_insts"]                  # the same PTX executed
    # the SASS warp instructions the run stands for: im2col's 64-bit and division index arithmetic doubles
    # them; ncu counted 7,803,648 on the H200 (validation/h200_results.json)
    assert on["sass_warp_insts"] == pytest.approx(7_803_648, rel=0.02)
    assert off["sass_warp_insts"] is None
    assert on["regs_per_thread"] == reference_regs("conv")["im2col_3x3"]
    assert on["gpu_sim_cycle"] > off["gpu_sim_cycle"]            # twice the issue slots take longer
    from engine.timing import format_stats
    assert (f"timing_mode = sass  (SASS warp instructions = {on['sass_warp_insts']:.0f}; global loads where ptxas "
            "put them)") in format_stats(on).splitlines()
    assert "timing_mode = ptx  (timing.sass = off)" in format_stats(off).splitlines()


@needs_tools
def test_regs_mode_takes_ptxas_registers_and_times_the_ptx():
    """timing.sass = regs: occupancy from ptxas's count, issue costs of the PTX as written."""
    regs = _run("hgemm_wmma_simple_512", ["timing.sass=regs", "timing.sass_unroll=0"])   # (unrolled loops: test_sass_unroll.py)
    off = _run("hgemm_wmma_simple_512", ["timing.sass=off"])
    ptxas = reference_regs("hgemm_wmma")["hgemm_wmma_simple"]      # 32, as ncu's launch__registers_per_thread
    assert regs["regs_per_thread"] == ptxas and regs["regs_source"] == "ptxas"
    assert off["regs_per_thread"] > ptxas and off["regs_source"] == "estimate"   # the front end's estimate: 43
    assert regs["occupancy_warps_per_sm"] == 64 and off["occupancy_warps_per_sm"] < 64
    assert regs["timing_mode"] == "ptx" and regs["sass_warp_insts"] is None
    assert regs["timing_mode_reason"] == ("timing.sass = regs (ptxas's registers per thread; "
                                          "global loads where ptxas put them)")          # the h200 preset's sass_order 1
    # 256 CTAs of 4 warps fit the SMs at either occupancy: the same cycles, instruction by instruction
    assert regs["gpu_sim_cycle"] == off["gpu_sim_cycle"] and regs["warp_insts"] == off["warp_insts"]


def test_missing_tools_give_pure_ptx_mode_with_the_reason(monkeypatch):
    from engine.sass import tools
    monkeypatch.setattr(tools, "_found", lambda: (None, "ptxas not found (pip install 'simtscope[sass]')"))
    with pytest.raises(sass.SassUnavailable, match="ptxas not found"):
        sass.analyse(".version 8.0\n")
    st = _run("saxpy_1M", ["timing.sass=auto"])
    assert st["timing_mode"] == "ptx"
    assert "ptxas not found" in st["timing_mode_reason"]
    assert st["sass_warp_insts"] is None


def test_timing_sass_is_a_checked_choice():
    assert load_config("h200")["timing.sass"] == "regs"         # ptxas's registers; SASS issue costs opt-in: docs/sass.md
    assert load_config("a100")["timing.sass"] == "off"          # ptxas -arch=sm_90a says nothing about other GPUs
    assert load_config("h200", ["timing.sass=auto"])["timing.sass"] == "auto"
    with pytest.raises(ConfigError, match=r"timing.sass = 'on' is not one of auto, off"):
        load_config("h200", ["timing.sass=on"])


def test_the_engine_refuses_costs_of_the_wrong_shape(dev):
    from engine._ffi import ffi, lib
    m = dev.load_ptx(VAL / "ptx" / "vector.sm90.ptx")
    n = len(m.program.insts)
    costs = np.zeros(n, sass.COST_DT)
    regs = np.zeros(len(m.program.funcs), np.uint32)
    c = ffi.from_buffer("gs_sass_cost[]", costs)
    r = ffi.from_buffer("uint32_t[]", regs)
    assert lib.gs_program_set_sass(m._ptr, c, n - 1, r, len(regs)) == -1
    assert lib.gs_program_set_sass(m._ptr, c, n, r, len(regs) + 1) == -1
    costs["unit"][0] = 200
    assert lib.gs_program_set_sass(m._ptr, c, n, r, len(regs)) == -1
    costs["unit"][0] = 0
    assert lib.gs_program_set_sass(m._ptr, c, n, r, len(regs)) == 0


EXAMPLE_CNN = ROOT / "workloads" / "examples" / "example_cnn_b4_32x32_fp16.tar.xz"


def _bundle_program(bundle_path, kernel):
    from engine.workload.bundle import open_bundle
    with open_bundle(bundle_path) as b:
        L = next(L for L in b.launches if L.kernel == kernel)
        return ptx_load(b.root / L.ptx), L


@needs_tools
def test_operands_of_sass_instructions():
    from engine.sass.disasm import operands
    assert operands(".WIDE.U32", "R8, R11, 0x2, R6 ", None) == (("R8", "R9"), ("R11", "R6"))
    # a compare writes two predicates (PT: none), reads its register and combining predicate
    assert operands(".GT.AND", "P2, PT, R13, -0x1, P1 ", None) == (("P2",), ("R13", "P1"))
    assert operands("", "R12, P3, R10.reuse, R0, 0x1 ", None) == (("R12", "P3"), ("R10", "R0"))
    # a store writes no register; its address registers and 64-bit pairs are read, the guard too
    assert operands(".E.BYPASS.128", "[R23+0x2000], desc[UR12][R12.64], P4 ", "@!P0 ") == \
        ((), ("R23", "UR12", "R12", "R13", "P4", "P0"))
    assert operands("", "R4, c[0x0][0x210] ", None) == (("R4",), ())
    assert operands(".MOV", "R13, RZ, RZ, -R9 ", None) == (("R13",), ("R9",))


@needs_tools
def test_a_division_waits_for_its_whole_chain():
    """div.s32 is a dependent chain (I2F, MUFU.RCP, F2I, multiply-adds, compares): its result comes after
    the latencies of the chain, not one latency after the last of its ~20 SASS instructions issues."""
    from engine._ffi import E
    program = ptx_load(VAL / "ptx" / "conv.sm90.ptx")
    costs = sass.costs_for(program)
    div = _pc_at(program, "im2col_3x3", "div.s32")
    path = costs.costs["path"][div]
    assert path[E.unit["sfu"]] >= 3                      # I2F, MUFU.RCP, F2I in a row
    assert path[E.unit["int"]] + path[E.unit["fp32"]] >= 10
    assert path.sum() <= costs.costs["issue16"][div] / 16  # a path of its own instructions
    # an add that ptxas keeps as one IADD3: a path of one instruction
    add = _pc_at(program, "im2col_3x3", "add.s32")
    assert costs.costs["path"][add].sum() <= 1


@needs_tools
def test_hgmma_without_its_own_line_goes_to_its_wgmma():
    """ptxas's line table gives some HGMMAs the line of the integer instruction before them; each
    wgmma.mma_async still gets its one HGMMA per execution and no other instruction a tensor-core one."""
    from engine._ffi import E
    program, _ = _bundle_program(EXAMPLE_CNN, "triton_tem_fused_convolution_0")
    funcs = sass.analyse(program.source)
    costs = sass.costs_for(program)
    wg = E.op["wgmma_mma"]
    hgmma = sum(1 for f in funcs.values() for si in f.insts if si.opcode == "HGMMA")
    assert hgmma == 9
    for pc, c in enumerate(costs.classes):
        if program.insts["op"][pc] == wg:
            assert c.get("tensor") == pytest.approx(1.0)
            assert costs.costs["known"][pc] == 1 and costs.costs["issue16"][pc] >= 16
        else:
            assert not c.get("tensor"), program.pc_text[pc]


@needs_tools
def test_a_completely_unrolled_loop_costs_its_sass_over_the_trip_count():
    """Triton's convolution template loops 9 times (`setp.ne.b32 %p13, %r114, 9`); ptxas lays out 9
    copies with no loop left and folds what is constant per copy. Each PTX instruction of the loop costs
    1/9 of its SASS, so the launch stands for as many SASS instructions as ncu counted on the H200."""
    from engine.timing import TimingSim
    from engine.workload.bundle import open_bundle
    from engine.workload.replay import run_workload
    program, _ = _bundle_program(EXAMPLE_CNN, "triton_tem_fused_convolution_0")
    costs = sass.costs_for(program)
    f = program.kernels["triton_tem_fused_convolution_0"]
    assert costs.costs["known"][f.entry_pc:f.end_pc].all()
    fence = _pc_at(program, "triton_tem_fused_convolution_0", "wgmma.fence")
    assert costs.static[fence] == 9 and costs.classes[fence] == {"misc": pytest.approx(1.0)}
    with open_bundle(EXAMPLE_CNN) as b:
        res = run_workload(b, sim=TimingSim("h200", overrides=["timing.sass=auto"]), timed={0})
    L = res.as_json()["launches"][0]
    assert L["timing_mode"] == "sass"
    assert L["hw_sass_warp_insts"] == 111872                     # ncu, in the bundle's manifest
    assert L["sim_sass_warp_insts"] == pytest.approx(111872, rel=0.01)
    assert L["warp_insts"] > 1.9 * L["sim_sass_warp_insts"]        # the PTX it executed: twice as many
    assert res.summary()["timing_modes"] == {"sass": 1, "ptx": 0}
