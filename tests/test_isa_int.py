"""Integer and bit instructions: every type PTX allows, compared with Python integer arithmetic on random
values plus edge values (0, +-1, INT_MIN, INT_MAX, all ones), division by zero and INT_MIN / -1,
shifts past the width; and each case of tests/kernels/isa_cases.py against its H200 record."""
import numpy as np
import pytest

from tests.isa import run_inst
from tests.kernels.isa_cases import gen, names
from tests.kernels.isa_hw import check, load_record

BITS = {"u16": 16, "s16": 16, "u32": 32, "s32": 32, "u64": 64, "s64": 64, "b16": 16, "b32": 32, "b64": 64}
TYPES = ("u16", "s16", "u32", "s32", "u64", "s64")


@pytest.fixture(scope="module")
def record():
    return load_record()


def ints(t, name, k=0, n_ops=2, spec=""):
    return gen(t + (":" + spec if spec else ""), "int-" + name, k, n_ops)


def py(a, t):
    """numpy values -> Python ints of type t (signed types signed)"""
    bits = BITS[t]
    out = []
    for v in a.tolist():
        v &= (1 << bits) - 1
        if t.startswith("s") and v >> (bits - 1):
            v -= 1 << bits
        out.append(v)
    return out


def wrap(vals, t):
    """Python ints -> numpy array of type t (wrapped)"""
    bits = BITS[t]
    dt = {16: np.uint16, 32: np.uint32, 64: np.uint64}[bits]
    return np.array([v & ((1 << bits) - 1) for v in vals], dtype=dt).view(
        {"u": dt, "b": dt, "s": {16: np.int16, 32: np.int32, 64: np.int64}[bits]}[t[0]])


def ref_div(a, b, bits, signed, rem):
    if b == 0:
        return -1                                 # all ones (measured on an H200)
    q = abs(a) // abs(b)
    if not signed:
        return a % b if rem else a // b
    if rem:
        return -(abs(a) % abs(b)) if a < 0 else abs(a) % abs(b)
    return -q if (a < 0) != (b < 0) else q       # INT_MIN / -1 wraps when stored


@pytest.mark.parametrize("t", TYPES)
def test_add_sub_mul_lo_hi_wrap(dev, t):
    a, b = ints(t, "ar" + t), ints(t, "ar" + t, 1)
    pa, pb = py(a, t), py(b, t)
    bits = BITS[t]
    for op, f in [("add", lambda x, y: x + y), ("sub", lambda x, y: x - y), ("mul.lo", lambda x, y: x * y),
                  ("mul.hi", lambda x, y: (x * y) >> bits)]:
        out = run_inst(dev, f"{op}.{t} %d, %a, %b", d=t, a=(t, a), b=(t, b))
        assert np.array_equal(out, wrap([f(x, y) for x, y in zip(pa, pb)], t)), op


@pytest.mark.parametrize("t", TYPES)
def test_mad_lo_hi(dev, t):
    a, b, c = ints(t, "mad" + t), ints(t, "mad" + t, 1), ints(t, "mad" + t, 2, 3)
    pa, pb, pc = py(a, t), py(b, t), py(c, t)
    bits = BITS[t]
    lo = run_inst(dev, f"mad.lo.{t} %d, %a, %b, %c", d=t, a=(t, a), b=(t, b), c=(t, c))
    hi = run_inst(dev, f"mad.hi.{t} %d, %a, %b, %c", d=t, a=(t, a), b=(t, b), c=(t, c))
    assert np.array_equal(lo, wrap([x * y + z for x, y, z in zip(pa, pb, pc)], t))
    # .hi: the high half of the product plus c (no carry from the low half)
    assert np.array_equal(hi, wrap([((x * y) >> bits) + z for x, y, z in zip(pa, pb, pc)], t))


@pytest.mark.parametrize("t,w", [("u16", "u32"), ("s16", "s32"), ("u32", "u64"), ("s32", "s64")])
def test_mul_mad_wide(dev, t, w):
    a, b, c = ints(t, "wide" + t), ints(t, "wide" + t, 1), ints(w, "wide" + w, 2, 3)
    pa, pb, pc = py(a, t), py(b, t), py(c, w)
    out = run_inst(dev, f"mul.wide.{t} %d, %a, %b", d=w, a=(t, a), b=(t, b))
    assert np.array_equal(out, wrap([x * y for x, y in zip(pa, pb)], w))
    out = run_inst(dev, f"mad.wide.{t} %d, %a, %b, %c", d=w, a=(t, a), b=(t, b), c=(w, c))
    assert np.array_equal(out, wrap([x * y + z for x, y, z in zip(pa, pb, pc)], w))


