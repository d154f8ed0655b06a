"""cvt between all integer and floating types and rounding modes, x2 packing, fp8 (e4m3/e5m2), tf32 and
cvt.pack: compared with Python integers and exact rationals rounded once (tests/kernels/isa_ref.py),
and each case of tests/kernels/isa_cases.py with its H200 record."""
import math
from fractions import Fraction

import numpy as np
import pytest

from tests.isa import run_inst
from tests.kernels.isa_cases import gen, names
from tests.kernels.isa_hw import check, load_record
from tests.kernels.isa_ref import FMT, bits_of, decode, encode, halves

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")
INTS = {"s8": 8, "u8": 8, "s16": 16, "u16": 16, "s32": 32, "u32": 32, "s64": 64, "u64": 64}
NPI = {"s8": np.int8, "u8": np.uint8, "s16": np.int16, "u16": np.uint16, "s32": np.int32, "u32": np.uint32,
       "s64": np.int64, "u64": np.uint64}


@pytest.fixture(scope="module")
def record():
    return load_record()


def rng_of(t):
    bits = INTS[t]
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if t[0] == "s" else (0, (1 << bits) - 1)


def ints(t, name, k=0):
    v = gen(t if INTS[t] > 8 else t.replace("8", "16"), "cvt-" + name, k, 1)
    return v.astype(NPI[t]) if INTS[t] == 8 else v


def to_np(vals, t):
    bits = INTS[t]
    return np.array([v & ((1 << bits) - 1) for v in vals], dtype=NPI["u" + t[1:]]).view(NPI[t])


@pytest.mark.parametrize("dt", list(INTS))
@pytest.mark.parametrize("st", ["s8", "u16", "s32", "u32", "s64", "u64"])
def test_int_to_int_truncate_extend_saturate(dev, dt, st):
    a = ints(st, st + dt)
    lo, hi = rng_of(dt)
    vals = [int(x) for x in a]
    out = run_inst(dev, f"cvt.{dt}.{st} %d, %a", d=dt, a=(st, a))
    assert np.array_equal(out, to_np(vals, dt))
    if INTS[dt] < INTS[st] or dt[0] != st[0]:
        out = run_inst(dev, f"cvt.sat.{dt}.{st} %d, %a", d=dt, a=(st, a))
        assert np.array_equal(out, to_np([min(hi, max(lo, v)) for v in vals], dt))


def test_narrow_signed_result_is_sign_extended_in_its_register(dev):
    a = np.array([0x80, 0x7F, -1, 0x1FF, -129], np.int32)
    out = run_inst(dev, "cvt.s8.s32 %h, %a;\n  cvt.s32.s16 %d, %h", d="s32", a=("s32", a), extra="  .reg .b16 %h;")
    assert list(out) == [-128, 127, -1, -1, 127]


def ref_f2i(v, mode, dt, src):
    lo, hi = rng_of(dt)
    if math.isnan(v):
        # NaN: 0, except from f64 and into 64-bit integers: 1 << (width - 1) (measured on an H200)
        return (1 << (INTS[dt] - 1)) if (src == "f64" or INTS[dt] == 64) else 0
    if math.isinf(v):
        return hi if v > 0 else lo
    r = {"rni": round, "rzi": math.trunc, "rmi": math.floor, "rpi": math.ceil}[mode](Fraction(v))
    return min(hi, max(lo, int(r)))


@pytest.mark.parametrize("st", ["f32", "f64", "f16"])
@pytest.mark.parametrize("dt", ["s8", "u8", "s32", "u32", "s64", "u64"])
def test_float_to_int_rounding_saturation_nan(dev, st, dt):
    a = gen(st, "f2i" + st + dt, 0, 1)
    for mode in ("rni", "rzi", "rmi", "rpi"):
        out = run_inst(dev, f"cvt.{mode}.{dt}.{st} %d, %a", d=dt, a=(st, a))
        assert np.array_equal(out, to_np([ref_f2i(float(x), mode, dt, st) for x in a], dt)), mode


def test_float_to_int_ftz(dev):
    a = np.array([1e-40, -1e-40, 0.5, 2e-38], np.float32)
    assert list(run_inst(dev, "cvt.rpi.s32.f32 %d, %a", d="s32", a=("f32", a))) == [1, 0, 1, 1]
    assert list(run_inst(dev, "cvt.rpi.ftz.s32.f32 %d, %a", d="s32", a=("f32", a))) == [0, 0, 1, 1]


