"""Tensor cores: wmma (every shape, type and layout), mma.sync (the PTX register fragments exactly),
ldmatrix/stmatrix, and Hopper's wgmma with shared-memory descriptors (every swizzle, both
major-nesses) or A in registers.

Kernels: tests/kernels/tensor_wmma.cu, tensor_mma.cu (sm_90) and tensor_wgmma.cu (sm_90a, generated
by tensor_wgmma_gen.py). References are float64 numpy on the exact input values.

Tolerances. Every product of two f16/bf16/tf32/fp8 inputs is exact in f32 and in double. The simulator
sums one instruction's products and accumulator exactly (in double) and rounds once, so an f32 result
is the correctly rounded exact value: we allow 1 ulp of the result (SIM_ULPS). Hardware tensor cores
align and truncate the addends to about f32 precision of the largest one, so their error is bounded by
a few units of 2^-23 times the magnitude sum |A||B| + |C|; HW_REL = 2^-19 covers K = 16 products and
the accumulator with margin. f16 accumulators: the simulator rounds the f32 result once more to f16
(1 f16 ulp); hardware accumulates at f16 precision, bounded by 2^-9 of the magnitude. wgmma with fp8
inputs sums with about 13 bits on an H200 (HW_REL_FP8_WGMMA = 2^-11). All of this was run on an H200
through the CuPy backend (tests/backends.py): every hardware result was within these bounds.
"""
import numpy as np
import pytest

from tests.backends import BACKEND, dev, load_kernels, sim_only  # noqa: F401

HW_REL = 2.0**-19
HW_REL_F16 = 2.0**-9
HW_REL_FP8_WGMMA = 2.0**-11    # seen on an H200: wgmma's fp8 path keeps about 13 bits while summing


# ---------------------------------------------------------------- number formats

def bf16_bits(x):
    """float32 -> bfloat16 bit patterns, round to nearest even."""
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def bf16_val(b):
    return (np.asarray(b, np.uint16).astype(np.uint32) << 16).view(np.float32)


def tf32(x):
    """float32 values rounded to tf32 (10 mantissa bits), as float32."""
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0xFFF + ((u >> 13) & 1)) & 0xFFFFE000).astype(np.uint32).view(np.float32)


def inputs(rng, t, shape):
    """Random inputs of type t: (values as float64 for the reference, bits to upload)."""
    if t == "f16":
        v = rng.uniform(-1, 1, shape).astype(np.float16)
        return v.astype(np.float64), v
    if t == "bf16":
        b = bf16_bits(rng.uniform(-1, 1, shape))
        return bf16_val(b).astype(np.float64), b
    if t == "tf32":
        v = tf32(rng.uniform(-1, 1, shape))
        return v.astype(np.float64), v
    if t == "s8":
        v = rng.integers(-128, 128, shape).astype(np.int8)
        return v.astype(np.float64), v
    if t == "u8":
        v = rng.integers(0, 256, shape).astype(np.uint8)
        return v.astype(np.float64), v
    raise ValueError(t)


def check_acc(got, ref, mag, acc, hw_rel=None):
    """got (kernel output) against ref (float64 exact) with the tolerances in the module docstring."""
    got = np.asarray(got, np.float64)
    if acc == "s32":
        assert np.array_equal(got, ref)
        return
    if BACKEND != "cupy":
        dt = np.float16 if acc == "f16" else np.float32
        ulp = np.spacing(np.abs(ref).astype(dt)).astype(np.float64)
        bad = np.abs(got - ref) > ulp
    else:
        rel = hw_rel or (HW_REL_F16 if acc == "f16" else HW_REL)
        bad = np.abs(got - ref) > rel * mag + 1e-30
    assert not bad.any(), f"{bad.sum()} of {bad.size} off; worst {np.abs(got - ref).max():.3g}"


def store(mat, row, ld, pad):
    """A matrix laid out row- or column-major with leading dimension ld; padding holds `pad`."""
    r, c = mat.shape
    outer, inner = (r, c) if row else (c, r)
    buf = np.full((outer, ld), pad, mat.dtype)
    buf[:, :inner] = mat if row else mat.T
    return buf.reshape(-1)


def load(buf, shape, row, ld):
    r, c = shape
    m = buf.reshape(-1, ld)[:, :(c if row else r)]
    return m if row else m.T