@pytest.mark.parametrize("t", TYPES)
def test_div_rem_including_zero_and_overflow(dev, t):
    a, b = ints(t, "div" + t), ints(t, "div" + t, 1)
    bits, signed = BITS[t], t[0] == "s"
    # the edge grid holds b = 0 and (a, b) = (INT_MIN, -1); make sure of both
    assert (b == 0).any()
    if signed:
        assert ((a == np.iinfo(a.dtype).min) & (b == -1)).any()
    pa, pb = py(a, t), py(b, t)
    q = run_inst(dev, f"div.{t} %d, %a, %b", d=t, a=(t, a), b=(t, b))
    r = run_inst(dev, f"rem.{t} %d, %a, %b", d=t, a=(t, a), b=(t, b))
    assert np.array_equal(q, wrap([ref_div(x, y, bits, signed, False) for x, y in zip(pa, pb)], t))
    assert np.array_equal(r, wrap([ref_div(x, y, bits, signed, True) for x, y in zip(pa, pb)], t))
    if signed:
        i = np.nonzero((a == np.iinfo(a.dtype).min) & (b == -1))[0][0]
        assert q[i] == np.iinfo(a.dtype).min and r[i] == 0


@pytest.mark.parametrize("t", TYPES)
def test_min_max_sad_abs_neg(dev, t):
    a, b, c = ints(t, "mm" + t), ints(t, "mm" + t, 1), ints(t, "mm" + t, 2, 3)
    pa, pb, pc = py(a, t), py(b, t), py(c, t)
    assert np.array_equal(run_inst(dev, f"min.{t} %d, %a, %b", d=t, a=(t, a), b=(t, b)), wrap(map(min, pa, pb), t))
    assert np.array_equal(run_inst(dev, f"max.{t} %d, %a, %b", d=t, a=(t, a), b=(t, b)), wrap(map(max, pa, pb), t))
    sad = run_inst(dev, f"sad.{t} %d, %a, %b, %c", d=t, a=(t, a), b=(t, b), c=(t, c))
    assert np.array_equal(sad, wrap([z + abs(x - y) for x, y, z in zip(pa, pb, pc)], t))
    if t[0] == "s":
        assert np.array_equal(run_inst(dev, f"abs.{t} %d, %a", d=t, a=(t, a)), wrap([abs(x) for x in pa], t))
        assert np.array_equal(run_inst(dev, f"neg.{t} %d, %a", d=t, a=(t, a)), wrap([-x for x in pa], t))


def test_saturating_and_relu_s32(dev):
    a, b, c = ints("s32", "sat"), ints("s32", "sat", 1), ints("s32", "sat", 2, 3)
    pa, pb, pc = py(a, "s32"), py(b, "s32"), py(c, "s32")
    clamp = lambda v: max(-2 ** 31, min(2 ** 31 - 1, v))  # noqa: E731
    for inst, f in [("add.sat.s32 %d, %a, %b", lambda x, y, z: clamp(x + y)),
                    ("sub.sat.s32 %d, %a, %b", lambda x, y, z: clamp(x - y)),
                    ("mad.hi.sat.s32 %d, %a, %b, %c", lambda x, y, z: clamp(((x * y) >> 32) + z)),
                    ("max.relu.s32 %d, %a, %b", lambda x, y, z: max(0, max(x, y))),
                    ("min.relu.s32 %d, %a, %b", lambda x, y, z: max(0, min(x, y)))]:
        ins = {"a": ("s32", a), "b": ("s32", b)}
        if "%c" in inst:
            ins["c"] = ("s32", c)
        out = run_inst(dev, inst, d="s32", **ins)
        assert np.array_equal(out, wrap([f(x, y, z) for x, y, z in zip(pa, pb, pc)], "s32")), inst


