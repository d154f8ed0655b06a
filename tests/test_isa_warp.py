"""Warp-level operations: shfl.sync (every mode, clamp, segment mask, predicate output), vote.sync,
match.sync, redux.sync, activemask, elect.sync, under full and partial member masks.

Kernels: tests/kernels/warp_ops.cu (nvcc -ptx -arch=sm_90 -O3). References are the PTX ISA's
pseudo-code written in numpy. The CUDA-kernel tests also run on a GPU (tests/backends.py).
"""
import numpy as np
import pytest

from tests.backends import dev, load_kernels, sim_only  # noqa: F401
from tests.isa import run_inst

SENTINEL = 0xDEADBEEF
NWARPS = 8


def shfl_ref(a, b, c, mode):
    """PTX shfl.sync on one warp: (d, p) for values a, operands b and c (arrays of 32)."""
    lane = np.arange(32)
    bval, cval, seg = b & 31, c & 31, (c >> 8) & 31
    maxl = (lane & seg) | (cval & ~seg)
    if mode == "up":
        j = lane - bval
        ok = j >= maxl
    elif mode == "down":
        j = lane + bval
        ok = j <= maxl
    elif mode == "bfly":
        j = lane ^ bval
        ok = j <= maxl
    else:
        j = (lane & seg) | (bval & ~seg)
        ok = j <= maxl
    j = np.where(ok, j, lane)
    return a[j], ok


def member_masks(rng, n):
    """Per-warp member masks: full, one lane, alternate lanes, a contiguous half, then random ones."""
    fixed = [0xFFFFFFFF, 1 << 7, 0x55555555, 0xFFFF0000, 0x80000001]
    rnd = [int(v) | 1 << int(rng.integers(32)) for v in rng.integers(0, 2**32, n - len(fixed), dtype=np.uint64)]
    return np.array(fixed + rnd, np.uint32)


def lanes_of(mask):
    return [i for i in range(32) if (int(mask) >> i) & 1]


@pytest.mark.parametrize("mode", ["up", "down", "bfly", "idx"])
def test_shfl_all_operands(dev, rng, mode):
    """b (0..63: only b[4:0] counts) and c (clamp, segment mask and ignored bits) vary per lane."""
    mod = load_kernels(dev, "warp_ops.sm90")
    n = 32 * NWARPS
    a = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    b = rng.integers(0, 64, n).astype(np.uint32)
    seg = rng.choice([0, 0x10, 0x18, 0x1C, 0x1E, 0x1F, 0x0F, 0x05], n)
    c = (rng.integers(0, 32, n) | (seg << 8)).astype(np.uint32)
    # warp 0: the uniform operands CUDA's intrinsics use (width 32); warp 1: width 8
    c[:32] = 0 if mode == "up" else 0x1F
    c[32:64] = (24 << 8) | (0 if mode == "up" else 0x1F)
    imode = ["up", "down", "bfly", "idx"].index(mode)
    ab, bb, cb = dev.to_device(a), dev.to_device(b), dev.to_device(c)
    out, pred = dev.alloc(n, np.uint32), dev.alloc(n, np.uint32)
    dev.launch(mod.kernel("shfl_bc"), NWARPS, 32, [ab, bb, cb, imode, out, pred])
    d, p = dev.from_device(out), dev.from_device(pred)
    for w in range(NWARPS):
        s = slice(32 * w, 32 * w + 32)
        rd, rp = shfl_ref(a[s], b[s].astype(np.int64), c[s].astype(np.int64), mode)
        assert np.array_equal(d[s], rd), f"warp {w}"
        assert np.array_equal(p[s], rp.astype(np.uint32)), f"warp {w}"


