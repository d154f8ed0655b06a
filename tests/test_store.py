"""Run store: what the writer stores and what the reader answers, checked against brute-force references
computed cycle by cycle from the recorder's own rows (a SYNTHETIC recording, tests/fixtures)."""
from __future__ import annotations

import shutil

import numpy as np
import pytest

from engine.recording import NSTATES, STATE_INDEX, WARP_STATE_DT
from tests.fixtures.synthetic_recording import SyntheticSim
from webapp.store import RunReader, RunWriter, codec
from webapp.store.layout import SEG
from webapp.store.snapshot import snapshot

IDLE, DONE = STATE_INDEX["idle"], STATE_INDEX["done"]


class Tee:
    """A sink that forwards to a RunWriter and keeps a copy of everything (the reference)."""

    def __init__(self, writer):
        self.w, self.tables, self.meta, self.stats = writer, {}, None, None

    def begin(self, meta):
        self.meta = meta
        self.w.begin(meta)

    def append(self, table, chunk):
        self.tables.setdefault(table, []).append(chunk.copy())
        self.w.append(table, chunk)

    def end(self, stats, status):
        self.stats = stats
        self.w.end(stats, status)

    def table(self, name):
        return np.concatenate(self.tables[name])


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    path = tmp_path_factory.mktemp("store") / "run.simtrun"
    sim = SyntheticSim(num_sms=4, slots=16, ctas=150, seed=7, record_sms=[0, 2, 3])
    tee = Tee(RunWriter(path, {"name": "t"}))
    sim.run(tee, flush_rows=2500)
    return path, tee


def state_matrix(ws: np.ndarray, sm: int, slots: int, end: int) -> np.ndarray:
    """(slots, end) state of every slot at every cycle, by expanding the rows (idle before the first)."""
    m = np.full((slots, end), IDLE, np.uint8)
    rows = ws[ws["sm"] == sm]
    for slot in range(slots):
        r = rows[rows["slot"] == slot]
        for i in range(len(r)):
            a = int(r["cycle"][i])
            b = int(r["cycle"][i + 1]) if i + 1 < len(r) else end
            m[slot, a:b] = r["state"][i]
    return m


def bucket_hist(m: np.ndarray, step: int, a0: int, nb: int) -> np.ndarray:
    """(rows, nb, NSTATES) cycles per state per bucket of `step` cycles from a0, by counting."""
    out = np.zeros((m.shape[0], nb, NSTATES), np.int64)
    for i in range(nb):
        seg = m[:, a0 + i * step:a0 + (i + 1) * step]
        for s in range(NSTATES):
            out[:, i, s] = (seg == s).sum(axis=1)
    return out


@pytest.mark.parametrize("shift", [0, 2, 6])
def test_bucket_durations_in_c_equal_counting_cycle_by_cycle(rng, shift):
    from webapp.store.lod import bucket_durations
    nkeys, nst, lo, nb = 7, 5, 1000, 9
    n = 300
    key = rng.integers(0, nkeys, n)
    start = rng.integers(lo - 40, lo + (nb << shift) + 40, n)
    end = start + rng.integers(0, 3 << shift, n) + rng.integers(0, 2, n) * rng.integers(0, 40 << shift, n)
    state = rng.integers(0, nst, n)
    got = bucket_durations(key, start, end, state, nkeys, lo, nb, shift, nst)
    want = np.zeros((nb, nkeys, nst), np.int64)            # by counting every cycle of every run
    for k, a, b, st in zip(key, start, end, state):
        for c in range(max(a, lo), min(b, lo + (nb << shift))):
            want[(c - lo) >> shift, k, st] += 1
    assert np.array_equal(got, want)
    with pytest.raises(ValueError, match="a key >= 7 or a state >= 5"):
        bucket_durations(np.r_[key, 7], np.r_[start, lo], np.r_[end, lo + 1], np.r_[state, 0], nkeys, lo, nb,
                         shift, nst)


