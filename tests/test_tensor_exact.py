"""Tensor cores in the simulator, bit for bit: wgmma (every form, swizzle and major-ness), mma.sync and
wmma against a numpy model of the engine's documented numerics (engine/csrc/tensor.h), on ordinary
inputs and on inputs full of edge values (infinities, NaNs, subnormals, signed zeros, overflowing
magnitudes).

The model: every input is decoded exactly to float64, the accumulator too (+0.0 when scale-d is 0);
then, for k = 0 .. K-1 in order, acc = acc + (sa * a[:, k]) * (sb * b[k, :]) in float64 (each product
is exact; each addition rounds once); the result rounds to f32 (nearest even), to f16 through f32, or
wraps / clamps to s32. A NaN result is the canonical NaN (0x7fffffff, 0x7fff). tests/test_tensor.py
checks the same kernels against exact references with a tolerance (and on an H200 through CuPy); this
file pins the simulator's exact bits, which scripts/compare_engines.py relies on when the functional
core is made faster.
"""
import numpy as np
import pytest

from tests.backends import BACKEND, dev, load_kernels  # noqa: F401
from tests import test_tensor as tt

pytestmark = pytest.mark.skipif(BACKEND == "cupy", reason="the simulator's own rounding, bit for bit")

EDGE = {
    "f16": [0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x7BFF, 0xFBFF, 0x7C00, 0xFC00, 0x7E00, 0x7D01, 0x3C00,
            0xBC00, 0x0400, 0x3555, 0x5BFF],
    "bf16": [0x0000, 0x8000, 0x0001, 0x807F, 0x7F7F, 0xFF7F, 0x7F80, 0xFF80, 0x7FC0, 0x7F81, 0x3F80, 0xBF80,
             0x0080, 0x3EAB, 0x7000, 0x1000],
    "tf32": [0x00000000, 0x80000000, 0x00002000, 0x7F7FE000, 0xFF7FE000, 0x7F800000, 0xFF800000, 0x7FC00000,
             0x7F802000, 0x3F800000, 0xBF800000, 0x00800000, 0x3EAAA000, 0x71000000, 0x0F000000, 0x3F801FFF],
}
UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32}


def decode(bits, t):
    """Exact float64 values of element bit patterns of type t (NaN where the format has one)."""
    with np.errstate(invalid="ignore"):              # signalling NaNs widen quietly
        return _decode(np.asarray(bits), t)