@pytest.mark.parametrize("t", ["u32", "u64"])
def test_carry_chain_multiword_add_and_sub(dev, t):
    """A 2-word add (add.cc + addc) and subtract (sub.cc + subc) equal Python's wide arithmetic."""
    bits = BITS[t]
    a0, a1, b0, b1 = (ints(t, "cc" + t, k, 4) for k in range(4))
    body = (f"add.cc.{t} %d, %a, %c;\n  addc.cc.{t} %e, %b, %e;\n  addc.{t} %e, 0, 0;\n"
            f"  shl.b{bits} %e, %e, {bits - 1};\n  xor.b{bits} %d, %d, %e")
    # pack the final carry into the top bit of the low word (the harness stores one register)
    lo = run_inst(dev, body, d=t, a=(t, a0), b=(t, a1), c=(t, b0), e=(t, b1))
    A = [x | (y << bits) for x, y in zip(py(a0, t), py(a1, t))]
    B = [x | (y << bits) for x, y in zip(py(b0, t), py(b1, t))]
    ref = [((s & ((1 << bits) - 1)) ^ ((s >> (2 * bits)) << (bits - 1))) for s in (x + y for x, y in zip(A, B))]
    assert np.array_equal(lo, wrap(ref, t))
    hi = run_inst(dev, f"sub.cc.{t} %d, %a, %c;\n  subc.{t} %d, %b, %e", d=t, a=(t, a0), b=(t, a1), c=(t, b0), e=(t, b1))
    assert np.array_equal(hi, wrap([((x - y) >> bits) for x, y in zip(A, B)], t))


def test_madc_chain_full_product(dev):
    """mad.lo.cc + madc.hi: a*b + c as a 64-bit value from 32-bit halves."""
    a, b, c = ints("u32", "madc"), ints("u32", "madc", 1), ints("u32", "madc", 2, 3)
    hi = run_inst(dev, "mad.lo.cc.u32 %d, %a, %b, %c;\n  madc.hi.u32 %d, %a, %b, 0", d="u32",
                  a=("u32", a), b=("u32", b), c=("u32", c))
    ref = [((x * y + z) >> 32) for x, y, z in zip(py(a, "u32"), py(b, "u32"), py(c, "u32"))]
    assert np.array_equal(hi, wrap(ref, "u32"))


@pytest.mark.parametrize("t", ["u32", "s32"])
def test_mul24_mad24(dev, t):
    a, b, c = ints(t, "m24" + t), ints(t, "m24" + t, 1), ints(t, "m24" + t, 2, 3)
    s = t == "s32"
    low = [((x & 0xFFFFFF) ^ (0x800000 if s else 0)) - (0x800000 if s else 0) for x in py(a, "u32")]
    lowb = [((x & 0xFFFFFF) ^ (0x800000 if s else 0)) - (0x800000 if s else 0) for x in py(b, "u32")]
    p = [x * y for x, y in zip(low, lowb)]
    out = run_inst(dev, f"mul24.lo.{t} %d, %a, %b", d=t, a=(t, a), b=(t, b))
    assert np.array_equal(out, wrap(p, t))
    out = run_inst(dev, f"mul24.hi.{t} %d, %a, %b", d=t, a=(t, a), b=(t, b))
    assert np.array_equal(out, wrap([v >> 16 for v in p], t))
    out = run_inst(dev, f"mad24.lo.{t} %d, %a, %b, %c", d=t, a=(t, a), b=(t, b), c=(t, c))
    assert np.array_equal(out, wrap([v + z for v, z in zip(p, py(c, t))], t))


