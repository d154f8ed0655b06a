"""Timing of wgmma chains and wgmma.wait_group under `sm.wgmma_chain_in_pipe` (docs/calibration.md 5c).

One warpgroup runs n wgmma.m64n64k16 on one accumulator, timed with clock64 by thread 0. With the switch
off (the default) each wgmma waits for the previous one's accumulator: latency + the shape's extra pipe
cycles per wgmma. With it on, the wgmma issue back to back at the tensor pipe's interval (as the SASS
issues HGMMAs), and a wait_group 0 after every wgmma brings the full latency back. The expected cycles
come from the configuration's tensor pipe, as tsm.c's tensor_units computes them."""
from __future__ import annotations

import numpy as np
import pytest

from engine.timing import TimingSim

N_WGMMA = 32
ACC = ",".join(f"%d{i}" for i in range(32))


def kernel_ptx(wait_each: bool) -> str:
    wait = "wgmma.commit_group.sync.aligned;\n  wgmma.wait_group.sync.aligned 0;" if wait_each else ""
    zero = "\n".join(f"  mov.f32 %d{i}, 0f00000000;" for i in range(32))
    return f""".version 8.0
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 p_out, .param .u32 p_n)
{{
  .reg .pred %p, %q;
  .reg .b32 %i, %n, %tid, %sa;
  .reg .b64 %da, %db, %t0, %t1, %dt, %out, %a64;
  .reg .f32 %d<32>, %s;
  .shared .align 1024 .b8 sm[4096];
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
  wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{{ACC}}}, %da, %db, %q, 1, 1, 0, 0;
  {wait}
  add.u32 %i, %i, 1;
  setp.lt.u32 %p, %i, %n;
  @%p bra LOOP;
  wgmma.commit_group.sync.aligned;
  wgmma.wait_group.sync.aligned 0;
  add.f32 %s, %d0, %d31;
  mov.u64 %t1, %clock64;
  sub.u64 %dt, %t1, %t0;
  setp.ne.u32 %p, %tid, 0;
  @%p bra DONE;
  st.global.u64 [%out], %dt;
  st.global.f32 [%out+8], %s;
DONE:
  ret;
}}
"""


def per_wgmma(chain: int, wait_each: bool) -> tuple[float, TimingSim]:
    sim = TimingSim("h200", overrides=[f"sm.wgmma_chain_in_pipe={chain}"])
    k = sim.device.load_ptx(kernel_ptx(wait_each)).kernel("k")
    out = sim.device.to_device(np.full(4, 7, np.uint32))
    sim.launch(k, 1, 128, [out, N_WGMMA])
    raw = sim.device.from_device(out)
    assert raw[2:3].view(np.float32)[0] == 0.0        # D = A*B with zero shared memory
    return float(raw[:2].view(np.uint64)[0]) / N_WGMMA, sim


def pipe(sim: TimingSim) -> tuple[int, int]:
    """(interval, latency) of one wgmma.m64n64k16 f16 on a sub-core, as tsm.c times it"""
    lat, iv = sim.config["pipes.tensor.latency_cycles"], sim.config["pipes.tensor.interval_cycles"]
    interval = int(2.0 * 16 * 64 * 16 / 1.4 / 4096 * iv + 0.5)
    return interval, lat + interval - iv


@pytest.mark.parametrize("wait_each", [False, True])
def test_by_default_each_wgmma_waits_for_the_previous_accumulator(wait_each):
    got, sim = per_wgmma(0, wait_each)
    interval, latency = pipe(sim)
    assert latency - 1 <= got <= latency + 3, (got, latency)


def test_with_the_switch_a_chain_runs_at_the_pipe_interval():
    got, sim = per_wgmma(1, False)
    interval, latency = pipe(sim)
    assert interval - 1 <= got <= interval + 2, (got, interval)
    assert got < latency - 10


def test_with_the_switch_wait_group_waits_for_the_committed_group():
    """the wait holds the warp until the group completes; the loop's dependent add, setp and branch then
    follow it instead of overlapping the wgmma, as they do when the wait costs nothing"""
    got, sim = per_wgmma(1, True)
    interval, latency = pipe(sim)
    default, _ = per_wgmma(0, True)
    assert latency + 4 <= got <= latency + 20, (got, latency)
    assert got > default
