"""Issue 13: a short, fixed-seed fuzz run of each front end inside the normal suite (the long runs are
`python -m tests.fuzz --target T --budget SECONDS --out DIR`, recorded in docs/reliability.md). Every
case runs in a forked child under a 3 GiB address-space limit and a time limit; a crash, a hang or an
escaped exception (anything but the project's own errors) fails the test with the reproducer."""
from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fuzz import inputs, ptx_gen, sandbox
from tests.fuzz.__main__ import fuzz


def _no_findings(summary):
    assert summary["inputs"] > 0
    assert not summary["findings"], "\n\n".join(f"{f['status']} {f['type']} x{f['count']} ({f['origin']}):\n"
                                              f"{f['message'][:1500]}" for f in summary["findings"])


@pytest.mark.parametrize("target,budget", [("ptx", 25), ("launch", 8), ("workload", 8), ("runfile", 8), ("trace", 8),
                                           ("upload", 12), ("runs-api", 8), ("sweeps-api", 8)])
def test_fixed_seed_fuzz_run_finds_nothing(target, budget, tmp_path):
    summary = fuzz(target, budget, tmp_path, seed=13, batch=10)
    _no_findings(summary)
    assert sum(summary["outcomes"].values()) == summary["inputs"]


def test_sandbox_reports_crash_hang_and_escape():
    """The harness itself: a segfault, a hang, a memory blow-up and a raw exception are all caught."""
    import ctypes
    out = sandbox.run_batch(_misbehave, ["segv", "ok", "hang", "mem", "raise", "ok"], time_limit=3)
    assert [o.status for o in out] == ["crash", "ok", "hang", "escaped", "escaped", "ok"]
    assert out[0].type == "SIGSEGV" and out[3].type == "MemoryError" and out[4].type == "OverflowError"
    _ = ctypes


def _misbehave(what):
    import ctypes
    import time
    if what == "segv":
        ctypes.string_at(0)
    if what == "hang":
        time.sleep(60)
    if what == "mem":
        return len(bytearray(4 << 30))
    if what == "raise":
        raise OverflowError("boom")
    return "fine"


@settings(max_examples=40, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(min_value=0, max_value=2**32))
def test_grammar_generated_kernels_never_crash(seed):
    """Hypothesis drives the grammar generator's seed (shrinking a failure to the smallest seed)."""
    text = ptx_gen.Gen(random.Random(seed)).kernel()
    out = sandbox.run_case(inputs.PTXSource.run, text, time_limit=30)
    assert not out.finding, f"{out.status} {out.type}: {out.message[:1500]}\n--- input ---\n{text}"
