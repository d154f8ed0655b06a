"""The timing model's components, each exercised on its own by a small kernel whose behaviour is known
exactly: L2 hit/miss sequences, shared-memory bank conflicts, coalescing of strided and scattered
accesses, DRAM bandwidth saturation, scheduler order, occupancy limits. Plus determinism and a smoke
test over every configuration preset."""
from __future__ import annotations

import numpy as np
import pytest

from engine import recording
from engine.config import list_configs, load_config
from engine.timing import TimingSim


@pytest.fixture(autouse=True)
def _ptx_timing(monkeypatch):
    """These tests pin the scheduler, pipes and memory model instruction by instruction on hand-written PTX,
    so they time the PTX as written (timing.sass = off); SASS-aware timing is tested in test_sass.py."""
    init = TimingSim.__init__

    def ptx_init(self, config="h200", overrides=None, *a, **k):
        init(self, config, [*(overrides or []), "timing.sass=off"], *a, **k)
    monkeypatch.setattr(TimingSim, "__init__", ptx_init)


HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"


def load_kernel(sim, body: str, params: str = ".param .u64 p_buf, .param .u32 p_n", name="k"):
    return sim.device.load_ptx(HEAD + f".visible .entry {name}({params})\n{{\n{body}\n}}\n").kernel(name)


# one warp walks `n` sectors (32-byte stride) with ld.global.cg (L2 only), twice
STRIDED_READ = """
  .reg .pred %p;
  .reg .b32 %i, %n, %v, %acc, %stride;
  .reg .b64 %base, %addr, %off;
  ld.param.u64 %base, [p_buf];
  ld.param.u32 %n, [p_n];
  ld.param.u32 %stride, [p_stride];
  mov.u32 %i, 0;
  mov.u32 %acc, 0;
LOOP:
  mul.wide.u32 %off, %i, %stride;
  add.u64 %addr, %base, %off;
  ld.global.cg.u32 %v, [%addr];
  add.u32 %acc, %acc, %v;
  add.u32 %i, %i, 1;
  setp.lt.u32 %p, %i, %n;
  @%p bra LOOP;
  st.global.u32 [%base], %acc;
  ret;
"""


@pytest.mark.parametrize("fetch", [32, 64, 128])
def test_l2_cold_misses_then_hits(fetch):
    """512 consecutive sectors, cold: a miss fills its aligned block of l2.dram_fetch_bytes (the H200
    reads DRAM in 64-byte blocks), so 32 / fetch of them miss and the rest hit the filled sectors;
    every byte is read from DRAM once either way."""
    sim = TimingSim("h200", overrides=["l2.partitions=1", f"l2.dram_fetch_bytes={fetch}"])
    k = load_kernel(sim, STRIDED_READ, ".param .u64 p_buf, .param .u32 p_n, .param .u32 p_stride")
    buf = sim.device.to_device(np.zeros(4096 * 8, np.uint32))
    sim.flush()
    first = sim.launch(k, 1, 1, [buf, 512, 32]).stats       # 512 distinct sectors, cold
    assert first["L2_total_misses"] == 512 * 32 // fetch
    assert first["L2_total_hits"] == 512 - 512 * 32 // fetch + 1   # + the final store
    assert first["dram_read_bytes"] == 512 * 32
    second = sim.launch(k, 1, 1, [buf, 512, 32]).stats      # the same sectors: all in L2 now
    assert second["L2_total_misses"] == 0
    assert second["L2_total_hits"] == 512 + 1                # + the final store
    assert second["dram_read_bytes"] == 0
    assert second["gpu_sim_cycle"] < first["gpu_sim_cycle"]  # hits are faster than DRAM


def test_sectors_of_one_request_all_miss_even_when_a_fetch_block_covers_them():
    """A warp reading 128 consecutive bytes asks for four sectors in one request: they are looked up
    together, so all four miss (Nsight counts them so) even though 64-byte DRAM fetches pair them."""
    sim = TimingSim("h200", overrides=["l2.partitions=1", "l2.dram_fetch_bytes=64"])
    k = load_kernel(sim, """
  .reg .b32 %t, %v;
  .reg .b64 %base, %addr, %off;
  ld.param.u64 %base, [p_buf];
  mov.u32 %t, %tid.x;
  mul.wide.u32 %off, %t, 4;
  add.u64 %addr, %base, %off;
  ld.global.cg.u32 %v, [%addr];
  st.global.u32 [%addr+4096], %v;
  ret;""")
    buf = sim.device.to_device(np.zeros(4096, np.uint32))
    sim.flush()
    st = sim.launch(k, 1, 32, [buf, 0]).stats               # lane l reads word l: 4 sectors, one line
    assert st["L2_total_misses"] == 4
    assert st["dram_read_bytes"] == 128


def test_l2_capacity_evicts():
    """A working set larger than the L2 cannot all hit on the second pass."""
    sim = TimingSim("h200", overrides=["l2.partitions=1", "l2.size_kib=1536", "l2.slices=96", "l2.assoc=16"])
    k = load_kernel(sim, STRIDED_READ, ".param .u64 p_buf, .param .u32 p_n, .param .u32 p_stride")
    n = 4 * 1536 * 1024 // 128                               # 4x the L2 in 128-byte steps
    buf = sim.device.to_device(np.zeros(n * 32, np.uint32))
    sim.flush()
    sim.launch(k, 1, 1, [buf, n, 128])
    again = sim.launch(k, 1, 1, [buf, n, 128]).stats
    assert again["L2_total_misses"] > 0.9 * n                # LRU over a streaming set: nearly all miss


