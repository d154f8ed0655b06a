"""f32 and f64 instructions: add/sub/mul/fma/div in every rounding mode with .ftz and .sat, min/max rules,
abs/neg/copysign, testp, and the special functions. IEEE results are compared bit for bit with exact
rational arithmetic rounded once (tests/kernels/isa_ref.py); .approx results with the PTX-documented
bounds against numpy's float64 functions; each case of tests/kernels/isa_cases.py with its H200 record."""
import math
from fractions import Fraction

import numpy as np
import pytest

from tests.isa import run_inst
from tests.kernels.isa_cases import gen, names
from tests.kernels.isa_hw import check, load_record
from tests.kernels.isa_ref import bits_of, encode, ftz_bits, is_nan_bits, is_sub_bits

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")
MODES = ("rn", "rz", "rm", "rp")
NPT = {"f32": np.float32, "f64": np.float64}


@pytest.fixture(scope="module")
def record():
    return load_record()


def flt(t, name, k=0, n_ops=2, spec=""):
    return gen(t + (":" + spec if spec else ""), "flt-" + name, k, n_ops)


def fl(x):
    return float(x)


def ref_op(op, vals, t, mode, ftz=False, sat=False):
    """The IEEE result bits of op over float operands, rounded once (exactly) in mode."""
    if ftz:
        vals = [0.0 * math.copysign(1, v) if (v != 0 and abs(v) < 2.0 ** -126) else v for v in vals]
    if any(math.isnan(v) for v in vals):
        r = math.nan
    else:
        try:
            r = _exact(op, vals, mode)
        except (ZeroDivisionError, ValueError):
            r = math.nan
    if sat:
        if isinstance(r, tuple) or (isinstance(r, float) and math.isnan(r)):
            r = Fraction(0)
        r = max(Fraction(0), min(Fraction(1), Fraction(r))) if not (isinstance(r, float) and math.isinf(r)) \
            else Fraction(1 if r > 0 else 0)
        if r == 0:
            r = ("zero", False)
    if isinstance(r, tuple):                      # exact zero with a sign
        bits = encode(Fraction(0), t, mode, neg_zero=r[1])
    else:
        bits = encode(r, t, mode)
        if sat and not isinstance(r, float) and encode(r, t, mode) >> (31 if t == "f32" else 63):
            bits = 0
    if ftz and is_sub_bits(bits, t):
        bits = ftz_bits(bits, t)
    return bits


def _exact(op, v, mode):
    inf = [math.isinf(x) for x in v]
    if any(inf):                                   # IEEE special cases through Python floats
        if op == "fma":
            if math.isinf(v[0]) or math.isinf(v[1]):
                p = v[0] * v[1]                        # inf, or NaN for 0 * inf
                return p + v[2]
            return v[2]                                # finite product + infinite c
        if op == "div":
            if math.isinf(v[0]) and math.isinf(v[1]):
                return math.nan
            if math.isinf(v[1]):
                return 0.0 * math.copysign(1, v[0]) * math.copysign(1, v[1])
            return v[0] * math.copysign(1, v[1]) if v[1] != 0 else v[0] * math.copysign(1, v[1])
        return {"add": lambda: v[0] + v[1], "sub": lambda: v[0] - v[1], "mul": lambda: v[0] * v[1]}[op]()
    f = [Fraction(x) for x in v]
    neg = [math.copysign(1, x) < 0 for x in v]
    if op == "add" or op == "sub":
        b = f[1] if op == "add" else -f[1]
        nb = neg[1] if op == "add" else not neg[1]
        s = f[0] + b
        if s == 0:
            same = f[0] == 0 and b == 0 and neg[0] == nb     # IEEE: equal-signed zeros keep the sign,
            return ("zero", nb if same else mode == "rm")     # any other exact zero is +0 (-0 in rm)
        return s
    if op == "mul":
        p = f[0] * f[1]
        return ("zero", neg[0] != neg[1]) if p == 0 else p
    if op == "div":
        if f[1] == 0:
            if f[0] == 0:
                raise ZeroDivisionError
            return math.copysign(math.inf, 1.0) * (-1 if neg[0] != neg[1] else 1)
        q = f[0] / f[1]
        return ("zero", neg[0] != neg[1]) if q == 0 else q
    if op == "fma":
        p = f[0] * f[1]
        s = p + f[2]
        if s == 0:
            pneg = neg[0] != neg[1]
            same = p == 0 and f[2] == 0 and pneg == neg[2]
            return ("zero", pneg if same else mode == "rm")
        return s
    raise ValueError(op)


