"""Issue 13, the JSON endpoints that start simulations (POST /api/runs, POST /api/sweeps): what the
runs-api and sweeps-api fuzz targets found (tests/fuzz/api_inputs.py), each refused with a 4xx and a
short JSON message naming the field; and the bundle upload's work deadline (REQUEST_WORK_S)."""
from __future__ import annotations

import io
import json

import pytest

from engine.config import ConfigError, load_config
from engine.resources import data_path
from tests.fixtures.servers import synthetic_app
from tests.fuzz import sandbox, targets
from webapp.sweep.sources import case_workloads
from webapp.sweep.spec import MAX_POINTS, SweepError, SweepSpec, parse_sets

EXAMPLE = data_path("workloads") / "examples" / "example_mlp_b64_fp32.tar.xz"
PIPES = ["pipes.int.latency_cycles", "pipes.int.interval_cycles", "pipes.fp32.latency_cycles",
         "pipes.fp32.interval_cycles", "pipes.fp16.latency_cycles", "pipes.fp16.interval_cycles",
         "pipes.fp64.latency_cycles", "pipes.fp64.interval_cycles"]


@pytest.fixture
def app(tmp_path):
    """The engine's configurations and config check (hostile overrides reach engine.config); the job
    manager and the sweep launcher only record what they would start."""
    a = synthetic_app(tmp_path / "data", SIM_FACTORY="webapp.jobs.sims:timing_sim",
                      CONFIG_LISTER="webapp.jobs.sims:timing_configs", MAX_WORKERS=2,
                      BUNDLE_DIRS=[str(EXAMPLE.parent)])
    svc = a.extensions["simtscope"]
    svc.jobs.shutdown()
    a.submitted = []
    svc.jobs.submit = a.submitted.append
    a.extensions["simtscope-sweep-drivers"] = targets._FakeDrivers()
    return a


def _post(app, url, body=None, data=None, content_type="application/json"):
    r = app.test_client().post(url, data=json.dumps(body) if data is None else data, content_type=content_type)
    return r.status_code, (r.get_json(silent=True) or {}).get("error")


@pytest.mark.parametrize("url", ["/api/runs", "/api/sweeps"])
def test_a_body_nested_deeper_than_the_parser_is_a_400(app, url):
    """Flask's get_json(silent=True) lets RecursionError out (a 500): 100,000 '[' or {"a": ...}."""
    for data in (b"[" * 100_000 + b"]" * 100_000, b'{"a":' * 50_000 + b"1" + b"}" * 50_000):
        assert _post(app, url, data=data) == (400, "the JSON body is nested too deeply (a run or sweep spec is a "
                                                   "flat object)")
    status, err = _post(app, url, data=b'{"a":' * 500 + b"1" + b"}" * 500)      # parses: an ordinary refusal
    assert status == 400 and ("'workload'" in err or "'cases'" in err)


@pytest.mark.parametrize("url", ["/api/runs", "/api/sweeps"])
def test_bodies_that_are_not_a_json_object_are_refused_by_what_is_expected(app, url):
    for data, ct in ((b"{\"a\": \"\xff\xff\"}", "application/json"), (b"{}", "text/plain"), (b"NaN", "application/json"),
                     (b"workload=case:saxpy_1M", "application/x-www-form-urlencoded"), (b"", "application/json")):
        status, err = _post(app, url, data=data, content_type=ct)
        assert status == 400 and err.startswith("send a JSON object: {"), (data, ct, err)


@pytest.mark.parametrize("url, body, where", [
    ("/api/runs", '{"workload": "case:saxpy_1M", "name": "\\ud800"}', "'name'"),
    ("/api/runs", '{"workload": "bundle:example_mlp_b64_fp32", "name": "x\\udcff"}', "'name'"),
    ("/api/runs", '{"workload": "case:saxpy_1M", "overrides": ["l2.size_kib=1", "gpu.name=\\ud800"]}',
     "'overrides[1]'"),
    ("/api/runs", '{"workload": "case:saxpy_1M", "x": {"\\ud800": 1}}', "a key of 'x'"),
    ("/api/sweeps", '{"cases": ["saxpy_1M"], "sets": [], "name": "\\ud800"}', "'name'"),
    ("/api/sweeps", '{"cases": ["saxpy_1M"], "sets": ["gpu.name=\\ud800,b"]}', "'sets[0]'"),
    ("/api/sweeps", '{"\\ud800": 1, "cases": ["saxpy_1M"], "sets": []}', "a key of the body"),
])
def test_lone_surrogates_in_a_body_are_refused_by_where_they_are(app, url, body, where):
    """JSON's \\ud800 escape parses to a lone surrogate, which SQLite cannot store: a name with one
    raised UnicodeEncodeError out of the catalogue (a 500), for runs, workload runs and sweeps."""
    assert _post(app, url, data=body.encode()) == (400, f"{where}: not Unicode text (a lone surrogate escape such "
                                                        f"as \\ud800)")
    assert app.extensions["simtscope"].cat.list_runs() == [] and app.submitted == []


