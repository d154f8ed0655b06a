"""Reads of data every SM shares (a GEMM's operand tile) and the L2's read coalescing (l2.c, l2.coalesce_reads;
docs/calibration.md 5o).

132 CTAs (one per SM) each copy the same 2 KiB, L2-resident, into shared memory with cp.async.cg, 32 times. 2 KiB
is 4 granules of l2.interleave_bytes, so at most 8 slices (4 homes and their near-partition copies) hold it: without
coalescing every SM's read takes one of those slices' ports and the launch cannot deliver more than 8 x
l2.bytes_per_cycle bytes per cycle; with it (as the H200, whose SMs received 2.2-3.9x the bytes its slices served in
kloop2's hot modes) up to 4 reads share a slice lookup (the H200's ratio reached 3.9) and the SMs get the data faster than those
ports could serve it. Distinct data is unaffected."""
from __future__ import annotations

import numpy as np
import pytest

from engine.timing import TimingSim

CTAS, THREADS, REPS = 132, 128, 32
BYTES = THREADS * 16                                     # per CTA and repetition

PTX = f""".version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p_in, .param .u64 p_out, .param .u32 p_shared)
{{
  .reg .pred %p;
  .reg .b32 %tid, %dst, %o, %v0, %i, %sh;
  .reg .b64 %src, %out, %off, %cta;
  .shared .align 16 .b8 sm[{BYTES}];
  ld.param.u64 %src, [p_in];
  ld.param.u64 %out, [p_out];
  ld.param.u32 %sh, [p_shared];
  mov.u32 %tid, %tid.x;
  mul.wide.u32 %off, %tid, 16;
  add.u64 %src, %src, %off;
  mov.u32 %o, %ctaid.x;
  setp.ne.u32 %p, %sh, 0;
  @%p rem.u32 %o, %o, %sh;
  mul.wide.u32 %cta, %o, {BYTES};
  add.u64 %src, %src, %cta;
  mov.u32 %dst, sm;
  shl.b32 %o, %tid, 4;
  add.u32 %dst, %dst, %o;
  mov.u32 %i, 0;
LOOP:
  cp.async.cg.shared.global [%dst], [%src], 16;
  cp.async.commit_group;
  cp.async.wait_group 0;
  add.u32 %i, %i, 1;
  setp.lt.u32 %p, %i, {REPS};
  @%p bra LOOP;
  bar.sync 0;
  ld.shared.u32 %v0, [%dst];
  mov.u32 %o, %ctaid.x;
  mad.lo.u32 %o, %o, {THREADS}, %tid;
  mul.wide.u32 %off, %o, 4;
  add.u64 %off, %out, %off;
  st.global.u32 [%off], %v0;
  ret;
}}
"""


def run(coalesce: int, shared: int, more: tuple = ()) -> dict:
    """one launch; coalesce: l2.coalesce_reads (4: the H200's, calibration.md 5o; 0: none); shared: 0, every CTA
    its own data; G >= 1, CTA b reads group b % G's (1: all the same)"""
    sim = TimingSim("h200", overrides=["sm.cp_async_wait=1", f"l2.coalesce_reads={coalesce}", *more])
    dev = sim.device
    k = dev.load_ptx(PTX).kernel("k")
    src = np.arange(CTAS * BYTES // 4, dtype=np.uint32) * 3 + 1
    d_in = dev.to_device(src)                            # the copy leaves the data in the L2
    d_out = dev.to_device(np.zeros(CTAS * THREADS, np.uint32))
    st = dict(sim.launch(k, CTAS, THREADS, [d_in, d_out, np.uint32(shared)]).stats)
    got = dev.from_device(d_out).reshape(CTAS, THREADS)
    words = src.reshape(-1, 4)[:, 0]                     # lane t copied word 0 of its 16 bytes
    group = np.arange(CTAS) % shared if shared else np.arange(CTAS)
    want = words.reshape(CTAS, THREADS)[group]
    assert (got == want).all()
    return st


@pytest.fixture(scope="module")
def shared_runs():
    return {c: run(c, 1) for c in (0, 4)}


@pytest.fixture(scope="module")
def distinct_runs():
    return {c: run(c, 0) for c in (0, 4)}


def test_without_coalescing_the_few_slices_holding_shared_data_bound_the_launch(shared_runs, distinct_runs):
    st = shared_runs[0]
    requested = CTAS * REPS * BYTES // 32
    assert st["L2_coalesced_reads"] == 0
    assert st["L2_read_sectors"] >= requested            # every read looked up (far-homed ones twice)
    sim = TimingSim("h200")
    bound = 8 * sim.config["l2.bytes_per_cycle"]         # 4 granules in 2 partitions
    assert CTAS * REPS * BYTES / st["gpu_sim_cycle"] < bound
    assert st["gpu_sim_cycle"] > 1.5 * distinct_runs[0]["gpu_sim_cycle"]   # shared data much slower than distinct


def test_with_coalescing_shared_reads_merge_and_beat_the_slice_bound(shared_runs, distinct_runs):
    off, on = shared_runs[0], shared_runs[4]
    requested = CTAS * REPS * BYTES // 32
    assert on["L2_coalesced_reads"] > requested // 2     # most reads merge with one already waiting
    # the SMs receive 3-4x the sectors the slices look up (the H200, kloop2's hot modes: 3.65-3.94; at most 4 here)
    assert 3.0 < (on["L2_read_sectors"] + on["L2_coalesced_reads"]) / on["L2_read_sectors"] <= 4.0
    assert on["L2_read_sectors"] + on["L2_coalesced_reads"] <= off["L2_read_sectors"]
    sim = TimingSim("h200")
    bound = 8 * sim.config["l2.bytes_per_cycle"]
    assert CTAS * REPS * BYTES / on["gpu_sim_cycle"] > 1.1 * bound
    # as on the H200 (kloop2: every CTA reading the same 16 KiB .. 1 MiB, 461 cycles per k-tile; its own 32 KiB, 476),
    # shared data is read as fast as distinct data
    assert on["gpu_sim_cycle"] <= 1.02 * distinct_runs[4]["gpu_sim_cycle"]


def test_distinct_data_does_not_coalesce(distinct_runs):
    off, on = distinct_runs[0], distinct_runs[4]
    assert on["L2_coalesced_reads"] == 0
    assert on["gpu_sim_cycle"] == off["gpu_sim_cycle"] and on["L2_read_sectors"] == off["L2_read_sectors"]


def test_reads_merge_only_within_a_gpc():
    """kloop.cu shdramG on the H200 (calibration.md 5s): with 33 groups the 4 CTAs sharing each line sit in 4 GPCs
    and none of their reads merge; with 8 groups about half do, as the GPC layout predicts. The model's
    coalescer per GPC (l2.coalesce_gpc, gpu.gpcs = 8) does the same; one per slice merges across GPCs."""
    requested = CTAS * REPS * BYTES // 32
    per_gpc = {g: run(4, g) for g in (1, 8, 33)}
    assert per_gpc[33]["L2_coalesced_reads"] == 0
    assert 0 < per_gpc[8]["L2_coalesced_reads"] < per_gpc[1]["L2_coalesced_reads"]
    across = run(4, 33, ("l2.coalesce_gpc=0",))
    assert across["L2_coalesced_reads"] > requested // 4
    # one GPC for the whole GPU: every sharer may merge again
    one = run(4, 33, ("gpu.gpcs=1",))
    assert one["L2_coalesced_reads"] > requested // 4
