"""Timing of wgmma in the tensor pipe (tsm.c wgmma_time; docs/calibration.md, "wgmma on the H200").

One or two warpgroups run n wgmma.m64nNk16 (A and B from shared-memory descriptors) on one accumulator,
timed with clock64 by thread 0: after the loop (the issue) and after wait_group 0 (the completion). With
`sm.wgmma_chain_in_pipe` (as the H200 measured it, calibration.md 5g) an accumulating wgmma issues without
waiting for the previous result, the pipe runs one per max(N x cycles_per_n, operand bytes / shared-memory
bandwidth) cycles, takes `wgmma_queue` more than the one it runs, and wait_group waits for the
committed groups; with the switch off each wgmma waits for the previous accumulator. The expected cycles
come from the configuration, not from constants here."""
from __future__ import annotations

import numpy as np
import pytest

from engine.timing import TimingSim


def kernel_ptx(n: int, wait_each: bool, wgmma: bool = True, load_after: bool = False) -> str:
    nd = n // 2
    acc = ",".join(f"%d{i}" for i in range(nd))
    zero = "\n".join(f"  mov.f32 %d{i}, 0f00000000;" for i in range(nd))
    op = (f"wgmma.mma_async.sync.aligned.m64n{n}k16.f32.f16.f16 {{{acc}}}, %da, %db, %q, 1, 1, 0, 0;"
          if wgmma else "")
    wait = "wgmma.commit_group.sync.aligned;\n  wgmma.wait_group.sync.aligned 0;" if wait_each else ""
    return f""".version 8.0
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 p_out, .param .u32 p_n)
{{
  .reg .pred %p, %q;
  .reg .b32 %i, %n, %tid, %sa, %wg;
  .reg .b64 %da, %db, %t0, %t1, %t2, %dt, %out, %a64, %o64;
  .reg .f32 %d<{nd}>, %s;
  .shared .align 1024 .b8 sm[16384];
  ld.param.u64 %out, [p_out];
  ld.param.u32 %n, [p_n];
  mov.u32 %tid, %tid.x;
  mov.u32 %sa, sm;
  cvt.u64.u32 %a64, %sa;
  shr.u64 %a64, %a64, 4;
  or.b64 %da, %a64, 0x0000001000080000;       // LBO 128 (>>4 = 8) at bit 16, SBO 256 (>>4 = 16) at bit 32
  add.u64 %db, %da, 128;                        // B at +2048 bytes
{zero}
  setp.ne.u32 %q, %n, 0;
  wgmma.fence.sync.aligned;
  mov.u64 %t0, %clock64;
  mov.u32 %i, 0;
LOOP:
  {op}
  {wait}
  add.u32 %i, %i, 1;
  setp.lt.u32 %p, %i, %n;
  @%p bra LOOP;
  {"ld.global.cg.u32 %sa, [%out+32];" if load_after else ""}
  {"add.u32 %sa, %sa, 1;" if load_after else ""}
  mov.u64 %t2, %clock64;
  wgmma.commit_group.sync.aligned;
  wgmma.wait_group.sync.aligned 0;
  add.f32 %s, %d0, %d{nd - 1};
  mov.u64 %t1, %clock64;
  and.b32 %wg, %tid, 127;
  setp.ne.u32 %p, %wg, 0;
  @%p bra DONE;
  shr.u32 %wg, %tid, 7;
  mul.wide.u32 %o64, %wg, 24;
  add.u64 %out, %out, %o64;
  sub.u64 %dt, %t1, %t0;
  st.global.u64 [%out], %dt;
  sub.u64 %dt, %t2, %t0;
  st.global.u64 [%out+8], %dt;
  st.global.f32 [%out+16], %s;
DONE:
  ret;
}}
"""


def run(n: int, count: int, *, wait_each=False, chain=1, threads=128, wgmma=True, load_after=False, sets=()):
    """(cycles to the end of the wait, cycles to the end of the loop's issue, the simulator) of the slowest
    warpgroup"""
    sim = TimingSim("h200", overrides=list(sets) + [f"sm.wgmma_chain_in_pipe={chain}"])
    k = sim.device.load_ptx(kernel_ptx(n, wait_each, wgmma, load_after)).kernel("k")
    wgs = threads // 128
    out = sim.device.to_device(np.full(max(6 * wgs, 10), 7, np.uint32))
    sim.launch(k, 1, threads, [out, count])
    raw = sim.device.from_device(out)[:6 * wgs].reshape(wgs, 6)
    assert (raw[:, 4:5].view(np.float32) == 0.0).all()   # D = A*B with zero shared memory
    t = raw[:, :4].copy().view(np.uint64).astype(float)
    return t[:, 0].max(), t[:, 1].max(), sim


def occupancy(sim: TimingSim, n: int) -> float:
    c = sim.config
    # A (64 x 16 f16) and B (N x 16 f16) from shared memory, at l1.bytes_per_cycle
    return max(n * c["sm.wgmma_cycles_per_n"], 32 * (64 + n) / c["l1.bytes_per_cycle"])