SHARED_STRIDE = """
  .reg .b32 %t, %a, %v, %stride;
  .reg .b64 %out;
  .shared .align 4 .b32 smem[1024];
  ld.param.u32 %stride, [p_n];
  mov.u32 %t, %tid.x;
  mul.lo.u32 %a, %t, %stride;
  and.b32 %a, %a, 1023;
  shl.b32 %a, %a, 2;
  mov.u32 %v, smem;
  add.u32 %a, %a, %v;
  ld.shared.u32 %v, [%a];
  ld.param.u64 %out, [p_buf];
  st.global.u32 [%out], %v;
  ret;
"""


@pytest.mark.parametrize("stride,ways", [(1, 1), (2, 2), (4, 4), (8, 8), (16, 16), (32, 32), (3, 1), (33, 1), (0, 1)])
def test_shared_bank_conflicts(stride, ways):
    sim = TimingSim("h200")
    k = load_kernel(sim, SHARED_STRIDE)
    out = sim.device.to_device(np.zeros(1, np.uint32))
    st = sim.launch(k, 1, 32, [out, stride]).stats
    assert st["shared_insts"] == 1
    assert st["shared_wavefronts"] == ways                   # the most distinct words any bank serves
    assert st["shared_bank_conflicts"] == ways - 1


GLOBAL_STRIDE = """
  .reg .b32 %t, %v, %stride;
  .reg .b64 %base, %off, %addr;
  ld.param.u64 %base, [p_buf];
  ld.param.u32 %stride, [p_n];
  mov.u32 %t, %tid.x;
  mul.wide.u32 %off, %t, %stride;
  add.u64 %addr, %base, %off;
  ld.global.u32 %v, [%addr];
  st.global.u32 [%base], %v;
  ret;
"""


