"""Lowering details: literals, address expressions, initialisers, shared/local/const layout, generic
addressing, and register allocation (fewer slots, same results)."""
from pathlib import Path

import numpy as np
import pytest

from engine.device import Device, Module
from engine.ptx.lower import lower
from engine.ptx.syntax import parse

KERNELS = Path(__file__).resolve().parent / "kernels"
HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"

LITERALS = HEAD + """
.global .align 4 .f32 g_f[4] = {1.5, 0f40490FDB, -2.0, 0};
.global .align 8 .f64 g_d = 0d400921FB54442D18;
.const .align 4 .s32 c_i[3] = {-7, 017, 0b101};
.shared .align 4 .u32 s_common[8];
.extern .shared .align 16 .b8 dyn[];
.visible .entry lit(.param .u64 pout)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<8>;
  .reg .f32 %f<3>;
  ld.param.u64 %rd1, [pout];
  mov.u32 %r1, 0x7fffffff;
  mov.u32 %r2, 010;
  mov.u32 %r3, 0b1101;
  mov.u32 %r4, -5;
  st.global.u32 [%rd1], %r1;
  st.global.u32 [%rd1+4], %r2;
  st.global.u32 [%rd1+8], %r3;
  add.s64 %rd2, %rd1, 16;
  st.global.u32 [%rd2+-4], %r4;
  ld.const.s32 %r5, [c_i];
  ld.const.s32 %r6, [c_i+4];
  ld.const.s32 %r7, [c_i+8];
  st.global.u32 [%rd2], %r5;
  st.global.u32 [%rd2+4], %r6;
  st.global.u32 [%rd2+8], %r7;
  mov.u64 %rd3, g_f;
  ld.global.f32 %f1, [%rd3+4];
  st.global.f32 [%rd2+12], %f1;
  ld.global.f32 %f2, [g_f+8];
  st.global.f32 [%rd2+16], %f2;
  mov.u32 %r8, s_common;
  st.shared.u32 [%r8+28], %r2;
  mov.u64 %rd4, s_common;
  cvta.shared.u64 %rd5, %rd4;
  ld.u32 %r9, [%rd5+28];
  st.global.u32 [%rd2+20], %r9;
  mov.u32 %r10, dyn;
  st.shared.u32 [%r10], %r3;
  ld.shared.u32 %r11, [dyn];
  st.global.u32 [%rd2+24], %r11;
  ret;
}
.visible .entry other(.param .u64 pout)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [pout];
  mov.u32 %r1, %tid.x;
  st.shared.u32 [s_common+4], %r1;
  ld.shared.u32 %r2, [s_common+4];
  st.global.u32 [%rd1], %r2;
  ret;
}
"""


def test_literals_offsets_initialisers_and_shared_layout():
    dev = Device()
    m = dev.load_ptx(LITERALS, "lit.ptx")
    out = dev.to_device(np.zeros(12, np.int32))
    dev.launch(m.kernel("lit"), 1, 1, [out], shared=64)
    got = dev.from_device(out)
    f = got.view(np.float32)
    assert got[:4].tolist() == [0x7fffffff, 8, 13, -5]
    assert got[4:7].tolist() == [-7, 15, 5]
    assert f[7] == np.float32(np.pi) and f[8] == -2.0
    assert got[9] == 8 and got[10] == 13
    gd = np.frombuffer(dev.read(m.global_address("g_d"), 8), np.float64)[0]
    assert gd == np.pi
    # module-level shared used by both kernels, extern shared after the static part
    prog = m.program
    assert prog.kernels["lit"].shared_bytes == 32 and prog.kernels["other"].shared_bytes == 32
    out2 = dev.to_device(np.zeros(1, np.int32))
    dev.launch(m.kernel("other"), 1, 1, [out2])
    assert dev.from_device(out2)[0] == 0


def _load(dev, path, regalloc):
    text = path.read_text()
    return Module(dev, lower(parse(text, str(path)), text, regalloc=regalloc))


@pytest.mark.parametrize("kernel, n", [("cf_loops", 1000), ("cf_early_exit", 1000), ("cf_nested", 1000)])
def test_register_allocation_keeps_results_and_saves_slots(kernel, n, rng):
    dev = Device()
    path = KERNELS / "cf_control.sm90.ptx"
    plain, packed = _load(dev, path, False), _load(dev, path, True)
    x = dev.to_device(rng.integers(-2**31, 2**31, 2 * n, dtype=np.int64).astype(np.int32))
    outs = []
    for m in (plain, packed):
        y = dev.to_device(np.zeros(n, np.int32))
        dev.launch(m.kernel(kernel), (n + 127) // 128, 128, [x, y, n])
        outs.append(dev.from_device(y))
    assert np.array_equal(outs[0], outs[1])
    a = plain.program.kernels[kernel]
    b = packed.program.kernels[kernel]
    assert b.nregs < a.nregs
    assert 0 < b.regs_per_thread <= 2 * b.nregs


def test_register_allocation_with_calls_keeps_results(rng):
    dev = Device()
    path = KERNELS / "call_funcs.sm90.ptx"
    n = 200
    x = dev.to_device(np.concatenate([rng.integers(-1000, 1000, n), rng.integers(0, 2, n + 1)]).astype(np.int32))
    outs = []
    for ra in (False, True):
        m = _load(dev, path, ra)
        y = dev.to_device(np.zeros(2 * n, np.int32))
        dev.launch(m.kernel("call_all"), 2, 128, [x, y, n])
        outs.append(dev.from_device(y))
        if ra:
            assert m.program.kernels["call_all"].regs_per_thread == int(
                m.program.funcs[m.program.kernels["call_all"].index]["regs_per_thread"])
    assert np.array_equal(outs[0], outs[1])


def test_guarded_definition_keeps_the_old_value():
    """@p mov r, 2 must not let r share a slot with a value that dies just before: the old r flows
    through the lanes where p is false."""
    text = HEAD + """
.visible .entry k(.param .u64 pout)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<4>;
  .reg .pred %p;
  ld.param.u64 %rd1, [pout];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, 7;
  add.u32 %r3, %r1, 100;
  setp.lt.u32 %p, %r1, 16;
  add.u32 %r4, %r3, 1;
  @%p mov.u32 %r2, %r4;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r2;
  ret;
}
"""
    dev = Device()
    m = dev.load_ptx(text, "g.ptx")
    y = dev.to_device(np.zeros(32, np.int32))
    dev.launch(m.kernel("k"), 1, 32, [y])
    assert dev.from_device(y).tolist() == [t + 101 if t < 16 else 7 for t in range(32)]
