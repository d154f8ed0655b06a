"""f16, bf16, f16x2 and bf16x2 instructions: add/sub/mul/fma (.ftz, .sat, .relu) compared bit for bit with
exact rational arithmetic rounded once to the format (no double rounding through f32), min/max rules,
neg/abs, the .approx special functions within their documented bounds, and each case of
tests/kernels/isa_cases.py with its H200 record."""
import math
from fractions import Fraction

import numpy as np
import pytest

from tests.isa import run_inst
from tests.kernels.isa_cases import gen, names
from tests.kernels.isa_hw import check, load_record
from tests.kernels.isa_ref import FMT, decode, encode, ftz_bits, halves, is_nan_bits, is_sub_bits

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")
TYPES = ("f16", "bf16", "f16x2", "bf16x2")


@pytest.fixture(scope="module")
def record():
    return load_record()


def elems(t, name, k, n_ops):
    """inputs (as the harness takes them) and their 16-bit element patterns, low halves first"""
    v = gen(t, "half-" + name, k, n_ops)
    bits = halves(v) if t.endswith("x2") else v.view(np.uint16)
    return v, [int(b) for b in bits]


def out_elems(out, t):
    return [int(b) for b in (halves(out) if t.endswith("x2") else out.view(np.uint16))]


def ref_elem(op, bits, fmt, ftz=False, sat=False, relu=False):
    if ftz:
        bits = [ftz_bits(b, fmt) for b in bits]
    v = [decode(b, fmt) for b in bits]
    nan = FMT[fmt][3]
    if any(isinstance(x, float) and math.isnan(x) for x in v):
        return 0 if sat else nan
    neg = [(b >> 15) & 1 == 1 for b in bits]
    try:
        if any(isinstance(x, float) for x in v):       # infinities: IEEE through floats
            fv = [float(x) for x in v]
            r = {"add": lambda: fv[0] + fv[1], "sub": lambda: fv[0] - fv[1], "mul": lambda: fv[0] * fv[1],
                 "fma": lambda: (fv[0] * fv[1] + fv[2])}[op]()
            zero_neg = False
        else:
            if op in ("add", "sub"):
                b = v[1] if op == "add" else -v[1]
                nb = neg[1] if op == "add" else not neg[1]
                r = v[0] + b
                zero_neg = v[0] == 0 and b == 0 and neg[0] and nb
            elif op == "mul":
                r = v[0] * v[1]
                zero_neg = neg[0] != neg[1]
            else:
                p = v[0] * v[1]
                r = p + v[2]
                pneg = neg[0] != neg[1]
                zero_neg = p == 0 and v[2] == 0 and pneg and neg[2]
    except ValueError:
        r = math.nan
    if isinstance(r, float) and math.isnan(r):
        return 0 if sat else nan
    if sat:
        r = Fraction(1) if r > 1 else Fraction(0) if r <= 0 else Fraction(r)
        zero_neg = False
    bits_r = encode(r, fmt, "rn", neg_zero=zero_neg)
    if ftz and is_sub_bits(bits_r, fmt):
        bits_r = ftz_bits(bits_r, fmt)
    if relu and bits_r >> 15:
        bits_r = 0
    return bits_r


@pytest.mark.parametrize("t", TYPES)
@pytest.mark.parametrize("op", ["add", "sub", "mul", "fma"])
def test_arith_rounds_once(dev, t, op):
    n = 3 if op == "fma" else 2
    fmt = t.replace("x2", "")
    ins = [elems(t, op + t, k, n) for k in range(n)]
    kw = {r: (t, v) for r, (v, _) in zip("abc", ins)}
    regs = ", ".join("%" + r for r in "abc"[:n])
    variants = [("rn", False, False, False), ("rn.relu", False, False, True)] if op == "fma" else [("rn", False, False, False)]
    if fmt == "f16":
        variants += [("rn.ftz", True, False, False), ("rn.sat", False, True, False)]
    for mods, ftz, sat, relu in variants:
        out = run_inst(dev, f"{op}.{mods}.{t} %d, {regs}", d=t, **kw)
        want = [ref_elem(op, list(bs), fmt, ftz, sat, relu) for bs in zip(*(b for _, b in ins))]
        got = out_elems(out, t)
        bad = [i for i, (g, w) in enumerate(zip(got, want)) if g != w]
        assert not bad, (f"{op}.{mods}.{t}: {len(bad)} wrong; e.g. operands "
                         f"{[hex(b[bad[0]]) for _, b in ins]} got {got[bad[0]]:#x} want {want[bad[0]]:#x}")


