"""Reference arithmetic for the instruction tests: exact rationals rounded once to a binary format in any
PTX rounding mode (independent of the engine's C code and of numpy's float rounding), bit-pattern
helpers, ulp distances, and the comparison of a simulated case with its H200 record.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

# (explicit significand bits, exponent bits, has infinities, canonical NaN)
FMT = {"f32": (23, 8, True, 0x7FFFFFFF), "f16": (10, 5, True, 0x7FFF), "bf16": (7, 8, True, 0x7FFF),
       "f64": (52, 11, True, 0x7FFFFFFFFFFFFFFF), "tf32": (10, 8, True, 0x7FFFE000),
       "e4m3": (3, 4, False, 0x7F), "e5m2": (2, 5, True, 0x7F)}
WIDTH = {"f32": 32, "f16": 16, "bf16": 16, "f64": 64, "tf32": 32, "e4m3": 8, "e5m2": 8}


def decode(bits: int, fmt: str):
    """Exact value of an encoding: Fraction, or float inf/nan."""
    mb, eb, has_inf, _ = FMT[fmt]
    smb = 23 if fmt == "tf32" else mb
    bias = (1 << (eb - 1)) - 1
    sign = (bits >> (smb + eb)) & 1
    e = (bits >> smb) & ((1 << eb) - 1)
    man = bits & ((1 << smb) - 1)
    if e == (1 << eb) - 1 and (has_inf or man == (1 << smb) - 1):
        v = math.inf if (has_inf and man == 0) else math.nan
        return -v if sign else v
    if e == 0:
        v = Fraction(man) * Fraction(2) ** (1 - bias - smb)
    else:
        v = Fraction(man | (1 << smb)) * Fraction(2) ** (e - bias - smb)
    return -v if sign else v


def max_finite(fmt: str) -> Fraction:
    mb, eb, has_inf, _ = FMT[fmt]
    bias = (1 << (eb - 1)) - 1
    if not has_inf:
        return Fraction((2 << mb) - 2) * Fraction(2) ** ((1 << eb) - 1 - bias - mb)
    return Fraction((2 << mb) - 1) * Fraction(2) ** ((1 << eb) - 2 - bias - mb)


def encode(v, fmt: str, mode: str = "rn", satfinite: bool = False, neg_zero: bool = False) -> int:
    """Round v (Fraction, int, or float inf/nan) to fmt once, in mode rn/rz/rm/rp/rna."""
    mb, eb, has_inf, nan = FMT[fmt]
    smb = 23 if fmt == "tf32" else mb
    bias = (1 << (eb - 1)) - 1
    emin = 1 - bias
    sbit = 1 << (smb + eb)
    if isinstance(v, float) and math.isnan(v):
        return nan
    neg = (v < 0) or (v == 0 and (neg_zero or (isinstance(v, float) and math.copysign(1, v) < 0)))
    s = sbit if neg else 0
    inf_bits = (((1 << eb) - 1) << smb) if has_inf else nan
    emax_field = (1 << eb) - 2 if has_inf else (1 << eb) - 1
    mmax = (1 << mb) - 1 if has_inf else (1 << mb) - 2
    max_bits = (emax_field << smb) | (mmax << (smb - mb))
    if isinstance(v, float) and math.isinf(v):
        return s | (max_bits if satfinite else inf_bits)
    a = abs(Fraction(v))
    if a == 0:
        return s
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1                                   # now 2^e <= a < 2^(e+1)
    E = max(e, emin)
    q = a * Fraction(2) ** (mb - E)
    n = q.numerator // q.denominator
    frac = q - n
    if mode == "rz":
        up = False
    elif mode == "rm":
        up = neg and frac > 0
    elif mode == "rp":
        up = (not neg) and frac > 0
    elif mode == "rna":
        up = frac >= Fraction(1, 2)
    else:
        up = frac > Fraction(1, 2) or (frac == Fraction(1, 2) and n % 2 == 1)
    r = Fraction(n + up) * Fraction(2) ** (E - mb)
    if r > max_finite(fmt):
        to_inf = mode in ("rn", "rna") or (mode == "rp" and not neg) or (mode == "rm" and neg)
        return s | (inf_bits if (to_inf and not satfinite) else max_bits)
    if r == 0:
        return s
    e2 = r.numerator.bit_length() - r.denominator.bit_length()
    if Fraction(2) ** e2 > r:
        e2 -= 1
    if e2 < emin:
        return s | (int(r * Fraction(2) ** (mb - emin)) << (smb - mb))
    man = int(r * Fraction(2) ** (mb - e2)) - (1 << mb)
    return s | ((e2 + bias) << smb) | (man << (smb - mb))


def bits_of(a: np.ndarray) -> np.ndarray:
    """Unsigned view of a float/int array."""
    return a.view({1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize])


def is_nan_bits(b: int, fmt: str) -> bool:
    v = decode(int(b), fmt)
    return isinstance(v, float) and math.isnan(v)


def is_sub_bits(b: int, fmt: str) -> bool:
    mb, eb, _, _ = FMT[fmt]
    smb = 23 if fmt == "tf32" else mb
    return ((b >> smb) & ((1 << eb) - 1)) == 0 and (b & ((1 << smb) - 1)) != 0


def ftz_bits(b: int, fmt: str) -> int:
    mb, eb, _, _ = FMT[fmt]
    return b & (1 << (mb + eb)) if is_sub_bits(b, fmt) else b


def ordered(bits: np.ndarray, width: int) -> np.ndarray:
    """Map float bit patterns to integers whose difference counts ulps (sign-magnitude to linear)."""
    u = bits.astype(np.int64) if width < 64 else bits.view(np.int64)
    if width == 64:
        return np.where(u < 0, -(u & 0x7FFFFFFFFFFFFFFF), u)
    sign = 1 << (width - 1)
    return np.where(u & sign, -(u & (sign - 1)), u)


def ulp_diff(a_bits: np.ndarray, b_bits: np.ndarray, width: int) -> np.ndarray:
    return np.abs(ordered(a_bits, width) - ordered(b_bits, width))


def halves(v: np.ndarray) -> np.ndarray:
    """The two 16-bit halves of 32-bit values, low halves first."""
    v = v.astype(np.uint32)
    return np.concatenate([v & 0xFFFF, v >> 16]).astype(np.uint16)