def test_run_requests_quote_at_most_a_short_part_of_a_hostile_value(app):
    status, err = _post(app, "/api/runs", {"workload": "case:" + "a" * 10_000})
    assert (status, err) == (400, "'workload' must be a workload id of at most 300 characters "
                                  "(see GET /api/workloads)")
    status, err = _post(app, "/api/runs", {"workload": "case:" + "a" * 200})
    assert status == 404 and err.startswith("unknown workload 'case:aaaa") and "(207 characters)" in err
    assert len(err) < 400
    status, err = _post(app, "/api/runs", {"workload": "case:saxpy_1M", "record_sms": "x" * 100_000})
    assert status == 400 and err == f"record_sms: cannot read '{'x' * 79}... (100002 characters); use a list like 0-3,8"
    status, err = _post(app, "/api/runs", {"workload": "case:saxpy_1M", "record_sms": "0-" + "9" * 400})
    assert status == 400 and err.startswith("record_sms: bad range '0-999") and err.endswith(
        "(404 characters); SM indices are 0 to 4095")
    status, err = _post(app, "/api/runs", {"workload": "case:saxpy_1M", "config": [0] * 100_000})
    assert status == 400 and err.startswith("unknown config [0, 0,") and "(300000 characters); known: " in err
    status, err = _post(app, "/api/runs", {"workload": "bundle:example_mlp_b64_fp32", "launches": "0-1," * 5000 + "z"})
    assert status == 400 and err == "launches: cannot read 'z'; use indices and ranges like 0,3-5"
    status, err = _post(app, "/api/runs", {"workload": "bundle:example_mlp_b64_fp32", "launches": "0-" + "9" * 500})
    assert status == 400 and err.startswith("launches: 0-999") and "(502 characters) is outside 0..2" in err
    assert app.submitted == []


def test_a_nan_or_infinite_float_setting_is_refused():
    """tomllib reads nan and inf; nan passed every range test and reached the timing model."""
    for ov, shown in (("gpu.sm_clock_mhz=nan", "nan"), ("gpu.sm_clock_mhz=inf", "inf"), ("gpu.sm_clock_mhz=-inf", "-inf")):
        with pytest.raises(ConfigError) as e:
            load_config("h200", [ov])
        assert str(e.value) == f"override: gpu.sm_clock_mhz must be a finite number (MHz), got {shown}"
    assert load_config("h200", ["gpu.sm_clock_mhz=1500.5"])["gpu.sm_clock_mhz"] == 1500.5


def test_config_errors_quote_a_short_part_of_a_huge_or_deep_value():
    with pytest.raises(ConfigError) as e:
        load_config("h200", ["gpu.num_sms=" + "9" * 4000])
    assert str(e.value).startswith("override: gpu.num_sms = 9999") and "(4000 characters) SMs is outside [1, 1024]" in str(e.value)
    with pytest.raises(ConfigError) as e:                  # tomllib recursed until RecursionError
        load_config("h200", ["gpu.num_sms=" + "[" * 3000])
    assert str(e.value).startswith("override 'gpu.num_sms=[[[[") and str(e.value).endswith(
        "(3014 characters): the value is nested too deeply")


def test_runs_with_hostile_overrides_are_refused_by_the_config_check(app):
    status, err = _post(app, "/api/runs", {"workload": "case:saxpy_1M", "config": "h200",
                                           "overrides": ["gpu.sm_clock_mhz=nan"]})
    assert (status, err) == (400, "config h200: override: gpu.sm_clock_mhz must be a finite number (MHz), got nan")
    r = app.test_client().post("/api/runs", json={"workload": "case:saxpy_1M", "config": "h200",
                                                  "overrides": ["gpu.num_sms=66"]})
    assert r.status_code == 201 and app.submitted == [r.get_json()["id"]]


def _sweep_of_10_to_the_8_points(_):
    """In a child: a sweep of 8 axes of 10 values used to make all 10^8 points before counting them."""
    import tempfile
    a = synthetic_app(tempfile.mkdtemp())
    a.extensions["simtscope-sweep-drivers"] = targets._FakeDrivers()
    body = {"cases": ["saxpy_1M"], "sets": [f"{k}=" + ",".join(str(i) for i in range(1, 11)) for k in PIPES]}
    r = a.test_client().post("/api/sweeps", json=body)
    a.extensions["simtscope"].jobs.shutdown()
    return f"{r.status_code} {r.get_json()['error']}"


def test_a_sweep_of_a_huge_product_is_counted_before_any_point_is_made():
    out = sandbox.run_case(_sweep_of_10_to_the_8_points, None, time_limit=90)
    assert (out.status, out.message) == ("ok", "400 100000000 points: the page starts sweeps of up to 24 points; run "
                                               "larger ones with `simtscope sweep` on the same run store (--data)")
    spec = SweepSpec(case_workloads(None, "saxpy_1M"), "h200",
                     parse_sets([f"{k}=" + ",".join(str(i) for i in range(1, 11)) for k in PIPES[:5]]))
    assert spec.count() == 100_000 == MAX_POINTS
    spec.axes["pipes.fp16.interval_cycles"] = ["1", "2"]
    with pytest.raises(SweepError) as e:                  # the command line's sweeps too
        spec.points()
    assert str(e.value) == "200000 points (workloads x the product of the --set lists): a sweep may have at most 100000"


