"""Issue 13, server limits: a run past the configured cycle or instruction cap ends as `failed` with that
reason; a worker killed with SIGKILL mid-run is marked interrupted while 20 concurrent clients' runs all
finish intact; the worker's address space is bounded (WORKER_MEM_BYTES, RLIMIT_AS)."""
from __future__ import annotations

import json
import os
import signal
import threading
import time

import pytest

from tests.fixtures.servers import wait_done


def _app(tmp_path, **cfg):
    from webapp import create_app
    return create_app({"TESTING": True, "DATA_DIR": str(tmp_path / "data"), "MAX_WORKERS": 1, **cfg})


def test_run_past_the_cycle_cap_ends_failed_with_the_reason(tmp_path):
    app = _app(tmp_path, RUN_MAX_CYCLES=3000)          # the real timing engine, a tiny cycle cap
    try:
        c = app.test_client()
        r = c.post("/api/runs", json={"workload": "case:saxpy_1M", "config": "h200", "level": "summary"})
        assert r.status_code == 201, r.get_json()
        run = wait_done(lambda p: c.get(p).get_json(), r.get_json()["id"], timeout=300)
        assert run["status"] == "failed", run
        assert "cycle cap reached: 3000 cycles (max_cycles)" in run["message"], run["message"]
    finally:
        app.extensions["simtscope"].jobs.shutdown()


def test_workload_run_past_the_cycle_cap_ends_failed_with_the_reason(tmp_path):
    """A bundle's launches share the run's cap: the launch that passes it ends the run as failed, its row
    in the launch table says why, and its recorded timeline (a child run) is failed too."""
    app = _app(tmp_path, RUN_MAX_CYCLES=2000)
    try:
        c = app.test_client()
        r = c.post("/api/runs", json={"workload": "bundle:example_mlp_b64_fp32", "config": "h200", "launches": "0"})
        assert r.status_code == 201, r.get_json()
        run = wait_done(lambda p: c.get(p).get_json(), r.get_json()["id"], timeout=300)
        assert run["status"] == "failed", run
        assert run["message"].startswith("LimitExceeded: cycle cap reached: 2000 cycles (max_cycles) for the whole "
                                         "run, in launch 0 (triton_tem_fused_addmm_t_tanh_0)"), run["message"]
        from webapp.store.workload_run import read_workload
        rows = read_workload(app.extensions["simtscope"].cat.run_path(run["id"]))["workload"]["launches"]
        assert "cycle cap reached" in rows[0]["error"] and rows[1].get("pending")
        child = c.get(f"/api/runs/{rows[0]['child']}").get_json()
        assert child["status"] == "failed" and "cycle cap reached" in child["message"], child
    finally:
        app.extensions["simtscope"].jobs.shutdown()


def test_trace_run_past_the_cycle_cap_ends_failed_with_the_reason(tmp_path):
    from tests.test_trace_uploads import FIX, post, zip_dir
    app = _app(tmp_path, RUN_MAX_CYCLES=100)
    try:
        c = app.test_client()
        r = post(c, zip_dir(FIX / "vectoradd-100-32", prefix="va/"), name="va.zip")
        assert r.status_code == 201, r.get_json()
        (w,) = r.get_json()["workloads"]
        run = c.post("/api/runs", json={"workload": w["id"], "config": "gtx1080", "level": "full"}).get_json()
        done = wait_done(lambda p: c.get(p).get_json(), run["id"], timeout=120)
        assert done["status"] == "failed", done
        # the recording's sink ended with the launch's own error (one kernel: the run's cap is the launch's)
        assert done["message"] == ("LimitExceeded: cycle cap reached: 100 cycles (max_cycles) "
                                   "(kernel _Z6vecAddIfEvPT_S1_S1_i; at kernel-1.traceg)"), done["message"]
    finally:
        app.extensions["simtscope"].jobs.shutdown()


def test_worker_limits_reach_the_worker(tmp_path):
    """The caps and the memory bound travel in the job; the worker applies RLIMIT_AS and passes the caps
    to a simulator that takes them (and not to one that does not)."""
    from webapp.jobs import worker

    class Takes:
        def run_case(self, case, sink, progress=None, max_cycles=0, max_warp_insts=0): ...

    class TakesKw:
        def run_case(self, case, sink, progress=None, **kw): ...

    class Not:
        def run_case(self, case, sink, progress=None): ...

    lim = {"max_cycles": 10, "max_warp_insts": 0, "mem_bytes": 1 << 30}
    assert worker._caps(Takes(), lim) == {"max_cycles": 10}
    assert worker._caps(TakesKw(), {"max_cycles": 5, "max_warp_insts": 7}) == {"max_cycles": 5, "max_warp_insts": 7}
    assert worker._caps(Not(), lim) == {}
    app = _app(tmp_path, RUN_MAX_CYCLES=123, RUN_MAX_WARP_INSTS=456, WORKER_MEM_BYTES=789 << 20)
    try:
        assert app.extensions["simtscope"].jobs.limits == {"max_cycles": 123, "max_warp_insts": 456,
                                                           "mem_bytes": 789 << 20}
    finally:
        app.extensions["simtscope"].jobs.shutdown()


