"""Every fault class stops the kernel with an exception naming kernel, CTA, warp, lane, PC and PTX line;
the process survives and the same Device runs a correct kernel afterwards."""
from pathlib import Path

import numpy as np
import pytest

from engine import errors
from engine.device import Device

PTX = Path(__file__).resolve().parent / "kernels" / "fault_kernels.sm90.ptx"
LINES = PTX.read_text().splitlines()


def line_of(kernel: str, needle: str) -> int:
    """1-based line of the first instruction containing `needle` inside `kernel`'s body."""
    start = next(i for i, l in enumerate(LINES) if f".entry {kernel}(" in l)
    return next(i + 1 for i in range(start, len(LINES)) if needle in LINES[i])


@pytest.fixture(scope="module")
def env():
    dev = Device()
    return dev, dev.load_ptx(PTX)


def still_works(dev, mod):
    x = dev.to_device(np.arange(100, dtype=np.int32))
    y = dev.to_device(np.zeros(100, np.int32))
    dev.launch(mod.kernel("ok_copy"), 1, 128, [x, y, 100])
    assert dev.from_device(y).tolist() == list(range(1, 101))


def check(e, cls, kernel, cta, warp, lane, needle, words):
    assert type(e) is cls
    assert (e.kernel, e.cta, e.warp, e.lane) == (kernel, cta, warp, lane)
    assert e.line == line_of(kernel, needle)
    assert e.pc >= 0 and needle.split()[0] in e.ptx
    msg = str(e)
    for w in [kernel, f"warp {warp}", f"lane {lane}", f"pc {e.pc}", f":{e.line}", *words]:
        assert w in msg, (w, msg)


def test_out_of_bounds_global(env):
    dev, mod = env
    x = dev.to_device(np.ones(256, np.float32))
    y = dev.to_device(np.zeros(256, np.float32))
    with pytest.raises(errors.MemoryFault) as ei:
        dev.launch(mod.kernel("fault_oob_global"), 2, 128, [x, y, 1 << 20])
    check(ei.value, errors.MemoryFault, "fault_oob_global", (0, 0, 0), 0, 0, "ld.global.f32",
          ["out-of-bounds global"])
    assert ei.value.addr == x.addr + 4 * (1 << 20)
    still_works(dev, mod)


def test_out_of_bounds_shared(env):
    dev, mod = env
    y = dev.to_device(np.zeros(64, np.int32))
    with pytest.raises(errors.MemoryFault) as ei:
        dev.launch(mod.kernel("fault_oob_shared"), (1, 2), 32, [y, 200])
    check(ei.value, errors.MemoryFault, "fault_oob_shared", (0, 0, 0), 0, 0, "ld.shared",
          ["out-of-bounds shared", "size 256"])
    still_works(dev, mod)


def test_out_of_bounds_local(env):
    dev, mod = env
    y = dev.to_device(np.zeros(64, np.int32))
    with pytest.raises(errors.MemoryFault) as ei:
        dev.launch(mod.kernel("fault_oob_local"), 1, 32, [y, 1000])
    check(ei.value, errors.MemoryFault, "fault_oob_local", (0, 0, 0), 0, 0, "ld.local", ["out-of-bounds local"])
    still_works(dev, mod)


def test_misaligned_access(env):
    dev, mod = env
    x = dev.to_device(np.zeros(1024, np.uint8))
    y = dev.to_device(np.zeros(64, np.float32))
    with pytest.raises(errors.MisalignedAccess) as ei:
        dev.launch(mod.kernel("fault_misaligned"), 1, 64, [x, y, 2])
    check(ei.value, errors.MisalignedAccess, "fault_misaligned", (0, 0, 0), 0, 0, "ld.global",
          ["misaligned", "not a multiple of 4"])
    assert ei.value.addr == x.addr + 2
    still_works(dev, mod)


def test_trap_names_the_lane(env):
    dev, mod = env
    y = dev.to_device(np.zeros(128, np.int32))
    with pytest.raises(errors.TrapFault) as ei:
        dev.launch(mod.kernel("fault_trap"), 3, 128, [y, 37])
    check(ei.value, errors.TrapFault, "fault_trap", (0, 0, 0), 1, 5, "trap;", ["trap executed"])
    still_works(dev, mod)


def test_divergent_barrier_is_a_deadlock(env):
    dev, mod = env
    y = dev.to_device(np.zeros(64, np.int32))
    with pytest.raises(errors.BarrierDeadlock) as ei:
        dev.launch(mod.kernel("fault_divergent_barrier"), 1, 64, [y])
    e = ei.value
    assert e.kernel == "fault_divergent_barrier" and e.cta == (0, 0, 0)
    assert e.warp == 0 and e.lane == 16                    # lanes 16..31 of warp 0 never arrive
    assert e.line == line_of("fault_divergent_barrier", "bar.sync")
    assert "barrier deadlock" in str(e) and "0xffff0000" in str(e)
    still_works(dev, mod)


def test_instruction_cap(env):
    dev, mod = env
    flag = dev.to_device(np.zeros(1, np.int32))
    y = dev.to_device(np.zeros(32, np.int32))
    with pytest.raises(errors.LimitExceeded) as ei:
        dev.launch(mod.kernel("fault_spin"), 1, 32, [flag, y], max_warp_insts=10_000)
    e = ei.value
    assert e.kernel == "fault_spin" and e.cta == (0, 0, 0)
    assert "instruction cap reached" in str(e) and "10000" in str(e)
    still_works(dev, mod)


def test_faults_repeat_without_leaking_state(env):
    """The same faulting launch twice, then a correct one: nothing of the fault survives."""
    dev, mod = env
    y = dev.to_device(np.zeros(128, np.int32))
    for _ in range(2):
        with pytest.raises(errors.TrapFault):
            dev.launch(mod.kernel("fault_trap"), 1, 128, [y, 0])
    still_works(dev, mod)


def test_freed_addresses_are_reused_from_the_last_live_buffer_on():
    """A device whose buffers are all freed hands out a fresh device's addresses (so a simulation's
    address-dependent timing does not depend on what ran before); live buffers are never overlapped."""
    dev = Device()
    a = dev.to_device(np.zeros(1000, np.float32))
    b = dev.to_device(np.zeros(10, np.uint8))
    a0, b0 = int(a), int(b)
    assert a0 == int(Device().to_device(np.zeros(4, np.uint8)))   # a fresh device's first address
    dev.free(b)
    c = dev.to_device(np.zeros(10, np.uint8))
    assert int(c) == b0 > a0 + 4000                  # right after the live buffer a, past its guard gap
    dev.free(a)
    d = dev.to_device(np.zeros(5, np.uint8))
    assert int(d) > int(c)                           # c is still live: nothing is handed out below it
    dev.free(c)
    dev.free(d)
    assert int(dev.to_device(np.zeros(5, np.uint8))) == a0