def test_f16_fma_has_no_double_rounding(dev):
    """(1 + 2^-10) * (2^-11 - 2^-21) + (1 + 2^-10) = 1 + 2^-10 + 2^-11 - 2^-31: just below a tie of f16
    (so 0x3c01), but exactly the tie once rounded to f32 first (which would give the even 0x3c02)."""
    a = np.array([0x3C01], np.uint16).view(np.float16)
    b = np.array([0x0FFE], np.uint16).view(np.float16)
    assert float(b[0]) == 2.0 ** -11 - 2.0 ** -21
    out = run_inst(dev, "fma.rn.f16 %d, %a, %b, %c", d="f16", a=("f16", a), b=("f16", b), c=("f16", a))
    assert out.view(np.uint16)[0] == 0x3C01
    f32_path = np.float16(np.float32(float(a[0]) * float(b[0]) + float(a[0])))
    assert f32_path.view(np.uint16) == 0x3C02               # the trap is real


@pytest.mark.parametrize("t", TYPES)
def test_min_max_neg_abs(dev, t):
    fmt = t.replace("x2", "")
    (a, ab), (b, bb) = elems(t, "mm" + t, 0, 2), elems(t, "mm" + t, 1, 2)
    nan = FMT[fmt][3]

    def ref(x, y, is_max, nan_mode, xs):
        vx, vy = decode(x, fmt), decode(y, fmt)
        isn = lambda v: isinstance(v, float) and math.isnan(v)  # noqa: E731
        if (nan_mode and (isn(vx) or isn(vy))) or (isn(vx) and isn(vy)):
            return nan
        sign = (x ^ y) & 0x8000
        if xs:
            x, y = x & 0x7FFF, y & 0x7FFF
            vx, vy = abs(vx), abs(vy)
        if isn(vx):
            r = y
        elif isn(vy):
            r = x
        elif vx == vy:
            r = (y if x >> 15 else x) if is_max else (x if x >> 15 else y)
        else:
            r = x if ((vx > vy) == is_max) else y
        return (r & 0x7FFF) | sign if xs else r
    for op in ("min", "max"):
        for mods, nm, xs in (("", False, False), (".NaN", True, False), (".xorsign.abs", False, True)):
            out = run_inst(dev, f"{op}{mods}.{t} %d, %a, %b", d=t, a=(t, a), b=(t, b))
            assert out_elems(out, t) == [ref(x, y, op == "max", nm, xs) for x, y in zip(ab, bb)], f"{op}{mods}"
    neg = out_elems(run_inst(dev, f"neg.{t} %d, %a", d=t, a=(t, a)), t)
    assert neg == [nan if is_nan_bits(x, fmt) else x ^ 0x8000 for x in ab]
    ab_ = out_elems(run_inst(dev, f"abs.{t} %d, %a", d=t, a=(t, a)), t)
    assert ab_ == [nan if is_nan_bits(x, fmt) else x & 0x7FFF for x in ab]


@pytest.mark.parametrize("t", TYPES)
def test_approx_ex2_tanh_within_documented_bounds(dev, rng, t):
    fmt = t.replace("x2", "")
    x = rng.uniform(-6, 6, 1000).astype(np.float32)
    if fmt == "f16":
        e = x.astype(np.float16).view(np.uint16)
    else:
        e = (x.view(np.uint32) >> 16).astype(np.uint16)
    val = np.array([float(decode(int(b), fmt)) for b in e])
    inp = e.astype(np.uint32) | (np.roll(e, 5).astype(np.uint32) << 16) if t.endswith("x2") else (
        e.view(np.float16) if t == "f16" else e)
    val_all = np.concatenate([val, np.roll(val, 5)]) if t.endswith("x2") else val
    ex2 = "ex2.approx.ftz" if fmt == "bf16" else "ex2.approx"
    for inst, f, kind, bound in ((ex2, np.exp2, "rel", 2.0 ** -9.9 if fmt == "f16" else 2.0 ** -7),
                                 ("tanh.approx", np.tanh, "abs", 2.0 ** -10.987 if fmt == "f16" else 2.0 ** -8)):
        out = np.array([float(decode(b, fmt)) for b in out_elems(run_inst(dev, f"{inst}.{t} %d, %a", d=t, a=(t, inp)), t)])
        ref = f(val_all)
        err = np.abs(out - ref)
        if kind == "rel":
            err = err / np.abs(ref)
        # rounding the result to the format adds half an ulp to the documented function error
        half_ulp = np.abs(ref) * 2.0 ** -(FMT[fmt][0] + 1)
        assert np.all(err <= bound + (half_ulp / np.abs(ref) if kind == "rel" else half_ulp)), inst


def test_bf16_has_no_ftz_forms(dev):
    from engine.ptx.errors import UnsupportedInstruction
    z = np.zeros(4, np.uint16)
    with pytest.raises(UnsupportedInstruction, match="add.rn.ftz.bf16"):
        run_inst(dev, "add.rn.ftz.bf16 %d, %a, %b", d="bf16", a=("bf16", z), b=("bf16", z))


@pytest.mark.parametrize("name", names("half"))
def test_matches_h200(dev, record, name):
    check(dev, record, name)
