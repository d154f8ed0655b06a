"""Sweeps (webapp/sweep): the spec and its point keys, errors, and a real sweep on a 2-process LocalCluster
with one worker killed in the middle of a point; then the same sweep again (resumed: nothing re-run)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from webapp.sweep.sources import case_workloads
from webapp.sweep.spec import SweepError, SweepSpec, parse_sets, point_key

ROOT = Path(__file__).resolve().parent.parent
CASES = "saxpy_1M,vector_add_1M"          # the two quickest cases of the suite (well under a second each)


# ------------------------------------------------------------------ spec, keys, errors (no cluster)
def test_cross_product_order_and_overrides():
    spec = SweepSpec(case_workloads(None, CASES), "h200", parse_sets(["l2.size_kib=30720,61440",
                                                                      "gpu.num_sms=66,132"]))
    pts = spec.points()
    assert len(pts) == 8
    assert [p.overrides for p in pts[:4]] == [["l2.size_kib=30720", "gpu.num_sms=66"],
                                             ["l2.size_kib=30720", "gpu.num_sms=132"],
                                             ["l2.size_kib=61440", "gpu.num_sms=66"],
                                             ["l2.size_kib=61440", "gpu.num_sms=132"]]
    assert [p.workload.name for p in pts] == ["saxpy_1M"] * 4 + ["vector_add_1M"] * 4
    assert pts[2].config["l2.size_kib"] == 61440 and pts[2].config["gpu.num_sms"] == 66
    assert len({p.key for p in pts}) == 8


def test_point_key_hashes_workload_bytes_resolved_config_and_version():
    w = case_workloads(None, "saxpy_1M")[0]
    spec = SweepSpec([w], "h200", parse_sets(["l2.size_kib=30720"]))
    p = spec.points()[0]
    assert p.key == point_key(w.digest, p.config, spec.version)
    # the same resolved configuration reached another way is the same point: both are plain h200
    from engine.config import load_config
    h200 = load_config("h200")
    a = SweepSpec([w], "h200", parse_sets([f"gpu.num_sms={h200['gpu.num_sms']}"])).points()[0]
    b = SweepSpec([w], "h200", parse_sets([f"l2.size_kib={h200['l2.size_kib']}"])).points()[0]
    assert a.key == b.key == point_key(w.digest, h200, spec.version)
    assert point_key(w.digest, p.config, "9.9.9") != p.key
    assert point_key("0" * 64, p.config, spec.version) != p.key
    assert SweepSpec([w], "h200", parse_sets(["l2.size_kib=61440"])).points()[0].key != p.key


def test_workload_digest_follows_the_ptx_bytes(tmp_path):
    import json
    import shutil
    from engine.cases import DEFAULT_CASES, load_suite
    suite = load_suite()
    data = dict(suite.data, paths_relative_to=".", cases=[suite["saxpy_1M"].data])
    shutil.copy(suite["saxpy_1M"].ptx_path, tmp_path / "k.ptx")
    data["cases"] = [dict(suite["saxpy_1M"].data, ptx="k.ptx")]
    (tmp_path / "cases.json").write_text(json.dumps(data))
    d1 = case_workloads(tmp_path / "cases.json")[0].digest
    assert d1 == case_workloads(DEFAULT_CASES, "saxpy_1M")[0].digest     # same bytes, other folder
    with open(tmp_path / "k.ptx", "a") as f:
        f.write("\n// changed\n")
    assert case_workloads(tmp_path / "cases.json")[0].digest != d1


@pytest.mark.parametrize("sets, msg", [
    (["l2.sizekib=1,2"], "unknown configuration key 'l2.sizekib'"),
    (["l2.size_kib"], "expected section.key=V1,V2"),
    (["l2.size_kib=1,,2"], "empty value"),
    (["l2.size_kib=1,1"], "listed twice"),
    (["l2.size_kib=30720", "l2.size_kib=61440"], "already swept"),
])
def test_bad_set_is_refused_by_name(sets, msg):
    with pytest.raises(SweepError, match=msg):
        parse_sets(sets)


def test_impossible_value_is_refused_before_anything_runs():
    spec = SweepSpec(case_workloads(None, "saxpy_1M"), "h200", parse_sets(["l2.size_kib=30720,1000"]))
    with pytest.raises(SweepError, match=r"configuration l2.size_kib=1000: .*l2.size_kib"):
        spec.points()


def test_only_names_an_unknown_case():
    with pytest.raises(SweepError, match=r"--only 'saxpy_2M': no case"):
        case_workloads(None, "saxpy_1M,saxpy_2M")


def _cli(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "simtscope", "sweep", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120)


def test_cli_errors_are_messages_not_tracebacks(tmp_path):
    r = _cli("--only", "saxpy_1M", "--set", "l2.bogus=1,2", "--data", str(tmp_path))
    assert r.returncode == 2 and "simtscope sweep: --set 'l2.bogus=1,2': unknown configuration key" in r.stderr
    r = _cli("--trace", str(tmp_path), "--set", "l2.size_kib=30720", "--data", str(tmp_path))
    assert r.returncode == 2 and f"--trace {tmp_path}: no trace directory here" in r.stderr
    r = _cli("--only", "saxpy_1M", "--config", "h900", "--data", str(tmp_path))
    assert r.returncode == 2 and "--config: no configuration 'h900'" in r.stderr
    assert "Traceback" not in r.stderr


# ------------------------------------------------------------------ a real sweep, a worker killed mid-point
def _kill_a_busy_worker(client, killed: dict, stop: threading.Event) -> None:
    """SIGKILL the process of the first worker seen processing a sweep point (not only holding data)."""
    pids = client.run(os.getpid)
    while not stop.is_set():
        for addr, keys in client.processing().items():
            pts = [k for k in keys if str(k).startswith("simtscope-point-")]
            if pts and addr in pids:
                time.sleep(0.3)                          # into the point, past the task hand-over
                if pts[0] in client.processing().get(addr, ()):
                    killed.update(addr=addr, key=pts[0], pid=pids[addr])
                    os.kill(pids[addr], signal.SIGKILL)
                    return
        time.sleep(0.02)


def test_sweep_survives_a_killed_worker_and_resumes_without_rerunning(tmp_path):
    from distributed import Client, LocalCluster

    from engine.timing import TimingSim
    from webapp.store.catalogue import Catalogue
    from webapp.sweep.driver import run_sweep

    spec = SweepSpec(case_workloads(None, CASES), "h200", parse_sets(["l2.size_kib=30720,61440"]))
    data = tmp_path / "data"
    killed: dict = {}
    stop = threading.Event()
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        killer = threading.Thread(target=_kill_a_busy_worker, args=(client, killed, stop), daemon=True)
        killer.start()
        try:
            # the sweep connects by address, as `simtscope sweep --scheduler tcp://...` does
            res = run_sweep(spec, data, scheduler=cluster.scheduler_address, progress=False,
                            json_path=tmp_path / "s.json")
        finally:
            stop.set()
            killer.join(5)
    assert killed, "no worker was seen processing a point"
    assert res["status"] == "done" and res["ran"] == 4
    pts = res["points"]
    assert [p["status"] for p in pts] == ["done"] * 4
    assert any(p["key"].startswith(killed["key"].removeprefix("simtscope-point-")) for p in pts)

    # each point's cycles are those of the same run made here, without Dask
    case = __import__("engine.cases", fromlist=["load_suite"]).load_suite()["vector_add_1M"]
    direct = TimingSim("h200", overrides=["l2.size_kib=61440"]).run_case(case).timing.stats["gpu_sim_cycle"]
    got = {(p["workload"], p["values"]["l2.size_kib"]): p["sim_cycles"] for p in pts}
    assert got[("case:vector_add_1M", "61440")] == direct

    # exactly one finished run per point in the store: the killed worker's half-done point left nothing
    cat = Catalogue(data)
    runs = cat.list_runs()
    assert sorted(r["id"] for r in runs) == sorted(p["run_id"] for p in pts)
    assert all(r["status"] == "done" and r["cycles"] for r in runs)
    assert {r["workload"] for r in runs} == {"case:saxpy_1M", "case:vector_add_1M"}
    cat.close()

    out = Path(res["out_dir"])
    assert (out / "results.csv").read_text().count("\n") == 5
    for ext in ("png", "svg"):
        assert (out / f"speedup_l2_size_kib.{ext}").stat().st_size > 1000
    assert (out / "speedup_l2_size_kib.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    import csv
    rows = list(csv.DictReader(open(out / "results.csv")))
    assert [(r["workload"], r["l2.size_kib"], int(r["sim_cycles"])) for r in rows] == \
        [(p["workload"].split(":")[1], p["values"]["l2.size_kib"], p["sim_cycles"]) for p in pts]
    assert all(abs(sum(float(r[k]) for k in r if k.startswith("stall_")) - 1) < 1e-9 for r in rows)
    base = {r["workload"]: int(r["sim_cycles"]) for r in rows if r["l2.size_kib"] == "30720"}
    assert all(abs(float(r["speedup"]) - base[r["workload"]] / int(r["sim_cycles"])) < 1e-12 for r in rows)
    try:
        import pyarrow.parquet as pq
    except ImportError:
        assert "parquet" not in res["files"]
    else:
        t = pq.read_table(out / "results.parquet").to_pylist()
        assert [(r["workload"], r["sim_cycles"], r["run_id"]) for r in t] == \
            [(r["workload"], int(r["sim_cycles"]), r["run_id"]) for r in rows]

    # started again: every point is reused (no cluster is even started), same runs
    again = run_sweep(spec, data, progress=False)
    assert again["ran"] == 0 and again["reused"] == 4
    assert [p["run_id"] for p in again["points"]] == [p["run_id"] for p in pts]


# ------------------------------------------------------------------ a bundle point (no cluster)
def test_a_bundle_point_is_a_workload_run_with_its_launch_table(tmp_path):
    from webapp.store import runfile
    from webapp.sweep.point import run_point
    from webapp.sweep.sources import bundle_workloads

    [w] = bundle_workloads([str(ROOT / "workloads" / "examples" / "example_mlp_b64_fp32.tar.xz")])
    assert w.id == "bundle:example_mlp_b64_fp32" and "archive" in w.payload      # travels as bytes
    p = SweepSpec([w], "h200", parse_sets(["l2.size_kib=30720"])).points()[0]
    res = run_point({"key": p.key, "kind": "bundle", "payload": w.payload, "config": p.config,
                     "info": {"name": p.label, "workload": w.id, "config": "h200", "overrides": p.overrides}})
    assert res["status"] == "done" and res["passed"] is True, res["message"]
    [blob] = res["runs"]                                                         # one workload run
    f = tmp_path / "w.simtrun"
    f.write_bytes(blob)
    meta = runfile.read_meta(f)
    assert meta["kind"] == "workload" and meta["status"] == "done"
    launches = meta["workload"]["launches"]
    assert [r["index"] for r in launches] == [0, 1, 2] and all(r["timed"] for r in launches)
    row = res["row"]
    assert row["sim_cycles"] == sum(r["sim_cycles"] for r in launches) == meta["workload"]["summary"]["sim_cycles"]
    assert row["dram_bytes"] == sum(r["dram_bytes"] for r in launches)
    assert row["warp_insts"] == sum(r["warp_insts"] for r in launches)


def test_bundle_errors_are_sweep_errors(tmp_path):
    from webapp.sweep.sources import bundle_workloads
    with pytest.raises(SweepError, match=r"--workload: .*no such file or folder"):
        bundle_workloads([str(tmp_path / "missing.tar.xz")])


# ------------------------------------------------------------------ a trace point (no cluster)
def test_trace_points_match_a_direct_trace_run():
    from engine.traces.run import run_trace
    from webapp.sweep.point import run_point
    from webapp.sweep.sources import trace_workloads

    d = ROOT / "tests" / "fixtures" / "traces" / "vectoradd-100-32"
    [w] = trace_workloads([str(d)])
    assert w.id == "trace:vectoradd-100-32" and "kernelslist.g" in w.payload["files"]     # small: travels as bytes
    for p in SweepSpec([w], "gtx1080", parse_sets(["l2.size_kib=1536,3072"])).points():
        res = run_point({"key": p.key, "kind": "trace", "payload": w.payload, "config": p.config,
                         "info": {"name": p.label, "workload": w.id}})
        assert res["status"] == "done" and len(res["runs"]) == 1, res["message"]
        direct = run_trace(d, "gtx1080", p.overrides)
        assert res["row"]["sim_cycles"] == direct.sim_cycles
        assert res["row"]["warp_insts"] == direct.warp_insts


def test_point_keys_change_with_the_engine_build_not_only_the_package_version(tmp_path, monkeypatch):
    """A development build keeps the version number: the key must still change when the engine does."""
    from engine import buildinfo
    from webapp.sweep.spec import simtscope_version
    lib = tmp_path / "_engine.abi3.so"
    src = tmp_path / "lower.py"
    lib.write_bytes(b"\x7fELF one build")
    src.write_text("x = 1\n")
    monkeypatch.setattr(buildinfo, "_ENGINE", tmp_path)
    monkeypatch.setattr(buildinfo, "_engine_files", lambda: [lib, src])
    buildinfo.engine_digest.cache_clear()
    v1 = simtscope_version()
    assert v1 == f"{buildinfo.package_version()}+{buildinfo.engine_digest()[:12]}"
    lib.write_bytes(b"\x7fELF another build")           # a C change, same package version
    buildinfo.engine_digest.cache_clear()
    v2 = simtscope_version()
    src.write_text("x = 2\n")                            # a front-end change
    buildinfo.engine_digest.cache_clear()
    v3 = simtscope_version()
    buildinfo.engine_digest.cache_clear()
    assert len({v1, v2, v3}) == 3
    w = case_workloads(None, "saxpy_1M")[0]
    cfg = SweepSpec([w], "h200", parse_sets(["l2.size_kib=30720"])).points()[0].config
    assert len({point_key(w.digest, cfg, v) for v in (v1, v2, v3)}) == 3


def test_the_real_engine_digest_covers_the_compiled_library():
    from engine import buildinfo
    names = [p.name for p in buildinfo._engine_files()]
    assert any(n.startswith("_engine") for n in names) and "buildinfo.py" in names
