"""atom and red: every op and type on global, shared and generic addresses, under heavy contention
(all threads of many CTAs on one address), checked against exact expected values.

Kernels: tests/kernels/atomic_ops.cu. Under contention the order of the updates is free on hardware,
so the checks are order-free: final values, and for read-modify-write chains the multiset identity
  {olds} + {final} == {init} + {op(old, v) for each thread}
which holds for every serial order (it says each update saw the value the previous one left). The
simulator's order is also fixed (lanes in order, warps one at a time): a simulator-only test checks it.
"""
from collections import Counter

import numpy as np
import pytest

from tests.backends import dev, load_kernels, sim_only  # noqa: F401
from tests.isa import run_inst


def mod(dev):
    return load_kernels(dev, "atomic_ops.sm90")


def chain_ok(init, olds, final, step):
    """The multiset identity above, with step(old, i) the value thread i wrote."""
    wrote = [step(o, i) for i, o in enumerate(olds)]
    return Counter([init] + wrote) == Counter(list(olds) + [final])


def test_one_counter_all_threads_of_many_ctas(dev):
    n = 64 * 256
    counter, olds = dev.to_device(np.zeros(1, np.uint32)), dev.alloc(n, np.uint32)
    dev.launch(mod(dev).kernel("contend_add"), 64, 256, [counter, olds])
    assert dev.from_device(counter)[0] == n
    assert np.array_equal(np.sort(dev.from_device(olds)), np.arange(n, dtype=np.uint32))


@sim_only
def test_contention_is_serialised_in_a_fixed_order(dev):
    """Lanes apply in lane order and (kernels this short) warps and CTAs one after another, so each
    thread sees exactly the number of threads before it; a second run is identical."""
    n = 8 * 256
    runs = []
    for _ in range(2):
        counter, olds = dev.to_device(np.zeros(1, np.uint32)), dev.alloc(n, np.uint32)
        dev.launch(mod(dev).kernel("contend_add"), 8, 256, [counter, olds])
        runs.append(dev.from_device(olds))
    assert np.array_equal(runs[0], np.arange(n)) and np.array_equal(runs[0], runs[1])


def test_cas_loop_under_contention(dev, rng):
    n = 16 * 128
    v = rng.integers(1, 1000, n).astype(np.uint32)
    init = 1 << 40
    counter = dev.to_device(np.array([init], np.uint64))
    olds = dev.alloc(n, np.uint64)
    dev.launch(mod(dev).kernel("contend_cas_loop"), 16, 128, [counter, dev.to_device(v), olds])
    final = int(dev.from_device(counter)[0])
    o = [int(q) for q in dev.from_device(olds)]
    assert final == init + int(v.sum())
    assert chain_ok(init, o, final, lambda old, i: old + int(v[i]))


def test_u32_ops_under_contention(dev, rng):
    grid, block = 16, 256
    n = grid * block
    v = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    v[::7] = rng.integers(0, 50, len(v[::7]))               # small values, so min/max/and change often
    lim = 1000
    init = np.array([7, 0xFFFFFFFF, 0, 0xFFFFFFFF, 0, 0x12345678, 0, 0, 99, 0x7FFFFFFF], np.uint32)
    cells, olds = dev.to_device(init), dev.alloc(10 * n, np.uint32)
    dev.launch(mod(dev).kernel("contend_u32"), grid, block, [cells, dev.to_device(v), lim, olds])
    c = [int(q) for q in dev.from_device(cells)]
    o = dev.from_device(olds).reshape(n, 10).astype(np.int64)
    x = [int(q) for q in v]
    M = 0xFFFFFFFF
    assert c[0] == (7 + sum(x)) & M
    assert chain_ok(7, list(o[:, 0]), c[0], lambda old, i: (old + x[i]) & M)
    assert c[1] == min(x) and c[2] == max(x)
    assert all(o[:, 1] >= c[1]) and all(o[:, 2] <= c[2])
    assert c[3] == int(np.bitwise_and.reduce(v)) and c[4] == int(np.bitwise_or.reduce(v))
    assert c[5] == 0x12345678 ^ int(np.bitwise_xor.reduce(v))
    assert chain_ok(0x12345678, list(o[:, 5]), c[5], lambda old, i: old ^ x[i])
    # inc wraps to 0 past lim, dec wraps to lim below 0 (and above lim): both are order-free
    assert c[6] == n % (lim + 1) and Counter(o[:, 6]) == Counter(i % (lim + 1) for i in range(n))
    seq = [0]
    for _ in range(n):
        seq.append(lim if seq[-1] == 0 or seq[-1] > lim else seq[-1] - 1)
    assert c[7] == seq[n] and Counter(o[:, 7]) == Counter(seq[:n])
    assert Counter(list(o[:, 8]) + [c[8]]) == Counter([99] + x)
    assert np.int32(np.uint32(c[9])) == min(0x7FFFFFFF, int(v.view(np.int32).min()))


