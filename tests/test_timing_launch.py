"""Kernel launch, CTA dispatch and drain in the timing model (docs/calibration.md 5f): each launch parameter
on its own, on one or a few SMs, with every other launch cost set to zero so the effect is exact."""
from __future__ import annotations

import pytest

from engine.timing import TimingSim

HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"
EMPTY = HEAD + ".visible .entry k()\n{\n  ret;\n}\n"
PARAM = HEAD + """.visible .entry k(.param .u64 p_buf)
{
  .reg .b64 %a;
  .reg .b32 %t;
  mov.u32 %t, %tid.x;
  ld.param.u64 %a, [p_buf];
  ret;
}
"""
# every launch cost of the model, zero; a test turns on the one it checks
ZERO = ["timing.sass=off", "sim.quantum_cycles=1", "gpu.kernel_launch_cycles=0", "gpu.kernel_end_cycles=0",
        "gpu.cta_launch_cycles=0", "gpu.cta_dispatch_per_cycle=1000", "gpu.cta_dispatch_first_cycles=0",
        "gpu.cta_accept_after_start=0", "gpu.cta_release_cycles=0", "gpu.warp_launch_cycles=0",
        "gpu.sm_cold_fetch_cycles=0", "const.param_cold_cycles=0"]


def cycles(ptx: str, grid: int, block: int, *overrides: str, shared: int = 0, sms: int = 1, args=()) -> int:
    sim = TimingSim("h200", [*ZERO, f"gpu.num_sms={sms}", *overrides])
    k = sim.device.load_ptx(ptx).kernel("k")
    if args == "buf":
        args = (sim.device.malloc(64),)
    return sim.launch(k, grid, block, args, shared=shared).cycles


def test_fixed_launch_and_end_cycles_add_to_every_kernel():
    base = cycles(EMPTY, 1, 32)
    assert cycles(EMPTY, 1, 32, "gpu.kernel_launch_cycles=1400", "gpu.kernel_end_cycles=1300") == base + 2700


def test_a_released_slot_takes_the_next_cta_after_cta_release_cycles():
    """200 KiB of shared memory leaves one CTA per SM: every CTA after the first waits for its
    predecessor's slot, which comes back gpu.cta_release_cycles after the predecessor's last warp."""
    big = 200 * 1024
    one, eight = (cycles(EMPTY, n, 32, shared=big) for n in (1, 8))
    one_r, eight_r = (cycles(EMPTY, n, 32, "gpu.cta_release_cycles=234", shared=big) for n in (1, 8))
    assert one_r == one                        # the kernel ends when the last CTA leaves, not when its slot returns
    # without a release time the dispatcher sees the slot free at its next quantum (one cycle here), with
    # one it places the CTA at the release cycle itself: 233 more cycles per CTA that waited
    assert eight_r - eight == 7 * (234 - 1)


def test_release_does_not_delay_ctas_that_find_a_free_slot():
    """eight 32-thread CTAs fit on the SM together: none waits for a slot, so the release time is not seen"""
    assert cycles(EMPTY, 8, 32, "gpu.cta_release_cycles=234") == cycles(EMPTY, 8, 32)


def test_warps_of_a_cta_start_warp_launch_cycles_apart():
    # at once, 32 warps' ret take 8 cycles on the four schedulers; 2 cycles apart, the last warp starts
    # 62 cycles after the first and ends with its ret one cycle later
    assert cycles(EMPTY, 1, 1024) == 8
    assert cycles(EMPTY, 1, 1024, "gpu.warp_launch_cycles=2") == 31 * 2 + 1


def test_first_fetch_on_an_sm_is_paid_once_per_launch():
    """the first CTA's warps wait sm_cold_fetch_cycles; CTAs that come later to the same SM do not"""
    for n in (1, 4):
        assert cycles(EMPTY, n, 32, "gpu.sm_cold_fetch_cycles=225") == cycles(EMPTY, n, 32) + 225
    # the same on two SMs at once: each pays it, in parallel
    assert cycles(EMPTY, 2, 32, "gpu.sm_cold_fetch_cycles=225", sms=2) == cycles(EMPTY, 2, 32, sms=2) + 225


