"""The parallel timing engine: SMs on several threads give the same cycles, statistics, recordings and
outputs as one thread, byte for byte (engine/csrc/pending.h explains why), on validation cases, on
kernels written to stress the deferred memory phase (L1 hits on sectors in flight, stores drained
across a membar, float atomics from many CTAs on a few addresses) and on a workload bundle."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from engine import errors, sass
from engine.timing import TimingSim, lib

ROOT = Path(__file__).resolve().parent.parent
HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"


class Tables:
    """a recording sink that keeps every table's bytes"""
    def __init__(self):
        self.t = {}

    def begin(self, meta):
        pass

    def append(self, table, chunk):
        self.t.setdefault(table, []).append(chunk.tobytes())

    def end(self, stats, status):
        pass

    def joined(self):
        return {k: b"".join(v) for k, v in self.t.items()}


def _stats(res):
    return {k: v for k, v in res.stats.items() if k != "wall_s"}


def run_case(suite, name, threads):
    sim = TimingSim("h200", record="full", threads=threads)
    sink = Tables()
    run = sim.run_case(suite[name], sink=sink)
    assert run.passed is not False
    return _stats(run.timing), sink.joined(), sim.threads


@pytest.mark.parametrize("name", ["saxpy_1M", "hist_smem_256bins_4M"])
def test_validation_cases_identical_on_one_and_two_threads(suite, name):
    s1, r1, n1 = run_case(suite, name, 1)
    s2, r2, n2 = run_case(suite, name, 2)
    assert (n1, n2) == (1, 2)
    assert s1 == s2
    assert set(r1) == {"warp_states", "sm_counters", "mem_counters", "events", "mem_samples", "pc_stats"}
    for t in r1:
        assert r1[t] == r2[t], t


# 64 CTAs of 128 threads: every thread loads two words of one line (the second load hits the sector
# the first one is still fetching), stores, fences, and adds a float to one of 8 global counters
STRESS = HEAD + """
.visible .entry stress(.param .u64 p_in, .param .u64 p_out, .param .u64 p_acc)
{
  .reg .pred %p;
  .reg .b32 %tid, %ctaid, %ntid, %i, %k;
  .reg .f32 %a, %b, %s;
  .reg .b64 %in, %out, %acc, %off, %addr, %o2, %ka;
  ld.param.u64 %in, [p_in];
  ld.param.u64 %out, [p_out];
  ld.param.u64 %acc, [p_acc];
  mov.u32 %tid, %tid.x;
  mov.u32 %ctaid, %ctaid.x;
  mov.u32 %ntid, %ntid.x;
  mad.lo.u32 %i, %ctaid, %ntid, %tid;
  mul.wide.u32 %off, %i, 8;
  add.u64 %addr, %in, %off;
  ld.global.f32 %a, [%addr];
  ld.global.f32 %b, [%addr+4];
  add.f32 %s, %a, %b;
  mul.wide.u32 %o2, %i, 4;
  add.u64 %o2, %out, %o2;
  st.global.f32 [%o2], %s;
  membar.gl;
  and.b32 %k, %i, 7;
  mul.wide.u32 %ka, %k, 4;
  add.u64 %ka, %acc, %ka;
  atom.global.add.f32 %a, [%ka], %s;
  setp.gt.f32 %p, %a, 1000000.0;
  @%p st.global.f32 [%o2], %a;
  red.global.add.f32 [%ka], %b;
  ret;
}
"""


def run_stress(threads, record="full"):
    sim = TimingSim("h200", record=record, threads=threads)
    dev = sim.device
    k = dev.load_ptx(STRESS).kernel("stress")
    n = 64 * 128
    rng = np.random.default_rng(7)
    x = rng.standard_normal(2 * n).astype(np.float32) * np.float32(1e3)
    bin_, bout, bacc = dev.to_device(x), dev.to_device(np.zeros(n, np.float32)), dev.to_device(np.zeros(8, np.float32))
    sink = Tables()
    sim.flush()
    res = sim.launch(k, 64, 128, [bin_, bout, bacc], sink=sink)
    return _stats(res), sink.joined(), dev.from_device(bout).tobytes(), dev.from_device(bacc).tobytes(), x


