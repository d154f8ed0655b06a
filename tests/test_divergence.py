"""Control flow in the functional core: kernels compiled by nvcc (tests/kernels/cf_control.cu) run on
random inputs and match per-thread references written in numpy/Python."""
from pathlib import Path

import numpy as np
import pytest

from engine.device import Device

KERNELS = Path(__file__).resolve().parent / "kernels"


def i32(v):
    return np.int64(v).astype(np.int32).item() if isinstance(v, (int, np.integer)) else v


def wrap(v: int) -> int:
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >= 1 << 31 else v


@pytest.fixture(scope="module")
def mod():
    dev = Device()
    return dev, dev.load_ptx(KERNELS / "cf_control.sm90.ptx")


def run(mod, name, inp, nout, grid, block, *extra):
    dev, m = mod
    x = dev.to_device(np.asarray(inp, np.int32))
    y = dev.to_device(np.zeros(nout, np.int32))
    dev.launch(m.kernel(name), grid, block, [x, y, *extra])
    return dev.from_device(y)


def test_nested_branches(mod, rng):
    n = 1000
    x = rng.integers(-200, 200, n).astype(np.int32)
    x[:4] = [0, -51, -50, 4]
    out = run(mod, "cf_nested", x, n, 8, 128, n)
    ref = [(v * 3 if v & 1 else v + 100 if v & 2 else 7) if v > 0 else (-1 if v < -50 else v * v) for v in x.tolist()]
    assert out.tolist() == ref


def _loops_ref(x):
    x &= 0xFFFFFFFF
    acc = 0
    for i in range(40):
        if i * i == (x & 1023):
            break
        if (i + x) % 3 == 0:
            continue
        acc += i if i & 1 else 2 * i
    k = x & 31
    while k:
        acc += k
        k = k - 1 if k & 1 else k >> 1
    return wrap(acc)


def test_loops_with_break_continue_and_per_lane_trip_counts(mod, rng):
    n = 777                       # a partial last warp and a partial last CTA
    x = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
    x[:5] = [0, 1, 4, 1024 + 9, 31]          # immediate break, long while loops
    out = run(mod, "cf_loops", x, n, 7, 128, n)
    assert out.tolist() == [_loops_ref(int(v)) for v in x.tolist()]


def _early_ref(x):
    for i in range(32):
        x = wrap(x * 5 + 1)
        if (x & 15) == 3:
            return i
    return 1000 + (x & 255)


def test_early_return_inside_loop(mod, rng):
    n = 512
    x = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
    out = run(mod, "cf_early_exit", x, n, 4, 128, n)
    ref = [_early_ref(int(v)) for v in x.tolist()]
    assert out.tolist() == ref
    assert len(set(ref)) > 10          # lanes really leave at different iterations


def _switch_ref(v, sel):
    return {0: 10, 1: wrap(v * 3), 2: 7, 3: v >> 2, 4: 99, 5: v ^ 0x55, 6: 1 << (v & 7), 7: wrap(v - 100),
            9: 123456}.get(sel, 0)


def test_switch_statement(mod, rng):
    n = 600
    v = rng.integers(-10**6, 10**6, n).astype(np.int32)
    sel = rng.integers(-2, 18, n).astype(np.int32)            # includes the default on both sides
    out = run(mod, "cf_switch", np.concatenate([v, sel]), n, 5, 128, n)
    assert out.tolist() == [_switch_ref(a, b) for a, b in zip(v.tolist(), sel.tolist())]


def test_barrier_after_divergent_loop(mod, rng):
    blocks, bs = 3, 256
    x = rng.integers(-1000, 1000, blocks * bs).astype(np.int32)
    out = run(mod, "cf_barrier_after_divergence", x, blocks * bs, blocks, bs)
    ref = []
    for b in range(blocks):
        s = []
        for t in range(bs):
            v = int(x[b * bs + t])
            for _ in range(v & 7):
                v = wrap(v * 3 + 1)
            s.append(v)
        ref += [wrap(s[(t + 1) % bs] + s[t]) for t in range(bs)]
    assert out.tolist() == ref


BRX = """
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 pin, .param .u64 pout)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<5>;
  .reg .pred %p;
  ts: .branchtargets L0, L1, L2;
  ld.param.u64 %rd1, [pin];
  ld.param.u64 %rd2, [pout];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd1, %rd1, %rd3;
  add.s64 %rd2, %rd2, %rd3;
  ld.global.u32 %r2, [%rd1];
  setp.eq.u32 %p, %r2, 7;
  @%p bra DONE;
  brx.idx %r2, ts;
L0:
  mov.u32 %r3, 100;
  bra.uni JOIN;
L1:
  mov.u32 %r3, 200;
  bra.uni JOIN;
L2:
  mov.u32 %r3, 300;
JOIN:
  add.u32 %r3, %r3, %r1;
  st.global.u32 [%rd2], %r3;
DONE:
  ret;
}
"""


def test_brx_idx_multiway_divergent_branch(rng):
    dev = Device()
    m = dev.load_ptx(BRX, "brx.ptx")
    sel = rng.integers(0, 3, 64).astype(np.int32)
    sel[5] = 7                                   # this lane skips the brx
    x, y = dev.to_device(sel), dev.to_device(np.full(64, -1, np.int32))
    dev.launch(m.kernel("k"), 1, 64, [x, y])
    ref = [-1 if s == 7 else 100 * (s + 1) + t for t, s in enumerate(sel.tolist())]
    assert dev.from_device(y).tolist() == ref
