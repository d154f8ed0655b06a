"""A timing simulator made before a fork stays safe in the child: the child can run it and drop it (the pool's
threads exist only in the parent). Before the fix, a child whose garbage collector finalised an inherited
simulator joined a thread of its own that reused the parent thread's descriptor, and hung (CI, 2 December)."""
import gc
import json
import os
import select
import signal
import time

import pytest

from engine.cases import load_suite
from engine.runner import prepare
from engine.timing import TimingSim


def _launch(sim, name):
    case = load_suite()[name]
    kernel, args, _, _ = prepare(case, sim.device)
    sim.flush()                                     # cold caches: every launch starts the same
    st = sim.launch(kernel, case.grid, case.block, args, shared=case.shared).stats
    return {k: v for k, v in st.items() if k != "wall_s"}


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_inherited_two_thread_simulator_runs_and_is_dropped_in_a_forked_child():
    parent = TimingSim("h200", threads=2)
    want = _launch(parent, "saxpy_1M")
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:                                    # the child: run the inherited simulator, then a new one, drop both
        code = 1
        try:
            got = _launch(parent, "saxpy_1M")
            fresh = TimingSim("h200", threads=2)
            again = _launch(fresh, "saxpy_1M")
            del fresh
            gc.collect()
            os.write(wfd, json.dumps({"inherited": got, "fresh_same": again == want}).encode())
            code = 0
        finally:
            os._exit(code)
    os.close(wfd)
    deadline, data = time.monotonic() + 240, b""
    while time.monotonic() < deadline:
        r, _, _ = select.select([rfd], [], [], 0.5)
        if r:
            chunk = os.read(rfd, 4096)
            if not chunk:
                break
            data += chunk
    else:
        os.kill(pid, signal.SIGKILL)
    os.close(rfd)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, f"child status {status} (hung or crashed)"
    child = json.loads(data)
    assert child["fresh_same"]                      # a simulator made in the child: the parent's first launch
    assert child["inherited"] == _launch(parent, "saxpy_1M")   # the inherited one: the parent's own next launch
    del parent                                      # the parent still destroys its own team normally
    gc.collect()