def test_deferred_memory_phase_identical_for_any_thread_count():
    base = run_stress(1)
    s, rec, out, acc, x = base
    # the model did take the paths under test
    assert s["L1D_mshr_merges"] > 0 and s["L2_atomic_ops"] > 0 and s["op_counts"]["membar"] == 64 * 4
    # and the functional results are right: sums, and the float atomics' totals (order: SM, then issue)
    n = 64 * 128
    pairs = x.reshape(n, 2)
    np.testing.assert_allclose(np.frombuffer(acc, np.float32),
                               [(pairs[k::8, 0] + 2 * pairs[k::8, 1]).sum(dtype=np.float64) for k in range(8)],
                               rtol=1e-4)
    for threads in (2, 3):
        other = run_stress(threads)
        assert other[0] == s
        assert other[2] == out and other[3] == acc       # float atomics applied in the same order
        for t in rec:
            assert other[1][t] == rec[t], t


def run_stress_split(threads, record="off", overrides=()):
    """The stress kernel without full recording: statistics, outputs, the atomics' totals, and how many SM memory
    phases were split in three."""
    sim = TimingSim("h200", record=record, threads=threads, overrides=list(overrides))
    dev = sim.device
    k = dev.load_ptx(STRESS).kernel("stress")
    n = 64 * 128
    x = np.random.default_rng(7).standard_normal(2 * n).astype(np.float32) * np.float32(1e3)
    bufs = [dev.to_device(x), dev.to_device(np.zeros(n, np.float32)), dev.to_device(np.zeros(8, np.float32))]
    sim.flush()
    res = sim.launch(k, 64, 128, bufs)
    return _stats(res), dev.from_device(bufs[1]).tobytes(), dev.from_device(bufs[2]).tobytes(), \
        (int(lib.gs_tsim_split_phases(sim._ptr)), int(lib.gs_tsim_split_refused(sim._ptr)))


@pytest.mark.parametrize("record", ["off", "summary"])
def test_split_memory_phase_identical_for_any_thread_count(record):
    """Without full recording, several threads split each SM's memory phase in three (its own MSHRs and output
    port on its thread, the L2 and DRAM in SM order, its input port and scoreboards on any thread): the same
    statistics, outputs and atomics' order as one thread, which never splits."""
    s1, out1, acc1, split1 = run_stress_split(1, record)
    assert split1 == (0, 0) and s1["L1D_mshr_merges"] > 0 and s1["L2_atomic_ops"] > 0
    for threads in (2, 3):
        s, out, acc, split = run_stress_split(threads, record)
        assert split[0] > 0                               # the split path ran
        assert (s, out, acc) == (s1, out1, acc1), threads


def test_split_refused_for_an_sm_with_more_read_misses_than_mshrs():
    """An SM whose read misses in a quantum outnumber its MSHRs keeps its memory phase whole (an entry would be
    reused before the L2 answered the miss that holds it): with 4 MSHRs some memory phases of split quanta stay
    whole and the others split, with the preset's 1024
    none stays whole, and two threads still give one thread's statistics and outputs."""
    s1, out1, acc1, _ = run_stress_split(1, overrides=["l1.mshrs=4"])
    s2, out2, acc2, (split_few, refused_few) = run_stress_split(2, overrides=["l1.mshrs=4"])
    assert (s2, out2, acc2) == (s1, out1, acc1)
    assert refused_few > 0 and split_few > 0
    assert run_stress_split(2, overrides=["l1.mshrs=1024"])[3][1] == 0


def test_full_recording_keeps_the_memory_phase_whole(suite):
    """Memory samples reach the tables SM by SM from the memory phase: with full recording it is not split."""
    sim = TimingSim("h200", record="full", threads=2)
    sim.run_case(suite["saxpy_1M"], sink=Tables())
    assert lib.gs_tsim_split_phases(sim._ptr) == 0


def test_workload_bundle_identical_on_one_and_two_threads():
    from engine.workload.bundle import open_bundle
    from engine.workload.replay import run_workload

    def one(threads):
        with open_bundle(ROOT / "workloads" / "examples" / "example_mlp_b64_fp32.tar.xz") as b:
            res = run_workload(b, sim=TimingSim("h200", threads=threads))
        return [(r.sim_cycles, {k: v for k, v in (r.stats or {}).items() if k != "wall_s"}) for r in res.launches]
    assert one(1) == one(2)


def test_threads_resolve_to_the_cores_and_at_most_one_per_sm():
    import os
    assert TimingSim("h200", threads=0).threads == min(len(os.sched_getaffinity(0)), 132)
    assert TimingSim("h200", overrides=["gpu.num_sms=2"], threads=8).threads == 2
    with pytest.raises(ValueError, match="threads must be a whole number >= 0"):
        TimingSim("h200", threads=-1)