def latency(sim: TimingSim, n: int) -> float:
    """start in the pipe to completion, A from shared memory"""
    c = sim.config
    return c["sm.wgmma_latency_cycles"] + n * c["sm.wgmma_cycles_per_n"] + c["sm.wgmma_smem_a_cycles"]


@pytest.mark.parametrize("n", [64, 128, 256])
def test_a_chain_on_one_accumulator_runs_at_the_pipe_occupancy(n):
    count = 32
    total, _, sim = run(n, count)
    occ = occupancy(sim, n)
    lat = latency(sim, n)
    # the last wgmma starts (count - 1) occupancies after the first and completes its latency later
    want = (count - 1) * occ + lat
    assert want - 2 <= total <= want + 25, (total, want)
    assert total < 0.75 * count * lat                # well under one latency per wgmma


def test_small_n_is_bound_by_the_warps_issue_interval():
    """N = 8: the pipe needs its operands' read time, less than a warp's wgmma_issue_cycles plus the
    loop's own instructions, so a warp issues one wgmma per issue interval (as the H200's 20.3 cycles)"""
    count = 32
    total, issued, sim = run(8, count)
    iv = sim.config["sm.wgmma_issue_cycles"]
    assert occupancy(sim, 8) < iv + 4
    per = issued / count
    assert iv <= per <= iv + 14, (per, iv)          # the loop's add, setp and branch follow the hold
    assert total < 0.75 * count * latency(sim, 8)


def test_the_pipe_queue_lets_the_warp_issue_ahead_of_the_pipe():
    """with N = 256 the loop's issue ends about `wgmma_queue` occupancies before the pipe reaches its last
    wgmma: the warp is free that much earlier than the results"""
    count = 24
    total, issued, sim = run(256, count)
    occ, q = occupancy(sim, 256), sim.config["sm.wgmma_queue"]
    want = (count - 1 - q) * occ
    assert want - 5 <= issued <= want + 45, (issued, want)
    assert total - issued >= q * occ


def test_two_warpgroups_share_the_pipe():
    count = 16
    one, _, sim = run(128, count)
    two, _, _ = run(128, count, threads=256)
    occ = occupancy(sim, 128)
    # the slower warpgroup ends when the sub-cores' pipes have run 2 x count wgmma
    want = (2 * count - 1) * occ + latency(sim, 128)
    assert want - 80 <= two <= want + 40, (two, want, one)     # (its clock may start after the other's)
    assert two > 1.8 * (one - latency(sim, 128))


def test_wait_group_after_every_wgmma_brings_the_latency_back():
    count = 16
    total, _, sim = run(64, count, wait_each=True)
    per = total / count
    lat = latency(sim, 64)
    assert lat <= per <= lat + sim.config["sm.wgmma_issue_cycles"] + 12, (per, lat)
    default, _, _ = run(64, count)
    assert total > 1.5 * default


def test_an_empty_group_costs_a_no_op_wgmma():
    """commit with no wgmma since the last one is a no-op HGMMA m64n8k16 in SASS; waiting for it costs its
    latency (the H200's waitonly group: 62.8 cycles)"""
    count = 16
    total, _, sim = run(64, count, wait_each=True, wgmma=False)
    per = total / count
    c = sim.config
    lat = c["sm.wgmma_latency_cycles"] + 8 * c["sm.wgmma_cycles_per_n"]
    assert lat <= per <= lat + 20, (per, lat)


@pytest.mark.parametrize("wait_each", [False, True])
def test_with_the_switch_off_each_wgmma_waits_for_the_previous_accumulator(wait_each):
    total, _, sim = run(64, 32, wait_each=wait_each, chain=0)
    lat, iv = sim.config["pipes.tensor.latency_cycles"], sim.config["pipes.tensor.interval_cycles"]
    interval = int(2.0 * 16 * 64 * 16 / 1.4 / 4096 * iv + 0.5)
    latency0 = lat + interval - iv
    per = total / 32
    assert latency0 - 1 <= per <= latency0 + 3, (per, latency0)


def test_a_global_load_after_wgmma_waits_for_their_operand_reads():
    """sm.wgmma_reads_block_loads (the H200's overlap cases): a load issued after wgmma that are still queued
    in the pipe is served after their shared-memory operand reads, operand bytes / l1.bytes_per_cycle each"""
    count = 4
    _, free, sim = run(256, count, load_after=True, sets=["sm.wgmma_reads_block_loads=0"])
    _, held, _ = run(256, count, load_after=True, sets=["sm.wgmma_reads_block_loads=1"])
    reads = count * 32 * (64 + 256) / sim.config["l1.bytes_per_cycle"]
    # the load waits for the reads not yet done when it issues: all but the time the loop's issue took
    assert 0.5 * reads <= held - free <= reads + 10, (held, free, reads)
