"""sm.subcore_rotate: the four sub-cores' schedulers take turns at going first, so the SM's shared LSU queue
slots are not all won by sub-core 0 (benchmarks/hw/sched_fair.cu ld_l1 on the H200: the warps of the four
sub-cores end at the same mean time, 0.706-0.710 of the SM's run; calibration.md 5p)."""
from __future__ import annotations

import numpy as np
import pytest

from engine.config import ConfigError, load_config

# every warp: `iters` x 8 one-line L1 hits (the CTA's lines), then lane 0 writes its end clock and %warpid
LSU = """.version 8.0
.target sm_90
.address_size 64

.visible .entry lsu(
	.param .u64 lsu_param_0,
	.param .u64 lsu_param_1,
	.param .u32 lsu_param_2
)
{
	.reg .pred 	%p<3>;
	.reg .b32 	%r<12>;
	.reg .f32 	%f<12>;
	.reg .b64 	%rd<10>;

	ld.param.u64 	%rd1, [lsu_param_0];
	ld.param.u64 	%rd2, [lsu_param_1];
	ld.param.u32 	%r1, [lsu_param_2];
	cvta.to.global.u64 	%rd1, %rd1;
	cvta.to.global.u64 	%rd2, %rd2;
	mov.u32 	%r2, %tid.x;
	and.b32 	%r3, %r2, 31;
	mul.wide.u32 	%rd3, %r3, 4;
	add.s64 	%rd4, %rd1, %rd3;
	mov.f32 	%f1, 0f00000000;
	mov.u32 	%r4, 0;
$L_loop:
	ld.global.ca.f32 	%f2, [%rd4];
	ld.global.ca.f32 	%f3, [%rd4+128];
	ld.global.ca.f32 	%f4, [%rd4+256];
	ld.global.ca.f32 	%f5, [%rd4+384];
	ld.global.ca.f32 	%f6, [%rd4+512];
	ld.global.ca.f32 	%f7, [%rd4+640];
	ld.global.ca.f32 	%f8, [%rd4+768];
	ld.global.ca.f32 	%f9, [%rd4+896];
	add.f32 	%f1, %f1, %f2;
	add.f32 	%f1, %f1, %f3;
	add.f32 	%f1, %f1, %f4;
	add.f32 	%f1, %f1, %f5;
	add.f32 	%f1, %f1, %f6;
	add.f32 	%f1, %f1, %f7;
	add.f32 	%f1, %f1, %f8;
	add.f32 	%f1, %f1, %f9;
	add.s32 	%r4, %r4, 1;
	setp.ne.s32 	%p1, %r4, %r1;
	@%p1 bra 	$L_loop;
	mov.u64 	%rd5, %clock64;
	setp.ne.s32 	%p2, %r3, 0;
	@%p2 bra 	$L_end;
	mov.u32 	%r5, %ctaid.x;
	mov.u32 	%r6, %ntid.x;
	mad.lo.s32 	%r7, %r5, %r6, %r2;
	shr.u32 	%r7, %r7, 5;
	mov.u32 	%r8, %warpid;
	mul.wide.u32 	%rd6, %r7, 16;
	add.s64 	%rd7, %rd2, %rd6;
	st.global.u64 	[%rd7], %rd5;
	st.global.u32 	[%rd7+8], %r8;
	st.global.f32 	[%rd7+12], %f1;
$L_end:
	ret;
}
"""


def _ends(rotate: int):
    from engine.timing import TimingSim
    sim = TimingSim("h200", overrides=[f"sm.subcore_rotate={rotate}", "gpu.num_sms=1", "timing.sass=off",
                                       "timing.sass_unroll=0"])
    dev = sim.device
    buf = dev.to_device(np.ones(1024, np.float32))
    out = dev.alloc((64 * 4,), np.uint32)
    res = sim.launch(dev.load_ptx(LSU).kernel("lsu"), 8, 256, (buf, out, 64))
    raw = dev.from_device(out).reshape(64, 4)
    end = raw[:, :2].copy().view(np.uint64)[:, 0].astype(np.float64)
    sub = raw[:, 2] % 4
    assert np.all(raw[:, 3].view(np.float32) == 64 * 8)       # every load read 1.0
    span = end.max()
    return res.cycles, [float(end[sub == k].mean() / span) for k in range(4)]


def test_sub_cores_share_the_lsu_in_turn():
    cyc0, fixed = _ends(0)
    cyc1, rotated = _ends(1)
    # fixed order: sub-core 0's warps win the freed queue slots and end first, sub-core 3's last
    assert fixed[0] < fixed[1] < fixed[3] and fixed[3] - fixed[0] > 0.15
    # in turn: the four sub-cores' warps end together on average, as on the H200 (sched_fair ld_l1)
    assert max(rotated) - min(rotated) < 0.03
    # and the LSU no longer idles at the end while only the last sub-core's warps are left
    assert cyc1 < 0.95 * cyc0


def test_the_switch_is_checked():
    assert load_config("a100")["sm.subcore_rotate"] == 0
    with pytest.raises(ConfigError, match="sm.subcore_rotate"):
        load_config("h200", ["sm.subcore_rotate=2"])