def test_dominant_levels_fold_pairs_and_break_ties_to_the_first_state(rng):
    from webapp.store.lod import dominant, dominant_levels, pairwise
    h = rng.integers(0, 4, (8, 5, 3)).astype(np.int64)      # small counts: many ties
    ids = np.array([2, 5, 9])
    ref, want = h.copy(), []
    for _ in range(4):
        want.append(dominant(ref, ids))
        ref = pairwise(ref) if len(ref) > 1 else ref
    got = list(dominant_levels(h, ids, 4))
    assert [g.shape for g in got] == [(8, 5), (4, 5), (2, 5), (1, 5)]
    for g, w in zip(got, want):
        assert np.array_equal(g, w)
    assert np.array_equal(h[0], ref[0])                      # the last level's histogram is left in h[0]
    with pytest.raises(TypeError, match="C-contiguous int64"):
        next(dominant_levels(h[:, :, :2], ids[:2], 1))


def test_codec_round_trips_structured_plain_and_subarrays(rng):
    from engine.recording import SM_COUNTER_DT
    a = np.zeros(500, SM_COUNTER_DT)
    a["cycle0"] = np.sort(rng.integers(0, 2**40, 500)).astype(np.uint64)
    a["state_hist"] = rng.integers(0, 2**31, (500, NSTATES))
    a["issued"] = rng.integers(0, 2**32, 500)
    back = codec.unpack(codec.pack(a, ("cycle0",)), SM_COUNTER_DT, 500, delta=("cycle0",))
    assert back.tobytes() == a.tobytes()
    p = rng.integers(0, 255, (37, 2, 5)).astype(np.uint8)
    assert np.array_equal(codec.unpack(codec.pack(p), np.uint8, 37, (2, 5)), p)
    # decreasing values under delta coding wrap and come back exactly
    d = np.zeros(3, np.dtype([("cycle", "<u8")]))
    d["cycle"] = [5, 2**63 + 7, 1]
    assert np.array_equal(codec.unpack(codec.pack(d, ("cycle",)), d.dtype, 3, delta=("cycle",)), d)
    with pytest.raises(ValueError, match="expected"):
        codec.unpack(codec.pack(a), SM_COUNTER_DT, 499)


def test_raw_tables_are_kept_exactly(recorded):
    path, tee = recorded
    r = RunReader(path)
    assert r.status == "done" and r.end_cycle == tee.stats["gpu_sim_cycle"] > 2 * SEG
    for t in ("sm_counters", "mem_counters", "events", "mem_samples", "pc_stats"):
        assert r.raw(t).tobytes() == tee.table(t).tobytes(), t
    assert r.meta["recording"]["kernels"][0]["pc_text"] == tee.meta["kernels"][0]["pc_text"]


@pytest.mark.parametrize("shift", [0, 1, 3, 5, 6, 7, 9, 12, 13])
def test_heatmap_equals_the_dominant_state_counted_cycle_by_cycle(recorded, shift):
    path, tee = recorded
    r = RunReader(path)
    ws, end = tee.table("warp_states"), r.end_cycle
    step = 1 << shift
    a, b = 3 * SEG // 2 - 777, min(end, 3 * SEG // 2 + 3000)       # a window across a segment boundary
    for sm in (0, 3):
        h = r.heat(sm, a, b, shift)
        assert h["step"] == step and h["cycle0"] == a // step * step
        m = state_matrix(ws, sm, 16, end)
        ref = bucket_hist(m, step, h["cycle0"], h["n"])
        full = (h["cycle0"] + np.arange(1, h["n"] + 1) * step) <= end
        expect = np.argmax(ref, axis=-1)[:, full]
        assert np.array_equal(h["state"][:, full], expect)
        if shift == 0:   # at one cycle per bucket the heatmap is the state itself, and pc comes along
            assert np.array_equal(h["state"], m[:, h["cycle0"]:h["cycle0"] + h["n"]])
            assert h["pc"] is not None and h["pc"].shape == h["state"].shape


def test_heatmap_of_an_unrecorded_sm_is_refused(recorded):
    r = RunReader(recorded[0])
    with pytest.raises(LookupError, match="SM 1 has no warp-state recording"):
        r.heat(1, 0, 100, 0)