@pytest.mark.parametrize("st", ["s16", "u32", "s32", "u64", "s64"])
@pytest.mark.parametrize("dt", ["f16", "bf16", "f32", "f64"])
def test_int_to_float_every_mode_one_rounding(dev, st, dt):
    a = ints(st, "i2f" + st + dt)
    if INTS[st] == 64:        # 64-bit values with more than 53 significant bits and sticky low bits
        a[:8] = np.array([(1 << 62) + (1 << 9) + 1, (1 << 63) - 1, (1 << 53) + 1, 3 << 60, 2 ** 24 + 1,
                          (1 << 40) + (1 << 29) + 1, 12345678901234567, 2 ** 63 - 2 ** 10], dtype=np.uint64).astype(a.dtype)
    fmt = dt
    for mode in ("rn", "rz", "rm", "rp"):
        out = run_inst(dev, f"cvt.{mode}.{dt}.{st} %d, %a", d=dt, a=(st, a))
        want = [encode(Fraction(int(x)), fmt, mode) for x in a]
        got = [int(b) for b in bits_of(out)]
        assert got == want, f"cvt.{mode}.{dt}.{st}: e.g. {[int(x) for x, g, w in zip(a, got, want) if g != w][:3]}"


@pytest.mark.parametrize("st,dt", [("f32", "f16"), ("f32", "bf16"), ("f64", "f32"), ("f64", "f16"),
                                   ("f64", "bf16"), ("f32", "tf32")])
def test_float_narrowing_every_mode(dev, st, dt):
    a = gen(st, "nar" + st + dt, 0, 1)
    modes = ("rn", "rz", "rm", "rp") if dt != "tf32" else ("rn", "rz", "rna")
    d = "b32" if dt == "tf32" else dt
    for mode in modes:
        out = run_inst(dev, f"cvt.{mode}.{dt}.{st} %d, %a", d=d, a=(st, a))
        got = [int(b) for b in bits_of(out)]
        for x, g in zip(a, got):
            v = float(x)
            if math.isnan(v):
                if dt == "tf32" and mode == "rna":      # the hardware rounds the bit pattern (measured)
                    assert g == (int(np.float32(x).view(np.uint32)) + 0x1000) & 0xFFFFE000
                else:
                    assert math.isnan(float(decode(g, dt))), (mode, x)
                continue
            want = encode(v if math.isinf(v) else Fraction(v), dt, mode, neg_zero=math.copysign(1, v) < 0)
            if dt == "tf32" and mode == "rna" and not math.isinf(v):
                want = encode(Fraction(v), "tf32", "rna", neg_zero=math.copysign(1, v) < 0)
            assert g == want, f"cvt.{mode}.{dt}.{st}({x!r}): {g:#x} want {want:#x}"


def test_float_modifiers_relu_satfinite_sat_ftz(dev):
    a = gen("f32", "mods", 0, 1)
    vals = [float(x) for x in a]
    out = run_inst(dev, "cvt.rn.relu.satfinite.bf16.f32 %d, %a", d="bf16", a=("f32", a))
    for v, g in zip(vals, out.view(np.uint16)):
        if math.isnan(v):
            assert g == 0x7FFF
        elif v < 0 or (v == 0 and math.copysign(1, v) < 0):
            assert g == 0
        else:
            assert g == encode(v if math.isinf(v) else Fraction(v), "bf16", "rn", satfinite=True)
    out = run_inst(dev, "cvt.rn.satfinite.f16.f32 %d, %a", d="f16", a=("f32", a))
    assert np.all(np.isfinite(out) | np.isnan(a))                      # overflow -> +-65504
    assert np.all(np.abs(out[np.isinf(a)]) == 65504)
    out = run_inst(dev, "cvt.sat.f32.f32 %d, %a", d="f32", a=("f32", a))
    want = np.where(np.isnan(a), 0, np.clip(a, 0, 1)).astype(np.float32)
    assert np.array_equal(out.view(np.uint32), (want + np.float32(0)).view(np.uint32))   # -0 -> +0
    sub = np.array([1e-40, -1e-40, 1.0], np.float32)
    out = run_inst(dev, "cvt.ftz.f64.f32 %d, %a", d="f64", a=("f32", sub))
    assert list(bits_of(out)) == [0, 0x8000000000000000, 0x3FF0000000000000]


@pytest.mark.parametrize("t,st", [("f32", "f32"), ("f64", "f64"), ("f16", "f16")])
def test_round_to_integral_same_type(dev, t, st):
    a = gen(t, "rint" + t, 0, 1)
    for mode, f in (("rni", round), ("rzi", math.trunc), ("rmi", math.floor), ("rpi", math.ceil)):
        out = run_inst(dev, f"cvt.{mode}.{t}.{st} %d, %a", d=t, a=(st, a))
        for x, o in zip(a, out):
            v = float(x)
            if not math.isfinite(v):
                assert (math.isnan(o) and math.isnan(v)) or o == v
            else:
                r = f(Fraction(v))
                assert o == r and (r != 0 or math.copysign(1, o) == math.copysign(1, v)), (mode, x, o)