# ---------------------------------------------------------------- wmma

SHAPES = {"m16n16k16": (16, 16, 16), "m32n8k16": (32, 8, 16), "m8n32k16": (8, 32, 16), "m16n16k8": (16, 16, 8)}
NP_ACC = {"f32": np.float32, "f16": np.float16, "s32": np.int32}
WMMA = [(s, i, a, lay) for s in ("m16n16k16", "m32n8k16", "m8n32k16")
        for i, a in (("f16", "f32"), ("f16", "f16"), ("bf16", "f32")) for lay in ("rr", "rc", "cr", "cc")]
WMMA += [("m16n16k8", "tf32", "f32", lay) for lay in ("rr", "rc", "cr", "cc")]
WMMA += [("m16n16k16", "s8", "s32", "rc"), ("m32n8k16", "u8", "s32", "rr"), ("m8n32k16", "s8", "s32", "cc")]


@pytest.mark.parametrize("shape,it,acc,lay", WMMA)
def test_wmma_shapes_types_layouts(dev, rng, shape, it, acc, lay):
    M, N, K = SHAPES[shape]
    a, abits = inputs(rng, it, (M, K))
    b, bbits = inputs(rng, it, (K, N))
    if acc == "s32":
        c = rng.integers(-2**20, 2**20, (M, N)).astype(np.int32)
    else:
        c = rng.uniform(-1, 1, (M, N)).astype(NP_ACC[acc])
    arow, brow = lay[0] == "r", lay[1] == "r"
    crow, drow = bool(rng.integers(2)), bool(rng.integers(2))
    lda = (K if arow else M) + 8                     # padded strides, in elements
    ldb = (N if brow else K) + 8
    ldc, ldd = (N if crow else M) + 4, (N if drow else M) + 8
    pad_in = np.float16(np.nan) if it == "f16" else (0x7FC0 if it == "bf16" else (np.nan if it == "tf32" else 77))
    bufs = [store(abits, arow, lda, pad_in), store(bbits, brow, ldb, pad_in),
            store(c, crow, ldc, c.dtype.type(0) if acc == "s32" else np.nan)]
    dbuf = dev.to_device(store(np.zeros((M, N), c.dtype), drow, ldd, 0))
    kname = f"wmma_{shape}_{it}_{acc}_{lay}"
    dev.launch(load_kernels(dev, "tensor_wmma.sm90").kernel(kname), 1, 32,
               [dev.to_device(q) for q in bufs] + [dbuf, lda, ldb, ldc, ldd, int(crow), int(drow)])
    d = load(dev.from_device(dbuf), (M, N), drow, ldd)
    ref = a @ b + c.astype(np.float64)
    check_acc(d, ref, np.abs(a) @ np.abs(b) + np.abs(c.astype(np.float64)), acc)
    pad = dev.from_device(dbuf).reshape(-1, ldd)[:, (N if drow else M):]
    assert (pad == 0).all(), "wmma.store wrote outside the matrix"


def test_wmma_shared_memory_two_steps_and_fragment_math(dev, rng):
    a, abits = inputs(rng, "f16", (16, 32))
    b, bbits = inputs(rng, "f16", (32, 16))
    c = rng.uniform(-1, 1, (16, 16)).astype(np.float32)
    ldd = 24
    d = dev.to_device(np.zeros(16 * ldd, np.float32))
    dev.launch(load_kernels(dev, "tensor_wmma.sm90").kernel("wmma_smem_two_steps"), 1, 32,
               [dev.to_device(abits), dev.to_device(np.ascontiguousarray(bbits.T)), dev.to_device(c), d, -0.5, ldd])
    got = load(dev.from_device(d), (16, 16), False, ldd)
    step1 = np.float32(a[:, :16] @ b[:16] + c)       # the first mma rounds to f32
    ref = -0.5 * (a[:, 16:] @ b[16:] + step1.astype(np.float64))
    mag = 0.5 * (np.abs(a) @ np.abs(b) + np.abs(c))
    if BACKEND != "cupy":
        assert np.array_equal(got, np.float32(np.float32(ref / -0.5) * np.float32(-0.5)))
    else:
        assert np.abs(got - ref).max() <= 2 * HW_REL * mag.max()


