"""setp, set, selp, slct for every type (integers, f32/f64, f16/bf16 and their x2 forms): ordered and
unordered comparisons against numpy, two destinations p|q, the .and/.or/.xor combining predicate, .ftz;
and each case of tests/kernels/isa_cases.py with its H200 record."""
import numpy as np
import pytest

from tests.isa import run_inst
from tests.kernels.isa_cases import gen, names
from tests.kernels.isa_hw import check, load_record
from tests.kernels.isa_ref import decode, halves

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

ORDERED = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
           "ge": np.greater_equal}


@pytest.fixture(scope="module")
def record():
    return load_record()


def ref_cmp(op, a, b):
    """numpy reference of a PTX comparison on float64 (or integer) arrays"""
    if op in ORDERED:
        r = ORDERED[op](a, b)
        if a.dtype.kind == "f":
            r &= ~(np.isnan(a) | np.isnan(b))
        return r
    un = np.isnan(a) | np.isnan(b)
    if op == "num":
        return ~un
    if op == "nan":
        return un
    return un | ORDERED[op[:-1]](a, b)


@pytest.mark.parametrize("t", ["s16", "u16", "s32", "u32", "s64", "u64", "b32"])
def test_setp_integers(dev, t):
    a, b = gen(t, "cmp-" + t, 0, 2), gen(t, "cmp-" + t, 1, 2)
    ops = ["eq", "ne"] if t[0] == "b" else list(ORDERED) + (["lo", "ls", "hi", "hs"] if t[0] == "u" else [])
    alias = {"lo": "lt", "ls": "le", "hi": "gt", "hs": "ge"}
    for op in ops:
        p = run_inst(dev, f"setp.{op}.{t} %p, %a, %b", pred_out=True, a=(t, a), b=(t, b))
        assert np.array_equal(p, ORDERED[alias.get(op, op)](a, b)), op


@pytest.mark.parametrize("t", ["f32", "f64", "f16", "bf16"])
def test_setp_floats_ordered_and_unordered(dev, t):
    a, b = gen(t, "cmpf-" + t, 0, 2), gen(t, "cmpf-" + t, 1, 2)
    if t == "bf16":
        fa = np.array([float(decode(int(x), "bf16")) for x in a])
        fb = np.array([float(decode(int(x), "bf16")) for x in b])
    else:
        fa, fb = a.astype(np.float64), b.astype(np.float64)
    for op in list(ORDERED) + ["equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"]:
        p = run_inst(dev, f"setp.{op}.{t} %p, %a, %b", pred_out=True, a=(t, a), b=(t, b))
        assert np.array_equal(p, ref_cmp(op, fa, fb)), op


def test_setp_ftz_treats_subnormals_as_zero(dev):
    a = np.array([1e-40, -1e-40, 1e-40, 2e-38], np.float32)
    b = np.array([0.0, 0.0, 2e-40, 0.0], np.float32)
    plain = run_inst(dev, "setp.gt.f32 %p, %a, %b", pred_out=True, a=("f32", a), b=("f32", b))
    ftz = run_inst(dev, "setp.gt.ftz.f32 %p, %a, %b", pred_out=True, a=("f32", a), b=("f32", b))
    assert list(plain) == [True, False, False, True] and list(ftz) == [False, False, False, True]


@pytest.mark.parametrize("bop", ["and", "or", "xor"])
def test_setp_two_destinations_and_combine(dev, rng, bop):
    a, b = gen("s32", "cmb", 0, 2), gen("s32", "cmb", 1, 2)
    c = rng.integers(0, 2, a.size).astype(np.uint8)
    f = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}[bop]
    cmp = a < b
    p = run_inst(dev, f"setp.lt.{bop}.s32 %p|%q, %a, %b, %g", pred_out=True, a=("s32", a), b=("s32", b), g=("pred", c))
    assert np.array_equal(p, f(cmp, c))
    q = run_inst(dev, f"setp.lt.{bop}.s32 %q|%p, %a, %b, !%g", pred_out=True, a=("s32", a), b=("s32", b), g=("pred", c))
    assert np.array_equal(q, f(~cmp, c == 0))


