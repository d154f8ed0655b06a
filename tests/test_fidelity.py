"""The fidelity page's data (GET /api/fidelity, webapp/fidelity.py) with the real timing engine: every
measured case and bundle is a row; only a finished run of the preset as shipped (h200, no overrides) fills
one, with its gap to the measurement read back from validation/h200_results.json; POST /api/fidelity/runs
queues summary runs for the rows without one, and not twice."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fixtures.servers import wait_done
from webapp import create_app

ROOT = Path(__file__).resolve().parent.parent
HW = json.loads((ROOT / "validation" / "h200_results.json").read_text())


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    a = create_app({"TESTING": True, "DATA_DIR": str(tmp_path_factory.mktemp("fd")), "MAX_WORKERS": 1})
    yield a
    a.extensions["simtscope"].jobs.shutdown()


def get(client, path):
    r = client.get(path)
    assert r.status_code == 200, r.get_json()
    return r.get_json()


def run(client, **body):
    r = client.post("/api/runs", json={"workload": "case:saxpy_1M", "level": "summary", **body})
    assert r.status_code == 201, r.get_json()
    done = wait_done(lambda p: get(client, p), r.get_json()["id"], timeout=300)
    assert done["status"] == "done", done
    return done


def test_rows_and_the_runs_that_fill_them(app):
    client = app.test_client()
    d = get(client, "/api/fidelity")
    assert d["config"] == "h200"
    assert {r["name"]: r["hw_cycles"] for r in d["cases"]} == \
        {k: v["ncu"]["gpc__cycles_elapsed.max"] for k, v in HW["cases"].items() if v.get("ncu")}
    assert len(d["bundles"]) == 9 and all(r["run"] is None for r in d["cases"] + d["bundles"])
    assert d["summary"] == {"cases": {"compared": 0, "of": 39, "mae": None}, "bundles": {"compared": 0, "of": 9, "mae": None}}
    # a run on another GPU and one of a changed H200 fill nothing; the preset's own run fills its row
    run(client, config="a100")
    run(client, config="h200", overrides=["l2.size_kib=30720"])
    assert all(r["run"] is None for r in get(client, "/api/fidelity")["cases"])
    mine = run(client, config="h200")
    d = get(client, "/api/fidelity")
    row = next(r for r in d["cases"] if r["name"] == "saxpy_1M")
    hw = HW["cases"]["saxpy_1M"]["ncu"]["gpc__cycles_elapsed.max"]
    assert row["run"] == mine["id"] and row["sim_cycles"] == mine["stats"]["gpu_sim_cycle"]
    assert row["gap"] == pytest.approx((mine["stats"]["gpu_sim_cycle"] - hw) / hw)
    assert d["device"] == "NVIDIA H200"
    assert d["summary"]["cases"] == {"compared": 1, "of": 39, "mae": pytest.approx(abs(row["gap"]))}
    # the stall mix: with one case, its own warp-cycles per issued instruction beside ncu's, reason by reason
    ncu = HW["cases"]["saxpy_1M"]["ncu"]
    sim = mine["stats"]["stalls_per_issue"]
    hw_of = lambda k: ncu.get(f"smsp__average_warps_issue_stalled_{k}_per_issue_active.ratio")   # noqa: E731
    want = [{"reason": k, "sim": pytest.approx(v), "hw": pytest.approx(hw_of(k)), "cases": 1}
            for k, v in sim.items() if hw_of(k) is not None and (v or hw_of(k))]
    assert sorted(d["stalls"], key=lambda x: x["reason"]) == sorted(want, key=lambda x: x["reason"])
    assert [x["hw"] for x in d["stalls"]] == sorted((x["hw"] for x in d["stalls"]), reverse=True)
    assert "_hw_stalls" not in row


def test_simulate_the_missing_rows_once(app):
    client = app.test_client()
    svc = app.extensions["simtscope"]
    before = get(client, "/api/fidelity")
    missing = {r["workload"] for r in before["cases"] if r["run"] is None}
    svc.jobs.shutdown()                       # (queued runs stay queued: this test looks at what was queued)
    # two clicks at once: each missing row is queued once
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(2) as pool:
        answers = list(pool.map(lambda _: app.test_client().post("/api/fidelity/runs", json={"what": "cases"}), range(2)))
    assert [a.status_code for a in answers] == [201, 201]
    made = [svc.cat.get_run(i) for a in answers for i in a.get_json()["queued"]]
    assert {m["workload"] for m in made} == missing and len(made) == len(missing)
    assert all(m["config"] == "h200" and m["overrides"] == [] and m["level"] == "summary" for m in made)
    d = get(client, "/api/fidelity")
    assert all(x["live"] for x in d["cases"] if x["workload"] in missing)
    assert client.post("/api/fidelity/runs", json={"what": "cases"}).get_json() == {"queued": []}
    r = client.post("/api/fidelity/runs", json={"what": "bundles"})
    made = [svc.cat.get_run(i) for i in r.get_json()["queued"]]
    assert len(made) == 9 and all(m["kind"] == "workload" and m["options"]["detail"] == [] for m in made)
    r = client.post("/api/fidelity/runs", json={"what": "everything"})
    assert r.status_code == 400 and r.get_json()["error"] == "'what' must be one of cases, bundles, not 'everything'"