def as_bits(out):
    return [int(x) for x in bits_of(out)]


def compare(out, ref, t, what, inputs):
    got = as_bits(out)
    bad = [i for i, (g, r) in enumerate(zip(got, ref)) if g != r and not (is_nan_bits(g, t) and is_nan_bits(r, t))]
    assert not bad, f"{what}: {len(bad)} wrong, e.g. inputs {[x[bad[0]] for x in inputs]}: got {got[bad[0]]:#x} want {ref[bad[0]]:#x}"


@pytest.mark.parametrize("t", ["f32", "f64"])
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
def test_binary_ops_every_rounding_mode(dev, t, op):
    a, b = flt(t, op + t), flt(t, op + t, 1)
    for mode in MODES:
        out = run_inst(dev, f"{op}.{mode}.{t} %d, %a, %b", d=t, a=(t, a), b=(t, b))
        ref = [ref_op(op, [fl(x), fl(y)], t, mode) for x, y in zip(a, b)]
        compare(out, ref, t, f"{op}.{mode}.{t}", [a, b])


@pytest.mark.parametrize("t", ["f32", "f64"])
def test_fma_is_fused_every_rounding_mode(dev, t):
    a, b, c = flt(t, "fma" + t), flt(t, "fma" + t, 1), flt(t, "fma" + t, 2, 3)
    for mode in MODES:
        out = run_inst(dev, f"fma.{mode}.{t} %d, %a, %b, %c", d=t, a=(t, a), b=(t, b), c=(t, c))
        ref = [ref_op("fma", [fl(x), fl(y), fl(z)], t, mode) for x, y, z in zip(a, b, c)]
        compare(out, ref, t, f"fma.{mode}.{t}", [a, b, c])


def test_fma_rounding_tie_cases(dev):
    """Products whose exact sum with c sits on a rounding tie of f32 (a double-rounding trap)."""
    a = np.array([1 + 2.0 ** -23, 1 + 2.0 ** -12, 3.0, 1 + 2.0 ** -23], np.float32)
    b = np.array([1 + 2.0 ** -23, 1 + 2.0 ** -12, 1 + 2.0 ** -23, -(1 - 2.0 ** -24)], np.float32)
    c = np.array([2.0 ** -47, -2.0 ** -24, 2.0 ** -22, 1.0], np.float32)
    out = run_inst(dev, "fma.rn.f32 %d, %a, %b, %c", d="f32", a=("f32", a), b=("f32", b), c=("f32", c))
    ref = [ref_op("fma", [fl(x), fl(y), fl(z)], "f32", "rn") for x, y, z in zip(a, b, c)]
    assert as_bits(out) == ref


@pytest.mark.parametrize("op", ["add", "mul", "fma"])
def test_f32_ftz_and_sat(dev, op):
    n = 3 if op == "fma" else 2
    ins = [flt("f32", "fs" + op, k, n) for k in range(n)]
    regs = "%a, %b, %c"[: 2 + 4 * (n - 1)]
    kw = dict(zip("abc", [("f32", x) for x in ins]))
    for mods, ftz, sat in (("rn.ftz", True, False), ("rn.sat", False, True), ("rz.ftz.sat", True, True),
                           ("rm.ftz", True, False)):
        out = run_inst(dev, f"{op}.{mods}.f32 %d, {regs}", d="f32", **kw)
        mode = mods.split(".")[0]
        ref = [ref_op(op, [fl(v) for v in vals], "f32", mode, ftz, sat) for vals in zip(*ins)]
        compare(out, ref, "f32", f"{op}.{mods}.f32", ins)


