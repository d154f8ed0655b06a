"""Issue 13: cycle and instruction caps for runs of many launches (workload bundles, trace directories),
in the engine and the CLI (the server's runs are in test_hardening_server.py). A cap covers the whole
run: each launch gets what the earlier ones left, and the launch that passes it ends the run with
LimitExceeded naming the cap and the launch."""
from __future__ import annotations

from pathlib import Path

import pytest

from engine import errors
from engine.caps import RunCaps
from engine.workload.bundle import open_bundle
from engine.workload.replay import run_workload
from simtscope.cli import main

ROOT = Path(__file__).resolve().parents[1]
MLP = ROOT / "workloads" / "examples" / "example_mlp_b64_fp32.tar.xz"
VECADD = ROOT / "tests" / "fixtures" / "traces" / "vectoradd-100-32"


@pytest.fixture(scope="module")
def mlp_insts():
    with open_bundle(MLP) as b:
        res = run_workload(b)                                      # functional, no caps
        return [r.warp_insts for r in res.launches]


def test_an_instruction_cap_covers_the_whole_workload(mlp_insts):
    assert len(mlp_insts) == 3 and all(n > 0 for n in mlp_insts)
    cap = mlp_insts[0] + mlp_insts[1] // 2                 # launch 0 fits, launch 1 passes what is left
    seen = []
    with open_bundle(MLP) as b:
        with pytest.raises(errors.LimitExceeded) as ei:
            run_workload(b, max_warp_insts=cap, progress=lambda i, n, run: seen.append((i, run.error)))
    msg = str(ei.value)
    assert f"instruction cap reached: {cap} warp instructions (max_warp_insts) for the whole run, in launch 1 (" in msg
    assert seen[0] == (0, None) and seen[1][0] == 1 and "instruction cap reached" in seen[1][1]
    assert len(seen) == 2                                  # launch 2 never ran


def test_a_cap_used_up_exactly_refuses_the_next_launch(mlp_insts):
    with open_bundle(MLP) as b:
        with pytest.raises(errors.LimitExceeded, match=r"for the whole run, in launch 1 \("):
            run_workload(b, max_warp_insts=mlp_insts[0])


def test_a_cycle_cap_on_timed_launches():
    from engine.timing import TimingSim
    sim = TimingSim("h200", overrides=["gpu.num_sms=8"])
    with open_bundle(MLP) as b:
        with pytest.raises(errors.LimitExceeded,
                           match=r"cycle cap reached: 2000 cycles \(max_cycles\) for the whole run, in launch 0 \("):
            run_workload(b, sim=sim, max_cycles=2000)


def test_run_caps_check_their_arguments():
    with pytest.raises(errors.LaunchError, match=r"max_cycles = -1 is out of range: allowed 0 to"):
        RunCaps(-1, 0)
    with pytest.raises(errors.LaunchError, match=r"max_warp_insts must be an integer .* got 1.5 \(float\)"):
        RunCaps(0, 1.5)
    c = RunCaps(100, 0)
    assert c.left() == {"max_cycles": 100} and c.left(timed=False) == {}
    c.spend(60, 5)
    assert c.left() == {"max_cycles": 40}


def test_trace_run_cap_in_the_engine_and_the_cli(capsys):
    from engine.traces.run import run_trace
    with pytest.raises(errors.LimitExceeded, match=r"cycle cap reached: 100 cycles \(max_cycles\) for the whole run, "
                                                   r"in kernel 0 \(_Z6vecAddIfEvPT_S1_S1_i\)"):
        run_trace(VECADD, "gtx1080", max_cycles=100)
    with pytest.raises(errors.LimitExceeded, match=r"instruction cap reached: 50 warp instructions"):
        run_trace(VECADD, "gtx1080", max_warp_insts=50)
    assert run_trace(VECADD, "gtx1080", max_cycles=10**9).warp_insts == 344     # a cap not reached changes nothing
    assert main(["run", "--trace", str(VECADD), "--config", "gtx1080", "--max-cycles", "100"]) == 2
    err = capsys.readouterr().err
    assert "error: LimitExceeded: cycle cap reached: 100 cycles (max_cycles) for the whole run, in kernel 0" in err


def test_workload_cap_in_the_cli(capsys):
    assert main(["run", "--workload", str(MLP), "--max-insts", "1000"]) == 2
    err = capsys.readouterr().err
    assert "error: the run failed: LimitExceeded: instruction cap reached: 1000 warp instructions (max_warp_insts) " \
           "for the whole run, in launch 0 (" in err
