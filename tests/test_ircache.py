"""The disk cache of lowered modules (engine/ircache.py): a bundle's second run loads its modules instead of lowering
them, with the same results; a change to what the lowering depends on is another key; a damaged file is a miss;
SIMTSCOPE_IR_CACHE=0 turns it off; an unwritable folder costs nothing but the cache."""
from __future__ import annotations

from pathlib import Path

import pytest

from engine import ircache, timing
from engine.cases import load_suite
from engine.runner import prepare
from engine.timing import TimingSim
from engine.workload.bundle import open_bundle
from engine.workload.replay import run_workload

BUNDLE = Path(__file__).resolve().parent.parent / "workloads" / "examples" / "example_mlp_b64_fp32.tar.xz"


def _stats(res) -> list:
    return [(L.sim_cycles, L.warp_insts, {k: v for k, v in (L.stats or {}).items() if k != "wall_s"})
            for L in res.launches]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SIMTSCOPE_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("SIMTSCOPE_IR_CACHE", raising=False)
    return tmp_path / "ir"


def _run(**kw):
    with open_bundle(BUNDLE) as b:
        return run_workload(b, sim=TimingSim("h200", threads=1, **kw))


def test_the_second_run_loads_its_modules_with_the_same_results(cache, monkeypatch):
    first = _run()
    files = sorted(cache.glob("*.ir"))
    with open_bundle(BUNDLE) as b:
        modules = {L.ptx for L in b.launches if not L.opaque}
    assert len(files) == len(modules) > 0

    def no_lowering(*a, **k):
        raise AssertionError("lowered although the cache holds the module")
    monkeypatch.setattr(timing, "_lower_for_sass", no_lowering)
    monkeypatch.setattr(timing, "ptx_load", no_lowering)
    again = _run()
    assert first.outputs_pass and again.outputs_pass
    assert _stats(again) == _stats(first)
    assert sorted(cache.glob("*.ir")) == files


def _case_run(name: str) -> tuple:
    """(sass_mode's answer, the statistics, whether the outputs check, the module's PTX and file name)"""
    sim = TimingSim("h200", threads=1)
    case = load_suite()[name]
    kernel, args, inputs, bufs = prepare(case, sim.device)
    mode = sim.sass_mode(kernel.module, kernel.name)
    res = sim.launch(kernel, case.grid, case.block, args, shared=case.shared)
    stats = {k: v for k, v in res.stats.items() if k != "wall_s"}
    passed, _ = case.check(inputs, {n: sim.device.from_device(bufs[n]) for n in case.outputs})
    return mode, stats, passed, kernel.module.program.source, kernel.module.filename


def test_a_case_launch_loads_its_module_from_the_cache_with_the_same_results(cache, monkeypatch):
    """a single kernel's launch (sass_mode) stores its module's lowering under the key prepare_ptx uses; the next
    launch, in a fresh simulator, loads it instead of lowering, with the same statistics and outputs"""
    mode, first, ok, source, filename = _case_run("vector_add_1M")
    assert ok
    files = sorted(cache.glob("*.ir"))
    assert len(files) == 1

    def no_lowering(*a, **k):
        raise AssertionError("lowered although the cache holds the module")
    monkeypatch.setattr(timing, "_lower_for_sass", no_lowering)
    mode2, again, ok2, _, _ = _case_run("vector_add_1M")
    assert ok2 and again == first and mode2 == mode
    # (the same file a bundle's launch of this PTX loads: prepare_ptx finds it too)
    assert isinstance(TimingSim("h200", threads=1).prepare_ptx(source, filename), timing.SassLowered)
    assert sorted(cache.glob("*.ir")) == files


def test_what_the_lowering_depends_on_is_in_the_key(cache):
    src = "// a module\n.version 8.0\n.target sm_90\n.address_size 64\n"
    k = ircache.key_of(src, "a.ptx", ("sass", 1, 0))
    assert k == ircache.key_of(src, "a.ptx", ("sass", 1, 0))
    others = {ircache.key_of(src + " ", "a.ptx", ("sass", 1, 0)), ircache.key_of(src, "b.ptx", ("sass", 1, 0)),
              ircache.key_of(src, "a.ptx", ("sass", 1, 2)), ircache.key_of(src, "a.ptx", ("off", 1, 0))}
    assert k not in others and len(others) == 4
    _run()
    n = len(list(cache.glob("*.ir")))
    _run(overrides=["timing.sass_unroll=0"])           # (the H200 preset unrolls: another key per module)
    assert len(list(cache.glob("*.ir"))) == 2 * n


@pytest.mark.parametrize("damage", ["truncated", "garbage", "other-key", "empty"])
def test_a_damaged_file_is_a_miss_and_is_rewritten(cache, damage):
    first = _run()
    files = sorted(cache.glob("*.ir"))
    victim = files[0]
    blob = victim.read_bytes()
    victim.write_bytes({"truncated": blob[: len(blob) // 2], "garbage": b"\x00not a cache file" * 10,
                        "other-key": files[1].read_bytes() if len(files) > 1 else blob[:-1] + b"x",
                        "empty": b""}[damage])
    again = _run()
    assert _stats(again) == _stats(first)
    assert victim.read_bytes() == blob                  # lowered again and stored whole
    assert ircache.load(victim.stem) is not None


def test_off_writes_nothing_and_an_unwritable_folder_costs_only_the_cache(cache, tmp_path, monkeypatch):
    monkeypatch.setenv("SIMTSCOPE_IR_CACHE", "0")
    first = _run()
    assert not cache.exists()
    monkeypatch.delenv("SIMTSCOPE_IR_CACHE")
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("x")
    monkeypatch.setenv("SIMTSCOPE_CACHE_DIR", str(blocked))   # ir/ cannot be made under a file
    again = _run()
    assert _stats(again) == _stats(first)
    assert blocked.read_text() == "x"


def test_the_folder_keeps_at_most_max_files_the_oldest_going_first(cache, monkeypatch):
    import os
    cache.mkdir(parents=True)
    for i in range(12):
        f = cache / f"{i:064x}.ir"
        f.write_bytes(b"x")
        os.utime(f, (1000 + i, 1000 + i))
    (cache / "notes.txt").write_text("not ours")
    monkeypatch.setattr(ircache, "MAX_FILES", 12)
    ircache.prune(cache)
    assert len(list(cache.glob("*.ir"))) == 12                  # not past the limit: nothing goes
    monkeypatch.setattr(ircache, "MAX_FILES", 10)
    ircache.prune(cache)
    assert sorted(p.name for p in cache.glob("*.ir")) == [f"{i:064x}.ir" for i in range(5, 12)]
    assert (cache / "notes.txt").exists()
    key = "00" + "f" * 62                                       # (a key whose store looks at the folder)
    monkeypatch.setattr(ircache, "MAX_FILES", 4)
    ircache.store(key, {"a": 1})
    left = sorted(p.name for p in cache.glob("*.ir"))
    assert len(left) == 3 and f"{key}.ir" in left and ircache.load(key) == {"a": 1}