def test_ftz_flushes_subnormal_inputs_and_results(dev):
    a = np.array([1e-40, -1e-40, 1e-38, 1.5e-38, 2.0 ** -126, 2.0 ** -125], np.float32)
    b = np.array([1.0, 1.0, 0.5, 0.5, 0.75, 0.5], np.float32)
    out = run_inst(dev, "mul.rn.ftz.f32 %d, %a, %b", d="f32", a=("f32", a), b=("f32", b))
    assert list(bits_of(out)) == [0, 0x80000000, 0, 0, 0, 0x00800000]   # subnormal in or out -> 0
    plain = run_inst(dev, "mul.rn.f32 %d, %a, %b", d="f32", a=("f32", a), b=("f32", b))
    assert plain[0] == np.float32(1e-40) and plain[4] == np.float32(2.0 ** -126 * 0.75)


def test_min_max_rules(dev):
    a, b = flt("f32", "mm"), flt("f32", "mm", 1)
    fa, fb = a.astype(np.float64), b.astype(np.float64)

    def ref(x, y, is_max, nan_mode=False, xs=False):
        if nan_mode and (math.isnan(x) or math.isnan(y)):
            return 0x7FFFFFFF
        sign = (math.copysign(1, x) < 0) != (math.copysign(1, y) < 0)
        if xs:
            x, y = abs(x), abs(y)
        if math.isnan(x) and math.isnan(y):
            return 0x7FFFFFFF
        if math.isnan(x) or math.isnan(y):
            r = y if math.isnan(x) else x
        elif x == y:
            neg = math.copysign(1, x) < 0
            r = (y if neg else x) if is_max else (x if neg else y)
        else:
            r = max(x, y) if is_max else min(x, y)
        bits = int(np.array([r], np.float32).view(np.uint32)[0])
        return (bits & 0x7FFFFFFF) | (0x80000000 if sign else 0) if xs else bits
    for op in ("min", "max"):
        for mods, nm, xs in (("", False, False), (".NaN", True, False), (".xorsign.abs", False, True)):
            out = run_inst(dev, f"{op}{mods}.f32 %d, %a, %b", d="f32", a=("f32", a), b=("f32", b))
            want = [ref(x, y, op == "max", nm, xs) for x, y in zip(fa, fb)]
            assert as_bits(out) == want, f"{op}{mods}"
    # -0 < +0, and a NaN operand is ignored
    out = run_inst(dev, "min.f32 %d, %a, %b", d="f32", a=("f32", np.array([0.0, np.nan], np.float32)),
                   b=("f32", np.array([-0.0, 2.0], np.float32)))
    assert as_bits(out) == [0x80000000, int(np.float32(2.0).view(np.uint32))]


def test_abs_neg_copysign_f32_f64(dev):
    for t, nan in (("f32", 0x7FFFFFFF), ("f64", None)):
        a, b = flt(t, "sg" + t), flt(t, "sg" + t, 1)
        ab = bits_of(a).astype(object)
        w = 32 if t == "f32" else 64
        sign, mag = 1 << (w - 1), (1 << (w - 1)) - 1
        isn = np.isnan(a)
        out = bits_of(run_inst(dev, f"neg.{t} %d, %a", d=t, a=(t, a))).astype(object)
        assert all(o == (x ^ sign) for o, x, n in zip(out, ab, isn) if not n)
        out = bits_of(run_inst(dev, f"abs.{t} %d, %a", d=t, a=(t, a))).astype(object)
        assert all(o == (x & mag) for o, x, n in zip(out, ab, isn) if not n)
        cs = run_inst(dev, f"copysign.{t} %d, %a, %b", d=t, a=(t, a), b=(t, b))
        want = (bits_of(b).astype(object) & mag) | (ab & sign)
        assert list(bits_of(cs).astype(object)) == list(want)