def _small_ints(rng, shape, lim, dtype):
    """integers in [-lim, lim]: products and sums of a 16x16x16 mma are exact in f16/f32"""
    return rng.integers(-lim, lim + 1, shape).astype(dtype)


@sim_only
def test_wmma_store_with_overlapping_rows_writes_in_element_order(dev, rng):
    """ldd = 12 < 16 columns: the rows of D overlap in memory. The engine stores a fragment element by element
    (element e of lanes 0..31, then e + 1), so an address holds the value written last in that order; lane
    2i+1's elements 4..7 (row i) land where lane 2i+2's 0..3 (row i+1) do and win. A whole-run fast path
    (lane by lane) would let lane 2i+2 win instead."""
    a, b = _small_ints(rng, (16, 16), 2, np.float16), _small_ints(rng, (16, 16), 2, np.float16)
    c = _small_ints(rng, (16, 16), 4, np.float32)
    ref = (a.astype(np.float64) @ b.astype(np.float64) + c).astype(np.float32)   # exact: |sum| <= 68
    ldd = 12
    want = np.full(15 * ldd + 16 + 4, -1.0, np.float32)
    for e in range(8):
        for lane in range(32):
            i, j = divmod(lane * 8 + e, 16)
            want[i * ldd + j] = ref[i, j]
    dbuf = dev.to_device(np.full(want.size, -1.0, np.float32))
    dev.launch(load_kernels(dev, "tensor_wmma.sm90").kernel("wmma_m16n16k16_f16_f32_rr"), 1, 32,
               [dev.to_device(a), dev.to_device(b), dev.to_device(c), dbuf, 16, 16, 16, ldd, 1, 1])
    lane_by_lane = np.full(want.size, -1.0, np.float32)
    for lane in range(32):
        for e in range(8):
            i, j = divmod(lane * 8 + e, 16)
            lane_by_lane[i * ldd + j] = ref[i, j]
    assert not np.array_equal(lane_by_lane, want)              # (the order shows in this case)
    assert np.array_equal(dev.from_device(dbuf), want)


@sim_only
def test_wmma_load_past_its_allocation_faults_at_the_first_element(dev, rng):
    """A fragment whose last row lies past the end of A: the fault names the first element of the walk
    (element 0 of lane 30, row 15) and its address, as the per-element path reports it."""
    from engine.errors import MemoryFault
    a = dev.to_device(np.zeros(15 * 16, np.float16))            # one row short of 16 x 16
    z = lambda n: dev.to_device(np.zeros(n, np.float32))        # noqa: E731
    bad = a.addr + 15 * 16 * 2
    with pytest.raises(MemoryFault, match=f"out-of-bounds global access of 2 bytes at {bad:#x}") as err:
        dev.launch(load_kernels(dev, "tensor_wmma.sm90").kernel("wmma_m16n16k16_f16_f32_rr"), 1, 32,
                   [a, dev.to_device(np.zeros(256, np.float16)), z(256), z(256), 16, 16, 16, 16, 1, 1])
    assert err.value.lane == 30 and err.value.addr == bad


# ---------------------------------------------------------------- mma.sync: the PTX fragments
# Element i of a lane's fragment -> (row, col), written from the PTX ISA's tables for each form
# (g = lane >> 2 is the group, t = lane % 4 the thread in the group); element i sits in register
# i * bits // 32, at bit (i * bits) % 32.