def test_u64_and_s64_ops_under_contention(dev, rng):
    grid, block = 8, 128
    n = grid * block
    v = rng.integers(0, 2**64, n, dtype=np.uint64)
    v[::5] >>= np.uint64(40)
    init = np.array([3, 2**64 - 1, 0, 2**64 - 1, 0, 5, 11], np.uint64)
    sinit = np.array([2**63 - 1, -2**63], np.int64)
    cells, scells = dev.to_device(init), dev.to_device(sinit)
    olds = dev.alloc(9 * n, np.uint64)
    dev.launch(mod(dev).kernel("contend_u64"), grid, block, [cells, scells, dev.to_device(v), olds])
    c = [int(q) for q in dev.from_device(cells)]
    s = [int(q) for q in dev.from_device(scells)]
    o = dev.from_device(olds).reshape(n, 9)
    x = [int(q) for q in v]
    M = 2**64 - 1
    assert c[0] == (3 + sum(x)) & M
    assert chain_ok(3, [int(q) for q in o[:, 0]], c[0], lambda old, i: (old + x[i]) & M)
    assert c[1] == min(x) and c[2] == max(x)
    assert c[3] == int(np.bitwise_and.reduce(v)) and c[4] == int(np.bitwise_or.reduce(v))
    assert c[5] == 5 ^ int(np.bitwise_xor.reduce(v))
    assert Counter([int(q) for q in o[:, 6]] + [c[6]]) == Counter([11] + x)
    sv = v.view(np.int64)
    assert s[0] == int(sv.min()) and s[1] == int(sv.max())


def test_float_adds_every_type(dev, rng):
    """f32 (red and atom), f64, f16, f16x2, bf16, bf16x2. Inputs are small integers so every partial
    sum is exact in every format: any order of the updates gives the same result."""
    grid, block = 2, 128
    n = grid * block
    v = rng.integers(-1, 2, n).astype(np.float32)
    f, d = dev.to_device(np.array([0.5, -2.0], np.float32)), dev.to_device(np.array([0.25]))
    h, h2 = dev.to_device(np.array([1.0], np.float16)), dev.to_device(np.array([3.0, -1.0], np.float16))
    b = dev.to_device(np.array([0x3F80], np.uint16))                  # bf16 1.0
    b2 = dev.to_device(np.array([0x4000, 0xC000], np.uint16))         # bf16 2.0, -2.0
    olds = dev.alloc(n, np.float32)
    to_bf16 = lambda a: (np.asarray(a, np.float32).view(np.uint32) >> 16).astype(np.uint16)  # exact here
    vh, vh2 = v.astype(np.float16), np.stack([v, -2 * v], 1).astype(np.float16)
    vb, vb2 = to_bf16(v), to_bf16(np.stack([v, 0.5 * v], 1))
    ins = [dev.to_device(q) for q in (v, vh, vh2, vb, vb2)]
    dev.launch(mod(dev).kernel("float_adds"), grid, block, [f, d, h, h2, b, b2] + ins + [olds])
    s = float(v.sum())
    bf = lambda u: float(np.array([int(u) << 16], np.uint32).view(np.float32)[0])
    assert list(dev.from_device(f)) == [0.5 + s, -2.0 + s]
    assert dev.from_device(d)[0] == 0.25 + s
    assert dev.from_device(h)[0] == 1.0 + s
    assert list(dev.from_device(h2)) == [3.0 + s, -1.0 - 2 * s]
    assert bf(dev.from_device(b)[0]) == 1.0 + s
    got_b2 = dev.from_device(b2)
    assert (bf(got_b2[0]), bf(got_b2[1])) == (2.0 + s, -2.0 + 0.5 * s)
    assert chain_ok(-2.0, [float(q) for q in dev.from_device(olds)], -2.0 + s, lambda old, i: old + float(v[i]))