def test_cold_fetch_is_left_to_the_icache_model_when_that_is_on():
    on = ["sm.icache=model", "sm.icache_miss_cycles=200"]
    assert cycles(EMPTY, 1, 32, *on, "gpu.sm_cold_fetch_cycles=225") == cycles(EMPTY, 1, 32, *on)


def test_the_first_param_load_on_an_sm_waits_for_the_parameter_bank():
    base = cycles(PARAM, 1, 32, args="buf")
    cold = cycles(PARAM, 1, 32, "const.param_cold_cycles=194", args="buf")
    lat = 4                                    # const.param_latency_cycles: the warm load, now hidden in the miss
    assert cold - base == 194 - lat
    # a second CTA on the same SM, later, finds the bank there: 2 CTAs cost what 1 does plus the second's work
    two_base, two_cold = (cycles(PARAM, 2, 32, *o, shared=200 * 1024, args="buf") for o in ([], ["const.param_cold_cycles=194"]))
    assert two_cold - two_base == 194 - lat


def test_first_cta_per_sm_costs_the_dispatcher_its_own_interval():
    """132 CTAs on 132 SMs: with the first-CTA interval the last one is dispatched 131 x 1.93 cycles after
    the first instead of 131 x (1 / rate)"""
    slow = ["gpu.cta_dispatch_per_cycle=0.84"]
    a = cycles(EMPTY, 132, 32, *slow, sms=132)
    b = cycles(EMPTY, 132, 32, *slow, "gpu.cta_dispatch_first_cycles=1.93", sms=132)
    assert b - a == pytest.approx(131 * (1.93 - 1 / 0.84), abs=2)


def test_an_sm_takes_its_next_cta_only_once_the_last_has_started():
    """with a cold first fetch of 300 cycles, the second CTA on the SM is dispatched only when the first
    starts, then needs cta_launch_cycles itself: the kernel is that much longer than when both wait together"""
    o = ["gpu.sm_cold_fetch_cycles=300", "gpu.cta_launch_cycles=50"]
    together = cycles(EMPTY, 2, 32, *o)
    after = cycles(EMPTY, 2, 32, *o, "gpu.cta_accept_after_start=1")
    assert after - together == 50


def test_ctas_stay_spread_evenly_when_sms_are_not_yet_accepting():
    """2 CTAs per SM on 4 SMs with accept-after-start: the dispatcher waits for the next SM in order rather
    than piling CTAs on the SMs that started first, so each SM runs two and the time is that of two"""
    o = ["gpu.sm_cold_fetch_cycles=300", "gpu.cta_launch_cycles=50", "gpu.cta_accept_after_start=1",
         "gpu.cta_dispatch_per_cycle=0.5"]
    eight = cycles(EMPTY, 8, 32, *o, sms=4)
    two_on_one = cycles(EMPTY, 2, 32, *o, sms=1)
    # the last SM's first CTA arrives 3 x 2 cycles after the first SM's; everything else is the same
    assert eight - two_on_one == pytest.approx(6, abs=3)


def test_h200_launch_values_are_the_measured_ones():
    """configs/h200.toml carries the values of calibration.md 5f (ncu_launch.cu on the H200)"""
    c = TimingSim("h200").config
    assert (c["gpu.kernel_launch_cycles"] + c["gpu.kernel_end_cycles"], c["gpu.cta_launch_cycles"],
            c["gpu.cta_release_cycles"], c["gpu.warp_launch_cycles"], c["gpu.sm_cold_fetch_cycles"],
            c["const.param_cold_cycles"], c["gpu.cta_accept_after_start"]) == (2700, 50, 234, 2, 225, 194, 1)
    assert c["gpu.cta_dispatch_per_cycle"] == 0.84 and c["gpu.cta_dispatch_first_cycles"] == 1.93


@pytest.mark.parametrize("key,value", [("gpu.cta_release_cycles", -1), ("gpu.cta_accept_after_start", 2),
                                       ("gpu.cta_dispatch_first_cycles", -0.5)])
def test_out_of_range_launch_settings_are_refused_by_name(key, value):
    with pytest.raises(Exception, match=key.replace(".", r"\.")):
        TimingSim("h200", [f"{key}={value}"])
