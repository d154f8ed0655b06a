"""Server side of the explorer explaining itself: overrides checked at submit with the valid values,
upload limits published, imported runs named as imported."""
from __future__ import annotations

import io

import pytest

from engine.config import ConfigError
from tests.fixtures.servers import synthetic_app, wait_done
from webapp.jobs.sims import check_timing


@pytest.mark.parametrize("override, message", [
    ("sm.warp_scheduler=lrr", "override 'sm.warp_scheduler=lrr': unknown key 'sm.warp_scheduler'; did you mean sm.scheduler?"),
    ("sm.scheduler=fastest", "override: sm.scheduler = 'fastest' is not one of gto, lrr, two_level"),
    ("foo.bar=1", "override 'foo.bar=1': unknown key 'foo.bar'; sections: gpu, sm, pipes, l1, shared, const, icnt, l2, dram, record, sim, timing"),
    ("l2.size_kib=-5", "override: l2.size_kib = -5 KiB is outside [64, 4194304]"),
])
def test_a_bad_override_names_the_valid_values(override, message):
    with pytest.raises(ConfigError) as e:
        check_timing("h200", [override])
    assert str(e.value) == message
    check_timing("h200", ["sm.scheduler=lrr", "l2.size_kib=30720"])        # good ones pass


def test_the_api_refuses_a_bad_override_before_queueing(tmp_path):
    app = synthetic_app(tmp_path, SIM_FACTORY="webapp.jobs.sims:timing_sim", CONFIG_LISTER="webapp.jobs.sims:timing_configs")
    c = app.test_client()
    r = c.post("/api/runs", json={"workload": "case:saxpy_1M", "config": "h200", "overrides": ["sm.scheduler=fastest"]})
    assert r.status_code == 400
    assert r.get_json()["error"] == "config h200: override: sm.scheduler = 'fastest' is not one of gto, lrr, two_level"
    assert c.get("/api/runs").get_json() == []


def test_limits_are_published(tmp_path):
    app = synthetic_app(tmp_path, UPLOAD_MAX_FILE=1234, MAX_CTAS=99)
    lim = app.test_client().get("/api/limits").get_json()
    assert lim == {"request_bytes": app.config["MAX_CONTENT_LENGTH"], "file_bytes": 1234,
                   "unpacked_bytes": app.config["UPLOAD_MAX_UNPACKED"], "max_ctas": 99}


def test_an_imported_run_is_named_as_imported(tmp_path):
    app = synthetic_app(tmp_path)
    c = app.test_client()
    wl = c.get("/api/workloads").get_json()[0]["id"]
    cfg = c.get("/api/configs").get_json()[0]["name"]
    run = c.post("/api/runs", json={"workload": wl, "config": cfg, "name": "original"}).get_json()
    run = wait_done(lambda p: c.get(p).get_json(), run["id"])
    data = c.get(f"/api/runs/{run['id']}/download").data
    r = c.post("/api/runs/import", data={"run": (io.BytesIO(data), "x.simtrun")}, content_type="multipart/form-data")
    assert r.status_code == 201 and r.get_json()["name"] == "original (imported)"
    r = c.post("/api/runs/import", data={"run": (io.BytesIO(data), "x.simtrun"), "name": "mine"},
               content_type="multipart/form-data")
    assert r.get_json()["name"] == "mine"
    app.extensions["simtscope"].jobs.shutdown()


