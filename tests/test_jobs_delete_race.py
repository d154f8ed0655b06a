"""A run deleted while the dispatcher reaps its worker (issue 13's 'noticed' list: a TypeError in the
simtscope-jobs thread, 'NoneType' object is not subscriptable, seen in test_server_workloads): the
deletion waits for the post-mortem, which ends the unfinished child runs, and then removes everything."""
from __future__ import annotations

import threading
import time

from webapp.jobs.manager import JobManager
from webapp.store.catalogue import Catalogue


class _DeletedMidway(Catalogue):
    """Deletes the parent run from another thread (as DELETE /api/runs/<id> does) while the post-mortem
    is between reading the run and ending its children."""

    def __init__(self, root, parent: str):
        super().__init__(root)
        self.parent, self.jobs, self.deleter = parent, None, None

    def sync_run(self, run_id):
        run = super().sync_run(run_id)
        if run_id == self.parent and self.deleter is None:
            self.deleter = threading.Thread(target=self.jobs.delete, args=(run_id,))
            self.deleter.start()
            time.sleep(0.3)                      # the deletion would run now, were it not held back
        return run


def test_a_run_deleted_during_its_post_mortem_leaves_no_error_and_no_rows(tmp_path):
    cat = _DeletedMidway(tmp_path / "data", "p1")
    cat.create_run("p", "bundle:x", "h200", [], "full", None, None, kind="workload", rid="p1")
    for i in range(2):
        cat.create_run(f"p L{i}", "bundle:x", "h200", [], "full", None, None, parent="p1", rid=f"p1-L{i}")
        cat.update_run(f"p1-L{i}", status="running")
    cat.update_run("p1", status="running")
    jobs = JobManager(cat, "tests.fixtures.synthetic_recording:factory", lambda w: None)
    cat.jobs = jobs
    errors = []
    hook, threading.excepthook = threading.excepthook, lambda a: errors.append(a.exc_value)
    try:
        seen = []
        real_end = jobs._end_children

        def end_children(rid, status, message):      # what the children looked like when they were ended
            seen.extend((c["id"], c["status"]) for c in cat.child_runs(rid))
            real_end(rid, status, message)
            seen.extend((c["id"], c["status"]) for c in cat.child_runs(rid))
        jobs._end_children = end_children
        jobs._post_mortem("p1", -9)                  # the worker was killed (as cancel does)
        cat.deleter.join(10)
    finally:
        threading.excepthook = hook
        jobs.shutdown()
    assert errors == []
    assert seen == [("p1-L0", "running"), ("p1-L1", "running"), ("p1-L0", "failed"), ("p1-L1", "failed")]
    assert cat.get_run("p1") is None and cat.child_runs("p1") == [] and cat.list_runs() == []
