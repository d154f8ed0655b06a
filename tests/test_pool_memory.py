"""Memory of a timing model's simulation threads (engine/csrc/pool.c; docs/reliability.md, "Memory of a
timing model"). Each thread used to reserve ~72 MiB of address space (an 8 MiB stack from RLIMIT_STACK and
a 64 MiB glibc malloc arena), so a server worker under RLIMIT_AS (WORKER_MEM_BYTES) on a 128-core host
reserved ~9 GiB per model. Now a thread's stack is gs_pool_stack_bytes (1 MiB) and the process's arenas
are capped (M_ARENA_MAX 2): N threads cost N stacks and one arena.

Each measurement runs in a fresh interpreter (malloc's arenas are per process)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MiB = 1 << 20

CHILD = r"""
import json, re, resource, sys
def vm():
    return int(re.search(r"VmSize:\s+(\d+)", open("/proc/self/status").read()).group(1)) * 1024
import numpy as np
from engine.timing import TimingSim
from engine._ffi import lib
threads, extra = int(sys.argv[1]), int(sys.argv[2])
warm = TimingSim("h200", threads=1)          # the model's own memory (and the imports) before the limit
del warm
base = vm()
if extra:
    resource.setrlimit(resource.RLIMIT_AS, (base + extra, resource.RLIM_INFINITY))
sim = TimingSim("h200", threads=threads)
k = sim.device.load_ptx(open("validation/ptx/vector.sm90.ptx").read()).kernel("saxpy")
n = 1 << 16
x = sim.device.to_device(np.arange(n, dtype=np.float32))
y = sim.device.to_device(np.ones(n, np.float32))
r = sim.launch(k, n // 128, 128, [n, np.float32(2.0), x, y])
ok = bool(np.array_equal(sim.device.from_device(y), 2 * np.arange(n, dtype=np.float32) + 1))
out = {"threads": sim.threads, "grew": vm() - base, "cycles": int(r.cycles), "ok": ok}
del sim, k, x, y
import gc; gc.collect()
out.update(stack=int(lib.gs_pool_stack_bytes()), peak=int(lib.gs_pool_stack_peak()))
print(json.dumps(out))
"""


def child(threads: int, extra: int = 0) -> dict:
    p = subprocess.run([sys.executable, "-c", CHILD, str(threads), str(extra)], cwd=ROOT, capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def one():
    return child(1)


def test_threads_cost_a_small_stack_each_and_one_arena(one):
    """16 simulation threads add at most 15 x (stack + 1 MiB) + one 64 MiB arena + 16 MiB to what one
    thread needs (they added 15 x ~72 MiB = ~1.1 GiB before)."""
    many = child(16)
    assert many["threads"] == 16 and many["ok"] and many["cycles"] == one["cycles"]
    bound = 15 * (many["stack"] + MiB) + 64 * MiB + 16 * MiB
    assert many["grew"] - one["grew"] <= bound, (many, one, bound)
    assert many["stack"] == MiB


def test_a_many_threaded_model_runs_within_a_stated_address_space_limit(one):
    """Under RLIMIT_AS = what one thread needed + 32 x 2 MiB + 64 MiB (arena) + 32 MiB, a 32-thread model is
    built with all its threads and runs correctly (before, thread creation failed past the limit and the
    model silently ran with fewer threads, or the build failed)."""
    limit = one["grew"] + 32 * 2 * MiB + 64 * MiB + 32 * MiB
    got = child(32, limit)
    assert got["threads"] == 32 and got["ok"] and got["cycles"] == one["cycles"], got


def test_the_deepest_stack_use_is_far_below_the_stack(one):
    """The simulation threads' deepest stack use (the lowest written byte of each thread's stack, noted as it
    ends) stays under a quarter of the stack. Over the tensor-core, warp-op, async and wgmma tests in the
    timing model and six heavy suite cases the deepest was 38 KiB (docs/reliability.md)."""
    got = child(4)
    assert 0 < got["peak"] < got["stack"] // 4, got