def test_widening_is_exact(dev):
    h = gen("f16", "wide", 0, 1)
    out = run_inst(dev, "cvt.f32.f16 %d, %a", d="f32", a=("f16", h))
    assert np.array_equal(out[~np.isnan(h)], h[~np.isnan(h)].astype(np.float32)) and np.all(np.isnan(out[np.isnan(h)]))
    b = gen("bf16", "wide", 0, 1)
    out = run_inst(dev, "cvt.f32.bf16 %d, %a", d="f32", a=("bf16", b))
    assert np.array_equal(out.view(np.uint32), b.astype(np.uint32) << 16)
    f = gen("f32", "wide", 0, 1)
    out = run_inst(dev, "cvt.f64.f32 %d, %a", d="f64", a=("f32", f))
    assert np.array_equal(out[~np.isnan(f)], f[~np.isnan(f)].astype(np.float64))


@pytest.mark.parametrize("t", ["f16x2", "bf16x2"])
@pytest.mark.parametrize("mode", ["rn", "rz"])
def test_x2_packing_puts_a_in_the_upper_half(dev, t, mode):
    a, b = gen("f32", "pk" + t, 0, 2), gen("f32", "pk" + t, 1, 2)
    out = run_inst(dev, f"cvt.{mode}.{t}.f32 %d, %a, %b", d=t, a=("f32", a), b=("f32", b))
    fmt = t[:-2]
    for x, y, o in zip(a, b, out):
        for v, half in ((float(x), int(o) >> 16), (float(y), int(o) & 0xFFFF)):
            if math.isnan(v):
                assert half == FMT[fmt][3]
            else:
                assert half == encode(v if math.isinf(v) else Fraction(v), fmt, mode, neg_zero=math.copysign(1, v) < 0)


@pytest.mark.parametrize("fp8", ["e4m3", "e5m2"])
def test_fp8_conversions(dev, fp8):
    a, b = gen("f32", "fp8" + fp8, 0, 2), gen("f32", "fp8" + fp8, 1, 2)
    out = run_inst(dev, f"cvt.rn.satfinite.{fp8}x2.f32 %d, %a, %b", d="b16", a=("f32", a), b=("f32", b))
    for x, y, o in zip(a, b, out):
        for v, e in ((float(x), int(o) >> 8), (float(y), int(o) & 0xFF)):
            if math.isnan(v):
                assert e == 0x7F
            else:
                assert e == encode(v if math.isinf(v) else Fraction(v), fp8, "rn", satfinite=True,
                                   neg_zero=math.copysign(1, v) < 0), (v, hex(e))
    codes = np.arange(1 << 16, dtype=np.uint32)[::97].astype(np.uint16)
    back = run_inst(dev, f"cvt.rn.f16x2.{fp8}x2 %d, %a", d="f16x2", a=("b16", codes))
    for c, o in zip(codes, back):
        for e, half in ((int(c) & 0xFF, int(o) & 0xFFFF), (int(c) >> 8, int(o) >> 16)):
            v = decode(e, fp8)
            if isinstance(v, float) and math.isnan(v):
                assert half == 0x7FFF
            else:
                assert half == encode(v, "f16", "rn", neg_zero=(e >> 7) == 1)      # exact in f16


@pytest.mark.parametrize("ct,three", [("u16", False), ("s16", False), ("u8", True), ("s8", True), ("u4", True), ("s4", True)])
def test_cvt_pack_sat(dev, ct, three):
    a, b = gen("s32", "pack" + ct, 0, 2), gen("s32", "pack" + ct, 1, 2)
    c = gen("u32", "pack" + ct, 2, 3)
    n = int(ct[1:])
    lo, hi = (-(1 << (n - 1)), (1 << (n - 1)) - 1) if ct[0] == "s" else (0, (1 << n) - 1)
    sat = lambda v: min(hi, max(lo, int(v))) & ((1 << n) - 1)  # noqa: E731
    if three:
        out = run_inst(dev, f"cvt.pack.sat.{ct}.s32.b32 %d, %a, %b, %c", d="b32", a=("s32", a), b=("s32", b), c=("b32", c))
        want = [((int(z) << (2 * n)) | (sat(x) << n) | sat(y)) & 0xFFFFFFFF for x, y, z in zip(a, b, c)]
    else:
        out = run_inst(dev, f"cvt.pack.sat.{ct}.s32 %d, %a, %b", d="b32", a=("s32", a), b=("s32", b))
        want = [(sat(x) << n) | sat(y) for x, y in zip(a, b)]
    assert [int(o) for o in out] == want


def test_conversions_needing_a_rounding_are_refused_without_one(dev):
    from engine.ptx.errors import UnsupportedInstruction
    z = np.zeros(4, np.float32)
    for inst, d in (("cvt.s32.f32 %d, %a", "s32"), ("cvt.f16.f32 %d, %a", "f16")):
        with pytest.raises(UnsupportedInstruction, match=inst.split()[0].replace(".", r"\.")):
            run_inst(dev, inst, d=d, a=("f32", z))


@pytest.mark.parametrize("name", names("cvt"))
def test_matches_h200(dev, record, name):
    check(dev, record, name)