def test_shfl_intrinsics_every_width(dev, rng):
    """__shfl_{up,down,xor,}_sync with widths 32..2 and deltas past the segment (and past 31)."""
    mod = load_kernels(dev, "warp_ops.sm90")
    n = 32 * 4
    a = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    delta = rng.integers(0, 40, n).astype(np.int32)
    delta[:32] = np.arange(32)                       # one warp with every delta
    out = dev.alloc(20 * n, np.uint32)
    dev.launch(mod.kernel("shfl_widths"), 4, 32, [dev.to_device(a), dev.to_device(delta), out])
    got = dev.from_device(out).reshape(n, 5, 4)
    for wi, width in enumerate([32, 16, 8, 4, 2]):
        seg = 32 - width
        for mi, mode in enumerate(["up", "down", "bfly", "idx"]):
            c = (seg << 8) | (0 if mode == "up" else 0x1F)
            for w in range(4):
                s = slice(32 * w, 32 * w + 32)
                ref, _ = shfl_ref(a[s], delta[s].astype(np.int64), np.full(32, c), mode)
                assert np.array_equal(got[s, wi, mi], ref), f"width {width} {mode} warp {w}"


def test_shfl_partial_member_masks(dev, rng):
    mod = load_kernels(dev, "warp_ops.sm90")
    act = member_masks(rng, NWARPS)
    n = 32 * NWARPS
    a = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    src = np.zeros(n, np.int32)
    for w, m in enumerate(act):
        src[32 * w:32 * w + 32] = rng.choice(lanes_of(m), 32)   # read member lanes only (others: undefined)
    out = dev.alloc(n, np.uint32)
    dev.launch(mod.kernel("shfl_partial"), NWARPS, 32, [dev.to_device(a), dev.to_device(src), dev.to_device(act), out])
    got = dev.from_device(out)
    for w, m in enumerate(act):
        for lane in range(32):
            t = 32 * w + lane
            want = a[32 * w + src[t]] if (int(m) >> lane) & 1 else SENTINEL
            assert got[t] == want, f"warp {w} lane {lane}"


def test_vote_all_any_uni_ballot(dev, rng):
    mod = load_kernels(dev, "warp_ops.sm90")
    act = member_masks(rng, NWARPS)
    n = 32 * NWARPS
    pred = (rng.random(n) < 0.5).astype(np.int32)
    pred[0:32] = 1                                   # warp 0 all true, warp 2 all false among members
    pred[64:96] = 0
    pred[96:128] = np.where(rng.random(32) < 0.5, 5, -3)   # nonzero values are true
    out = dev.alloc(5 * n, np.uint32)
    dev.launch(mod.kernel("vote_ops"), NWARPS, 32, [dev.to_device(pred), dev.to_device(act), out])
    got = dev.from_device(out).reshape(n, 5)
    for w, m in enumerate(act):
        mem = lanes_of(m)
        p = pred[32 * w:32 * w + 32] != 0
        ballot = sum(1 << i for i in mem if p[i])
        vals = [all(p[mem]), any(p[mem]), len(set(p[mem])) == 1, ballot, int(m)]
        for lane in range(32):
            row = got[32 * w + lane]
            if lane in mem:
                assert list(row) == [int(v) for v in vals], f"warp {w} lane {lane}"
            else:
                assert (row == SENTINEL).all()


