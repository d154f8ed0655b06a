"""Warp states charged as Nsight Compute charges them (issue 9, item 5), each on a small kernel whose
behaviour is known: an exited warp drains only until its stores have left the SM (a fence still waits
for the L2 to accept them); shared-memory work queued beyond the MIO queue holds the next shared access
back as mio_throttle (not as short_scoreboard on its consumer); global requests queued beyond the LSU
queue hold the next global access back as lg_throttle. Each queue holds l1.lsu_queue instructions."""
from __future__ import annotations

import numpy as np

from engine.timing import TimingSim

HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"


def load_kernel(sim, body: str, params: str = ".param .u64 p_buf", name="k"):
    return sim.device.load_ptx(HEAD + f".visible .entry {name}({params})\n{{\n{body}\n}}\n").kernel(name)


def store_word(ty: str, reg: str) -> str:
    """the kernels' end: thread %t stores `reg` to word %t of p_buf (needs .b32 %t, .b64 %out, %o)"""
    return f"""  ld.param.u64 %out, [p_buf];
  mul.wide.u32 %o, %t, 4;
  add.u64 %out, %out, %o;
  st.global.{ty} [%out], {reg};
  ret;
"""


# every thread stores one word (coalesced: one 128-byte line per warp), optionally behind a fence
STORE_THEN_EXIT = """
  .reg .b32 %t, %c;
  .reg .b64 %base, %addr, %off;
  ld.param.u64 %base, [p_buf];
  mov.u32 %t, %tid.x;
  mov.u32 %c, %ctaid.x;
  mad.lo.u32 %t, %c, 256, %t;
  mul.wide.u32 %off, %t, 4;
  add.u64 %addr, %base, %off;
  st.global.u32 [%addr], %t;
  {fence}
  ret;
"""


def _store_kernel(fence: str):
    sim = TimingSim("h200")
    k = load_kernel(sim, STORE_THEN_EXIT.replace("{fence}", fence))
    buf = sim.device.to_device(np.zeros(132 * 256, np.uint32))
    sim.flush()
    st = sim.launch(k, 132, 256, [buf]).stats
    out = sim.device.from_device(buf)
    return st, out


def test_an_exited_warp_drains_until_its_stores_leave_the_sm_not_until_the_l2_accepts_them():
    st, out = _store_kernel("")
    assert (out == np.arange(132 * 256)).all()
    warps = 132 * 8
    drain = st["stall_cycles"]["drain"] / warps
    # an L2 round trip is 2 x 110 (interconnect) + 42 (slice) cycles; leaving the SM's port takes the
    # tag lookup, half the L1 latency and the port: a few tens of cycles
    assert 0 < drain < 60, drain
    assert st["stall_cycles"]["membar"] == 0


def test_the_kernel_still_ends_only_when_the_l2_has_accepted_every_store():
    """Warps leave early, the kernel does not: with or without a fence before EXIT it ends at the same
    cycle, when the last store is accepted."""
    plain, _ = _store_kernel("")
    fenced, _ = _store_kernel("membar.gl;")
    assert abs(plain["gpu_sim_cycle"] - fenced["gpu_sim_cycle"]) <= 0.01 * fenced["gpu_sim_cycle"]


def test_a_fence_still_waits_for_the_l2_to_accept_the_stores():
    st, out = _store_kernel("membar.gl;")
    assert (out == np.arange(132 * 256)).all()
    warps = 132 * 8
    membar = st["stall_cycles"]["membar"] / warps
    assert membar > 2 * 110 + 42 - 60, membar        # the store's trip to the slice and its acceptance
    assert st["stall_cycles"]["drain"] / warps < 10    # nothing left to drain after the fence


# 32 warps per CTA, each doing `n` dependent-free 32-way-conflicting shared loads (32 wavefronts each)
SHARED_FLOOD = """
  .reg .pred %p;
  .reg .b32 %t, %a, %v, %acc, %i, %s;
  .reg .b64 %out, %o;
  .shared .align 4 .b32 smem[1024];
  mov.u32 %t, %tid.x;
  shl.b32 %a, %t, 7;
  and.b32 %a, %a, 4095;
  mov.u32 %s, smem;
  add.u32 %a, %a, %s;
  mov.u32 %acc, 0;
  mov.u32 %i, 0;
LOOP:
  ld.shared.u32 %v, [%a];
  add.u32 %acc, %acc, %v;
  add.u32 %i, %i, 1;
  setp.lt.u32 %p, %i, 16;
  @%p bra LOOP;
""" + store_word("u32", "%acc")


def _shared_flood(queue: int):
    sim = TimingSim("h200", overrides=[f"l1.lsu_queue={queue}"])
    k = load_kernel(sim, SHARED_FLOOD)
    buf = sim.device.to_device(np.ones(1024, np.uint32))
    sim.flush()
    st = sim.launch(k, 1, 1024, [buf]).stats
    return st, sim.device.from_device(buf)


def test_shared_memory_queueing_beyond_the_mio_queue_is_mio_throttle():
    st, out = _shared_flood(16)
    assert (out == 0).all()                            # shared memory starts zeroed: 16 x 0
    s = st["stall_cycles"]
    assert st["shared_bank_conflicts"] == 32 * 16 * 31  # 32 warps x 16 loads, 32 wavefronts each
    # 512 loads x 32 wavefronts on one data port, 32 warps: 16 loads fit in the queue, the warps of the
    # others wait to issue them (mio_throttle) instead of waiting for their results
    assert s["mio_throttle"] > 0.3 * s["short_scoreboard"], s