def test_the_trace_export_is_a_chrome_trace_of_the_run(tmp_path):
    import json

    import numpy as np

    from engine.recording import WARP_STATES
    from webapp.store import RunReader
    app = synthetic_app(tmp_path)
    c = app.test_client()
    wl = c.get("/api/workloads").get_json()[0]["id"]
    cfg = c.get("/api/configs").get_json()[0]["name"]
    run = c.post("/api/runs", json={"workload": wl, "config": cfg, "name": "traced"}).get_json()
    run = wait_done(lambda p: c.get(p).get_json(), run["id"])
    rd = RunReader(app.extensions["simtscope"].cat.run_path(run["id"]))
    sm = (rd.rec.get("record_sms") or [0])[0]
    r = c.get(f"/api/runs/{run['id']}/trace.json?sms={sm}")
    assert r.status_code == 200 and "attachment" in r.headers["Content-Disposition"]
    t = json.loads(r.data)
    ev, mhz = t["traceEvents"], t["otherData"]["sm_clock_mhz"]
    assert t["otherData"]["warp_states_of_sms"] == [sm] and not t["otherData"]["warp_states_truncated"]
    for e in ev:                                            # the fields the Trace Event Format requires
        assert e["ph"] in ("X", "C", "M") and "pid" in e and "name" in e
        if e["ph"] != "M":
            assert e["ts"] >= 0
    k = rd.kernels()
    kern = [e for e in ev if e["ph"] == "X" and e["pid"] == 0]
    assert [(e["args"]["start_cycle"], e["args"]["end_cycle"]) for e in kern] == list(zip(k["start"].tolist(), k["end"].tolist()))
    assert all(abs(e["ts"] - e["args"]["start_cycle"] / mhz) < 1e-9 for e in kern)
    ctas = [e for e in ev if e["ph"] == "X" and e["name"].startswith("CTA ")]
    assert len(ctas) == len(rd.ctas(0, rd.end_cycle, 1)["sm"]) > 0
    # warp states of the SM: per state, the cycles in the trace are the run store's
    slot, s, e_, st, _pc, _ = rd.warp_runs(sm, 0, rd.end_cycle)
    want = {}
    for x, a, b in zip(st, s, e_):
        if WARP_STATES[x] != "idle":
            want[WARP_STATES[x]] = want.get(WARP_STATES[x], 0) + int(b - a)
    got = {}
    for e in ev:
        if e["ph"] == "X" and e.get("tid", 0) >= 1000 and e["pid"] == 1 + sm:
            got[e["name"]] = got.get(e["name"], 0) + e["args"]["end_cycle"] - e["args"]["start_cycle"]
    assert got == want and got
    assert np.isfinite([e["args"][next(iter(e["args"]))] for e in ev if e["ph"] == "C"]).all()
    app.extensions["simtscope"].jobs.shutdown()


def test_gauges_keep_their_peaks_when_zoomed_out(tmp_path):
    import numpy as np

    from webapp.frames import parse_window, window_groups
    from webapp.metrics import GAUGES, metrics
    from webapp.store import RunReader
    app = synthetic_app(tmp_path)
    c = app.test_client()
    wl = c.get("/api/workloads").get_json()[0]["id"]
    cfg = c.get("/api/configs").get_json()[0]["name"]
    run = c.post("/api/runs", json={"workload": wl, "config": cfg, "interval": 16}).get_json()
    run = wait_done(lambda p: c.get(p).get_json(), run["id"])
    rd = RunReader(app.extensions["simtscope"].cat.run_path(run["id"]))
    interval, end = rd.rec["interval"], rd.end_cycle
    fine = rd.counters(0, end, interval)
    assert fine["step"] == interval
    per = metrics(fine, rd.rec)                       # one sample per interval: the reference
    res = interval * 8
    g = window_groups(rd, parse_window({"run": run["id"], "a": 0, "b": end, "res": res, "tracks": ["ctr"]}))["ctr"]
    from webapp.wire import decode, frame
    g = decode(frame("window", 1, 1, groups={"ctr": g}))["groups"]["ctr"]
    step, c0, n = g["step"], g["cycle0"], g["n"]
    assert step > interval
    peaks = 0
    for key in GAUGES:
        lo, hi = np.asarray(g["cols"][f"{key}_min"]), np.asarray(g["cols"][f"{key}_max"])
        mean = np.asarray(g["cols"][key])
        for i in range(n):
            s = (fine["cycle0"] + np.arange(fine["n"]) * interval - c0) // step == i
            vals = per[key][s & (fine["cycles"] > 0)]
            vals = vals[~np.isnan(vals)]
            if not len(vals):
                assert np.isnan(hi[i])
                continue
            assert np.isclose(hi[i], vals.max(), rtol=1e-6) and np.isclose(lo[i], vals.min(), rtol=1e-6), (key, i)
            assert lo[i] - 1e-6 <= mean[i] <= hi[i] + 1e-6
            peaks += hi[i] > mean[i] * 1.01
    assert peaks > 0                                  # some bucket's peak is above its mean: the band shows it
    app.extensions["simtscope"].jobs.shutdown()