@pytest.mark.parametrize("kernel", ["f32_add_subnormal", "f32_add_subnormal_shared", "f32_red_subnormal"])
def test_f32_add_flushes_subnormals(dev, kernel):
    """atom/red.add.f32 on global memory flush subnormal inputs and results to sign-preserving zero
    (PTX ISA); on shared memory an H200 adds subnormals as IEEE does. The returned old value is the
    memory as it was."""
    tiny, small = np.float32(1e-40), np.float32(1.5e-38)
    cells = np.array([0, tiny, small, -tiny, 1.0, 0, small, -small], np.float32)
    v = np.array([tiny, 0, -np.float32(1.4e-38), 0, tiny, 2 * small, -small, small], np.float32)
    flush = "shared" not in kernel
    ftz = lambda q: np.float32(0.0) * np.sign(q) if flush and 0 < abs(q) < np.finfo(np.float32).tiny else q
    want = np.array([ftz(np.float32(ftz(a) + ftz(b))) for a, b in zip(cells, v)], np.float32)
    c, olds = dev.to_device(cells), dev.alloc(8, np.float32)
    dev.launch(mod(dev).kernel(kernel), 1, 8, [c, dev.to_device(v), olds])
    got = dev.from_device(c)
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32)), (got, want)
    assert np.array_equal(dev.from_device(olds).view(np.uint32), cells.view(np.uint32))


def test_shared_memory_contention(dev, rng):
    grid, block = 6, 512
    v = rng.integers(0, 2**32, grid * block, dtype=np.uint64).astype(np.uint32)
    out = dev.alloc(5 * grid, np.uint32)
    dev.launch(mod(dev).kernel("shared_contend"), grid, block, [dev.to_device(v), out])
    got = dev.from_device(out).reshape(grid, 5)
    for b in range(grid):
        x = v[b * block:(b + 1) * block]
        want = [int(x.astype(np.uint64).sum()) & 0xFFFFFFFF, x.min(), x.max(), np.bitwise_xor.reduce(x),
                (int(x.astype(np.uint64).sum()) << 20 >> 20) & 0xFFFFFFFF]
        assert [int(q) for q in got[b]] == [int(q) for q in want], f"CTA {b}"


def test_explicit_forms(dev):
    """Generic addresses, .sem/.scope qualifiers, .L2::cache_hint, cas.b16, vector f32 add, f16x2
    min/max, exch/inc/dec through inline PTX."""
    grid, block = 2, 64
    n = grid * block
    g = dev.to_device(np.array([0, 0, 0, 0, 77, 0, 0, 0], np.uint32))
    gv = dev.to_device(np.zeros(8, np.float32))
    gh = dev.to_device(np.array([-65504, -65504, -65504, -65504, 65504, 65504, 65504, 65504], np.float16))
    g16 = dev.to_device(np.array([5, 0], np.uint16))
    out = dev.alloc(16 * n, np.uint32)
    t = np.arange(n)
    lo, hi = (t % 97 - 40).astype(np.float16), (0.5 * (t % 13)).astype(np.float16)
    hv = np.stack([lo, hi], 1).view(np.uint32).reshape(n)
    dev.launch(mod(dev).kernel("explicit_forms"), grid, block, [g, gv, gh, g16, dev.to_device(hv), out])
    o = dev.from_device(out).reshape(n, 16).astype(np.int64)
    gg = [int(q) for q in dev.from_device(g)]
    for b in range(grid):
        ob = o[b * block:(b + 1) * block]
        assert sorted(ob[:, 0]) == list(range(100, 100 + block))     # generic address of shared
        assert (ob[:, 14] == 100 + block).all()
    assert sorted(o[:, 1]) == list(range(0, 2 * n, 2)) and gg[0] == 2 * n
    assert gg[1] == 3 * n and gg[2] == 0xFFFFFFFF
    assert sorted(o[:, 3]) == list(range(0, 4 * n, 4)) and gg[3] == 4 * n
    winner = int(dev.from_device(g16)[0])              # cas.b16: the first thread swaps, once
    assert 1000 <= winner < 1000 + n and Counter(o[:, 4]) == Counter([5] + [winner] * (n - 1))
    f = o[:, 5:9].astype(np.uint32).view(np.float32)
    for e, step in enumerate([1.0, 2.0, 0.5, -1.0]):
        assert sorted(f[:, e] / step) == list(range(n))
    assert list(dev.from_device(gv)) == [n * 1.0, n * 2.0, n * 0.5, -n * 1.0, 0.25 * n, 4.0 * n, 0, 0]
    ghv = dev.from_device(gh)
    assert list(ghv[:4]) == [lo.max(), hi.max()] * 2 and list(ghv[4:]) == [lo.min(), hi.min()] * 2
    assert Counter(list(o[:, 11]) + [gg[4]]) == Counter([77] + list(range(n)))
    assert Counter(o[:, 12]) == Counter(i % 10 for i in range(n)) and gg[5] == n % 10
    seq = [0]
    for _ in range(n):
        seq.append(6 if seq[-1] == 0 or seq[-1] > 6 else seq[-1] - 1)
    assert Counter(o[:, 13]) == Counter(seq[:n]) and gg[6] == seq[n]