def _worker_pids() -> list[int]:
    """This process's children running the worker module."""
    me, out = os.getpid(), []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{d}/cmdline", "rb") as f:
                cmd = f.read()
        except OSError:
            continue
        if ppid == me and b"webapp.jobs.worker" in cmd:
            out.append(int(d))
    return out


def test_sigkilled_worker_is_interrupted_and_twenty_concurrent_clients_lose_nothing(tmp_path):
    """20 clients at once while a run's worker is SIGKILLed: 5 start runs, 5 upload workloads, 5 import run
    files, 5 read the list and a finished run's counters. The killed run is `interrupted`; the 5 new runs
    finish `done`; the 10 runs finished before and the 5 imported are intact; the uploads are listed. (Not
    one run per client: each run is a fresh worker interpreter, and 21 of them in a row took minutes.)"""
    import io
    from tests.fixtures.servers import SYNTHETIC
    from tests.fixtures.synthetic_recording import SyntheticSim
    from tests.test_server_uploads import CASE, PTX
    from webapp.store import RunWriter
    app = _app(tmp_path, **SYNTHETIC)
    try:
        c0 = app.test_client()
        get = lambda p: c0.get(p).get_json()   # noqa: E731
        blobs = []
        for k in range(15):                    # recorded here (no worker): 10 imported before, 5 by clients
            p = tmp_path / f"r{k}.simtrun"
            SyntheticSim(num_sms=2, slots=8, ctas=4 + k, seed=k).run(RunWriter(p, {"name": f"before {k}"}))
            blobs.append(p.read_bytes())

        def imp(client, blob):
            r = client.post("/api/runs/import", data={"run": (io.BytesIO(blob), "r.simtrun")},
                            content_type="multipart/form-data")
            assert r.status_code == 201, r.get_json()
            return r.get_json()
        before = {r["id"]: r for r in (imp(c0, b) for b in blobs[:10])}
        assert all(r["status"] == "done" and r["cycles"] > 0 for r in before.values())
        slow = c0.post("/api/runs", json={"workload": "case:softmax_4096x128", "config": "synthetic",
                                          "overrides": ["ctas=3000", "delay=0.02"]}).get_json()
        t0 = time.monotonic()
        while get(f"/api/runs/{slow['id']}")["status"] != "running" or not _worker_pids():
            assert time.monotonic() - t0 < 120, "the slow run never started"
            time.sleep(0.1)
        new, imported, uploads, errors = [], [], [], []
        some = next(iter(before))

        def client(i):                         # each with its own test client, all at once
            try:
                ci = app.test_client()
                kind = i % 4
                if kind == 0:
                    r = ci.post("/api/runs", json={"workload": "case:saxpy_1M", "config": "synthetic",
                                                   "overrides": [f"ctas={10 + i}"]})
                    assert r.status_code == 201, r.get_json()
                    new.append(r.get_json()["id"])
                elif kind == 1:
                    r = ci.post("/api/uploads", data={"ptx": (io.BytesIO(PTX.encode()), "vec.ptx"),
                                                      "launch": json.dumps({**CASE, "name": f"up{i}"})},
                                content_type="multipart/form-data")
                    assert r.status_code == 201, r.get_json()
                    uploads.append(r.get_json()["upload"])
                elif kind == 2:
                    imported.append(imp(ci, blobs[10 + i // 4]))
                else:
                    assert len(ci.get("/api/runs").get_json()) >= 10
                    r = ci.get(f"/api/runs/{some}/counters.csv")
                    assert r.status_code == 200 and r.data.count(b"\n") > 1
            except BaseException as e:         # noqa: BLE001 - reported below
                errors.append(e)
        threads = [threading.Thread(target=client, args=(i,)) for i in range(20)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        assert not errors and (len(new), len(uploads), len(imported)) == (5, 5, 5), errors
        pids = _worker_pids()
        assert len(pids) == 1                  # MAX_WORKERS=1: the slow run's worker, the others queued
        os.kill(pids[0], signal.SIGKILL)
        killed = wait_done(get, slow["id"], timeout=60)
        assert killed["status"] == "interrupted", killed
        assert "killed by SIGKILL" in killed["message"], killed["message"]
        done = [wait_done(get, i, timeout=300) for i in new]
        assert [r["status"] for r in done] == ["done"] * 5, [(r["status"], r["message"]) for r in done]
        assert all(r["cycles"] > 0 for r in done)
        runs = {r["id"]: r for r in get("/api/runs")}
        assert runs[slow["id"]]["status"] == "interrupted"
        for r in list(before.values()) + imported:          # finished before or imported meanwhile: intact
            assert (runs[r["id"]]["status"], runs[r["id"]]["cycles"]) == ("done", r["cycles"])
        listed = {w.get("upload") for w in get("/api/workloads")}
        assert set(uploads) <= listed
    finally:
        app.extensions["simtscope"].jobs.shutdown()