@pytest.mark.parametrize("shift", [4, 6, 8, 12, 14])
def test_strips_equal_dominant_resident_state_and_occupancy(recorded, shift):
    path, tee = recorded
    r = RunReader(path)
    ws, end = tee.table("warp_states"), r.end_cycle
    s = r.strips(0, end, shift)
    assert s["sms"] == [0, 2, 3] and s["step"] == 1 << shift
    for i, sm in enumerate(s["sms"]):
        m = state_matrix(ws, sm, 16, end)
        h = bucket_hist(m, s["step"], 0, s["n"]).sum(axis=0)                  # (nb, NSTATES) over slots
        res = h.copy()
        res[:, [IDLE, DONE]] = 0
        dom = np.where(res.sum(1) > 0, np.argmax(res, axis=1), IDLE)
        cyc = np.minimum((np.arange(s["n"]) + 1) * s["step"], end) - np.arange(s["n"]) * s["step"]
        act = np.rint(res.sum(1) / (cyc * 16) * 255)
        assert np.array_equal(s["dom"][i], dom)
        assert np.array_equal(s["act"][i], act)


@pytest.mark.parametrize("res", [256, 512, 1024, 4096, 1 << 20])
def test_counter_buckets_add_up_to_the_recorded_intervals(recorded, res):
    path, tee = recorded
    r = RunReader(path)
    smc, mc = tee.table("sm_counters"), tee.table("mem_counters")
    c = r.counters(0, r.end_cycle, res)
    assert c["step"] <= max(res, 256) and c["step"] % 256 == 0
    g = c["ctr_gpu"]
    for i in range(c["n"]):
        lo = c["cycle0"] + i * c["step"]
        sel = (smc["cycle0"] >= lo) & (smc["cycle0"] < lo + c["step"])
        assert g["issued"][i] == smc["issued"][sel].sum()
        assert np.array_equal(g["state_hist"][i], smc["state_hist"][sel].sum(axis=0))
        msel = (mc["cycle0"] >= lo) & (mc["cycle0"] < lo + c["step"])
        assert c["ctr_mem"]["dram_read_bytes"][i] == mc["dram_read_bytes"][msel].sum()
    assert g["issued"].sum() == smc["issued"].sum() == tee.stats["warp_insts"]
    assert c["cycles"].sum() == r.end_cycle


def test_per_sm_counter_strips_cover_every_sm(recorded):
    path, tee = recorded
    r = RunReader(path)
    smc = tee.table("sm_counters")
    s = r.sm_counters(0, r.end_cycle, 1024)
    assert s["sms"] == [0, 1, 2, 3]
    for sm in range(4):
        assert s["issued"][sm].sum() == smc["issued"][smc["sm"] == sm].sum()


def test_cta_spans_pair_the_events_and_merge_exactly(recorded):
    path, tee = recorded
    r = RunReader(path)
    ev = tee.table("events")
    spans = r.ctas(0, r.end_cycle)
    assert len(spans["start"]) == 150 and sorted(spans["cta"].tolist()) == list(range(150))
    starts = {int(c): int(t) for c, t, k in zip(ev["cta"], ev["cycle"], ev["kind"]) if k == 2}
    ends = {int(c): int(t) for c, t, k in zip(ev["cta"], ev["cycle"], ev["kind"]) if k == 3}
    for c, a, b in zip(spans["cta"], spans["start"], spans["end"]):
        assert (a, b) == (starts[int(c)], ends[int(c)])
    # CTAs on one SM lane never overlap
    for (sm, lane) in {(int(a), int(b)) for a, b in zip(spans["sm"], spans["lane"])}:
        sel = (spans["sm"] == sm) & (spans["lane"] == lane)
        st, en = np.sort(spans["start"][sel]), np.sort(spans["end"][sel])
        assert np.all(st[1:] >= en[:-1])
    merged = r.ctas(0, r.end_cycle, res=4096)
    assert merged["count"].sum() == 150 and len(merged["start"]) < 150
    window = r.ctas(5000, 6000)
    assert np.all((window["start"] < 6000) & (window["end"] > 5000))
    assert len(r.kernels()) == 1


