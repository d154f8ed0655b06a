"""The sweep API (webapp/sweep/views.py) on the Flask test client: listing and reading what the sweep index
holds, a driver that died shown as interrupted, and requests refused by name."""
from __future__ import annotations

import pytest

from tests.fixtures.servers import synthetic_app
from webapp.sweep.index import SweepIndex
from webapp.sweep.sources import case_workloads
from webapp.sweep.spec import SweepSpec, parse_sets


@pytest.fixture
def app(tmp_path):
    return synthetic_app(tmp_path / "data")


def _spec():
    return SweepSpec(case_workloads(None, "saxpy_1M"), "h200", parse_sets(["l2.size_kib=30720,61440"]), name="t")


def test_a_sweep_in_the_index_is_listed_with_its_points(app):
    spec = _spec()
    pts = spec.points()
    idx = SweepIndex(app.config["DATA_DIR"])
    idx.begin(spec, pts, None)                                    # this process: a live driver
    idx.record(pts[1].key, "run-b", "done", "", {"sim_cycles": 1234, "ipc": 2.5}, 0.1)
    c = app.test_client()
    [s] = c.get("/api/sweeps").get_json()
    assert (s["id"], s["name"], s["status"], s["done"], s["total"]) == (spec.id, "t", "running", 1, 2)
    sw = c.get(f"/api/sweeps/{spec.id}").get_json()
    assert [p["status"] for p in sw["points"]] == ["pending", "done"]
    assert sw["points"][1]["row"] == {"sim_cycles": 1234, "ipc": 2.5} and sw["points"][1]["run_id"] == "run-b"
    assert sw["points"][0]["values"] == {"l2.size_kib": "30720"}
    assert sw["spec"]["axes"] == {"l2.size_kib": ["30720", "61440"]}


def test_a_sweep_whose_driver_is_gone_reads_interrupted(app):
    import subprocess
    import sys
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    spec = _spec()
    SweepIndex(app.config["DATA_DIR"]).begin(spec, spec.points(), None, pid=p.pid)
    assert app.test_client().get(f"/api/sweeps/{spec.id}").get_json()["status"] == "interrupted"


@pytest.mark.parametrize("body, status, msg", [
    ([1], 400, "send a JSON object"),
    ({"cases": [], "sets": []}, 400, "a sweep needs at least one workload: 'cases'"),
    ({"cases": "saxpy_1M", "sets": []}, 400, "'cases' must be a list of at most 64 validation case names"),
    ({"bundles": "bundle:x", "sets": []}, 400, "'bundles' must be a list of at most 64 bundle workload ids"),
    ({"bundles": ["bundle:nope"], "sets": []}, 404, "unknown bundle 'bundle:nope'"),
    ({"bundles": ["case:saxpy_1M"], "sets": []}, 400, "'case:saxpy_1M' is not a bundle (validation cases go in"),
    ({"cases": ["saxpy_1M"], "sets": "l2.size_kib=1"}, 400, "'sets' must be a list"),
    ({"cases": ["saxpy_1M"], "sets": [], "workers": 0}, 400, "'workers' must be an integer from 1 to"),
    ({"cases": ["nope_1M"], "sets": []}, 400, "--only 'nope_1M': no case"),
    ({"cases": ["saxpy_1M"], "sets": ["l2.size_kib=30720,12"]}, 400, "configuration l2.size_kib=12"),
    ({"cases": ["saxpy_1M"], "sets": ["gpu.num_sms=" + ",".join(str(i) for i in range(1, 26))]}, 400,
     "25 points: the page starts sweeps of up to 24 points"),
])
def test_bad_requests_are_refused_by_name(app, body, status, msg):
    r = app.test_client().post("/api/sweeps", json=body)
    assert r.status_code == status and msg in r.get_json()["error"]


def test_unknown_sweep_is_404(app):
    r = app.test_client().get("/api/sweeps/s000")
    assert r.status_code == 404 and r.get_json()["error"] == "no sweep 's000'"


def test_the_page_is_served_and_linked_from_the_explorer(app):
    c = app.test_client()
    assert b'src="/static/js/sweep/sweep-page.js"' in c.get("/sweeps").data
    assert b'href="/sweeps"' in c.get("/").data


def test_a_request_with_bundles_sweeps_them_with_the_named_cases_only():
    from webapp.sweep.driver import spec_from_request
    from webapp.bundles import default_dirs, project_bundles
    [path] = [str(p) for n, p in project_bundles(default_dirs()) if n == "example_mlp_b64_fp32"]
    spec = spec_from_request({"only": "", "bundles": [path], "sets": ["l2.size_kib=30720,61440"]})
    assert [w.id for w in spec.workloads] == ["bundle:example_mlp_b64_fp32"] and spec.count() == 2
    spec = spec_from_request({"only": "saxpy_1M", "bundles": [path], "sets": []})
    assert [w.id for w in spec.workloads] == ["case:saxpy_1M", "bundle:example_mlp_b64_fp32"]
    assert [w.kind for w in spec.workloads] == ["case", "bundle"]


class _FakeDrivers:
    """The page's driver launcher with one driver process still alive (sweep `sid`); starts are recorded."""

    def __init__(self, sid):
        self.sid, self.started = sid, []

    def live(self):
        return [self.sid]

    def running(self, sweep_id):
        return False

    def start(self, sweep_id, body, data_dir):
        self.started.append(sweep_id)


def test_a_page_sweep_waits_for_a_running_one_but_not_for_one_shutting_down(app):
    old = _spec()
    idx = SweepIndex(app.config["DATA_DIR"])
    idx.begin(old, old.points(), None)                              # this process: a live driver
    fake = app.extensions["simtscope-sweep-drivers"] = _FakeDrivers(old.id)
    body = {"cases": ["vector_add_1M"], "sets": ["l2.size_kib=30720"]}
    r = app.test_client().post("/api/sweeps", json=body)
    assert r.status_code == 409 and f"sweep {old.id} started from this page is still running" in r.get_json()["error"]
    assert fake.started == []
    idx.finish(old.id, "done")                   # its points are in; the driver is only stopping its cluster
    r = app.test_client().post("/api/sweeps", json=body)
    assert r.status_code == 202 and fake.started == [r.get_json()["id"]]
