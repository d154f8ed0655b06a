"""Calls to .func bodies: parameters and results through static local-memory frames, struct and array
parameters, calls in divergent code, guarded calls; recursion and external functions are refused."""
from pathlib import Path

import numpy as np
import pytest

from engine.device import Device
from engine.ptx import PTXSemanticError

KERNELS = Path(__file__).resolve().parent / "kernels"
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "ptx" / "nvcc"
W = [3, -1, 4, 1, -5]


def wrap(v: int) -> int:
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >= 1 << 31 else v


def call_all_ref(x, t, sel, m):
    r = x * 7 + t
    pa, pb = t * 3, x + 3
    r += pa * 2 + pb
    if sel != 0:
        r += x * 7 + 1000 + 1
    else:
        r += sum((x * (i + 1) + W[i]) * W[i] for i in range(m & 3))
    i = t & 31
    r += ((i * 5) % 12) ** 2 + i
    return wrap(r)


def test_struct_array_and_scalar_calls_in_divergent_code(rng):
    dev = Device()
    m = dev.load_ptx(KERNELS / "call_funcs.sm90.ptx")
    n = 300
    x = rng.integers(-10**5, 10**5, n).astype(np.int32)
    sel = rng.integers(0, 2, n + 1).astype(np.int32)        # in[n + t]: which branch calls what
    inp = dev.to_device(np.concatenate([x, sel]))
    out = dev.to_device(np.zeros(2 * n, np.int32))
    dev.launch(m.kernel("call_all"), 3, 128, [inp, out, n])
    got = dev.from_device(out).reshape(n, 2)
    ref = [call_all_ref(int(x[t]), t, int(sel[t]), int(sel[t + 1])) for t in range(n)]
    assert got[:, 0].tolist() == ref
    assert got[:, 1].tolist() == [wrap(2 * r) for r in ref]


GUARDED = """
.version 8.0
.target sm_90
.address_size 64
.func (.param .b32 ret) twice(.param .b32 a, .param .align 8 .b8 s[12])
{
  .reg .b32 %r<5>;
  .reg .pred %q;
  ld.param.b32 %r1, [a];
  ld.param.b32 %r2, [s+8];
  setp.lt.s32 %q, %r1, 10;
  @%q bra SMALL;
  add.s32 %r3, %r1, %r2;
  st.param.b32 [ret], %r3;
  ret;
SMALL:
  @%q mul.lo.s32 %r3, %r1, 2;
  st.param.b32 [ret], %r3;
  ret;
}
.visible .entry k(.param .u64 pout)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<4>;
  .reg .pred %p;
  ld.param.u64 %rd1, [pout];
  mov.u32 %r1, %tid.x;
  mov.u32 %r5, -1;
  setp.eq.u32 %p, %r1, 3;
  {
    .param .b32 a0;
    .param .align 8 .b8 s0[12];
    .param .b32 rv;
    st.param.b32 [a0], %r1;
    st.param.b32 [s0+8], 1000;
    @!%p call.uni (rv), twice, (a0, s0);
    @!%p ld.param.b32 %r5, [rv];
  }
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r5;
  ret;
}
"""


def test_guarded_call_with_struct_param_and_early_ret(rng):
    dev = Device()
    m = dev.load_ptx(GUARDED, "guarded.ptx")
    y = dev.to_device(np.zeros(40, np.int32))
    dev.launch(m.kernel("k"), 1, 40, [y])
    ref = [-1 if t == 3 else (2 * t if t < 10 else t + 1000) for t in range(40)]
    assert dev.from_device(y).tolist() == ref


def test_recursion_is_refused_naming_the_cycle():
    with pytest.raises(PTXSemanticError, match=r"recursive call .*_Z4eveni -> _Z3oddi -> _Z4eveni|"
                                               r"recursive call .*_Z4facti -> _Z4facti") as e:
        Device().load_ptx(FIXTURES / "recursion.sm90.ptx")
    assert e.value.line > 0 and e.value.col > 0
    assert "not supported" in str(e.value)


def test_printf_is_refused_with_a_clear_message():
    with pytest.raises(PTXSemanticError, match=r"external function 'vprintf' is not supported.*printf") as e:
        Device().load_ptx(FIXTURES / "printf.sm90.ptx")
    text = (FIXTURES / "printf.sm90.ptx").read_text().splitlines()
    assert "vprintf" in text[e.value.line - 1] or "call" in text[e.value.line - 1]


def test_corpus_device_functions_with_struct_returns_lower(rng):
    """calls.cu (struct by value, struct returns of 12 and 32 bytes, local arrays, %SP stack idioms)
    lowers; its callees get their own register and local-memory frames."""
    from engine.ptx.lower import lower
    from engine.ptx.syntax import parse
    text = (FIXTURES / "calls.sm90.ptx").read_text()
    prog = lower(parse(text), text)
    funcs = {f.name: f for f in prog.functions}
    assert sum(1 for f in prog.functions if not f.is_entry) == 7
    assert funcs["k_calls"].local_bytes > 64          # depots of the callees live in the kernel's frame
    assert all(f.regs_per_thread > 0 for f in prog.functions)