def _a16_k16(g, t, i): return g + 8 * ((i // 2) % 2), 2 * t + i % 2 + 8 * (i // 4)
def _a16_k8(g, t, i): return g + 8 * (i // 2), 2 * t + i % 2
def _b16_k16(g, t, i): return 2 * t + i % 2 + 8 * (i // 2), g
def _b16_k8(g, t, i): return 2 * t + i, g
def _atf_k8(g, t, i): return g + 8 * (i % 2), t + 4 * (i // 2)
def _btf_k8(g, t, i): return t + 4 * i, g
def _atf_k4(g, t, i): return g + 8 * i, t
def _btf_k4(g, t, i): return t, g
def _a8_k16(g, t, i): return g + 8 * (i // 4), 4 * t + i % 4
def _b8_k16(g, t, i): return 4 * t + i, g
def _a8_k32(g, t, i): return g + 8 * ((i // 4) % 2), 4 * t + i % 4 + 16 * (i // 8)
def _b8_k32(g, t, i): return 4 * t + i % 4 + 16 * (i // 4), g
def _acc(g, t, i): return g + 8 * (i // 2), 2 * t + i % 2


BITS = {"f16": 16, "bf16": 16, "tf32": 32, "f32": 32, "s32": 32, "s8": 8, "u8": 8, "e4m3": 8, "e5m2": 8}

# name: (K, A type, B type, C/D type, A element map, number of A elements, B map, B elements)
MMA = {
    "mma_m16n8k8_f32_f16_f32": (8, "f16", "f16", "f32", _a16_k8, 4, _b16_k8, 2),
    "mma_m16n8k8_f16_f16_f16": (8, "f16", "f16", "f16", _a16_k8, 4, _b16_k8, 2),
    "mma_m16n8k8_f32_bf16_f32": (8, "bf16", "bf16", "f32", _a16_k8, 4, _b16_k8, 2),
    "mma_m16n8k16_f32_f16_f32": (16, "f16", "f16", "f32", _a16_k16, 8, _b16_k16, 4),
    "mma_m16n8k16_f16_f16_f16": (16, "f16", "f16", "f16", _a16_k16, 8, _b16_k16, 4),
    "mma_m16n8k16_f32_bf16_f32": (16, "bf16", "bf16", "f32", _a16_k16, 8, _b16_k16, 4),
    "mma_m16n8k8_f32_tf32_f32": (8, "tf32", "tf32", "f32", _atf_k8, 4, _btf_k8, 2),
    "mma_m16n8k4_f32_tf32_f32": (4, "tf32", "tf32", "f32", _atf_k4, 2, _btf_k4, 1),
    "mma_m16n8k16_s32_s8_s8_s32": (16, "s8", "s8", "s32", _a8_k16, 8, _b8_k16, 4),
    "mma_m16n8k32_s32_s8_u8_s32": (32, "s8", "u8", "s32", _a8_k32, 16, _b8_k32, 8),
    "mma_m16n8k32_s32_u8_u8_s32": (32, "u8", "u8", "s32", _a8_k32, 16, _b8_k32, 8),
    "mma_m16n8k32_f32_e4m3_e5m2_f32": (32, "e4m3", "e5m2", "f32", _a8_k32, 16, _b8_k32, 8),
}


def _e4m3_table():
    v = np.arange(256)
    s, e, m = v >> 7, (v >> 3) & 15, v & 7
    mag = np.where(e > 0, (1 + m / 8) * 2.0 ** (e - 7), m / 8 * 2.0**-6)
    return np.where(s == 1, -mag, mag)


def fp8_inputs(rng, t, shape):
    """Random fp8 bit patterns (no NaN or infinity) and their values."""
    bits = rng.integers(0, 256, shape).astype(np.uint8)
    if t == "e4m3":
        bits[(bits & 0x7F) == 0x7F] = 0x3C
        return _e4m3_table()[bits], bits
    bits[(bits & 0x7C) == 0x7C] = 0x3C                    # exponent 31: inf/nan
    return (bits.astype(np.uint16) << 8).view(np.float16).astype(np.float64), bits


def elem_bits(bits_mat, t):
    """Element bit patterns of a matrix as unsigned integers of the element width."""
    w = {8: np.uint8, 16: np.uint16, 32: np.uint32}[BITS[t]]
    return np.asarray(bits_mat).view(w).astype(np.uint64)


def pack(bits_mat, t, emap, nelem):
    """Registers (32 lanes x n) holding each lane's fragment elements."""
    bw = BITS[t]
    regs = np.zeros((32, nelem * bw // 32), np.uint64)
    eb = elem_bits(bits_mat, t)
    for lane in range(32):
        for i in range(nelem):
            r, c = emap(lane >> 2, lane & 3, i)
            regs[lane, i * bw // 32] |= eb[r, c] << np.uint64((i * bw) % 32)
    return regs.astype(np.uint32)


def unpack(regs, t, emap, nelem, shape):
    bw = BITS[t]
    out = np.zeros(shape, np.uint64)
    for lane in range(32):
        for i in range(nelem):
            r, c = emap(lane >> 2, lane & 3, i)
            out[r, c] = (int(regs[lane, i * bw // 32]) >> ((i * bw) % 32)) & ((1 << bw) - 1)
    w = {16: np.uint16, 32: np.uint32}[bw]
    return out.astype(w)


def mma_inputs(rng, t, shape):
    if t in ("e4m3", "e5m2"):
        return fp8_inputs(rng, t, shape)
    v, b = inputs(rng, t, shape)
    return v, (b.view(np.uint32) if t == "tf32" else b)


@pytest.mark.parametrize("name", sorted(MMA))
def test_mma_fragments_exactly(dev, rng, name):
    K, at, bt, ct, amap, na, bmap, nb = MMA[name]
    P = 4
    A, Bm, C, ref, mag = [], [], [], [], []
    for p in range(P):
        a, abits = mma_inputs(rng, at, (16, K))
        b, bbits = mma_inputs(rng, bt, (K, 8))
        if ct == "s32":
            c = rng.integers(-2**30, 2**30, (16, 8)).astype(np.int32)
            if p == P - 1:                            # positive sums past 2^31: clamp or wrap
                c[:] = 2**31 - 1000
                abits, bbits = abits & np.int8(0x7F).astype(abits.dtype), bbits & np.int8(0x7F).astype(bbits.dtype)
                a, b = abits.astype(np.float64), bbits.astype(np.float64)
        else:
            c = rng.uniform(-1, 1, (16, 8)).astype(NP_ACC[ct])
        A.append(pack(abits, at, amap, na))
        Bm.append(pack(bbits, bt, bmap, nb))
        C.append(pack(c, ct, _acc, 4))
        exact = a @ b + c.astype(np.float64)
        if ct == "s32":
            # the s8.u8 kernel is the .satfinite one: it clamps; the others wrap modulo 2^32
            exact = np.clip(exact, -2**31, 2**31 - 1) if "s8_u8" in name else \
                ((exact.astype(np.int64) + 2**31) % 2**32 - 2**31)
        ref.append(exact)
        mag.append(np.abs(a) @ np.abs(b) + np.abs(c.astype(np.float64)))
    nd = 4 * BITS[ct] // 32
    dbuf = dev.alloc(P * 32 * nd, np.uint32)
    dev.launch(load_kernels(dev, "tensor_mma.sm90").kernel(name), P, 32,
               [dev.to_device(np.concatenate(q)) for q in (A, Bm, C)] + [dbuf])
    dregs = dev.from_device(dbuf).reshape(P, 32, nd)
    for p in range(P):
        d = unpack(dregs[p], ct, _acc, 4, (16, 8)).view(NP_ACC[ct])
        check_acc(d, ref[p], mag[p], ct)


def _ld_reference(tile, rows, nmat, trans):
    """ldmatrix: registers (32 x nmat) from the 64 x 8 tile, lane 8i + r naming row r of matrix i."""
    out = np.zeros((32, nmat), np.uint32)
    for i in range(nmat):
        mat = tile[rows[8 * i:8 * i + 8]]            # 8 x 8
        if trans:
            mat = mat.T
        for lane in range(32):
            r, c = lane // 4, 2 * (lane % 4)
            out[lane, i] = int(mat[r, c]) | int(mat[r, c + 1]) << 16
    return out


def test_ldmatrix_every_count_and_trans(dev, rng):
    tile = rng.integers(0, 2**16, (64, 8)).astype(np.uint16)
    rows = rng.integers(0, 64, 32).astype(np.int32)
    out = dev.alloc(32 * 16, np.uint32)
    dev.launch(load_kernels(dev, "tensor_mma.sm90").kernel("ldmatrix_all"), 1, 32,
               [dev.to_device(tile), dev.to_device(rows), out])
    got = dev.from_device(out).reshape(32, 16)
    cols = {(1, False): [0], (2, False): [1, 2], (4, False): [3, 4, 5, 6],
            (1, True): [7], (2, True): [8, 9], (4, True): [10, 11, 12, 13]}
    for (n, trans), idx in cols.items():
        assert np.array_equal(got[:, idx], _ld_reference(tile, rows, n, trans)), f"x{n} trans={trans}"


def test_stmatrix_x4_and_trans(dev, rng):
    regs = rng.integers(0, 2**32, (32, 4), dtype=np.uint64).astype(np.uint32)
    rows = rng.permutation(64)[:32].astype(np.int32)
    out = dev.alloc(128 * 8, np.uint16)
    dev.launch(load_kernels(dev, "tensor_mma.sm90").kernel("stmatrix_all"), 1, 32,
               [dev.to_device(regs), dev.to_device(rows), out])
    got = dev.from_device(out).reshape(128, 8)
    for nmat, trans, base in ((4, False, 0), (2, True, 64)):
        want = np.zeros((64, 8), np.uint16)
        for i in range(nmat):
            for r in range(8):
                for c in range(8):
                    # the element (r, c) of matrix i: where ldmatrix (the inverse) would put it
                    rr, cc = (c, r) if trans else (r, c)
                    lane, half = 4 * rr + cc // 2, cc % 2
                    want[rows[8 * i + r], c] = (int(regs[lane, i]) >> (16 * half)) & 0xFFFF
        assert np.array_equal(got[base:base + 64], want), f"x{nmat} trans={trans}"


def test_ldmatrix_mma_register_math(dev, rng):
    """The code pattern of real kernels: ldmatrix feeds mma, D is placed by the documented layout."""
    a, _ = inputs(rng, "f16", (16, 16))
    b, _ = inputs(rng, "f16", (16, 8))
    D, Dh = dev.alloc(128, np.float32), dev.alloc(128, np.float16)
    dev.launch(load_kernels(dev, "tensor_mma.sm90").kernel("ldsm_mma_tile"), 1, 32,
               [dev.to_device(a.astype(np.float16)), dev.to_device(b.astype(np.float16)), D, Dh])
    ref, mag = a @ b, np.abs(a) @ np.abs(b)
    check_acc(dev.from_device(D).reshape(16, 8), ref, mag, "f32")
    check_acc(dev.from_device(Dh).reshape(16, 8), ref, mag, "f16")


# ---------------------------------------------------------------- wgmma

def _wgmma_forms():
    import importlib.util
    from tests.backends import KERNELS
    spec = importlib.util.spec_from_file_location("tensor_wgmma_gen", KERNELS / "tensor_wgmma_gen.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    return gen.FORMS


WG_FORMS = _wgmma_forms()
SWIZZLE_WIDTH = {0: 16, 1: 128, 2: 64, 3: 32}            # descriptor code -> bytes (16: none)
ES = {"f16": 2, "bf16": 2, "tf32": 4, "e4m3": 1, "e5m2": 1, "s8": 1, "u8": 1}


def canonical_layout(trans, sw, MN, K, es):
    """Byte offsets (MN x K) of an operand read as MN x K in PTX's canonical shared-memory layout, and
    its descriptor relative to a 1024-byte aligned region. K-major (trans 0) stores core matrices of
    8 rows x 16 bytes (no swizzle: LBO steps along K, SBO along MN) or 8-row swizzle atoms of W-byte
    rows (SBO steps 8 rows; LBO unused; the data sits kofs bytes into its rows, as when a kernel steps
    along K inside a 128B atom); MN-major (trans 1) stores 8 k-rows of 16 bytes (none: SBO along MN,
    LBO along K) or of W bytes (swizzled: LBO along MN, SBO along K). Swizzles XOR the 16-byte chunk
    index (address bits 4..) with the row index within 8 (bits 7..)."""
    W = SWIZZLE_WIDTH[sw]
    mn, k = np.arange(MN)[:, None], np.arange(K)[None, :]
    kb, mb = k * es, mn * es
    if not trans:
        if sw == 0:
            off, start, lbo, sbo = (mn % 8) * 16 + (mn // 8) * 256 + kb % 16 + (kb // 16) * 128, 0, 128, 256
        else:
            kofs = {128: 64, 64: 32, 32: 0}[W]
            off, start, lbo, sbo = kofs + (mn % 8) * W + (mn // 8) * 8 * W + kb, kofs, 16, 8 * W
    else:
        if sw == 0:
            lbo = 128 * MN // 8
            off, start, sbo = mb % 16 + (mb // 16) * 128 + (k % 8) * 16 + (k // 8) * lbo, 0, 128
        else:
            off, start, lbo, sbo = mb % W + (mb // W) * K * W + (k % 8) * W + (k // 8) * 8 * W, 0, K * W, 8 * W
    off = off ^ (((off >> 7) & (W // 16 - 1)) << 4)
    desc = (start >> 4) | (lbo >> 4) << 16 | (sbo >> 4) << 32 | sw << 62
    return off.astype(np.uint32), desc


def _wg_acc_map(packed):
    """accumulator register i of thread tid -> (row, col) of D (64 x N); packed f16: first of a pair"""
    def f(tid, i):
        w, g, t = tid // 32, (tid % 32) // 4, tid % 4
        if packed:
            return 16 * w + g + 8 * (i % 2), 8 * (i // 2) + 2 * t
        return 16 * w + g + 8 * ((i // 2) % 2), 8 * (i // 4) + 2 * t + i % 2
    return f


def _wg_a_regs(abits, at):
    """A (64 x K) in the registers of the 4 warps: warp w holds rows 16w.. like mma's A fragment."""
    emap, n = {"f16": (_a16_k16, 8), "bf16": (_a16_k16, 8), "tf32": (_atf_k8, 4)}[at]
    regs = np.zeros((128, 4), np.uint32)
    for w in range(4):
        regs[32 * w:32 * w + 32] = pack(abits[16 * w:16 * w + 16], at, emap, n)
    return regs


def _wg_inputs(rng, t, shape):
    if t in ("e4m3", "e5m2"):
        return fp8_inputs(rng, t, shape)
    if t in ("s8", "u8"):
        return inputs(rng, t, shape)
    v, b = inputs(rng, t, shape)
    return v, (b.view(np.uint32) if t == "tf32" else b)


@pytest.mark.parametrize("name", sorted(WG_FORMS))
def test_wgmma_every_swizzle_and_major(dev, rng, name):
    at, bt, dt, N, a_regs, ta, tb, sa, sb = WG_FORMS[name]
    es = ES[at]
    K = 32 // es
    m = load_kernels(dev, "tensor_wgmma.sm90a")
    packed = dt == "f16"
    nd = N // 4 if packed else N // 2
    amap = _wg_acc_map(packed)
    combos = [(0, 1, 1), (1, 2, 0), (2, 3, 1), (3, 0, 1)]    # (A swizzle, B swizzle, scale-d)
    for swa, swb, scale_d in combos:
        a, abits = _wg_inputs(rng, at, (64, K))
        b, bbits = _wg_inputs(rng, bt, (K, N))
        if dt == "s32":
            c = rng.integers(-2**20, 2**20, (64, N)).astype(np.int32)
        else:
            c = rng.uniform(-1, 1, (64, N)).astype(NP_ACC[dt])
        offa, desca = canonical_layout(ta, swa, 64, K, es)
        offb, descb = canonical_layout(tb, swb, N, K, es)
        for off, size in ((offa, 16384), (offb, 32768)):
            assert len(np.unique(off)) == off.size and off.max() + es <= size
        cregs = np.zeros((128, nd), np.uint32)
        cbits = elem_bits(c, "f16" if packed else "f32")
        for tid in range(128):
            for i in range(nd):
                r, col = amap(tid, i)
                cregs[tid, i] = cbits[r, col] | (cbits[r, col + 1] << np.uint64(16) if packed else 0)
        aregs = _wg_a_regs(abits, at) if a_regs else np.zeros((128, 4), np.uint32)
        dbuf = dev.alloc(128 * nd, np.uint32)
        args = [dev.to_device(abits), dev.to_device(bbits), dev.to_device(aregs),
                dev.to_device(offa.reshape(-1)), dev.to_device(offb.T.reshape(-1)), desca, descb,
                dev.to_device(cregs), dbuf, scale_d]
        dev.launch(m.kernel(name), 1, 128, args, shared=1024 + 16384 + 32768)
        dregs = dev.from_device(dbuf).reshape(128, nd)
        d = np.zeros((64, N), np.float64)
        for tid in range(128):
            for i in range(nd):
                r, col = amap(tid, i)
                v = int(dregs[tid, i])
                if packed:
                    d[r, col:col + 2] = np.array([v & 0xFFFF, v >> 16], np.uint16).view(np.float16)
                else:
                    d[r, col] = np.array([v], np.uint32).view(np.int32 if dt == "s32" else np.float32)[0]
        cc = c.astype(np.float64) if scale_d else 0.0
        ref = (sa * a) @ (sb * b) + cc
        mag = np.abs(a) @ np.abs(b) + np.abs(cc)
        check_acc(d, ref, mag, dt, HW_REL_FP8_WGMMA if at in ("e4m3", "e5m2") else None)


@sim_only
def test_wgmma_descriptor_outside_shared_memory_faults(dev, rng):
    from engine.errors import MemoryFault
    m = load_kernels(dev, "tensor_wgmma.sm90a")
    offa, desca = canonical_layout(0, 0, 64, 16, 2)
    offb, descb = canonical_layout(0, 0, 8, 16, 2)
    z = lambda n, dt=np.uint32: dev.to_device(np.zeros(n, dt))
    args = [z(64 * 16, np.uint16), z(16 * 8, np.uint16), z(512), dev.to_device(offa.reshape(-1)),
            dev.to_device(offb.T.reshape(-1)), desca, descb | 0x3000, z(128 * 4), z(128 * 4), 1]
    with pytest.raises(MemoryFault, match="wgmma: descriptor .* outside the .* bytes of shared memory"):
        dev.launch(m.kernel("wg_f16_f32_n8_rs_t0"), 1, 128, args, shared=1024 + 16384 + 32768)


# ---------------------------------------------------------------- Triton's tensor-core code
# Real kernels from tests/fixtures/ptx/triton: on sm_80 Triton emits ldmatrix + mma.sync, on sm_90
# wgmma with its own swizzled shared layouts and descriptors, so these check our fragments and
# descriptor decoding against a compiler's expectations. They need the integer/conversion families
# too: until those are in the engine the tests skip, naming the missing opcodes.


def _triton(dev, name):
    from pathlib import Path
    path = Path(__file__).resolve().parent / "fixtures" / "ptx" / "triton" / name
    if BACKEND == "cupy":
        if ".version 9.4" in path.read_text()[:200]:
            pytest.skip("Triton 3.9 wrote PTX ISA 9.4 for sm_90a; the H200's driver (CUDA 13.0) reads up to 9.0")
        return dev.load_ptx(path)
    from engine.errors import UnsupportedInstruction
    try:
        return dev.load_ptx(path)
    except UnsupportedInstruction as e:
        pytest.skip(f"{name} needs {', '.join(sorted({op for op, _, _ in e.instructions}))}")


@pytest.mark.parametrize("target", ["sm80", "sm90"])
def test_triton_matmul(dev, rng, target):
    m = _triton(dev, f"matmul.{target}.ptx")
    M, N, K = 128, 128, 100                          # K is masked; M and N are whole 64 x 64 tiles
    a = rng.uniform(-1, 1, (M, K)).astype(np.float16)
    b = rng.uniform(-1, 1, (K, N)).astype(np.float16)
    c = dev.to_device(np.zeros((M, N), np.float16))
    dev.launch(m.kernel("matmul_kernel"), (M // 64, N // 64), 128,
               [dev.to_device(a), dev.to_device(b), c, M, N, K, K, 1, N, 1, N, 1, 0, 0], shared=96 * 1024)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    got = dev.from_device(c).astype(np.float64)
    # f32 accumulation over 100 products (error ~1e-5), then one rounding to f16: half an f16 ulp
    assert (np.abs(got - ref) <= np.spacing(np.abs(ref).astype(np.float16)).astype(np.float64) * 0.5 + 1e-4).all()


@pytest.mark.parametrize("target", ["sm80", "sm90"])
def test_triton_attention(dev, rng, target):
    m = _triton(dev, f"attention.{target}.ptx")
    L, D, scale = 128, 64, 0.125
    q, k, v = (rng.uniform(-1, 1, (L, D)).astype(np.float16) for _ in range(3))
    o = dev.to_device(np.zeros((L, D), np.float16))
    dev.launch(m.kernel("attention_kernel"), L // 64, 128,
               [dev.to_device(q), dev.to_device(k), dev.to_device(v), o, L, scale, 0, 0], shared=96 * 1024)
    s = q.astype(np.float64) @ k.astype(np.float64).T * scale
    p = np.exp(s - s.max(1, keepdims=True))
    ref = (p / p.sum(1, keepdims=True)) @ v.astype(np.float64)
    # P is rounded to f16 before its product with V (Triton's p.to(float16)): ~2^-11 relative per term
    assert np.abs(dev.from_device(o).astype(np.float64) - ref).max() < 2e-3