@pytest.mark.parametrize("stride_bytes", [4, 8, 16, 32, 64, 128, 256])
def test_coalescing_of_strided_loads(stride_bytes):
    sim = TimingSim("h200")
    k = load_kernel(sim, GLOBAL_STRIDE)
    buf = sim.device.to_device(np.zeros(32 * 256, np.uint32))
    sim.flush()
    st = sim.launch(k, 1, 32, [buf, stride_bytes]).stats
    span = 32 * stride_bytes
    sectors = 32 if stride_bytes >= 32 else span // 32
    lines = max(1, span // 128) if stride_bytes < 128 else 32
    loads = st["L1D_total_sectors"] - st["L1D_store_sectors"]
    assert loads == sectors
    assert st["L1D_total_requests"] == lines + 1             # + the store's one line


def test_coalescing_of_a_scattered_gather():
    """Lanes reading random words of a large buffer: one sector per distinct 32-byte block."""
    sim = TimingSim("h200")
    body = """
  .reg .b32 %t, %v, %idx;
  .reg .b64 %base, %ix, %off, %addr;
  ld.param.u64 %base, [p_buf];
  ld.param.u64 %ix, [p_idx];
  mov.u32 %t, %tid.x;
  mul.wide.u32 %off, %t, 4;
  add.u64 %addr, %ix, %off;
  ld.global.u32 %idx, [%addr];
  mul.wide.u32 %off, %idx, 4;
  add.u64 %addr, %base, %off;
  ld.global.u32 %v, [%addr];
  st.global.u32 [%base], %v;
  ret;"""
    k = load_kernel(sim, body, ".param .u64 p_buf, .param .u64 p_idx")
    rng = np.random.default_rng(7)
    idx = rng.integers(0, 1 << 20, 32).astype(np.uint32)
    buf = sim.device.to_device(np.zeros(1 << 20, np.uint32))
    ib = sim.device.to_device(idx)
    sim.flush()
    st = sim.launch(k, 1, 32, [buf, ib]).stats
    expected = 4 + len(set(int(i) // 8 for i in idx))        # index load: 128 B = 4 sectors
    assert st["L1D_total_sectors"] - st["L1D_store_sectors"] == expected


# one warp: A and B 16x16 f16 fragments from global memory (row pitch p_ld halves), the f32 product stored
WMMA_GLOBAL = """
  .reg .b32 %ld, %a<8>, %b<8>;
  .reg .f32 %c<8>;
  .reg .b64 %pa, %pb, %pc;
  ld.param.u64 %pa, [p_a];
  ld.param.u64 %pb, [p_b];
  ld.param.u64 %pc, [p_c];
  ld.param.u32 %ld, [p_ld];
  wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7}, [%pa], %ld;
  wmma.load.b.sync.aligned.row.m16n16k16.global.f16 {%b0, %b1, %b2, %b3, %b4, %b5, %b6, %b7}, [%pb], %ld;
  wmma.mma.sync.aligned.row.row.m16n16k16.f32.f32 {%c0, %c1, %c2, %c3, %c4, %c5, %c6, %c7}, {%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7}, {%b0, %b1, %b2, %b3, %b4, %b5, %b6, %b7}, {0f00000000, 0f00000000, 0f00000000, 0f00000000, 0f00000000, 0f00000000, 0f00000000, 0f00000000};
  wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%pc], {%c0, %c1, %c2, %c3, %c4, %c5, %c6, %c7}, %ld;
  ret;"""


@pytest.mark.parametrize("ld,lookups", [(512, 32 + 32 + 32), (16, 8 + 8 + 16)])
def test_wmma_fragments_on_global_memory_are_the_jits_requests(ld, lookups):
    """The driver JIT loads a 16x16 f16 fragment as 4 LDG.E of 8 rows x 16 bytes and stores an f32 one as
    4 STG.E.64 of 8 rows x 32 bytes (validation/sass/hgemm_wmma.sm90.jit.sass; ncu: 8 sectors per load
    request): with rows 1 KiB apart 8 lines per request; with the tile stored densely (ld = 16) 2 lines per
    load request (8 rows x 32 bytes of pitch), 4 per store request (8 rows x 64 bytes)."""
    sim = TimingSim("h200")
    k = load_kernel(sim, WMMA_GLOBAL, ".param .u64 p_a, .param .u64 p_b, .param .u64 p_c, .param .u32 p_ld")
    rng = np.random.default_rng(3)
    a = rng.uniform(-1, 1, (16, ld)).astype(np.float16)
    b = rng.uniform(-1, 1, (16, ld)).astype(np.float16)
    da, db = sim.device.to_device(a), sim.device.to_device(b)
    dc = sim.device.to_device(np.zeros((16, ld), np.float32))
    sim.flush()
    st = sim.launch(k, 1, 32, [da, db, dc, ld]).stats
    c = sim.device.from_device(dc)[:, :16]
    ref = a[:, :16].astype(np.float64) @ b[:, :16].astype(np.float64)
    assert np.allclose(c, ref, rtol=1e-5, atol=1e-5)
    assert st["L1D_total_requests"] == lookups


def _wmma_global(sim, blay: str, ld: int = 512):
    """WMMA_GLOBAL with B in layout `blay`: its kernel, its output check and its cycles (L2 warm, L1 flushed)."""
    body = WMMA_GLOBAL.replace("wmma.load.b.sync.aligned.row.", f"wmma.load.b.sync.aligned.{blay}.").replace(
        "wmma.mma.sync.aligned.row.row.", f"wmma.mma.sync.aligned.row.{blay}.")
    k = load_kernel(sim, body, ".param .u64 p_a, .param .u64 p_b, .param .u64 p_c, .param .u32 p_ld")
    rng = np.random.default_rng(5)
    a = rng.uniform(-1, 1, (16, ld)).astype(np.float16)
    b = rng.uniform(-1, 1, (16, ld)).astype(np.float16)
    da, db = sim.device.to_device(a), sim.device.to_device(b)
    dc = sim.device.to_device(np.zeros((16, ld), np.float32))
    sim.flush()
    cycles = sim.launch(k, 1, 32, [da, db, dc, ld]).cycles
    c = sim.device.from_device(dc)[:, :16]
    bm = b[:, :16].astype(np.float64)
    ref = a[:, :16].astype(np.float64) @ (bm if blay == "row" else bm.T)
    assert np.allclose(c, ref, rtol=1e-5, atol=1e-5)
    return cycles


@pytest.mark.parametrize("blay,movms", [("row", 4), ("col", 0)])
def test_transposed_wmma_fragments_from_global_wait_for_their_movms(blay, movms):
    """The JIT loads a 16-bit fragment from global memory as stored and transposes each 8x8 matrix of a
    row-major B (or column-major A) in registers, one MOVM.16.MT88 each (ptxas: 4 per 16x16 fragment); the
    mma waits for them: sm.movm_latency_cycles plus sm.movm_interval_cycles per further MOVM. Column-major B
    needs none."""
    base = _wmma_global(TimingSim("h200", ["sm.movm_latency_cycles=0"]), blay)
    with_movm = _wmma_global(TimingSim("h200", ["sm.movm_latency_cycles=40", "sm.movm_interval_cycles=5"]), blay)
    assert with_movm - base == (40 + 5 * (movms - 1) if movms else 0)


# one warp: a 16x16 f16 fragment from global memory twice (the second time L1 hits), the clock around the second
WMMA_HIT = """
  .reg .b32 %ld, %a<8>, %u;
  .reg .b64 %pa, %pt, %t0, %t1, %z;
  ld.param.u64 %pa, [p_a];
  ld.param.u64 %pt, [p_t];
  ld.param.u32 %ld, [p_ld];
  wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7}, [%pa], %ld;
  add.u32 %u, %a0, %a7;
  cvt.u64.u32 %z, %u;
  and.b64 %z, %z, 0;
  add.u64 %pa, %pa, %z;
  mov.u64 %t0, %clock64;
  wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7}, [%pa], %ld;
  add.u32 %u, %a0, %a7;
  mov.u64 %t1, %clock64;
  cvt.u64.u32 %z, %u;
  and.b64 %z, %z, 0;
  add.u64 %t1, %t1, %z;
  sub.u64 %t1, %t1, %t0;
  st.global.u64 [%pt], %t1;
  ret;"""


@pytest.mark.parametrize("ld,later", [(512, 24), (16, 6)])
def test_a_fragment_hit_waits_for_its_last_request(ld, later):
    """The JIT's 4 requests of a fragment go through the L1's data array one after another (one wavefront per
    cycle): the last starts 24 cycles after the first at a 1 KiB pitch (4 x 8 lines at one offset) and 6 with
    the tile stored densely (4 x 2 lines), and the fragment is there a hit latency after that."""
    sim = TimingSim("h200")
    k = load_kernel(sim, WMMA_HIT, ".param .u64 p_a, .param .u64 p_t, .param .u32 p_ld")
    a = sim.device.to_device(np.ones((16, ld), np.float16))
    t = sim.device.to_device(np.zeros(1, np.uint64))
    sim.flush()
    sim.launch(k, 1, 32, [a, t, ld])
    dt = int(sim.device.from_device(t)[0])
    hit = sim.config["l1.hit_latency_cycles"]
    # issue of the load, its LSU start one cycle later, the data, the add (4) and the clock read
    assert hit + later < dt <= hit + later + 12


# one warp: lane l reads word l % 4 of row l / 4 (8 rows p_pitch bytes apart) twice, the clock around the second
ROWS_HIT = """
  .reg .b32 %l, %r, %c, %v, %pitch;
  .reg .b64 %p, %pt, %off, %t0, %t1, %z;
  ld.param.u64 %p, [p_a];
  ld.param.u64 %pt, [p_t];
  ld.param.u32 %pitch, [p_pitch];
  mov.u32 %l, %tid.x;
  shr.u32 %r, %l, 2;
  and.b32 %c, %l, 3;
  shl.b32 %c, %c, 2;
  mad.lo.u32 %r, %r, %pitch, %c;
  cvt.u64.u32 %off, %r;
  add.u64 %p, %p, %off;
  ld.global.u32 %v, [%p];
  cvt.u64.u32 %z, %v;
  and.b64 %z, %z, 0;
  add.u64 %p, %p, %z;
  mov.u64 %t0, %clock64;
  ld.global.u32 %v, [%p];
  cvt.u64.u32 %z, %v;
  mov.u64 %t1, %clock64;
  and.b64 %z, %z, 0;
  add.u64 %t1, %t1, %z;
  sub.u64 %t1, %t1, %t0;
  st.global.u64 [%pt], %t1;
  ret;"""


@pytest.mark.parametrize("pitch,wavefronts", [(16, 1), (1040, 1), (64, 4), (1024, 8)])
def test_an_l1_hit_waits_for_its_wavefronts(pitch, wavefronts):
    """l1.wavefront_latency_cycles: an L1 hit whose request needs W data wavefronts (lines whose words sit in the
    same banks) completes (W - 1) x that many cycles later than a one-wavefront hit; 8 lines at distinct bank
    offsets are one wavefront."""
    dts = []
    for x in (0, 3):
        sim = TimingSim("h200", [f"l1.wavefront_latency_cycles={x}"])
        k = load_kernel(sim, ROWS_HIT, ".param .u64 p_a, .param .u64 p_t, .param .u32 p_pitch")
        a = sim.device.to_device(np.zeros(8 * 1040 // 4 + 64, np.uint32))
        t = sim.device.to_device(np.zeros(1, np.uint64))
        sim.flush()
        sim.launch(k, 1, 32, [a, t, pitch])
        dts.append(int(sim.device.from_device(t)[0]))
    assert dts[1] - dts[0] == 3 * (wavefronts - 1)
    assert dts[0] >= TimingSim("h200").config["l1.hit_latency_cycles"]


# four warps (one per sub-core): each loads its own 16x16 f16 fragment from global memory (rows 1 KiB apart: the
# JIT's 4 requests of 8 lines) and reads the clock once the fragment is there (a use of its register)
WMMA_WARPS = """
  .reg .b32 %ld, %a<8>, %w, %u;
  .reg .b64 %pa, %pt, %t0, %t1, %off;
  ld.param.u64 %pa, [p_a];
  ld.param.u64 %pt, [p_t];
  mov.u32 %ld, 512;
  mov.u32 %w, %tid.x;
  shr.u32 %w, %w, 5;
  mul.wide.u32 %off, %w, 16384;
  add.u64 %pa, %pa, %off;
  bar.sync 0;
  mov.u64 %t0, %clock64;
  wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7}, [%pa], %ld;
  add.u32 %u, %a0, %a7;
  mov.u64 %t1, %clock64;
  cvt.u64.u32 %t0, %u;
  and.b64 %t0, %t0, 0;
  add.u64 %t1, %t1, %t0;
  mul.wide.u32 %off, %w, 8;
  add.u64 %pt, %pt, %off;
  st.global.u64 [%pt], %t1;
  ret;"""


@pytest.mark.parametrize("split", [0, 1])
def test_fragment_requests_of_warps_interleave_at_the_lsu(split):
    """sm.frag_requests = 1: a wmma.load from global issues as the JIT's 4 LDG (one LSU instruction each), so
    the requests of warps on the four sub-cores interleave and the four fragments arrive within a few
    requests of each other (~8 cycles apart); as one LSU instruction each, a whole fragment (32 cycles of the
    LSU) goes before the next warp's. The L1 sees the same requests either way."""
    sim = TimingSim("h200", [f"sm.frag_requests={split}"])
    k = load_kernel(sim, WMMA_WARPS, ".param .u64 p_a, .param .u64 p_t")
    a = sim.device.to_device(np.ones((64, 512), np.float16))
    t = sim.device.to_device(np.zeros(4, np.uint64))
    sim.flush()
    sim.launch(k, 1, 128, [a, t])                            # a first launch warms the caches
    st = sim.launch(k, 1, 128, [a, t]).stats
    ends = np.sort(sim.device.from_device(t).astype(np.int64))
    gaps = np.diff(ends)
    assert st["L1D_total_requests"] == 4 * 32 + 4             # 4 x 32 lines, and the 4 clock stores
    if split:
        assert gaps.max() <= 10 and ends[-1] - ends[0] <= 24
    else:
        assert gaps.min() >= 30


def test_dram_bandwidth_saturates_at_the_configured_rate():
    cfg = load_config("h200")
    sim = TimingSim(cfg)
    k = load_kernel(sim, """
  .reg .pred %p;
  .reg .b32 %i, %n, %v, %acc;
  .reg .b64 %base, %off, %addr;
  ld.param.u64 %base, [p_buf];
  ld.param.u32 %n, [p_n];
  mov.u32 %i, %ctaid.x;
  mov.u32 %v, %ntid.x;
  mov.u32 %acc, %tid.x;
  mad.lo.u32 %i, %i, %v, %acc;
  setp.ge.u32 %p, %i, %n;
  @%p bra DONE;
  mul.wide.u32 %off, %i, 16;
  add.u64 %addr, %base, %off;
  ld.global.cg.v4.u32 {%v, %acc, %i, %n}, [%addr];
  add.u32 %v, %v, %acc;
  st.global.v4.u32 [%addr], {%v, %v, %v, %v};
DONE:
  ret;""")
    n = 1 << 22                                              # 64 MiB read, 64 MiB written back in place
    buf = sim.device.to_device(np.zeros(n * 4, np.uint32))
    sim.flush()
    st = sim.launch(k, n // 256, 256, [buf, n]).stats
    bytes_per_cycle = (st["dram_read_bytes"] + st["dram_write_bytes"]) / st["gpu_sim_cycle"]
    peak = cfg["dram.bandwidth_gbps"] * 1e9 / (cfg["gpu.sm_clock_mhz"] * 1e6)
    # every element read once; a few partly written sectors evicted before completion are merged
    # with their DRAM data first (read-modify-write), so slightly more may be read
    assert n * 16 <= st["dram_read_bytes"] <= n * 16 * 1.01
    assert bytes_per_cycle <= peak * cfg["dram.efficiency"] * 1.001
    assert bytes_per_cycle >= 0.7 * peak * cfg["dram.efficiency"]


def _selected_order(sim, k, args, grid, block):
    class Sink:
        rows = []

        def begin(self, meta):
            pass

        def append(self, table, chunk):
            if table == "warp_states":
                self.rows.append(chunk.copy())

        def end(self, stats, status):
            pass
    sink = Sink()
    sim.launch(k, grid, block, args, sink=sink)
    ws = np.concatenate(sink.rows)
    sel = ws[ws["state"] == recording.STATE_INDEX["selected"]]
    return sel[np.argsort(sel["cycle"], kind="stable")]


ALU_INDEPENDENT = """
  .reg .b32 %a, %b, %c, %d, %e, %f;
  .reg .b64 %out;
  mov.u32 %a, 1;
  mov.u32 %b, 2;
  mov.u32 %c, 3;
  mov.u32 %d, 4;
  mov.u32 %e, 5;
  mov.u32 %f, 6;
  add.u32 %a, %a, %b;
  add.u32 %c, %c, %d;
  add.u32 %e, %e, %f;
  add.u32 %a, %a, %c;
  add.u32 %a, %a, %e;
  ld.param.u64 %out, [p_buf];
  st.global.u32 [%out], %a;
  ret;
"""


def test_gto_keeps_issuing_from_one_warp_lrr_rotates():
    """Two warps on one scheduler, each with independent instructions: GTO keeps issuing from the oldest
    warp while it can, LRR alternates between them. (Both warps start together: gpu.warp_launch_cycles = 0.)"""
    seqs = {}
    for policy in ("gto", "lrr"):
        sim = TimingSim("h200", overrides=[f"sm.scheduler={policy}", "sm.subcores=1", "pipes.int.interval_cycles=1",
                                           "gpu.warp_launch_cycles=0"], record="full")
        k = load_kernel(sim, ALU_INDEPENDENT)
        out = sim.device.to_device(np.zeros(1, np.uint32))
        sel = _selected_order(sim, k, [out, 0], 1, 64)
        movs = [i for i, t in enumerate(k.module.program.pc_text) if t.startswith("mov.u32")]
        first = sel[np.isin(sel["pc"], movs)]                # the six independent movs of each warp
        seqs[policy] = [int(s) for s in first["slot"][:8]]
    assert seqs["lrr"][:4] in ([0, 1, 0, 1], [1, 0, 1, 0])
    assert seqs["gto"][:6] == [0] * 6                        # greedy: the oldest warp until it stalls


ROW_INTERLEAVED = """
  .reg .pred %p;
  .reg .b32 %t, %i, %n, %v, %acc, %r, %c;
  .reg .b64 %base, %addr, %off;
  ld.param.u64 %base, [p_buf];
  ld.param.u32 %n, [p_n];
  mov.u32 %t, %tid.x;
  and.b32 %r, %t, 3;                // lane % 4: one of four DRAM rows (4 KiB apart)
  shr.u32 %c, %t, 2;                // lane / 4: the sector within 256 bytes
  shl.b32 %r, %r, 12;
  shl.b32 %c, %c, 5;
  add.u32 %r, %r, %c;
  mov.u32 %i, 0;
  mov.u32 %acc, 0;
LOOP:
  shl.b32 %c, %i, 8;
  add.u32 %c, %c, %r;
  cvt.u64.u32 %off, %c;
  add.u64 %addr, %base, %off;
  ld.global.cg.u32 %v, [%addr];
  add.u32 %acc, %acc, %v;
  add.u32 %i, %i, 1;
  setp.lt.u32 %p, %i, %n;
  @%p bra LOOP;
  st.global.u32 [%base], %acc;
  ret;
"""


def test_fr_fcfs_groups_queued_requests_to_a_row_that_open_row_keeps_reopening():
    """One bank, one slow channel: each load's two lines per row arrive alternating between four rows
    (r0 r1 r2 r3 r0 r1 r2 r3). In arrival order (open_row) every line reopens its row: 8 row misses per
    load; first-ready FCFS serves each row's second line with its still-queued first: 4 per load. The
    next load waits for the previous one (its sum depends on it), so nothing is queued across loads."""
    stats = {}
    for policy in ("open_row", "fr_fcfs"):
        sim = TimingSim("h200", overrides=["dram.channels=1", "dram.banks=1", "dram.row_bytes=4096",
                                           "dram.bandwidth_gbps=20", f"dram.policy={policy}"])
        k = load_kernel(sim, ROW_INTERLEAVED)
        buf = sim.device.to_device(np.ones(4 * 4096 // 4, np.uint32))
        sim.flush()
        stats[policy] = sim.launch(k, 1, 32, [buf, 16]).stats
    o, f = stats["open_row"], stats["fr_fcfs"]
    accesses = o["dram_row_hits"] + o["dram_row_misses"]
    assert accesses == f["dram_row_hits"] + f["dram_row_misses"] >= 16 * 32
    assert o["dram_row_misses"] == 16 * 8
    assert f["dram_row_misses"] == 16 * 4
    assert f["gpu_sim_cycle"] < o["gpu_sim_cycle"]


LANE_LOOP = """
  .reg .pred %p;
  .reg .b32 %t, %i, %a;
  .reg .b64 %out, %off;
  mov.u32 %t, %tid.x;
  mov.u32 %i, 0;
  mov.u32 %a, 0;
  setp.ge.u32 %p, %i, %t;
  @%p bra DONE;
LOOP:
  add.u32 %a, %a, %i;
  add.u32 %i, %i, 1;
  setp.lt.u32 %p, %i, %t;
  @%p bra LOOP;
DONE:
  ld.param.u64 %out, [p_buf];
  mul.wide.u32 %off, %t, 4;
  add.u64 %out, %out, %off;
  st.global.u32 [%out], %a;
  ret;
"""


def test_recorded_active_masks_follow_divergence():
    """Lane t loops t times: in iteration j the loop body runs on the lanes t > j, so the recorded issues
    of the body carry the masks 0xfffffffe, 0xfffffffc, ...; the store after the loop runs on every lane."""
    sim = TimingSim("h200", record="full")
    k = load_kernel(sim, LANE_LOOP)
    out = sim.device.to_device(np.zeros(32, np.uint32))
    sel = _selected_order(sim, k, [out, 0], 1, 32)
    text = k.module.program.pc_text
    body = [i for i, t in enumerate(text) if t.startswith("add.u32") and "%i;" in t]
    store = [i for i, t in enumerate(text) if t.startswith("st.global")]
    assert len(body) == 1 and len(store) == 1
    masks = sel["active"][sel["pc"] == body[0]].tolist()
    assert masks == [(0xFFFFFFFF << (j + 1)) & 0xFFFFFFFF for j in range(31)]
    assert sel["active"][sel["pc"] == store[0]].tolist() == [0xFFFFFFFF]
    assert np.array_equal(sim.device.from_device(out, np.uint32, 32), [t * (t - 1) // 2 for t in range(32)])


@pytest.mark.parametrize("block,shared,limit,ctas", [
    (1024, 0, "warps", 2),                                   # 64 warps / 32 per CTA
    (64, 0, "ctas", 32),                                     # the CTA slot limit
    (128, 100 * 1024, "shared", 2),                          # 228 KiB / (100 KiB + 1 KiB reserved)
    (256, 40 * 1024, "shared", 5),
])
def test_occupancy_limits(block, shared, limit, ctas):
    sim = TimingSim("h200")
    k = load_kernel(sim, "  ret;", ".param .u64 p_buf, .param .u32 p_n")
    st = sim.launch(k, 1, block, [0, 0], shared=shared).stats
    assert st["occupancy_limiter"] == limit
    assert st["occupancy_ctas_per_sm"] == ctas


def test_register_limit_from_the_front_end_estimate():
    sim = TimingSim("h200", overrides=["sm.default_regs_per_thread=128"])
    k = load_kernel(sim, "  ret;", ".param .u64 p_buf, .param .u32 p_n")
    # the front end's estimate (1 register here) wins over the default; 16-register floor is not modelled
    st = sim.launch(k, 1, 256, [0, 0]).stats
    assert st["regs_per_thread"] >= 1 and st["occupancy_limiter"] != "registers"
    sim2 = TimingSim("h200", overrides=["sm.registers=8192"])
    k2 = load_kernel(sim2, "  ret;", ".param .u64 p_buf, .param .u32 p_n")
    st2 = sim2.launch(k2, 1, 1024, [0, 0]).stats            # 1024 threads need 32768 registers at 32/thread
    assert st2["occupancy_ctas_per_sm"] == 0 or st2["occupancy_limiter"] == "registers"


def test_identical_inputs_give_identical_statistics_and_recordings(suite):
    def one():
        sim = TimingSim("h200", record="full")
        tables = {}

        class Sink:
            def begin(self, meta):
                pass

            def append(self, table, chunk):
                tables.setdefault(table, []).append(chunk.tobytes())

            def end(self, stats, status):
                pass
        run = sim.run_case(suite["softmax_4096x128"], sink=Sink())
        stats = dict(run.timing.stats)
        stats.pop("wall_s")
        return stats, {t: b"".join(v) for t, v in tables.items()}
    a, b = one(), one()
    assert a[0] == b[0]
    assert a[1] == b[1]


def test_a_case_gives_the_same_statistics_whatever_ran_before_it_on_the_simulator(suite):
    """run_case flushes the GPU (caches, row buffers, timeline) and frees its buffers, so a case's
    statistics do not depend on the cases simulated before it (validate --jobs reuses simulators)."""
    sim = TimingSim("h200")

    def stats(name):
        st = dict(sim.run_case(suite[name]).timing.stats)
        st.pop("wall_s")
        return st
    first = stats("saxpy_1M")
    stats("softmax_4096x128")
    assert stats("saxpy_1M") == first
    assert first == {k: v for k, v in TimingSim("h200").run_case(suite["saxpy_1M"]).timing.stats.items()
                     if k != "wall_s"}


@pytest.mark.parametrize("name", list_configs())
def test_every_preset_simulates_a_kernel(suite, name):
    sim = TimingSim(name)
    run = sim.run_case(suite["sgemm_tiled16_256"])
    assert run.passed is True
    st = run.timing.stats
    assert st["gpu_sim_cycle"] > 1000
    assert st["warp_insts"] == run.timing.warp_insts > 0
    assert 0 < st["gpu_ipc"] < 32 * 4 * sim.config["gpu.num_sms"]


def test_choice_settings_match_the_engine_tables():
    """config.py's choice lists are the engine's enums in order (the value passed is the index)."""
    from engine._ffi import lib
    from engine.config import DRAM_POLICY, ICACHE, L2_HASH, SCHEDULERS
    for names, prefix, count in [(SCHEDULERS, "GS_SCHED_", lib.GS_SCHED__COUNT), (ICACHE, "GS_ICACHE_", lib.GS_ICACHE__COUNT),
                                 (L2_HASH, "GS_L2_HASH_", lib.GS_L2_HASH__COUNT), (DRAM_POLICY, "GS_DRAM_", lib.GS_DRAM__COUNT)]:
        assert len(names) == count
        for i, n in enumerate(names):
            assert getattr(lib, prefix + n.upper()) == i


def test_an_unknown_choice_value_is_refused_by_the_engine_by_name():
    from engine._ffi import ffi, lib
    cfg = load_config("h200").to_c(ffi)
    cfg.dram_policy = 7
    err = ffi.new("char[256]")
    assert lib.gs_tsim_create(cfg, err, 256) == ffi.NULL
    assert ffi.string(err).decode() == "dram.policy = 7 is not a row policy"


WRITE_WORDS = """
  .reg .b32 %t, %c;
  .reg .b64 %base, %addr, %off;
  ld.param.u64 %base, [p_buf];
  mov.u32 %t, %tid.x;
  mov.u32 %c, %ctaid.x;
  mad.lo.u32 %t, %c, 256, %t;
  mul.wide.u32 %off, %t, 4;
  add.u64 %addr, %base, %off;
  st.global.u32 [%addr], %t;
  ret;
"""

# every thread of 132 x 256 reads 32 words, 132 x 256 x 4 bytes apart (4.3 MB in all), and keeps a sum
SWEEP_READ = """
  .reg .pred %p;
  .reg .b32 %t, %c, %i, %v, %acc;
  .reg .b64 %base, %addr, %off;
  ld.param.u64 %base, [p_buf];
  mov.u32 %t, %tid.x;
  mov.u32 %c, %ctaid.x;
  mad.lo.u32 %t, %c, 256, %t;
  mul.wide.u32 %off, %t, 4;
  add.u64 %addr, %base, %off;
  mov.u32 %acc, 0;
  mov.u32 %i, 0;
LOOP:
  ld.global.cg.u32 %v, [%addr];
  add.u32 %acc, %acc, %v;
  add.u64 %addr, %addr, 135168;
  add.u32 %i, %i, 1;
  setp.lt.u32 %p, %i, 32;
  @%p bra LOOP;
  ld.param.u64 %base, [p_out];
  add.u64 %addr, %base, %off;
  st.global.u32 [%addr], %acc;
  ret;
"""


def test_dirty_lines_evicted_by_near_partition_copies_are_written_back():
    """Stored data leaves the L2 only through DRAM: after 132 KiB of stores, a read sweep of ~3x the L2
    (1.5 MiB here) from SMs of both partitions evicts every dirty line, including those evicted to
    make room for the near-partition copies of far lines, so exactly the stored bytes are written."""
    sim = TimingSim("h200", overrides=["l2.size_kib=1536", "l2.slices=96", "l2.assoc=16"])
    wk = load_kernel(sim, WRITE_WORDS, ".param .u64 p_buf", name="w")
    rk = load_kernel(sim, SWEEP_READ, ".param .u64 p_buf, .param .u64 p_out", name="r")
    words = 132 * 256
    src = sim.device.to_device(np.zeros(words * 32, np.uint32))
    out = sim.device.to_device(np.zeros(words, np.uint32))
    sim.flush()
    first = sim.launch(wk, 132, 256, [src]).stats
    assert first["dram_write_bytes"] == 0                   # 132 KiB of stores stay in the L2
    second = sim.launch(rk, 132, 256, [src, out]).stats
    assert (sim.device.from_device(out) == np.arange(words)).all()
    stored = words * 4
    # the sweep's own output (132 KiB) may still be dirty at its end; the first kernel's data is not
    assert stored <= second["dram_write_bytes"] <= 2 * stored
    assert second["dram_read_bytes"] == words * 4 * 31      # the first 132 KiB hit: just written


def test_dram_refresh_makes_a_tail_but_keeps_the_mean_of_a_cold_chase():
    """A warp walks 600 cold lines 4 KiB apart, one dependent load at a time. With per-bank refresh
    (dram.refresh_ns every dram.refresh_interval_ns, calibration.md 5e) about 14 % of the DRAM accesses
    wait for their bank, and the lower dram.latency_ns that goes with it keeps the mean per hop where
    the measured chase has it: within 3 % of the run without refresh. Without refresh nothing waits."""
    runs = {}
    for name, ov in (("off", ["dram.latency_ns=141"]),
                     ("on", ["dram.refresh_ns=253", "dram.refresh_interval_ns=1800", "dram.latency_ns=123"])):
        sim = TimingSim("h200", overrides=ov)
        k = load_kernel(sim, STRIDED_READ, ".param .u64 p_buf, .param .u32 p_n, .param .u32 p_stride")
        buf = sim.device.to_device(np.zeros(600 * 4096 // 4, np.uint32))
        sim.flush()
        runs[name] = sim.launch(k, 1, 32, [buf, 600, 4096]).stats
    off, on = runs["off"], runs["on"]
    assert off["dram_refresh_waits"] == 0
    accesses = on["dram_read_bytes"] // 32
    assert accesses == off["dram_read_bytes"] // 32 >= 600
    assert 0.07 < on["dram_refresh_waits"] / accesses < 0.21
    assert abs(on["gpu_sim_cycle"] - off["gpu_sim_cycle"]) < 0.03 * off["gpu_sim_cycle"]


# every thread of 132 x 256 reads p_n words, 132 x 256 x 4 bytes apart: each CTA reads 1 KiB per step, so
# every 128-byte line is read by one SM (CTA k runs on SM k; SMs 0-65 are near partition 0)
SWEEP_N = """
  .reg .pred %p;
  .reg .b32 %t, %c, %i, %n, %v, %acc;
  .reg .b64 %base, %addr, %off;
  ld.param.u64 %base, [p_buf];
  ld.param.u32 %n, [p_n];
  mov.u32 %t, %tid.x;
  mov.u32 %c, %ctaid.x;
  mad.lo.u32 %t, %c, 256, %t;
  mul.wide.u32 %off, %t, 4;
  add.u64 %addr, %base, %off;
  mov.u32 %acc, 0;
  mov.u32 %i, 0;
LOOP:
  ld.global.cg.u32 %v, [%addr];
  add.u32 %acc, %acc, %v;
  add.u64 %addr, %addr, 135168;
  add.u32 %i, %i, 1;
  setp.lt.u32 %p, %i, %n;
  @%p bra LOOP;
  ld.param.u64 %base, [p_buf];
  add.u64 %addr, %base, %off;
  st.global.u32 [%addr], %acc;
  ret;
"""


def test_a_buffer_read_by_every_sm_stays_in_the_l2_when_its_copies_fit():
    """lat.cu's L2 curve on the H200: a buffer every SM has read (each line by one SM, far lines also
    copied into the near partition: 1.5x its size) is read again without DRAM accesses as long as that
    fits, up to 32 MiB of 60. Here 660 KiB (990 KiB with the copies) in a 1.5 MiB L2 of 16-way sets.
    xor puts the 4 lines of a 512-byte granule in one set while granules go to slices independently,
    so some sets overflow and lose lines; xor_line (the h200 preset) hashes each line to its set and
    loses far fewer; balanced gives each slice one granule per run of 96 and fills the sets evenly."""
    lost = {}
    for hash_ in ("xor", "xor_line", "balanced"):
        sim = TimingSim("h200", overrides=["l2.size_kib=1536", "l2.slices=96", "l2.assoc=16", f"l2.hash={hash_}"])
        k = load_kernel(sim, SWEEP_N, ".param .u64 p_buf, .param .u32 p_n")
        steps = 5
        buf = sim.device.to_device(np.zeros(132 * 256 * steps, np.uint32))
        sim.flush()
        first = sim.launch(k, 132, 256, [buf, steps]).stats
        assert first["dram_read_bytes"] == 132 * 256 * 4 * steps        # cold: every byte once
        lost[hash_] = sim.launch(k, 132, 256, [buf, steps]).stats["dram_read_bytes"] / first["dram_read_bytes"]
    assert lost["balanced"] == 0
    assert lost["xor"] > 0.08                      # measured 13 %
    assert 0 < lost["xor_line"] < lost["xor"] / 2  # measured 3.6 %