def test_match_any_all_b32_b64(dev, rng):
    mod = load_kernels(dev, "warp_ops.sm90")
    act = member_masks(rng, NWARPS)
    n = 32 * NWARPS
    v32 = rng.choice(np.array([7, 0xFFFFFFFF, 123456], np.uint32), n)
    # 64-bit values equal in the low word but not the high word: b64 must compare all 64 bits
    v64 = (rng.choice(np.array([1, 2], np.uint64), n) << np.uint64(32)) | np.uint64(99)
    v32[32:64] = 42                                  # warp 1: all equal
    v64[32:64] = np.uint64(5 << 40)
    out = dev.alloc(6 * n, np.uint32)
    dev.launch(mod.kernel("match_ops"), NWARPS, 32, [dev.to_device(v32), dev.to_device(v64), dev.to_device(act), out])
    got = dev.from_device(out).reshape(n, 6)
    for w, m in enumerate(act):
        mem = lanes_of(m)
        a32, a64 = v32[32 * w:32 * w + 32], v64[32 * w:32 * w + 32]
        all32, all64 = len(set(a32[mem])) == 1, len(set(a64[mem])) == 1
        for lane in range(32):
            row = got[32 * w + lane]
            if lane not in mem:
                assert (row == SENTINEL).all()
                continue
            any32 = sum(1 << i for i in mem if a32[i] == a32[lane])
            any64 = sum(1 << i for i in mem if a64[i] == a64[lane])
            want = [any32, any64, int(m) if all32 else 0, int(all32), int(m) if all64 else 0, int(all64)]
            assert list(row) == want, f"warp {w} lane {lane}"


def test_redux_all_ops(dev, rng):
    mod = load_kernels(dev, "warp_ops.sm90")
    act = member_masks(rng, NWARPS)
    n = 32 * NWARPS
    v = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)   # sums wrap modulo 2^32
    out = dev.alloc(8 * n, np.uint32)
    dev.launch(mod.kernel("redux_ops"), NWARPS, 32, [dev.to_device(v), dev.to_device(act), out])
    got = dev.from_device(out).reshape(n, 8)
    for w, m in enumerate(act):
        x = v[32 * w:32 * w + 32][lanes_of(m)]
        s = x.view(np.int32)
        want = [int(x.astype(np.uint64).sum()) & 0xFFFFFFFF, x.min(), x.max(), int(s.min()) & 0xFFFFFFFF,
                int(s.max()) & 0xFFFFFFFF, np.bitwise_and.reduce(x), np.bitwise_or.reduce(x), np.bitwise_xor.reduce(x)]
        for lane in lanes_of(m):
            assert [int(q) for q in got[32 * w + lane]] == [int(q) for q in want], f"warp {w} lane {lane}"


def test_elect_lowest_member(dev, rng):
    """PTX names no rule for the leader; CUDA's and our choice is the lowest member (seen on an H200)."""
    mod = load_kernels(dev, "warp_ops.sm90")
    act = member_masks(rng, NWARPS)
    out = dev.alloc(2 * 32 * NWARPS, np.uint32)
    dev.launch(mod.kernel("elect_ops"), NWARPS, 32, [dev.to_device(act), out])
    got = dev.from_device(out).reshape(-1, 2)
    for w, m in enumerate(act):
        leader = lanes_of(m)[0]
        for lane in range(32):
            want = (leader, int(lane == leader)) if (int(m) >> lane) & 1 else (SENTINEL, SENTINEL)
            assert tuple(got[32 * w + lane]) == want


def test_warp_sum_reduction_bitwise(dev, rng):
    """The shfl_down tree of reduce kernels, checked bit for bit against the same float32 steps."""
    mod = load_kernels(dev, "warp_ops.sm90")
    x = rng.standard_normal(32 * 16).astype(np.float32)
    out = dev.alloc(16, np.float32)
    dev.launch(mod.kernel("warp_sum"), 4, 128, [dev.to_device(x), out])
    v = x.reshape(16, 32).copy()
    for o in (16, 8, 4, 2, 1):
        sh = np.concatenate([v[:, o:], v[:, 32 - o:]], axis=1)   # lanes past 31 read their own value
        v = (v + sh).astype(np.float32)
    assert np.array_equal(dev.from_device(out), v[:, 0])


# ---------------------------------------------------------------- instruction-level (tests/isa.py)

def test_vote_ballot_negated_predicate(dev, rng):
    p = rng.random(64) < 0.3
    out = run_inst(dev, "vote.sync.ballot.b32 %d, !%a, -1", d="b32", a=("pred", p), block=64)
    want = [sum(1 << i for i in range(32) if not p[32 * w + i]) for w in range(2)]
    assert np.array_equal(out, np.repeat(np.array(want, np.uint32), 32))