def test_an_unbounded_mio_queue_charges_the_same_waiting_to_the_consumers():
    bounded, _ = _shared_flood(16)
    st, out = _shared_flood(4096)
    assert (out == 0).all()
    s = st["stall_cycles"]
    assert s["mio_throttle"] < 0.05 * s["short_scoreboard"], s
    assert s["short_scoreboard"] > bounded["stall_cycles"]["short_scoreboard"]
    # the data port's rate bounds both alike
    assert abs(st["gpu_sim_cycle"] - bounded["gpu_sim_cycle"]) < 0.05 * bounded["gpu_sim_cycle"]


# every lane stores to its own 128-byte line: 32 tag lookups per warp instruction
SCATTERED_STORES = """
  .reg .pred %p;
  .reg .b32 %t, %i, %w;
  .reg .b64 %base, %addr, %off;
  ld.param.u64 %base, [p_buf];
  mov.u32 %t, %tid.x;
  mul.wide.u32 %off, %t, 128;
  add.u64 %addr, %base, %off;
  mov.u32 %i, 0;
LOOP:
  st.global.u32 [%addr], %i;
  add.u64 %addr, %addr, 131072;
  add.u32 %i, %i, 1;
  setp.lt.u32 %p, %i, 8;
  @%p bra LOOP;
  ret;
"""


def test_global_requests_queued_beyond_the_lsu_queue_are_lg_throttle():
    sim = TimingSim("h200")
    k = load_kernel(sim, SCATTERED_STORES)
    buf = sim.device.to_device(np.zeros(8 * 131072 // 4, np.uint32))
    sim.flush()
    st = sim.launch(k, 1, 1024, [buf]).stats
    out = sim.device.from_device(buf).reshape(8, -1)
    assert (out[:, ::32] == np.arange(8)[:, None]).all()
    s = st["stall_cycles"]
    assert st["L1D_total_requests"] == 32 * 8 * 32     # 32 warps x 8 stores x 32 lines
    assert s["lg_throttle"] > 0
    assert s["lg_throttle"] > s["mio_throttle"], s


# each thread: 16 independent MUFU.EX2 (the SFU pipe takes one warp instruction per 8 cycles per sub-core),
# then their sum to its word
SFU_RUN = """
  .reg .b32 %t;
  .reg .f32 %x, %y<16>, %s;
  .reg .b64 %out, %o;
  mov.u32 %t, %tid.x;
  cvt.rn.f32.u32 %x, %t;
  mul.f32 %x, %x, 0f3A800000;
""" + "".join(f"  add.f32 %y{i}, %x, 0f{0x3C000000 + i * 0x00100000:08X};\n" for i in range(16)) + \
    "".join(f"  ex2.approx.ftz.f32 %y{i}, %y{i};\n" for i in range(16)) + """
  mov.f32 %s, 0f00000000;
""" + "".join(f"  add.f32 %s, %s, %y{i};\n" for i in range(16)) + store_word("f32", "%s")


def _sfu_run(threads: int):
    sim = TimingSim("h200")
    k = load_kernel(sim, SFU_RUN)
    buf = sim.device.to_device(np.zeros(threads, np.float32))
    sim.flush()
    st = sim.launch(k, 1, threads, [buf]).stats
    x = np.arange(threads, dtype=np.float32) * np.float32(2.0 ** -10)
    adds = [np.float32(np.frombuffer(np.uint32(0x3C000000 + i * 0x00100000).tobytes(), np.float32)[0]) for i in range(16)]
    want = sum(np.exp2((x + a).astype(np.float32)).astype(np.float32) for a in adds)
    np.testing.assert_allclose(sim.device.from_device(buf), want, rtol=1e-5)
    return st["stall_cycles"]


def test_a_warp_held_by_its_own_last_issue_on_a_pipe_waits_it_is_not_throttled():
    """One warp per sub-core (128 threads): between two of its MUFU it waits for the SFU pipe it booked itself,
    which ptxas's stall counts make Nsight Compute charge as `wait`; no other warp wants the pipe, so there is no
    math_pipe_throttle."""
    s = _sfu_run(128)
    assert s["math_pipe_throttle"] == 0, s
    # 15 gaps of (8 - 1) cycles per warp behind its own MUFU, four warps
    assert s["wait"] >= 4 * 15 * 7, s


def test_warps_held_by_other_warps_use_of_a_pipe_are_math_pipe_throttle():
    """Eight warps per sub-core (1024 threads) share one SFU pipe each: a warp that finds the pipe booked by
    another is throttled, as Nsight Compute's "all active warps' next instruction on an oversubscribed pipe"."""
    s = _sfu_run(1024)
    assert s["math_pipe_throttle"] > s["wait"], s
    # 8 warps x 16 MUFU at 8 cycles apiece keep each sub-core's pipe busy ~1,000 cycles; most of a warp's time is
    # spent behind the others' bookings
    assert s["math_pipe_throttle"] > 32 * 16 * 7 * 0.5, s
