"""The demo runs `simtscope serve` queues on first start (webapp/serve.queue_demos): the suite's two demo
kernels and the whole-model demo (ResNet-18, its first two launches cycle by cycle), on the calibrated
preset; none again while a run of them exists; a failed or cancelled one is queued again. And the one werkzeug
warning serve drops."""
from __future__ import annotations

import pytest

from webapp import create_app
from webapp.serve import queue_demos
from webapp.workloads import DEMO_BUNDLES, DEMOS


@pytest.fixture
def app(tmp_path):
    a = create_app({"TESTING": True, "DATA_DIR": str(tmp_path), "MAX_WORKERS": 1})
    yield a
    a.extensions["simtscope"].jobs.shutdown()


def test_first_start_queues_the_demos_once(app):
    svc = app.extensions["simtscope"]
    svc.jobs.shutdown()                       # (queued runs stay queued: this test looks at what was queued)
    made = queue_demos(app)
    runs = {r["id"]: r for r in svc.cat.list_runs() if not r.get("parent")}
    assert set(made) == set(runs) and len(made) == len(DEMOS) + len(DEMO_BUNDLES) == 3
    by_workload = {r["workload"]: r for r in runs.values()}
    assert set(by_workload) == {"case:sgemm_tiled16_256", "case:softmax_4096x128", "bundle:resnet18_b1_224_fp16"}
    assert all(r["config"] == "h200" and r["status"] == "queued" and r["overrides"] == [] for r in runs.values())
    model = by_workload["bundle:resnet18_b1_224_fp16"]
    assert model["kind"] == "workload" and model["name"] == "resnet18_b1_224_fp16 on h200 (demo)"
    assert model["options"] == {"detail": [0, 1], "launches": 39}
    children = svc.cat.child_runs(model["id"])
    assert sorted(c["id"] for c in children) == [f"{model['id']}-L0", f"{model['id']}-L1"]
    # a second start queues nothing; a cancelled demo is queued again
    assert queue_demos(app) == []
    svc.cat.update_run(by_workload["case:softmax_4096x128"]["id"], status="cancelled")
    again = queue_demos(app)
    assert [svc.cat.get_run(i)["workload"] for i in again] == ["case:softmax_4096x128"]


def test_the_demos_are_marked_in_the_workload_list(app):
    ws = {w["id"]: w for w in app.test_client().get("/api/workloads").get_json()}
    assert {i for i, w in ws.items() if w.get("demo")} == \
        {"case:sgemm_tiled16_256", "case:softmax_4096x128", "bundle:resnet18_b1_224_fp16"}


def test_serve_drops_only_the_misleading_production_warning(caplog):
    """Started without a terminal (a service, nohup), Flask-SocketIO's werkzeug warned of a "production
    deployment" on every start; serve drops that line and keeps werkzeug's other warnings."""
    import logging

    from webapp.serve import quiet_werkzeug
    quiet_werkzeug()
    quiet_werkzeug()                                  # (twice: one filter)
    log = logging.getLogger("werkzeug")
    assert len(log.filters) == 1 and log.level == logging.WARNING
    caplog.clear()
    log.warning("Werkzeug appears to be used in a production deployment. Consider switching to a production "
                "web server instead.")
    log.warning("WebSocket transport not available. Install simple-websocket for improved performance.")
    log.info("127.0.0.1 - - GET / 200")                 # (request lines: below the logger's level)
    assert [r.getMessage() for r in caplog.records] == [
        "WebSocket transport not available. Install simple-websocket for improved performance."]
