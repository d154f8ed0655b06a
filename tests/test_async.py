"""Asynchronous copies: cp.async (.ca/.cg, 4/8/16 bytes, src-size zero fill, ignore-src, cache
hints, commit/wait groups), createpolicy, mbarrier (init, arrive, arrive_drop, expect_tx, test_wait,
try_wait.parity, pending_count), cp.async.bulk in both directions with complete_tx and bulk groups.

Kernels: tests/kernels/tensor_async.cu. In the functional core copies complete at issue; the tests
check the values a correct program sees, which any legal timing must give too.
"""
import numpy as np
import pytest

from tests.backends import dev, load_kernels, sim_only  # noqa: F401
from tests.isa import run_inst


def mod(dev):
    return load_kernels(dev, "tensor_async.sm90")


def test_cp_async_sizes_zero_fill_and_ignore_src(dev, rng):
    src = rng.integers(0, 256, 64 * 28).astype(np.uint8)
    srcsize = rng.integers(0, 17, 64).astype(np.uint32)
    srcsize[:4] = [0, 16, 1, 15]
    ignore = (rng.random(64) < 0.4).astype(np.int32)
    out = dev.alloc(64 * 28, np.uint8)
    dev.launch(mod(dev).kernel("cp_async_sizes"), 1, 64,
               [dev.to_device(src), dev.to_device(srcsize), dev.to_device(ignore), out])
    got = dev.from_device(out)
    want = src.copy()
    for t in range(64):
        want[16 * t + srcsize[t]:16 * t + 16] = 0                 # bytes past src-size are zeros
        if ignore[t]:
            want[1024 + 8 * t:1024 + 8 * t + 8] = 0                # ignore-src: all zeros
    assert np.array_equal(got, want)


def test_double_buffered_pipeline(dev, rng):
    grid, ntiles = 3, 5                                       # NTILES in the kernel
    x = rng.standard_normal((grid, ntiles, 128, 4)).astype(np.float32)
    out = dev.alloc(grid * 128, np.float32)
    dev.launch(mod(dev).kernel("pipeline_sum"), grid, 128, [dev.to_device(x), out])
    want = np.zeros((grid, 128), np.float32)
    t = np.arange(128)
    for i in range(ntiles):
        v = x[:, i, (t + 5 * i) & 127]
        want = (want + ((v[..., 0] + v[..., 1]) + (v[..., 2] + v[..., 3]))).astype(np.float32)
    assert np.array_equal(dev.from_device(out).reshape(grid, 128), want)


@pytest.mark.parametrize("iters", [1, 2, 7])
def test_mbarrier_producer_consumer_ring(dev, iters):
    out = dev.alloc(32, np.uint32)
    dev.launch(mod(dev).kernel("mbarrier_ring"), 1, 64, [iters, out])
    lane = np.arange(32)
    want = sum((it * 100 + (31 - lane)) * (it + 1) for it in range(iters))
    assert np.array_equal(dev.from_device(out), want.astype(np.uint32))


@pytest.mark.parametrize("iters", [1, 6])
def test_bulk_copy_pipeline_with_expect_tx(dev, rng, iters):
    x = rng.integers(-8, 9, (iters, 128)).astype(np.float32)
    out = dev.to_device(np.full(128, np.nan, np.float32))
    dev.launch(mod(dev).kernel("bulk_pipeline"), 1, 160, [dev.to_device(x), iters, out])
    want = sum(x[it] * (it + 1) for it in range(iters))
    assert np.array_equal(dev.from_device(out), want.astype(np.float32))


def test_mbarrier_states_drop_and_parity(dev):
    out = dev.alloc(3 * 64, np.uint32)
    dev.launch(mod(dev).kernel("mbarrier_states"), 1, 64, [out])
    got = dev.from_device(out).reshape(64, 3)
    # the pending count in each arrival's state: a warp arrives as one (all its lanes see the same
    # state, the barrier before the warp's 32 arrivals), so the two warps see 64 and 32
    per_warp = [set(got[32 * w:32 * w + 32, 0]) for w in range(2)]
    assert all(len(s) == 1 for s in per_warp) and sorted(s.pop() for s in per_warp) == [32, 64]
    assert (got[:, 1] == 1).all() and (got[:, 2] == 1).all()


# ---------------------------------------------------------------- instruction level

@sim_only
def test_cp_async_src_size_past_cp_size_faults(dev):
    from engine.errors import InvalidOperation
    text = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p)
{
  .reg .b64 %a;
  .shared .align 16 .b8 s[16];
  ld.param.u64 %a, [p];
  cp.async.ca.shared.global [s], [%a], 8, 12;
  ret;
}
"""
    m = dev.load_ptx(text)
    with pytest.raises(InvalidOperation, match="src-size 12 exceeds cp-size 8"):
        dev.launch(m.kernel("k"), 1, 1, [dev.to_device(np.zeros(4, np.uint32))])


@sim_only
def test_cp_async_partial_source_at_allocation_end(dev):
    """With src-size < cp-size only src-size bytes are read: a 12-byte source ending at the last byte
    of an allocation is fine though the 16-byte copy would not be (the zero fill covers the rest)."""
    text = """.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p, .param .u64 q)
{
  .reg .b64 %a, %b;
  .reg .b32 %v;
  .shared .align 16 .b8 s[16];
  ld.param.u64 %a, [p];
  add.u64 %a, %a, 1008;
  cp.async.cg.shared.global [s], [%a], 16, 12;
  cp.async.wait_all;
  ld.param.u64 %b, [q];
  ld.shared.u32 %v, [s+8];
  st.global.u32 [%b], %v;
  ld.shared.u32 %v, [s+12];
  st.global.u32 [%b+4], %v;
  ret;
}
"""
    src = dev.to_device(np.arange(255, dtype=np.uint32) + 1)      # 1020 bytes
    out = dev.to_device(np.full(2, 7, np.uint32))
    dev.launch(dev.load_ptx(text).kernel("k"), 1, 1, [src, out])
    assert list(dev.from_device(out)) == [255, 0]


def test_createpolicy_gives_a_64bit_value(dev):
    out = run_inst(dev, "createpolicy.fractional.L2::evict_last.L2::evict_unchanged.b64 %d, 0.25", d="b64",
                   a=("u32", np.zeros(32, np.uint32)), block=32)
    assert (out == out[0]).all() and out[0] != 0