def test_activemask_under_a_guard(dev, rng):
    """activemask reports the lanes executing it: under a guard, those whose guard holds (H200).
    (Lanes the guard switches off keep whatever their register held: not checked.)"""
    g = rng.random(32) < 0.5
    g[3] = True
    out = run_inst(dev, "@%a activemask.b32 %d", d="b32", a=("pred", g), block=32)
    assert (out[g] == sum(1 << i for i in range(32) if g[i])).all()


def test_redux_inside_guard_counts_only_executing_lanes(dev, rng):
    v = rng.integers(0, 1000, 32).astype(np.uint32)
    g = np.arange(32) % 3 == 0
    mask = sum(1 << i for i in range(32) if g[i])
    out = run_inst(dev, f"@%b redux.sync.add.u32 %d, %a, {mask}", d="u32", a=("u32", v), b=("pred", g), block=32)
    assert (out[g] == v[g].sum()).all()


@sim_only
def test_shfl_from_non_member_lane_reads_its_register(dev, rng):
    """PTX: unpredictable. Ours: the source lane's register as it is (documented in exec_warp.c)."""
    a = rng.integers(0, 2**31, 32).astype(np.uint32)
    g = np.arange(32) < 16
    out = run_inst(dev, "@%b shfl.sync.idx.b32 %d, %a, 20, 31, 0xffff", d="u32", a=("u32", a), b=("pred", g), block=32)
    assert (out[:16] == a[20]).all()


@sim_only
def test_executing_lane_outside_membermask_faults(dev):
    from engine.errors import InvalidOperation
    with pytest.raises(InvalidOperation, match=r"lane 16 executes it but is not in its membermask 0x0000ffff"):
        run_inst(dev, "shfl.sync.idx.b32 %d, %a, 0, 31, 0xffff", d="u32", a=("u32", np.arange(32)), block=32)
    with pytest.raises(InvalidOperation, match="vote: lane 0 .* membermask 0x00000002"):
        run_inst(dev, "vote.sync.any.pred %p, %a, 2", a=("pred", np.ones(32, bool)), block=32)


@sim_only
def test_shfl_wrong_type_refused_at_load(dev):
    from engine.errors import UnsupportedInstruction
    with pytest.raises(UnsupportedInstruction, match="shfl"):
        run_inst(dev, "shfl.sync.idx.b64 %d, %a, 0, 31, -1", d="b64", a=("b64", np.arange(32)), block=32)


@sim_only
def test_sink_where_the_handler_allows_it(dev, rng):
    """'_' as shfl's predicate (d|_) and as match.all's d (_|p) runs and writes the other destination as
    without the sink. (A sink as shfl's d, vote's d or match.any's d is refused when loading: test_hardening_ir.
    The PTX ISA's syntax lines show d as a register for all three; that ptxas accepts these two forms is not
    checked here, hence sim_only.)"""
    n = 32 * 4
    a = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    d = run_inst(dev, "shfl.sync.bfly.b32 %d|_, %a, 5, 31, -1", d="u32", a=("u32", a))
    for w in range(4):
        s = slice(32 * w, 32 * w + 32)
        ref, _ = shfl_ref(a[s], np.full(32, 5), np.full(32, 31), "bfly")
        assert np.array_equal(d[s], ref), f"warp {w}"
    v = rng.choice(np.array([1, 2], np.uint32), n)
    v[:32] = 9                                        # warp 0 all equal, warp 3 all equal but one
    v[96:128] = 4
    v[100] = 3
    p = run_inst(dev, "match.all.sync.b32 _|%p, %a, -1", pred_out=True, a=("u32", v))
    for w in range(4):
        s = slice(32 * w, 32 * w + 32)
        assert (p[s] == (len(set(v[s])) == 1)).all(), f"warp {w}"
    assert p[:32].all() and not p[96:].any()