@pytest.mark.parametrize("t", ["f16x2", "bf16x2"])
def test_setp_x2_sets_one_predicate_per_half(dev, t):
    a, b = gen(t, "x2" + t, 0, 2), gen(t, "x2" + t, 1, 2)
    fmt = t[:-2]
    va = np.array([float(decode(int(x), fmt)) for x in halves(a)])
    vb = np.array([float(decode(int(x), fmt)) for x in halves(b)])
    n = a.size
    for op in ("lt", "geu", "ne"):
        lo = run_inst(dev, f"setp.{op}.{t} %p|%q, %a, %b", pred_out=True, a=(t, a), b=(t, b))
        hi = run_inst(dev, f"setp.{op}.{t} %q|%p, %a, %b", pred_out=True, a=(t, a), b=(t, b))
        ref = ref_cmp(op, va, vb)
        assert np.array_equal(lo, ref[:n]) and np.array_equal(hi, ref[n:]), op


def test_set_integer_float_and_x2_results(dev, rng):
    a, b = gen("f32", "set", 0, 2), gen("f32", "set", 1, 2)
    r = ref_cmp("ltu", a.astype(np.float64), b.astype(np.float64))
    u = run_inst(dev, "set.ltu.u32.f32 %d, %a, %b", d="u32", a=("f32", a), b=("f32", b))
    f = run_inst(dev, "set.ltu.f32.f32 %d, %a, %b", d="f32", a=("f32", a), b=("f32", b))
    assert np.array_equal(u, np.where(r, 0xFFFFFFFF, 0).astype(np.uint32))
    assert np.array_equal(f, np.where(r, 1.0, 0.0).astype(np.float32))
    c = rng.integers(0, 2, a.size).astype(np.uint8)
    s = run_inst(dev, "set.ltu.and.s32.f32 %d, %a, %b, !%g", d="s32", a=("f32", a), b=("f32", b), g=("pred", c))
    assert np.array_equal(s, np.where(r & (c == 0), -1, 0).astype(np.int32))
    h, k = gen("f16x2", "set2", 0, 2), gen("f16x2", "set2", 1, 2)
    rh = ref_cmp("gt", np.array([float(decode(int(x), "f16")) for x in halves(h)]),
                 np.array([float(decode(int(x), "f16")) for x in halves(k)]))
    n = h.size
    out = run_inst(dev, "set.gt.f16x2.f16x2 %d, %a, %b", d="f16x2", a=("f16x2", h), b=("f16x2", k))
    assert np.array_equal(out, (np.where(rh[:n], 0x3C00, 0) | (np.where(rh[n:], 0x3C00, 0) << 16)).astype(np.uint32))
    out = run_inst(dev, "set.gt.u32.f16x2 %d, %a, %b", d="u32", a=("f16x2", h), b=("f16x2", k))
    assert np.array_equal(out, (np.where(rh[:n], 0xFFFF, 0) | (np.where(rh[n:], 0xFFFF, 0) << 16)).astype(np.uint32))


def test_selp_and_slct(dev, rng):
    a, b = gen("u64", "sel", 0, 2), gen("u64", "sel", 1, 2)
    c = rng.integers(0, 2, a.size).astype(np.uint8)
    out = run_inst(dev, "selp.b64 %d, %a, %b, %g", d="b64", a=("b64", a), b=("b64", b), g=("pred", c))
    assert np.array_equal(out, np.where(c == 1, a, b))
    x, y = gen("s32", "slct", 0, 2), gen("s32", "slct", 1, 2)
    ci = gen("s32", "slct", 2, 3)
    out = run_inst(dev, "slct.s32.s32 %d, %a, %b, %c", d="s32", a=("s32", x), b=("s32", y), c=("s32", ci))
    assert np.array_equal(out, np.where(ci >= 0, x, y))
    cf = gen("f32", "slctf", 2, 3)
    out = run_inst(dev, "slct.u32.f32 %d, %a, %b, %c", d="u32", a=("u32", x.view(np.uint32)),
                   b=("u32", y.view(np.uint32)), c=("f32", cf))
    assert np.array_equal(out, np.where(cf >= 0, x.view(np.uint32), y.view(np.uint32)))   # -0 >= 0; NaN: b
    sub = np.array([-1e-40, -1.0], np.float32)
    out = run_inst(dev, "slct.ftz.s32.f32 %d, %a, %b, %c", d="s32", a=("s32", np.array([1, 1], np.int32)),
                   b=("s32", np.array([2, 2], np.int32)), c=("f32", sub))
    assert list(out) == [1, 2]                       # .ftz: -1e-40 is -0, which is >= 0


@pytest.mark.parametrize("name", names("cmp"))
def test_matches_h200(dev, record, name):
    check(dev, record, name)