def test_a_quantum_longer_than_the_memory_round_trip_is_refused():
    with pytest.raises(errors.SimError, match=r"sim.quantum_cycles = 300 is longer than the memory system's round trip "
                                              r"\(168 cycles"):
        TimingSim("h200", overrides=["sim.quantum_cycles=300"])


def test_event_kinds_are_the_header_enum():
    from engine._ffi import lib
    from engine.recording import EVENT_KINDS
    assert len(EVENT_KINDS) == lib.GS_EV__COUNT
    assert [getattr(lib, "GS_EV_" + k.upper()) for k in EVENT_KINDS] == list(range(len(EVENT_KINDS)))


# a grid-stride copy of 2 MiB through an L2 of 192 KiB: the stores' dirty lines are evicted to DRAM as
# the copy goes, so DRAM reads and writes mix on the channels
COPY = HEAD + """
.visible .entry copy(.param .u64 p_in, .param .u64 p_out, .param .u32 p_n)
{
  .reg .pred %p;
  .reg .b32 %i, %n, %stride, %t, %g, %x;
  .reg .f32 %v;
  .reg .b64 %in, %out, %off, %a, %b;
  ld.param.u64 %in, [p_in];
  ld.param.u64 %out, [p_out];
  ld.param.u32 %n, [p_n];
  mov.u32 %i, %ctaid.x;
  mov.u32 %t, %ntid.x;
  mov.u32 %g, %nctaid.x;
  mul.lo.u32 %stride, %t, %g;
  mov.u32 %x, %tid.x;
  mad.lo.u32 %i, %i, %t, %x;
LOOP:
  setp.ge.u32 %p, %i, %n;
  @%p bra DONE;
  mul.wide.u32 %off, %i, 4;
  add.u64 %a, %in, %off;
  add.u64 %b, %out, %off;
  ld.global.f32 %v, [%a];
  st.global.f32 [%b], %v;
  add.u32 %i, %i, %stride;
  bra LOOP;
DONE:
  ret;
}
"""


def run_copy(threads, overrides):
    sim = TimingSim("h200", threads=threads, overrides=["l2.size_kib=192"] + overrides)
    dev = sim.device
    k = dev.load_ptx(COPY).kernel("copy")
    n = 1 << 19
    x = np.random.default_rng(3).standard_normal(n).astype(np.float32)
    bin_, bout = dev.to_device(x), dev.to_device(np.zeros(n, np.float32))
    sim.flush()
    res = sim.launch(k, 264, 256, [bin_, bout, n])
    assert np.array_equal(dev.from_device(bout), x)
    return _stats(res)


def test_dram_write_drains_identical_for_any_thread_count_and_delay_reads():
    """dram.write_drain_ns (calibration.md 5l): writes queue per channel and take the bus in blocks; the
    DRAM state is touched only in the serial memory phase, so any thread count gives the same run."""
    on = run_copy(1, ["dram.write_drain_ns=545"])
    off = run_copy(1, ["dram.write_drain_ns=0"])
    assert off["dram_write_drains"] == 0 and on["dram_write_drains"] > 0
    assert on["dram_write_bytes"] > 0 and on["dram_read_bytes"] == off["dram_read_bytes"]
    assert on["gpu_sim_cycle"] > off["gpu_sim_cycle"]          # reads wait behind the drains
    for threads in (2, 3):
        assert run_copy(threads, ["dram.write_drain_ns=545"]) == on


# 264 CTAs of 32 threads sum 20 loads each; then CTA 37 alone reads 1 GiB past its buffer (a fault on SM 37
# while the other SMs, on every thread, are still running and their memory phases are in flight)
LATE_FAULT = HEAD + """
.visible .entry late_fault(.param .u64 p_in, .param .u64 p_out)
{
  .reg .pred %p;
  .reg .b32 %tid, %ctaid, %i, %j, %o;
  .reg .f32 %a, %s;
  .reg .b64 %in, %out, %off, %addr;
  ld.param.u64 %in, [p_in];
  ld.param.u64 %out, [p_out];
  mov.u32 %tid, %tid.x;
  mov.u32 %ctaid, %ctaid.x;
  mov.f32 %s, 0f00000000;
  mov.u32 %j, 0;
LOOP:
  mad.lo.u32 %i, %j, 32, %tid;
  and.b32 %i, %i, 4095;
  mul.wide.u32 %off, %i, 4;
  add.u64 %addr, %in, %off;
  ld.global.f32 %a, [%addr];
  add.f32 %s, %s, %a;
  add.u32 %j, %j, 1;
  setp.lt.u32 %p, %j, 20;
  @%p bra LOOP;
  setp.eq.u32 %p, %ctaid, 37;
  @%p ld.global.f32 %a, [%in+1073741824];
  add.f32 %s, %s, %a;
  mad.lo.u32 %o, %ctaid, 32, %tid;
  mul.wide.u32 %off, %o, 4;
  add.u64 %addr, %out, %off;
  st.global.f32 [%addr], %s;
  ret;
}
"""


