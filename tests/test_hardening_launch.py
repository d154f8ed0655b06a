"""Issue 13: malformed launch calls (Device.launch, TimingSim) raise LaunchError naming the argument and
its allowed range, instead of cffi's OverflowError/TypeError, an IndexError, or looping forever
(chunk=0). Each call runs in a forked child with a time limit, so a regression to a hang fails the test
instead of stalling the suite."""
from __future__ import annotations

import pytest

from tests.fuzz import sandbox, targets

U32 = 1 << 32

# (launch spec, substrings of the LaunchError message)
BAD = [
    ({"grid": -1}, ["grid.x = -1", "allowed 1 to 2147483647"]),
    ({"grid": U32}, ["grid.x = 4294967296", "allowed 1 to 2147483647"]),
    ({"grid": (1, -1)}, ["grid.y = -1", "allowed 1 to 65535"]),
    ({"grid": (1, 1, 70000)}, ["grid.z = 70000", "allowed 1 to 65535"]),
    ({"grid": 1.5}, ["grid must be an integer", "1.5"]),
    ({"grid": None}, ["grid must be an integer", "None"]),
    ({"grid": True}, ["grid must be an integer", "True"]),
    ({"grid": (1, 2, 3, 4)}, ["1 to 3 values", "grid"]),
    ({"block": -1}, ["block.x = -1", "allowed 1 to 1024"]),
    ({"block": 0}, ["block.x = 0", "allowed 1 to 1024"]),
    ({"block": U32}, ["block.x = 4294967296", "allowed 1 to 1024"]),
    ({"block": (32, 64)}, ["2048 threads", "allowed 1 to 1024"]),
    ({"block": (1, 1, 65)}, ["block.z = 65", "allowed 1 to 64"]),
    ({"block": "32"}, ["block must be an integer", "'32'"]),
    ({"shared": -1}, ["shared = -1", "allowed 0 to 4294967295"]),
    ({"shared": U32}, ["shared = 4294967296", "allowed 0 to 4294967295"]),
    ({"shared": None}, ["shared must be an integer", "None"]),
    ({"max_warp_insts": -1}, ["max_warp_insts = -1", "allowed 0 to 18446744073709551615"]),
    ({"chunk": 0}, ["chunk = 0", "allowed 1 to"]),
    ({"chunk": -5}, ["chunk = -5", "allowed 1 to"]),
    ({"args": None}, ["args must be a sequence"]),
    ({"args": [1]}, ["takes 2 argument(s), 1 given"]),
    ({"args": [1 << 64, 1]}, ["argument p (u64)", "does not fit in 64 bits"]),
    ({"timing": True, "grid": -1}, ["grid.x = -1", "allowed 1 to 2147483647"]),
    ({"timing": True, "block": 1.0}, ["block must be an integer", "1.0"]),
    ({"timing": True, "shared": U32}, ["shared = 4294967296", "allowed 0 to 4294967295"]),
    ({"timing": True, "max_cycles": -1}, ["max_cycles = -1", "allowed 0 to"]),
    ({"timing": True, "chunk_cycles": 0}, ["chunk_cycles = 0", "allowed 1 to"]),
    ({"timing": True, "max_warp_insts": None}, ["max_warp_insts must be an integer", "None"]),
    ({"timing": True, "record_sms": [-1]}, ["record_sms[] = -1", "allowed 0 to 131"]),
    ({"timing": True, "record_sms": [132]}, ["record_sms[] = 132", "allowed 0 to 131"]),
    ({"timing": True, "record_sms": "0"}, ["record_sms must be a list"]),
]


HEAVIEST = {"timing": True, "record_sms": [0, 131], "chunk_cycles": 1}     # an H200 model, recorded, chunk by chunk


@pytest.fixture(scope="module")
def time_limit():
    """Each case's time limit, from this machine's speed now: the heaviest well-formed call (a child that
    builds a Device and an H200 timing model and launches with recording, one cycle per chunk) is timed
    first, and a case may take 8 times that (at least 30 s). A refused call does less than that call; a
    call that loops (chunk=0 used to) never ends, so it still fails, however loaded the machine is."""
    import time
    t0 = time.monotonic()
    out = sandbox.run_case(targets.launch_call, HEAVIEST, time_limit=600)
    assert (out.status, out.message) == ("ok", "ok"), out.message[:600]
    return max(30.0, 8 * (time.monotonic() - t0))


@pytest.mark.parametrize("spec,parts", BAD, ids=[repr(s) for s, _ in BAD])
def test_malformed_launch_raises_launch_error(spec, parts, time_limit):
    from engine import errors
    out = sandbox.run_case(targets.launch_call, spec, time_limit=time_limit, expected=(errors.LaunchError,))
    assert out.status == "rejected", (out.status, out.type, out.message[:600])
    assert out.type == "LaunchError"
    for p in parts:
        assert p in out.message, (p, out.message)


@pytest.mark.parametrize("spec", [{}, {"grid": (2, 1), "block": (16, 2)}, {"timing": True}, HEAVIEST])
def test_wellformed_launch_still_runs(spec, time_limit):
    out = sandbox.run_case(targets.launch_call, spec, time_limit=time_limit)
    assert (out.status, out.message) == ("ok", "ok"), out.message[:600]


def test_launch_writes_the_expected_values(dev):
    """The checked path still launches: the kernel stores tid into the first n elements."""
    import numpy as np
    mod = dev.load_ptx(targets._LAUNCH_PTX, "launch.ptx")
    buf = dev.to_device(np.full(64, 7, np.uint32))
    dev.launch(mod.kernel("k"), np.int64(1), (32,), [buf, np.uint32(20)], shared=np.uint32(0))
    out = dev.from_device(buf)
    assert out[:20].tolist() == list(range(20)) and (out[20:] == 7).all()