@pytest.mark.parametrize("t", ["f32", "f64"])
def test_testp_classes(dev, t):
    a = flt(t, "tp" + t, n_ops=1)
    cls = {"finite": np.isfinite(a), "infinite": np.isinf(a), "number": ~np.isnan(a), "notanumber": np.isnan(a),
           # the hardware counts zero as .normal (measured on an H200)
           "normal": np.isfinite(a) & ((np.abs(a) >= np.finfo(a.dtype).tiny) | (a == 0)),
           "subnormal": (a != 0) & (np.abs(a) < np.finfo(a.dtype).tiny)}
    for c, want in cls.items():
        p = run_inst(dev, f"testp.{c}.{t} %p, %a", pred_out=True, a=(t, a))
        assert np.array_equal(p, want), c


@pytest.mark.parametrize("t", ["f32", "f64"])
@pytest.mark.parametrize("fn", ["rcp", "sqrt"])
def test_ieee_rcp_sqrt_every_mode(dev, t, fn):
    a = flt(t, fn + t, n_ops=1)
    a = np.concatenate([a, np.abs(flt(t, fn + t + "p", n_ops=1))])
    for mode in MODES:
        out = run_inst(dev, f"{fn}.{mode}.{t} %d, %a", d=t, a=(t, a))
        ref = []
        for x in a.astype(np.float64):
            if fn == "rcp":
                ref.append(ref_op("div", [1.0, float(x)], t, mode))
            elif math.isnan(x) or x < 0:
                ref.append(encode(math.nan, t))
            elif x == 0 or math.isinf(x):
                ref.append(int(bits_of(np.array([x], NPT[t]))[0]))
            else:
                ref.append(_sqrt_bits(Fraction(float(x)), t, mode))
        compare(out, ref, t, f"{fn}.{mode}.{t}", [a])


def _sqrt_bits(x: Fraction, t: str, mode: str) -> int:
    """correctly rounded sqrt: bracket the root between two neighbours of RN and pick by squares"""
    g = encode(Fraction(math.sqrt(float(x))), t, "rn")
    cand = [g - 1, g, g + 1]
    from tests.kernels.isa_ref import decode
    vals = [decode(c, t) for c in cand]
    below = max((v for v in vals if v * v <= x), default=vals[0])
    above = min((v for v in vals if v * v >= x), default=vals[-1])
    if below == above:
        return encode(below, t, "rn")
    if mode in ("rz", "rm"):
        return encode(below, t, "rn")
    if mode == "rp":
        return encode(above, t, "rn")
    mid = (below + above) / 2
    return encode(below if x < mid * mid else above, t, "rn")


def _rel(out, ref):
    with np.errstate(all="ignore"):
        return np.abs(out.astype(np.float64) - ref) / np.abs(ref)


