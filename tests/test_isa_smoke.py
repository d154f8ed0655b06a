"""Smoke tests of the instruction harness itself (the full per-family tests live beside it)."""
import numpy as np

from tests.isa import run_inst


def test_add_s32_wraps(dev, rng):
    a = rng.integers(-2**31, 2**31, 1000, dtype=np.int64).astype(np.int32)
    b = rng.integers(-2**31, 2**31, 1000, dtype=np.int64).astype(np.int32)
    out = run_inst(dev, "add.s32 %d, %a, %b", d="s32", a=("s32", a), b=("s32", b))
    assert np.array_equal(out, (a.astype(np.int64) + b).astype(np.int32))


def test_setp_predicate_output(dev, rng):
    a = rng.standard_normal(500).astype(np.float32)
    b = rng.standard_normal(500).astype(np.float32)
    p = run_inst(dev, "setp.lt.f32 %p, %a, %b", pred_out=True, a=("f32", a), b=("f32", b))
    assert np.array_equal(p, a < b)


def test_fma_f32_is_fused(dev, rng):
    a = rng.standard_normal(1000).astype(np.float32)
    b = rng.standard_normal(1000).astype(np.float32)
    c = rng.standard_normal(1000).astype(np.float32)
    out = run_inst(dev, "fma.rn.f32 %d, %a, %b, %c", d="f32", a=("f32", a), b=("f32", b), c=("f32", c))
    exact = (a.astype(np.float64) * b + c).astype(np.float32)   # product exact in double, one rounding
    assert np.array_equal(out, exact)