# ---------------------------------------------------------------- instruction level

def test_cas_b32_per_lane_operands(dev, rng):
    """atom.global.cas.b32 with per-lane compare and swap values, 4 warps on one cell: a lane swaps
    only if its compare equals the value it finds (the chain identity checks exactly that)."""
    n = 128
    b = rng.integers(0, 4, n).astype(np.uint32)
    c = rng.integers(0, 4, n).astype(np.uint32)
    cell, outb = dev.to_device(np.zeros(1, np.uint32)), dev.alloc(n, np.uint32)
    dev.launch(dev.load_ptx(_cas_kernel()).kernel("k"), 1, n, [cell, dev.to_device(b), dev.to_device(c), outb])
    olds, final = [int(q) for q in dev.from_device(outb)], int(dev.from_device(cell)[0])
    assert chain_ok(0, olds, final, lambda old, i: int(c[i]) if old == b[i] else old)
    assert any(o == 0 for o in olds)


def _cas_kernel():
    return """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 cell, .param .u64 pb, .param .u64 pc, .param .u64 out)
{
  .reg .b32 %t, %b, %c, %d, %go;
  .reg .b64 %p, %a, %o;
  .reg .pred %done;
  mov.u32 %t, %tid.x;
  ld.param.u64 %p, [pb];
  mul.wide.u32 %o, %t, 4;
  add.u64 %a, %p, %o;
  ld.global.u32 %b, [%a];
  ld.param.u64 %p, [pc];
  add.u64 %a, %p, %o;
  ld.global.u32 %c, [%a];
  ld.param.u64 %p, [cell];
  cvta.to.global.u64 %p, %p;
  atom.relaxed.gpu.global.cas.b32 %d, [%p], %b, %c;
  ld.param.u64 %p, [out];
  add.u64 %a, %p, %o;
  st.global.u32 [%a], %d;
  ret;
}
"""


@sim_only
def test_atom_fault_names_the_lane(dev):
    from engine.errors import MisalignedAccess
    a = np.arange(32, dtype=np.uint64) * 8
    cell = dev.to_device(np.zeros(64, np.uint64))
    with pytest.raises(MisalignedAccess, match="not a multiple of 8"):
        run_inst(dev, "atom.global.add.u64 %d, [%a], 1", d="u64", a=("u64", a + cell.addr + 4), block=32)


@sim_only
def test_invalid_forms_refused_at_load(dev):
    from engine.errors import UnsupportedInstruction
    for inst, d, a in [("atom.global.inc.u64 %d, [%a], 1", "u64", "u64"),
                       ("red.global.cas.b32 [%a], 1, 2", None, "u64"),
                       ("atom.global.min.f32 %d, [%a], 1.0", "f32", "u64")]:
        with pytest.raises(UnsupportedInstruction):
            run_inst(dev, inst, d=d, a=(a, np.zeros(32, np.uint64)), block=32)
