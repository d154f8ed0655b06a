"""JobManager: runs queued simulations in worker processes, at most `max_workers` at a time.

One dispatcher thread owns every worker process: it starts them (`python -m webapp.jobs.worker`, a fresh
interpreter, see worker.py) and reaps them. Workers die with the server (PR_SET_PDEATHSIG is tied to
this long-lived thread). A worker that exits without finishing its run file gets the run marked failed
(or cancelled, if we stopped it). Each worker's stderr goes to data/runs/<id>.log.
"""
from __future__ import annotations

import collections
import json
import os
import signal
import subprocess
import sys
import threading
import time

from ..store.catalogue import FINAL, Catalogue


class JobManager:
    def __init__(self, catalogue: Catalogue, factory: str, resolve, max_workers: int = 1, limits: dict | None = None):
        self.cat, self.factory, self.resolve = catalogue, factory, resolve
        self.limits = dict(limits or {})         # max_cycles, max_warp_insts, mem_bytes: sent to every worker
        self.max_workers = max(1, int(max_workers))
        self.queue: collections.deque[str] = collections.deque()
        self.procs: dict[str, subprocess.Popen] = {}
        self.cancelled: set[str] = set()
        self.cond = threading.Condition()
        self.ending = threading.Lock()           # a run's post-mortem and its deletion, one at a time
        self.stopping = False
        self.thread = threading.Thread(target=self._loop, name="simtscope-jobs", daemon=True)
        self.thread.start()

    # ------------------------------------------------------------------ API (any thread)
    def submit(self, run_id: str) -> None:
        with self.cond:
            self.queue.append(run_id)
            self.cond.notify()

    def cancel(self, run_id: str) -> bool:
        """Stop a queued or running simulation; True if it was live."""
        with self.cond:
            if run_id in self.queue:
                self.queue.remove(run_id)
                self.cat.mark_final(run_id, "cancelled", "cancelled before it started")
                self._end_children(run_id, "cancelled", "cancelled before it started")
                return True
            p = self.procs.get(run_id)
            if p is None:
                return False
            self.cancelled.add(run_id)
        p.kill()
        return True

    def delete(self, run_id: str) -> bool:
        """Stop a run (cancel) and delete it with its child runs and files. The deletion waits for a
        post-mortem in progress (the dispatcher reaping this run's worker), which would otherwise find the
        run or its children gone halfway (a TypeError in the dispatcher thread, seen in the test suite)."""
        self.cancel(run_id)
        with self.ending:
            return self.cat.delete_run(run_id)

    def busy(self) -> set[str]:
        with self.cond:
            return set(self.procs) | set(self.queue)

    def wait_idle(self, timeout: float = 60.0) -> bool:
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout:
            if not self.busy():
                return True
            time.sleep(0.05)
        return False

    def shutdown(self) -> None:
        with self.cond:
            self.stopping = True
            self.cond.notify()
            procs = list(self.procs.values())
        for p in procs:
            p.kill()
        self.thread.join(timeout=5)

    # ------------------------------------------------------------------ dispatcher thread
    def _loop(self) -> None:
        while True:
            with self.cond:
                if self.stopping:
                    return
                self.cond.wait(timeout=0.1)
                finished = [(rid, p) for rid, p in self.procs.items() if p.poll() is not None]
                for rid, _p in finished:
                    del self.procs[rid]
                starts = []
                while self.queue and len(self.procs) + len(starts) < self.max_workers:
                    starts.append(self.queue.popleft())
            for rid, p in finished:
                self._post_mortem(rid, p.returncode)
            for rid in starts:
                try:
                    self._start(rid)
                except Exception as e:                    # noqa: BLE001 - keep dispatching the others
                    self.cat.mark_final(rid, "failed", f"could not start the worker: {type(e).__name__}: {e}")

    def _start(self, rid: str) -> None:
        run = self.cat.get_run(rid)
        if run is None:
            return
        try:
            target = self.resolve(run["workload"])
        except (KeyError, ValueError) as e:
            self.cat.mark_final(rid, "failed", f"workload {run['workload']!r}: {e}")
            self._end_children(rid, "failed", "the workload run could not start")
            return
        job = {"run_id": rid, "path": str(self.cat.run_path(rid)), "lock": str(self.cat.lock_path(rid)),
               "config": run["config"], "overrides": run["overrides"],
               "level": run["level"], "record_sms": run["record_sms"], "interval": run["interval"],
               "factory": self.factory, "parent_pid": os.getpid(), "limits": self.limits,
               "info": {"id": rid, "name": run["name"], "workload": run["workload"], "config": run["config"],
                        "overrides": run["overrides"]}}
        if run.get("kind") == "workload":                 # a bundle: workload_worker.py, children per launch
            module = "webapp.jobs.workload_worker"
            job["bundle"] = str(target)
            job["children"] = {c["options"]["launch"]: {"id": c["id"], "path": str(self.cat.run_path(c["id"])),
                                                        "name": c["name"]} for c in self.cat.child_runs(rid)}
            for c in self.cat.child_runs(rid):
                self.cat.update_run(c["id"], status="running")
        else:
            module = "webapp.jobs.worker"
            job["cases"], job["case"] = str(target[0]), target[1]
        env = dict(os.environ)
        paths = [p for p in sys.path if p and os.path.isdir(p)]
        env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys([os.getcwd()] + paths))
        log = open(self.cat.runs_dir / f"{rid}.log", "ab")
        self.cat.update_run(rid, status="running")
        p = subprocess.Popen([sys.executable, "-m", module], stdin=subprocess.PIPE,
                             stdout=log, stderr=log, env=env, close_fds=True)
        log.close()
        p.stdin.write(json.dumps(job).encode())
        p.stdin.close()
        with self.cond:
            self.procs[rid] = p

    def _post_mortem(self, rid: str, code: int | None) -> None:
        with self.ending:                            # not while the run is being deleted (delete())
            self._post_mortem_locked(rid, code)

    def _post_mortem_locked(self, rid: str, code: int | None) -> None:
        run = self.cat.sync_run(rid)
        if run is None:                              # deleted before its worker ended
            self.cancelled.discard(rid)
            return
        if run["status"] not in FINAL:
            if rid in self.cancelled:
                self.cancelled.discard(rid)
                self.cat.mark_final(rid, "cancelled", "cancelled while simulating")
            elif code is not None and code < 0:     # killed by a signal (SIGKILL, the OOM killer, ...)
                sig = signal.Signals(-code).name if -code in signal.valid_signals() else str(-code)
                self.cat.mark_final(rid, "interrupted", f"the worker process was killed by {sig} before finishing")
            else:
                self.cat.mark_final(rid, "failed", f"the worker process exited with code {code} before finishing")
        self._end_children(rid, "cancelled" if self.cat.get_run(rid)["status"] == "cancelled" else "failed",
                           "the workload run ended before this launch's timeline was recorded "
                           "(its row in the launch table says why)")

    def _end_children(self, rid: str, status: str, message: str) -> None:
        """A workload run's child runs (one per launch chosen for detail) that never finished."""
        for c in self.cat.child_runs(rid):
            c = self.cat.sync_run(c["id"])
            if c is not None and c["status"] not in FINAL:
                self.cat.mark_final(c["id"], status, message)
