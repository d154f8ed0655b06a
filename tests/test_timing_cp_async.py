"""Timing of cp.async groups (tsm.c, sm.cp_async_wait; docs/calibration.md 5i).

One warp copies 16 bytes per lane from cold global memory into shared memory with cp.async.cg, then
waits in one of the PTX forms and reads clock64 before and after the wait. With `sm.cp_async_wait = 1`
`cp.async.wait_group N` waits for the data of all but the newest N committed groups and `wait_all` for
every copy, so a wait that covers the copy lasts about as long as a plain cold `ld.global.cg` of the same
bytes (measured in the same run); a wait that does not cover it (the copy is in the newest group) costs
next to nothing. With 0 (the model before) no wait waits. The copied data must be in shared memory either way."""
from __future__ import annotations

import numpy as np
import pytest

from engine.timing import TimingSim

# the wait forms: the PTX between the copy and the second clock read
FORMS = {
    "wait0": "cp.async.commit_group;\n  mov.u64 %t0, %clock64;\n  cp.async.wait_group 0;",
    "wait1_newest": "cp.async.commit_group;\n  mov.u64 %t0, %clock64;\n  cp.async.wait_group 1;",
    "wait1_older": "cp.async.commit_group;\n  cp.async.commit_group;\n  mov.u64 %t0, %clock64;\n  cp.async.wait_group 1;",
    "wait_all": "mov.u64 %t0, %clock64;\n  cp.async.wait_all;",
    "ldg": "ld.global.cg.v4.u32 {%v0, %v1, %v2, %v3}, [%src];\n  mov.u64 %t0, %clock64;\n  st.shared.v4.u32 [%dst], {%v0, %v1, %v2, %v3};",
}


def kernel_ptx(form: str) -> str:
    copy = "" if form == "ldg" else "cp.async.cg.shared.global [%dst], [%src], 16;"
    return f""".version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p_in, .param .u64 p_out)
{{
  .reg .pred %p;
  .reg .b32 %tid, %dst, %o, %v0, %v1, %v2, %v3;
  .reg .b64 %src, %out, %t0, %t1, %dt, %off;
  .shared .align 16 .b8 sm[512];
  ld.param.u64 %src, [p_in];
  ld.param.u64 %out, [p_out];
  mov.u32 %tid, %tid.x;
  mul.wide.u32 %off, %tid, 16;
  add.u64 %src, %src, %off;
  mov.u32 %dst, sm;
  shl.b32 %o, %tid, 4;
  add.u32 %dst, %dst, %o;
  {copy}
  {FORMS[form]}
  mov.u64 %t1, %clock64;
  cp.async.wait_all;
  bar.sync 0;
  ld.shared.u32 %v0, [%dst];
  mul.wide.u32 %off, %tid, 4;
  add.u64 %off, %out, %off;
  st.global.u32 [%off+16], %v0;
  setp.ne.u32 %p, %tid, 0;
  @%p bra DONE;
  sub.u64 %dt, %t1, %t0;
  st.global.u64 [%out], %dt;
DONE:
  ret;
}}
"""


def run(form: str, wait: int) -> float:
    """cycles between the clock reads around the wait (one warp, cold caches); checks the copied data"""
    sim = TimingSim("h200", overrides=[f"sm.cp_async_wait={wait}"])
    dev = sim.device
    k = dev.load_ptx(kernel_ptx(form)).kernel("k")
    src = np.arange(4 * 32, dtype=np.uint32) * 7 + 3
    d_in = dev.to_device(src)
    d_out = dev.to_device(np.zeros(4 + 32, np.uint32))
    sim.flush()
    sim.launch(k, 1, 32, [d_in, d_out])
    got = dev.from_device(d_out)
    assert (got[4:] == src[0::4]).all()                  # lane i read back word 0 of its 16 bytes
    return float(got[:2].copy().view(np.uint64)[0])


def test_a_wait_that_covers_the_copy_lasts_as_long_as_a_cold_load():
    ldg = run("ldg", 1)
    assert ldg > 300                                     # a cold global load: DRAM latency
    for form in ("wait0", "wait1_older", "wait_all"):
        got = run(form, 1)
        assert 0.8 * ldg < got < 1.2 * ldg, (form, got, ldg)


def test_the_newest_groups_are_not_waited_for():
    assert run("wait1_newest", 1) < 40


@pytest.mark.parametrize("form", ["wait0", "wait1_older", "wait_all"])
def test_with_the_switch_off_no_wait_waits(form):
    assert run(form, 0) < 40


def test_the_switch_is_a_checked_config_value():
    with pytest.raises(Exception, match="sm.cp_async_wait"):
        TimingSim("h200", overrides=["sm.cp_async_wait=2"])
