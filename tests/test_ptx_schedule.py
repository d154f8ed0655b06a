"""The front end's list scheduler (engine/ptx/schedule.py) against ptxas's orders: non-coherent loads
(`ld.global.nc`, data read-only for the kernel) are hoisted above earlier global stores, as the driver's JIT
hoists LDG.E.CONSTANT above STG (validation/sass/transpose.sm90.jit.sass: copy2d, transpose_naive); a plain
`ld.global` may alias a store and keeps its order. Results are the same in either order."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from engine._ffi import E
from engine.device import Device
from engine.ptx import load

COPY4 = """.version 8.0
.target sm_90
.address_size 64
.visible .entry copy4(.param .u64 pin, .param .u64 pout)
{
  .reg .b32 %r<3>; .reg .f32 %f<5>; .reg .b64 %rd<9>;
  ld.param.u64 %rd1, [pin];
  ld.param.u64 %rd2, [pout];
  cvta.to.global.u64 %rd3, %rd1;
  cvta.to.global.u64 %rd4, %rd2;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd5, %r1, 4;
  add.s64 %rd6, %rd3, %rd5;
  add.s64 %rd7, %rd4, %rd5;
  ld.global.nc.f32 %f1, [%rd6];
  st.global.f32 [%rd7], %f1;
  ld.global.nc.f32 %f2, [%rd6+512];
  st.global.f32 [%rd7+512], %f2;
  ld.global.nc.f32 %f3, [%rd6+1024];
  st.global.f32 [%rd7+1024], %f3;
  ld.global.f32 %f4, [%rd6+1536];
  st.global.f32 [%rd7+1536], %f4;
  ret;
}
"""


def _memory_ops(schedule: bool) -> list[str]:
    prog = load(COPY4, "copy4.ptx", schedule=schedule)
    f = prog.functions[0]
    ops = {E.op["ld"], E.op["st"]}
    return [prog.pc_text[pc].split()[0] + " " + prog.pc_text[pc].split()[1].rstrip(",")
            for pc in range(f.entry_pc, f.end_pc)
            if int(prog.insts[pc]["op"]) in ops and int(prog.insts[pc]["space"]) == E.space["global"]]


def test_nc_loads_pass_earlier_stores_plain_loads_do_not():
    assert _memory_ops(schedule=False) == [
        "ld.global.nc.f32 %f1", "st.global.f32 [%rd7]", "ld.global.nc.f32 %f2", "st.global.f32 [%rd7+512]",
        "ld.global.nc.f32 %f3", "st.global.f32 [%rd7+1024]", "ld.global.f32 %f4", "st.global.f32 [%rd7+1536]"]
    got = _memory_ops(schedule=True)
    # the three read-only loads first (all in flight at once), then their stores in program order; the plain
    # load may read what a store wrote, so it stays after all three stores
    assert got[:3] == ["ld.global.nc.f32 %f1", "ld.global.nc.f32 %f2", "ld.global.nc.f32 %f3"]
    assert got[3:6] == ["st.global.f32 [%rd7]", "st.global.f32 [%rd7+512]", "st.global.f32 [%rd7+1024]"]
    assert got[6:] == ["ld.global.f32 %f4", "st.global.f32 [%rd7+1536]"]


def test_nc_hoisting_keeps_results(rng):
    dev = Device()
    x = rng.standard_normal(512).astype(np.float32)
    outs = []
    for schedule in (False, True):
        m = dev.load_ptx(COPY4, "copy4.ptx", schedule=schedule)
        src = dev.to_device(x)
        dst = dev.to_device(np.full(512, -1.0, np.float32))
        dev.launch(m.kernel("copy4"), 1, 128, [src, dst])
        outs.append(dev.from_device(dst))
    assert np.array_equal(outs[0], x)
    assert np.array_equal(outs[1], x)


HGEMM = Path(__file__).resolve().parents[1] / "validation" / "ptx" / "hgemm_wmma.sm90.ptx"


def _wmma_ops(kernel: str) -> str:
    prog = load(HGEMM.read_text(), str(HGEMM))
    f = next(f for f in prog.functions if f.name == kernel)
    code = {E.op["wmma_load"]: "L", E.op["wmma_mma"]: "M"}
    return "".join(code.get(int(prog.insts[pc]["op"]), "") for pc in range(f.entry_pc, f.end_pc))


def test_global_fragment_loads_stay_behind_the_previous_mma():
    """hgemm_wmma_simple's K loop, unrolled 4x by nvcc: the JIT issues each step's fragment loads (LDG) after
    the previous step's HMMAs (one step in flight; the H200 takes a DRAM round trip per step, wmmaload.cu),
    so the scheduler does not hoist them; fragments from shared memory (hgemm_wmma_tiled) are hoisted as the
    JIT hoists its LDSMs: both k steps' loads before the mmas."""
    assert _wmma_ops("hgemm_wmma_simple") == "LLM" * 4 + "LLM"       # the unrolled body, then the remainder loop
    assert _wmma_ops("hgemm_wmma_tiled") == "L" * 8 + "M" * 8