def _decode(b, t):
    if t == "f16":
        return b.view(np.uint16).view(np.float16).astype(np.float64)
    if t == "bf16":
        return (b.view(np.uint16).astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    if t == "tf32":
        return (b.view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32).astype(np.float64)
    if t == "f32":
        return b.view(np.uint32).view(np.float32).astype(np.float64)
    if t == "e4m3":
        u = b.view(np.uint8)
        v = tt._e4m3_table()[u]
        return np.where((u & 0x7F) == 0x7F, np.nan, v)
    if t == "e5m2":
        return (b.view(np.uint8).astype(np.uint16) << 8).view(np.float16).astype(np.float64)
    if t == "s8":
        return b.view(np.int8).astype(np.float64)
    if t == "u8":
        return b.view(np.uint8).astype(np.float64)
    raise ValueError(t)


def with_edges(rng, bits, t, mode="edges"):
    """A copy of `bits` with about half of its elements replaced by edge values of type t (mode "edges"),
    or with every element a random bit pattern (mode "bits": magnitudes 2^60 apart, so that the double
    sums round and their order shows)."""
    out = np.array(bits, copy=True)
    flat = out.reshape(-1).view(UINT[out.itemsize])
    if mode == "bits":
        flat[:] = rng.integers(0, 2**(8 * out.itemsize), flat.size, dtype=np.uint64).astype(flat.dtype)
        return out
    pool = np.array(EDGE[t], np.uint64) if t in EDGE else np.arange(256, dtype=np.uint64)
    pick = rng.random(flat.size) < 0.5
    flat[pick] = pool[rng.integers(0, len(pool), int(pick.sum()))].astype(flat.dtype)
    return out


def model(a, b, c, sa=1.0, sb=1.0):
    """The engine's sum: acc + a[:, 0] b[0, :] + a[:, 1] b[1, :] + ..., in float64, in that order."""
    acc = np.array(c, np.float64, copy=True)
    with np.errstate(all="ignore"):
        for k in range(a.shape[1]):
            acc = acc + (sa * a[:, k:k + 1]) * (sb * b[k:k + 1, :])
    return acc


def rounded_bits(acc, t, satfinite=False):
    """The result registers' bit patterns: f32 / f16 (through f32) with canonical NaNs, or s32."""
    with np.errstate(all="ignore"):
        if t == "f32":
            u = acc.astype(np.float32).view(np.uint32).copy()
            u[np.isnan(acc)] = 0x7FFFFFFF
            return u
        if t == "f16":
            u = acc.astype(np.float32).astype(np.float16).view(np.uint16).copy()
            u[np.isnan(acc)] = 0x7FFF
            return u
    s = acc.astype(np.int64)
    if satfinite:
        return np.clip(s, -2**31, 2**31 - 1).astype(np.int32).view(np.uint32)
    return s.astype(np.uint32)


def same_bits(got, want, what):
    got, want = np.asarray(got), np.asarray(want)
    bad = got != want
    assert not bad.any(), (f"{what}: {int(bad.sum())} of {bad.size} differ; first at {np.argwhere(bad)[0]}: "
                           f"got {int(got[bad][0]):#x}, want {int(want[bad][0]):#x}")


# ---------------------------------------------------------------- wgmma

@pytest.mark.parametrize("edges", [None, "edges", "bits"])
@pytest.mark.parametrize("name", sorted(tt.WG_FORMS))
def test_wgmma_bit_exact(dev, rng, name, edges):
    at, bt, dt, N, a_regs, ta, tb, sa, sb = tt.WG_FORMS[name]
    es = tt.ES[at]
    K = 32 // es
    m = load_kernels(dev, "tensor_wgmma.sm90a")
    packed = dt == "f16"
    nd = N // 4 if packed else N // 2
    amap = tt._wg_acc_map(packed)
    tid_i = [(tid, i) for tid in range(128) for i in range(nd)]
    rc = np.array([amap(tid, i) for tid, i in tid_i]).reshape(128, nd, 2)
    for swa, swb, scale_d in [(0, 1, 1), (1, 2, 0), (2, 3, 1), (3, 0, 1), (1, 1, 1)]:
        _, abits = tt._wg_inputs(rng, at, (64, K))
        _, bbits = tt._wg_inputs(rng, bt, (K, N))
        if edges:
            abits, bbits = with_edges(rng, abits, at, edges), with_edges(rng, bbits, bt, edges)
        if dt == "s32":
            cbits = rng.integers(-2**31, 2**31, (64, N)).astype(np.int32).view(np.uint32)
            cval = cbits.view(np.int32).astype(np.float64)
        elif edges:                      # any bit pattern of the accumulator type
            ct_np = np.uint16 if packed else np.uint32
            cbits = rng.integers(0, 2**(16 if packed else 32), (64, N), dtype=np.uint64).astype(ct_np)
            cval = decode(cbits, "f16") if packed else decode(cbits, "f32")
        else:
            cval = rng.uniform(-1, 1, (64, N)).astype(np.float16 if packed else np.float32)
            cbits = cval.view(np.uint16 if packed else np.uint32)
            cval = cval.astype(np.float64)
        offa, desca = tt.canonical_layout(ta, swa, 64, K, es)
        offb, descb = tt.canonical_layout(tb, swb, N, K, es)
        cb = cbits.astype(np.uint64)
        r, col = rc[..., 0], rc[..., 1]
        cregs = (cb[r, col] | (cb[r, col + 1] << np.uint64(16)) if packed else cb[r, col]).astype(np.uint32)
        aregs = tt._wg_a_regs(abits, at) if a_regs else np.zeros((128, 4), np.uint32)
        dbuf = dev.alloc(128 * nd, np.uint32)
        args = [dev.to_device(abits), dev.to_device(bbits), dev.to_device(aregs),
                dev.to_device(offa.reshape(-1)), dev.to_device(offb.T.reshape(-1)), desca, descb,
                dev.to_device(np.ascontiguousarray(cregs)), dbuf, scale_d]
        dev.launch(m.kernel(name), 1, 128, args, shared=1024 + 16384 + 32768)
        dregs = dev.from_device(dbuf).reshape(128, nd).astype(np.uint64)
        want = rounded_bits(model(decode(abits, at), decode(bbits, bt), cval if scale_d else np.zeros((64, N)),
                                  sa, sb), dt)
        if packed:
            got = np.zeros((64, N), np.uint16)
            got[r, col] = (dregs & 0xFFFF).astype(np.uint16)
            got[r, col + 1] = (dregs >> np.uint64(16)).astype(np.uint16)
        else:
            got = np.zeros((64, N), np.uint32)
            got[r, col] = dregs.astype(np.uint32)
        same_bits(got, want, f"{name} swizzles {swa}/{swb} scale-d {scale_d}")


# ---------------------------------------------------------------- mma.sync

@pytest.mark.parametrize("edges", [None, "edges", "bits"])
@pytest.mark.parametrize("name", sorted(tt.MMA))
def test_mma_bit_exact(dev, rng, name, edges):
    K, at, bt, ct, amap, na, bmap, nb = tt.MMA[name]
    P = 4
    A, B, C, want = [], [], [], []
    for p in range(P):
        _, abits = tt.mma_inputs(rng, at, (16, K))
        _, bbits = tt.mma_inputs(rng, bt, (K, 8))
        if edges:
            abits, bbits = with_edges(rng, abits, at, edges), with_edges(rng, bbits, bt, edges)
        if ct == "s32":
            c = rng.integers(-2**31, 2**31, (16, 8)).astype(np.int32)
        else:
            c = rng.uniform(-1, 1, (16, 8)).astype(tt.NP_ACC[ct])
        A.append(tt.pack(abits, at, amap, na))
        B.append(tt.pack(bbits, bt, bmap, nb))
        C.append(tt.pack(c, ct, tt._acc, 4))
        want.append(rounded_bits(model(decode(abits, at), decode(bbits, bt), c.astype(np.float64)), ct,
                                 satfinite="s8_u8" in name))
    nd = 4 * tt.BITS[ct] // 32
    dbuf = dev.alloc(P * 32 * nd, np.uint32)
    dev.launch(load_kernels(dev, "tensor_mma.sm90").kernel(name), P, 32,
               [dev.to_device(np.concatenate(q)) for q in (A, B, C)] + [dbuf])
    dregs = dev.from_device(dbuf).reshape(P, 32, nd)
    for p in range(P):
        same_bits(tt.unpack(dregs[p], ct, tt._acc, 4, (16, 8)), want[p], f"{name} problem {p}")


# ---------------------------------------------------------------- wmma

@pytest.mark.parametrize("edges", [None, "edges", "bits"])
@pytest.mark.parametrize("shape,it,acc,lay", tt.WMMA)
def test_wmma_bit_exact(dev, rng, shape, it, acc, lay, edges):
    M, N, K = tt.SHAPES[shape]
    _, abits = tt.inputs(rng, it, (M, K))
    _, bbits = tt.inputs(rng, it, (K, N))
    abits, bbits = np.array(abits), np.array(bbits)
    if it == "tf32":
        abits, bbits = abits.view(np.uint32), bbits.view(np.uint32)
    if edges:
        abits, bbits = with_edges(rng, abits, it, edges), with_edges(rng, bbits, it, edges)
    if acc == "s32":
        c = rng.integers(-2**31, 2**31, (M, N)).astype(np.int32)
    else:
        c = rng.uniform(-1, 1, (M, N)).astype(tt.NP_ACC[acc])
    arow, brow = lay[0] == "r", lay[1] == "r"
    crow, drow = bool(rng.integers(2)), bool(rng.integers(2))
    lda, ldb = (K if arow else M) + 8, (N if brow else K) + 8
    ldc, ldd = (N if crow else M) + 4, (N if drow else M) + 8
    bufs = [tt.store(abits, arow, lda, abits.dtype.type(0)), tt.store(bbits, brow, ldb, bbits.dtype.type(0)),
            tt.store(c, crow, ldc, c.dtype.type(0))]
    dbuf = dev.to_device(tt.store(np.zeros((M, N), c.dtype), drow, ldd, 0))
    dev.launch(load_kernels(dev, "tensor_wmma.sm90").kernel(f"wmma_{shape}_{it}_{acc}_{lay}"), 1, 32,
               [dev.to_device(q) for q in bufs] + [dbuf, lda, ldb, ldc, ldd, int(crow), int(drow)])
    got = tt.load(dev.from_device(dbuf), (M, N), drow, ldd)
    got = got.view({"f32": np.uint32, "f16": np.uint16, "s32": np.uint32}[acc])
    want = rounded_bits(model(decode(abits, it), decode(bbits, it), c.astype(np.float64)), acc)
    same_bits(got, want, f"wmma {shape} {it} {acc} {lay}")