@pytest.mark.parametrize("t", ["b16", "b32", "b64"])
def test_logic_and_shifts(dev, t):
    bits = BITS[t]
    u = "u" + t[1:]
    a, b = ints(u, "lg" + t), ints(u, "lg" + t, 1)
    n = ints("u32", "lg" + t, 2, spec="shift")
    pa, pb, pn = py(a, u), py(b, u), py(n, "u32")
    M = (1 << bits) - 1
    for op, f in [("and", lambda x, y: x & y), ("or", lambda x, y: x | y), ("xor", lambda x, y: x ^ y)]:
        assert np.array_equal(run_inst(dev, f"{op}.{t} %d, %a, %b", d=t, a=(t, a), b=(t, b)), wrap(map(f, pa, pb), t))
    assert np.array_equal(run_inst(dev, f"not.{t} %d, %a", d=t, a=(t, a)), wrap([~x for x in pa], t))
    assert np.array_equal(run_inst(dev, f"cnot.{t} %d, %a", d=t, a=(t, a)), wrap([int(x == 0) for x in pa], t))
    shl = run_inst(dev, f"shl.{t} %d, %a, %b", d=t, a=(t, a), b=("u32", n))
    assert np.array_equal(shl, wrap([(x << k) & M if k < bits else 0 for x, k in zip(pa, pn)], t))
    shr = run_inst(dev, f"shr.u{bits} %d, %a, %b", d=u, a=(u, a), b=("u32", n))
    assert np.array_equal(shr, wrap([x >> k if k < bits else 0 for x, k in zip(pa, pn)], u))
    s = "s" + t[1:]
    sa = py(a, s)
    sar = run_inst(dev, f"shr.{s} %d, %a, %b", d=s, a=(s, a.view(wrap([0], s).dtype)), b=("u32", n))
    assert np.array_equal(sar, wrap([x >> min(k, bits - 1) for x, k in zip(sa, pn)], s))


@pytest.mark.parametrize("t", ["b32", "b64"])
def test_popc_clz_brev(dev, t):
    bits = BITS[t]
    a = ints("u" + t[1:], "pc" + t, n_ops=1)
    pa = py(a, "u" + t[1:])
    assert np.array_equal(run_inst(dev, f"popc.{t} %d, %a", d="u32", a=(t, a)), np.array([bin(x).count("1") for x in pa], np.uint32))
    assert np.array_equal(run_inst(dev, f"clz.{t} %d, %a", d="u32", a=(t, a)), np.array([bits - x.bit_length() for x in pa], np.uint32))
    rev = [int(format(x, f"0{bits}b")[::-1], 2) for x in pa]
    assert np.array_equal(run_inst(dev, f"brev.{t} %d, %a", d=t, a=(t, a)), wrap(rev, "u" + t[1:]))


@pytest.mark.parametrize("t", ["u32", "s32", "u64", "s64"])
def test_bfind(dev, t):
    bits = BITS[t]
    a = ints(t, "bf" + t, n_ops=1)
    ref, amt = [], []
    for x in py(a, t):
        v = ~x if x < 0 else x                    # signed: the most significant bit unlike the sign
        pos = v.bit_length() - 1
        ref.append(0xFFFFFFFF if v == 0 else pos)
        amt.append(0xFFFFFFFF if v == 0 else bits - 1 - pos)
    assert np.array_equal(run_inst(dev, f"bfind.{t} %d, %a", d="u32", a=(t, a)), np.array(ref, np.uint32))
    assert np.array_equal(run_inst(dev, f"bfind.shiftamt.{t} %d, %a", d="u32", a=(t, a)), np.array(amt, np.uint32))


@pytest.mark.parametrize("t", ["u32", "s32", "u64", "s64"])
def test_bfe(dev, t):
    bits = BITS[t]
    a = ints(t, "bfe" + t, n_ops=1)
    pos, ln = ints("u32", "bfe" + t, 1, spec="pos"), ints("u32", "bfe" + t, 2, spec="pos")
    out = run_inst(dev, f"bfe.{t} %d, %a, %b, %c", d=t, a=(t, a), b=("u32", pos), c=("u32", ln))
    ref = []
    fm = 0xFF if bits == 32 else 0xFFFFFFFF          # 64-bit forms use the whole fields (measured)
    for x, p, n in zip(py(a, "u" + t[1:]), py(pos, "u32"), py(ln, "u32")):
        p, n = p & fm, n & fm
        if n == 0:
            ref.append(0)
            continue
        sbit = (x >> min(p + n - 1, bits - 1)) & 1 if t[0] == "s" else 0
        r = 0
        for i in range(bits):
            r |= ((x >> (p + i)) & 1 if (i < n and p + i < bits) else sbit) << i
        ref.append(r)
    assert np.array_equal(out.view(wrap([0], "u" + t[1:]).dtype), wrap(ref, "u" + t[1:]))