def test_approx_special_functions_within_documented_bounds(dev, rng):
    x = rng.uniform(-8, 8, 2000).astype(np.float32)
    pos = np.abs(rng.standard_normal(2000) * np.exp2(rng.integers(-60, 60, 2000))).astype(np.float32)
    trig = rng.uniform(-np.pi, np.pi, 2000).astype(np.float32)
    f64 = lambda v: v.astype(np.float64)  # noqa: E731
    ulp = lambda v: np.spacing(np.abs(v).astype(np.float32)).astype(np.float64)  # noqa: E731
    out = run_inst(dev, "rcp.approx.f32 %d, %a", d="f32", a=("f32", pos))
    assert np.all(np.abs(f64(out) - 1 / f64(pos)) <= ulp(1 / f64(pos)))
    out = run_inst(dev, "sqrt.approx.f32 %d, %a", d="f32", a=("f32", pos))
    assert np.all(_rel(out, np.sqrt(f64(pos))) <= 2.0 ** -23)
    out = run_inst(dev, "rsqrt.approx.f32 %d, %a", d="f32", a=("f32", pos))
    assert np.all(_rel(out, 1 / np.sqrt(f64(pos))) <= 2.0 ** -22.9)
    out = run_inst(dev, "ex2.approx.ftz.f32 %d, %a", d="f32", a=("f32", x))
    assert np.all(np.abs(f64(out) - np.exp2(f64(x))) <= 2 * ulp(np.exp2(f64(x))))
    out = run_inst(dev, "lg2.approx.f32 %d, %a", d="f32", a=("f32", pos))
    ref = np.log2(f64(pos))
    assert np.all(np.abs(f64(out) - ref) <= np.maximum(2.0 ** -22.6, 2.0 ** -23 * np.abs(ref)))
    for fn, f in (("sin", np.sin), ("cos", np.cos)):
        out = run_inst(dev, f"{fn}.approx.f32 %d, %a", d="f32", a=("f32", trig))
        assert np.all(np.abs(f64(out) - f(f64(trig))) <= 2.0 ** -20.9), fn
    out = run_inst(dev, "tanh.approx.f32 %d, %a", d="f32", a=("f32", x))
    assert np.all(_rel(out, np.tanh(f64(x))) <= 2.0 ** -10.987)
    d = (rng.standard_normal(500) * np.exp2(rng.integers(-200, 200, 500)))
    out = run_inst(dev, "rcp.approx.ftz.f64 %d, %a", d="f64", a=("f64", d))
    assert np.all(_rel(out, 1 / d) <= 2.0 ** -19) and np.all(bits_of(out) & 0xFFFFFFFF == 0)


def test_approx_special_values(dev):
    a = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -1.0], np.float32)
    rcp = run_inst(dev, "rcp.approx.f32 %d, %a", d="f32", a=("f32", a))
    assert list(rcp[:4]) == [np.inf, -np.inf, 0.0, -0.0] and np.isnan(rcp[4])
    lg = run_inst(dev, "lg2.approx.f32 %d, %a", d="f32", a=("f32", a))
    assert lg[0] == -np.inf and lg[2] == np.inf and np.isnan(lg[4]) and np.isnan(lg[5])
    ex = run_inst(dev, "ex2.approx.f32 %d, %a", d="f32", a=("f32", a))
    assert list(ex[:4]) == [1.0, 1.0, np.inf, 0.0]
    sq = run_inst(dev, "sqrt.approx.f32 %d, %a", d="f32", a=("f32", a))
    assert np.isnan(sq[5]) and bits_of(sq)[1] == 0x80000000


def test_div_approx_and_full(dev):
    a, b = flt("f32", "dv"), flt("f32", "dv", 1)
    inrange = np.isfinite(a) & np.isfinite(b) & (np.abs(b) >= 2.0 ** -126) & (np.abs(b) <= 2.0 ** 126)
    exact = a.astype(np.float64) / b.astype(np.float64)
    ok = inrange & np.isfinite(exact) & (np.abs(exact) >= 2.0 ** -126) & (np.abs(exact) < 3e38)
    for inst in ("div.approx.f32", "div.full.f32"):
        out = run_inst(dev, f"{inst} %d, %a, %b", d="f32", a=("f32", a), b=("f32", b))
        err = np.abs(out.astype(np.float64) - exact)[ok] / np.spacing(np.abs(exact[ok]).astype(np.float32))
        assert np.all(err <= 2), inst
    big = np.array([3e38, -2.0 ** 127], np.float32)
    out = run_inst(dev, "div.approx.f32 %d, %a, %b", d="f32", a=("f32", np.array([1.0, np.inf], np.float32)),
                   b=("f32", big))
    assert out[0] == 0 and np.isnan(out[1])          # 2^126 < |b| < 2^128: 0, or NaN for infinite a


@pytest.mark.parametrize("name", names("float"))
def test_matches_h200(dev, record, name):
    check(dev, record, name)