def test_snapshot_matches_the_rows(recorded, rng):
    path, tee = recorded
    r = RunReader(path)
    ws, end = tee.table("warp_states"), r.end_cycle
    m = state_matrix(ws, 2, 16, end)
    for cyc in [0, SEG - 1, SEG, SEG + 1] + rng.integers(0, end, 8).tolist():
        snap = snapshot(r, int(cyc), 2)
        assert np.array_equal(snap["warps"]["state"], m[:, cyc])
        for slot in range(16):
            rows = ws[(ws["sm"] == 2) & (ws["slot"] == slot) & (ws["cycle"] <= cyc)]
            if len(rows):
                assert snap["warps"]["pc"][slot] == rows["pc"][-1]
                assert snap["warps"]["since"][slot] == rows["cycle"][-1]
                assert snap["warps"]["active"][slot] == rows["active"][-1]
                assert snap["warps"]["text"][slot] == tee.meta["kernels"][0]["pc_text"][rows["pc"][-1]]
        req = tee.table("mem_samples")
        live = (req["t_issue"] <= cyc) & (req["t_return"] > cyc)
        assert snap["requests"]["count"] == int(live.sum())


def test_summary_level_has_counters_and_no_warp_states(tmp_path):
    w = RunWriter(tmp_path / "s.simtrun")
    SyntheticSim(ctas=12, level="summary").run(w)
    r = RunReader(tmp_path / "s.simtrun")
    assert r.status == "done" and r.counters(0, r.end_cycle, 256)["ctr_gpu"]["issued"].sum() > 0
    assert r.strips(0, r.end_cycle, 4)["sms"] == []
    with pytest.raises(LookupError):
        r.heat(0, 0, 10, 0)


def test_contract_violations_are_clear_errors(tmp_path):
    w = RunWriter(tmp_path / "c.simtrun")
    with pytest.raises(RuntimeError, match="before begin"):
        w.append("events", np.zeros(0))
    meta = SyntheticSim().meta()
    w.begin(meta)
    rows = np.zeros(3, WARP_STATE_DT)
    rows["cycle"] = [5, 3, 9]
    with pytest.raises(ValueError, match="out of cycle order"):
        w.append("warp_states", rows)
    rows["cycle"] = [1, 2, 3]
    rows["sm"] = 9
    with pytest.raises(ValueError, match="not recorded"):
        w.append("warp_states", rows)
    with pytest.raises(TypeError, match="dtype"):
        w.append("events", np.zeros(2, np.int32))
    with pytest.raises(ValueError, match="unknown recorded table"):
        w.append("nonsense", np.zeros(1))
    with pytest.raises(FileExistsError):
        RunWriter(tmp_path / "c.simtrun")


def test_a_run_file_is_portable_and_readable_while_written(tmp_path, recorded):
    copy = tmp_path / "copied.simtrun"
    shutil.copyfile(recorded[0], copy)
    a, b = RunReader(recorded[0]), RunReader(copy)
    assert np.array_equal(a.heat(0, 0, 3000, 2)["state"], b.heat(0, 0, 3000, 2)["state"])

    class Probe:                       # reads the file from outside while the writer is in the middle
        def __init__(self, w, path):
            self.w, self.path, self.seen = w, path, []

        def begin(self, meta):
            self.w.begin(meta)

        def append(self, t, c):
            self.w.append(t, c)
            if t == "warp_states":
                self.w._commit()
                rd = RunReader(self.path)
                self.seen.append((rd.status, int(rd.meta.get("sealed_cycle", 0))))
                rd.close()

        def end(self, s, st):
            self.w.end(s, st)

    p = Probe(RunWriter(tmp_path / "live.simtrun"), tmp_path / "live.simtrun")
    SyntheticSim(ctas=150, seed=2).run(p, flush_rows=2500)
    assert all(s == "running" for s, _ in p.seen)
    assert p.seen[-1][1] >= SEG and RunReader(tmp_path / "live.simtrun").status == "done"


def test_a_run_file_of_another_format_is_refused_by_name(tmp_path):
    import json
    import sqlite3

    from webapp.store import runfile
    from webapp.store.layout import FORMAT
    path = tmp_path / "old.simtrun"
    SyntheticSim(ctas=4, level="summary").run(RunWriter(path))
    assert runfile.is_run_file(path) == (True, "")
    con = sqlite3.connect(path)
    con.execute("UPDATE meta SET value=? WHERE key='format'", (json.dumps("simtscope-run/1"),))
    con.commit()
    con.close()
    ok, why = runfile.is_run_file(path)
    assert not ok and "'simtscope-run/1'" in why and repr(FORMAT) in why
    with pytest.raises(ValueError, match=r"old.simtrun: run file format 'simtscope-run/1', this simtscope reads"):
        RunReader(path)