def test_a_fault_on_one_sm_is_the_same_for_any_thread_count():
    seen = []
    for threads in (1, 2, 3):
        sim = TimingSim("h200", threads=threads)
        dev = sim.device
        k = dev.load_ptx(LATE_FAULT).kernel("late_fault")
        bin_, bout = dev.to_device(np.ones(4096, np.float32)), dev.to_device(np.zeros(264 * 32, np.float32))
        sim.flush()
        with pytest.raises(errors.MemoryFault) as ei:
            sim.launch(k, 264, 32, [bin_, bout])
        e = ei.value
        assert (e.kernel, e.cta, e.warp, e.lane) == ("late_fault", (37, 0, 0), 0, 0)
        assert "out-of-bounds global" in str(e)
        seen.append(str(e))
        # the simulator is usable afterwards, and gives the same answer on every thread count
        ok = dev.load_ptx(STRESS).kernel("stress")
        n = 64 * 128
        x = np.arange(2 * n, dtype=np.float32)
        bufs = [dev.to_device(x), dev.to_device(np.zeros(n, np.float32)), dev.to_device(np.zeros(8, np.float32))]
        sim.flush()
        seen.append(_stats(sim.launch(ok, 64, 128, bufs)))
    assert seen[0] == seen[2] == seen[4]
    assert seen[1] == seen[3] == seen[5]


def _legacy_and_prepared(text: str, name: str, overrides=()):
    """The module as load_ptx + the first launch's sass_mode leave it, and as prepare_ptx + adopt do."""
    sim = TimingSim("h200", overrides=list(overrides), threads=1)
    old = sim.device.load_ptx(text, filename=name)
    old_mode = sim.sass_mode(old)
    new = sim.adopt(sim.device, sim.prepare_ptx(text, name))
    return old, old_mode, new, sim.sass_mode(new)


def _same_module(old, new):
    assert old.order == new.order and old.sass_state == new.sass_state
    assert old.program.insts.tobytes() == new.program.insts.tobytes()
    assert old.program.opnds.tobytes() == new.program.opnds.tobytes()
    assert (old.sass is None) == (new.sass is None)
    if old.sass is not None:
        assert old.sass.costs.tobytes() == new.sass.costs.tobytes() and list(old.sass.regs) == list(new.sass.regs)


@pytest.mark.skipif(sass.find_tools() is None, reason=f"SASS tools: {sass.why_missing()}")
@pytest.mark.parametrize("order,unroll", [(1, 1), (2, 1), (0, 0), (1, 0)])
def test_a_module_lowered_once_is_the_one_lowered_then_rescheduled(order, unroll):
    """WorkloadRunner lowers a module once, in the simulator's order (TimingSim.prepare_ptx, on any thread):
    the same instructions, SASS costs, order and mode as the latency-order load rescheduled at its first
    launch. sgemm_naive has the loop timing.sass_unroll lays out as its SASS."""
    text = (ROOT / "validation" / "ptx" / "sgemm_naive.sm90.ptx").read_text()
    sets = [f"timing.sass_order={order}", f"timing.sass_unroll={unroll}"]
    old, old_mode, new, new_mode = _legacy_and_prepared(text, "sgemm_naive.ptx", sets)
    _same_module(old, new)
    assert old_mode == new_mode
    if unroll:
        assert old_mode["unrolled"] == ["sgemm_naive line 73 x4"]
    assert new.order == ("latency", "sass loads", "sass")[order]


def test_a_module_without_ptxas_is_lowered_once_in_the_latency_order(monkeypatch):
    monkeypatch.setattr(sass, "find_tools", lambda: None)
    text = (ROOT / "validation" / "ptx" / "sgemm_naive.sm90.ptx").read_text()
    old, old_mode, new, new_mode = _legacy_and_prepared(text, "sgemm_naive.ptx")
    _same_module(old, new)
    assert new.order == "latency" and new.sass is None
    assert new_mode == old_mode and new_mode["mode"] == "ptx"
    assert new.sass_state == {"mode": "ptx", "reason": sass.why_missing(), "unroll": 1}