@pytest.mark.parametrize("t", ["b32", "b64"])
def test_bfi(dev, t):
    bits = BITS[t]
    u = "u" + t[1:]
    a, b = ints(u, "bfi" + t), ints(u, "bfi" + t, 1)
    pos, ln = ints("u32", "bfi" + t, 2, spec="pos"), ints("u32", "bfi" + t, 3, spec="pos")
    out = run_inst(dev, f"bfi.{t} %d, %a, %b, %c, %e", d=t, a=(t, a), b=(t, b), c=("u32", pos), e=("u32", ln))
    fm = 0xFF if bits == 32 else 0xFFFFFFFF
    ref = []
    for x, y, p, n in zip(py(a, u), py(b, u), py(pos, "u32"), py(ln, "u32")):
        p, n = p & fm, n & fm
        for i in range(n):
            if p + i >= bits:
                break
            y = (y & ~(1 << (p + i))) | (((x >> i) & 1) << (p + i))
        ref.append(y)
    assert np.array_equal(out, wrap(ref, u))


def test_prmt_all_modes(dev):
    a, b = ints("u32", "prmt"), ints("u32", "prmt", 1)
    c = ints("u32", "prmt", 2, 3)
    tables = {"f4e": [[0, 1, 2, 3], [1, 2, 3, 4], [2, 3, 4, 5], [3, 4, 5, 6]],
              "b4e": [[0, 7, 6, 5], [1, 0, 7, 6], [2, 1, 0, 7], [3, 2, 1, 0]],
              "rc8": [[0] * 4, [1] * 4, [2] * 4, [3] * 4],
              "ecl": [[0, 1, 2, 3], [1, 1, 2, 3], [2, 2, 2, 3], [3, 3, 3, 3]],
              "ecr": [[0, 0, 0, 0], [0, 1, 1, 1], [0, 1, 2, 2], [0, 1, 2, 3]],
              "rc16": [[0, 1, 0, 1], [2, 3, 2, 3], [0, 1, 0, 1], [2, 3, 2, 3]]}
    pa, pb, pc = py(a, "u32"), py(b, "u32"), py(c, "u32")
    for mode in [None] + list(tables):
        inst = "prmt.b32" + (f".{mode}" if mode else "") + " %d, %a, %b, %c"
        out = run_inst(dev, inst, d="b32", a=("b32", a), b=("b32", b), c=("b32", c))
        ref = []
        for x, y, s in zip(pa, pb, pc):
            v = x | (y << 32)
            r = 0
            for i in range(4):
                if mode is None:
                    sel = (s >> (4 * i)) & 0xF
                    byte = (v >> (8 * (sel & 7))) & 0xFF
                    if sel & 8:
                        byte = 0xFF if byte & 0x80 else 0
                else:
                    byte = (v >> (8 * tables[mode][s & 3][i])) & 0xFF
                r |= byte << (8 * i)
            ref.append(r)
        assert np.array_equal(out, np.array(ref, np.uint32)), mode


@pytest.mark.parametrize("lut", [0x96, 0xE8, 0x1E, 0x00, 0xFF, 0xCA])
def test_lop3(dev, lut):
    a, b, c = ints("u32", "lop"), ints("u32", "lop", 1), ints("u32", "lop", 2, 3)
    out = run_inst(dev, f"lop3.b32 %d, %a, %b, %c, {lut}", d="b32", a=("b32", a), b=("b32", b), c=("b32", c))
    ref = np.zeros_like(a)
    for i in range(8):
        if lut >> i & 1:
            ref |= (a if i & 4 else ~a) & (b if i & 2 else ~b) & (c if i & 1 else ~c)
    assert np.array_equal(out, ref)


@pytest.mark.parametrize("mode", ["l.wrap", "r.wrap", "l.clamp", "r.clamp"])
def test_shf(dev, mode):
    a, b = ints("u32", "shf"), ints("u32", "shf", 1)
    n = ints("u32", "shf", 2, spec="shift")
    out = run_inst(dev, f"shf.{mode}.b32 %d, %a, %b, %c", d="b32", a=("b32", a), b=("b32", b), c=("u32", n))
    ref = []
    for x, y, k in zip(py(a, "u32"), py(b, "u32"), py(n, "u32")):
        k = min(k, 32) if "clamp" in mode else k & 31
        v = x | (y << 32)
        ref.append(((v << k) >> 32) & 0xFFFFFFFF if mode[0] == "l" else (v >> k) & 0xFFFFFFFF)
    assert np.array_equal(out, np.array(ref, np.uint32))