def test_sweep_requests_are_bounded_and_name_the_field(app):
    cases = ["saxpy_1M"]
    for body, err in [
        ({"cases": cases, "sets": [], "config": 1048576}, "unknown config 1048576; known: "),
        ({"cases": cases, "sets": [], "config": ["h200"]}, "unknown config ['h200']; known: "),
        ({"cases": cases, "sets": [], "config": "/etc/passwd"}, "unknown config '/etc/passwd'; known: "),
        ({"cases": cases, "sets": [], "config": "../configs/h200.toml"}, "unknown config '../configs/h200.toml'; "),
        ({"cases": cases * 65, "sets": []}, "'cases' must be a list of at most 64 validation case names"),
        ({"cases": ["x" * 2001], "sets": []}, "'cases' must be a list of at most 64"),
        ({"bundles": ["bundle:x"] * 65, "sets": []}, "'bundles' must be a list of at most 64 bundle workload ids"),
        ({"bundles": ["../../etc/passwd"], "sets": []}, "'../../etc/passwd' is not a bundle (validation cases go in"),
        ({"cases": cases, "sets": ["l2.size_kib=1"] * 17}, "'sets' must be a list of at most 16 strings"),
        ({"cases": cases, "sets": ["gpu.num_sms=" + "1," * 1000]}, "'sets' must be a list of at most 16 strings like "
                                                                  "'l2.size_kib=30720,61440' (each at most 2000"),
        ({"cases": cases, "sets": ["gpu.num_sms=" + "9" * 1900]}, "configuration gpu.num_sms=9999"),
        ({"cases": cases, "sets": ["x" * 1900 + ".y=1"]}, "--set 'xxxx"),
        ({"cases": cases, "sets": ["gpu.num_sms=" + "[" * 1900]}, "configuration gpu.num_sms=[[[["),
        ({"cases": ["y" * 1900], "sets": []}, "--only 'yyyy"),
    ]:
        status, got = _post(app, "/api/sweeps", body)
        assert status == 400 and got.startswith(err) and len(got) < 700, (body, got)
    status, got = _post(app, "/api/sweeps", {"cases": cases, "sets": ["gpu.num_sms=" + "[" * 1900]})
    assert got == ("configuration gpu.num_sms=" + "[" * 188 + "... (1912 characters): override 'gpu.num_sms="
                   + "[" * 67 + "... (1914 characters): the value is nested too deeply")
    r = app.test_client().post("/api/sweeps", json={"cases": cases, "sets": ["gpu.num_sms=66,132"], "config": "a100"})
    assert r.status_code == 202 and r.get_json()["points"] == 2
    assert app.extensions["simtscope-sweep-drivers"].started == [r.get_json()["id"]]


def test_a_bundle_upload_past_its_work_limit_gets_503_and_stores_nothing(tmp_path):
    blob = EXAMPLE.read_bytes()
    app = synthetic_app(tmp_path / "d", REQUEST_WORK_S=1e-6)
    try:
        c = app.test_client()
        r = c.post("/api/bundles", data={"bundle": (io.BytesIO(blob), "mlp.tar.xz")}, content_type="multipart/form-data")
        assert r.status_code == 503
        assert r.get_json()["error"] == ("unpacking the bundle took longer than this server's limit of 1e-06 s "
                                         "(REQUEST_WORK_S)")
        svc = app.extensions["simtscope"]
        assert svc.cat.list_workloads() == []
        assert list(svc.cat.work_dir.iterdir()) == []       # no .incoming- folder left behind
    finally:
        app.extensions["simtscope"].jobs.shutdown()
    app = synthetic_app(tmp_path / "d2")                  # the default limit: the same upload is stored
    try:
        r = app.test_client().post("/api/bundles", data={"bundle": (io.BytesIO(blob), "mlp.tar.xz")},
                                   content_type="multipart/form-data")
        assert r.status_code == 201, r.get_json()
        assert [w["kind"] for w in app.extensions["simtscope"].cat.list_workloads()] == ["bundle"]
    finally:
        app.extensions["simtscope"].jobs.shutdown()


def test_the_bundle_ptx_check_also_honours_the_deadline(tmp_path):
    """Past the unpacking, each PTX module's load checks the deadline too."""
    from engine.workload.bundle import open_bundle
    from webapp.bundles import check_entries
    from webapp.timebounds import Deadline, WorkTimeout
    calls = []
    with open_bundle(EXAMPLE) as b:
        assert check_entries(b, calls.append) == [] and calls == ["checking the bundle's PTX"] * len(
            {L.ptx for L in b.launches if not L.opaque})
        with pytest.raises(WorkTimeout) as e:
            check_entries(b, Deadline(1e-9).check)
    assert str(e.value) == "checking the bundle's PTX took longer than this server's limit of 1e-09 s (REQUEST_WORK_S)"
