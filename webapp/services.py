"""The app's long-lived services, one set per app: catalogue, job manager, reader pool, socket sessions.

    svc = services.get()               # inside a request or socket handler
"""
from __future__ import annotations

import atexit
import queue
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field

from flask import Flask, current_app

from .jobs.manager import JobManager
from .jobs.worker import load_factory
from .store.catalogue import Catalogue
from .store.reader import RunReader
from .bundles import bundle_path
from .workloads import resolve


class ReaderPool:
    """Open RunReaders per run (SQLite connections are not shared between threads at once): up to
    `per_run` per run, handed out one thread at a time."""

    def __init__(self, cat: Catalogue, per_run: int = 4):
        self.cat, self.per_run = cat, per_run
        self.lock = threading.Lock()
        self.idle: dict[str, queue.Queue] = {}
        self.count: dict[str, int] = {}

    @contextmanager
    def get(self, run_id: str):
        with self.lock:
            q = self.idle.setdefault(run_id, queue.Queue())
            make = q.empty() and self.count.get(run_id, 0) < self.per_run
            if make:
                self.count[run_id] = self.count.get(run_id, 0) + 1
        if make:
            try:
                r = RunReader(self.cat.run_path(run_id))
            except Exception:
                with self.lock:
                    self.count[run_id] -= 1
                raise
        else:
            r = q.get(timeout=30)
        try:
            yield r
        finally:
            q.put(r)

    def drop(self, run_id: str) -> None:
        with self.lock:
            q = self.idle.pop(run_id, None)
            self.count.pop(run_id, None)
        while q is not None and not q.empty():
            q.get().close()


@dataclass
class Services:
    cat: Catalogue
    jobs: JobManager
    readers: ReaderPool
    config_lister: object
    preferred_config: str = ""             # the app's DEFAULT_CONFIG
    sessions: dict = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def configs(self) -> list[str]:
        return list(self.config_lister())

    def default_config(self, configs: list[str] | None = None) -> str | None:
        """The config of a run that names none: the app's DEFAULT_CONFIG where this server has it, else its first."""
        configs = self.configs() if configs is None else configs
        return self.preferred_config if self.preferred_config in configs else (configs[0] if configs else None)


def init_app(app: Flask) -> None:
    cat = Catalogue(app.config["DATA_DIR"])
    cat.recover()
    dirs = app.config["BUNDLE_DIRS"]
    jobs = JobManager(cat, app.config["SIM_FACTORY"], lambda wid: bundle_path(cat, wid, dirs) or resolve(cat, wid),
                      app.config["MAX_WORKERS"],
                      limits={"max_cycles": app.config["RUN_MAX_CYCLES"],
                              "max_warp_insts": app.config["RUN_MAX_WARP_INSTS"],
                              "mem_bytes": app.config["WORKER_MEM_BYTES"]})
    svc = Services(cat, jobs, ReaderPool(cat), load_factory(app.config["CONFIG_LISTER"]), app.config["DEFAULT_CONFIG"])
    app.extensions["simtscope"] = svc
    atexit.register(jobs.shutdown)


def get() -> Services:
    return current_app.extensions["simtscope"]