def test_fns(dev):
    m = ints("u32", "fns")
    base = ints("u32", "fns", 1, spec="pos") % 40
    off = ints("s32", "fns", 2, spec="small")
    out = run_inst(dev, "fns.b32 %d, %a, %b, %c", d="b32", a=("b32", m), b=("u32", base), c=("s32", off))
    ref = []
    for mask, bs, o in zip(py(m, "u32"), py(base, "u32"), py(off, "s32")):
        r = 0xFFFFFFFF
        if o == 0:
            if bs < 32 and mask >> bs & 1:
                r = bs
        else:
            cnt, step, pos = abs(o) - 1, 1 if o > 0 else -1, bs
            while 0 <= pos < 32:
                if mask >> pos & 1:
                    if cnt == 0:
                        r = pos
                        break
                    cnt -= 1
                pos += step
        ref.append(r)
    assert np.array_equal(out, np.array(ref, np.uint32))


@pytest.mark.parametrize("ta,tb", [("u32", "u32"), ("s32", "u32"), ("u32", "s32"), ("s32", "s32")])
def test_dp4a_dp2a(dev, ta, tb):
    a, b, c = ints("u32", "dp" + ta + tb), ints("u32", "dp" + ta + tb, 1), ints("u32", "dp" + ta + tb, 2, 3)
    dt = "s32" if "s32" in (ta, tb) else "u32"

    def part(v, i, w, s):
        x = (v >> (w * i)) & ((1 << w) - 1)
        return x - (1 << w) if s and x >> (w - 1) else x
    pa, pb, pc = py(a, "u32"), py(b, "u32"), py(c, "u32")
    out = run_inst(dev, f"dp4a.{ta}.{tb} %d, %a, %b, %c", d=dt, a=(ta, a.view(np.int32) if ta == "s32" else a),
                   b=(tb, b.view(np.int32) if tb == "s32" else b), c=(dt, c.view(np.int32) if dt == "s32" else c))
    ref = [z + sum(part(x, i, 8, ta[0] == "s") * part(y, i, 8, tb[0] == "s") for i in range(4)) for x, y, z in zip(pa, pb, pc)]
    assert np.array_equal(out.view(np.uint32), wrap(ref, "u32"))
    for half, base in (("lo", 0), ("hi", 2)):
        out = run_inst(dev, f"dp2a.{half}.{ta}.{tb} %d, %a, %b, %c", d=dt, a=(ta, a.view(np.int32) if ta == "s32" else a),
                       b=(tb, b.view(np.int32) if tb == "s32" else b), c=(dt, c.view(np.int32) if dt == "s32" else c))
        ref = [z + sum(part(x, i, 16, ta[0] == "s") * part(y, base + i, 8, tb[0] == "s") for i in range(2))
               for x, y, z in zip(pa, pb, pc)]
        assert np.array_equal(out.view(np.uint32), wrap(ref, "u32")), half


def test_pred_logic(dev, rng):
    a = rng.integers(0, 2, 300).astype(np.uint8)
    b = rng.integers(0, 2, 300).astype(np.uint8)
    for op, f in [("and", np.logical_and), ("or", np.logical_or), ("xor", np.logical_xor)]:
        p = run_inst(dev, f"{op}.pred %p, %a, %b", pred_out=True, a=("pred", a), b=("pred", b))
        assert np.array_equal(p, f(a, b)), op
    assert np.array_equal(run_inst(dev, "not.pred %p, %a", pred_out=True, a=("pred", a)), a == 0)
    assert np.array_equal(run_inst(dev, "cnot.pred %p, %a", pred_out=True, a=("pred", a)), a == 0)


def test_unsupported_integer_form_is_refused_by_name(dev):
    from engine.ptx.errors import UnsupportedInstruction
    z = np.zeros(4, np.int16)
    with pytest.raises(UnsupportedInstruction, match=r"unsupported instruction 'max\.relu\.s16'"):
        run_inst(dev, "max.relu.s16 %d, %a, %b", d="s16", a=("s16", z), b=("s16", z))   # .relu: s32 only


@pytest.mark.parametrize("name", names("int"))
def test_matches_h200(dev, record, name):
    check(dev, record, name)
