"""The catalogue: which runs and uploaded workloads exist, in one small SQLite file beside the run files.

    data/catalogue.sqlite    runs(id, name, workload, config, overrides, level, record_sms, status, ...)
                             workloads(id, name, kind, folder, cases, created, info)
    data/runs/<id>.simtrun   one run file per run (portable: download it, import it elsewhere)
    data/runs/<id>.lock      held (flock) by the worker process writing that run
    data/workloads/<id>/     an uploaded workload: cases.json + its PTX files, or bundle.<ext> (gpu-workload/1)

A run's `kind` is `kernel` (one launch, one timeline) or `workload` (a bundle's launches: its run file holds the
launch table, webapp/store/workload_run.py); a workload run's chosen launches are child runs (`parent` set),
each an ordinary kernel run file. `options` holds a kind's extra settings (a workload's detail launches).

The run file is the truth about a run; the catalogue caches its status for listing. `recover()` at
start-up marks every run left queued or running by a previous server as `interrupted` (its writer is gone
when its lock is free) and re-adopts run files the catalogue does not list (a lost or older catalogue).
"""
from __future__ import annotations

import fcntl
import json
import os
import secrets
import shutil
import sqlite3
import threading
import time
from pathlib import Path

from . import runfile
from .validate import RunFileInvalid, check_run_file

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs(id TEXT PRIMARY KEY, name TEXT NOT NULL, workload TEXT NOT NULL,
    config TEXT NOT NULL, overrides TEXT NOT NULL DEFAULT '[]', level TEXT NOT NULL,
    record_sms TEXT, interval INTEGER, status TEXT NOT NULL, message TEXT NOT NULL DEFAULT '',
    created REAL NOT NULL, finished REAL, cycles INTEGER, warp_insts INTEGER, stats TEXT,
    kind TEXT NOT NULL DEFAULT 'kernel', parent TEXT, options TEXT NOT NULL DEFAULT '{}');
CREATE TABLE IF NOT EXISTS workloads(id TEXT PRIMARY KEY, name TEXT NOT NULL, kind TEXT NOT NULL,
    folder TEXT NOT NULL, cases TEXT NOT NULL, created REAL NOT NULL, info TEXT NOT NULL DEFAULT '{}');
"""
ADDED_COLUMNS = (("kind", "TEXT NOT NULL DEFAULT 'kernel'"), ("parent", "TEXT"),
                 ("options", "TEXT NOT NULL DEFAULT '{}'"))
LIVE = ("queued", "running")
FINAL = ("done", "faulted", "failed", "interrupted", "cancelled")
RUN_EXT = ".simtrun"


def new_id() -> str:
    return time.strftime("%Y%m%d") + "-" + secrets.token_hex(4)


class Catalogue:
    def __init__(self, root: str | Path):
        self.root = Path(root)
        self.runs_dir = self.root / "runs"
        self.work_dir = self.root / "workloads"
        self.runs_dir.mkdir(parents=True, exist_ok=True)
        self.work_dir.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self.con = sqlite3.connect(str(self.root / "catalogue.sqlite"), check_same_thread=False, timeout=10,
                                   isolation_level=None)
        self.con.row_factory = sqlite3.Row
        self.con.execute("PRAGMA journal_mode=WAL")
        self.con.executescript(SCHEMA)
        have = {r[1] for r in self.con.execute("PRAGMA table_info(runs)")}
        for col, decl in ADDED_COLUMNS:                  # catalogues written before these columns existed
            if col not in have:
                self.con.execute(f"ALTER TABLE runs ADD COLUMN {col} {decl}")

    def close(self) -> None:
        self.con.close()

    def _q(self, sql: str, args=()) -> list[sqlite3.Row]:
        with self._lock:
            return self.con.execute(sql, args).fetchall()

    # ------------------------------------------------------------------ runs
    def run_path(self, run_id: str) -> Path:
        return self.runs_dir / f"{run_id}{RUN_EXT}"

    def lock_path(self, run_id: str) -> Path:
        return self.runs_dir / f"{run_id}.lock"

    def create_run(self, name: str, workload: str, config: str, overrides: list[str], level: str,
                   record_sms: list[int] | None, interval: int | None, kind: str = "kernel",
                   parent: str | None = None, options: dict | None = None, rid: str | None = None) -> dict:
        rid = rid or new_id()
        self._q("INSERT INTO runs(id, name, workload, config, overrides, level, record_sms, interval, status, "
                "created, kind, parent, options) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (rid, name, workload, config, json.dumps(overrides), level,
                 json.dumps(record_sms) if record_sms is not None else None, interval, "queued", time.time(),
                 kind, parent, json.dumps(options or {})))
        return self.get_run(rid)

    def get_run(self, run_id: str) -> dict | None:
        rows = self._q("SELECT * FROM runs WHERE id=?", (run_id,))
        return _run_dict(rows[0]) if rows else None

    def list_runs(self) -> list[dict]:
        return [_run_dict(r) for r in self._q("SELECT * FROM runs ORDER BY created DESC")]

    def child_runs(self, parent: str) -> list[dict]:
        return [_run_dict(r) for r in self._q("SELECT * FROM runs WHERE parent=? ORDER BY id", (parent,))]

    def update_run(self, run_id: str, **fields) -> None:
        if not fields:
            return
        cols = ", ".join(f"{k}=?" for k in fields)
        vals = [json.dumps(v) if isinstance(v, (dict, list)) else v for v in fields.values()]
        self._q(f"UPDATE runs SET {cols} WHERE id=?", (*vals, run_id))

    def sync_run(self, run_id: str) -> dict | None:
        """Refresh a run's status, cycles and stats from its run file; returns the run."""
        path = self.run_path(run_id)
        if path.is_file():
            try:
                meta = runfile.read_meta(path)
            except sqlite3.DatabaseError:
                meta = {}
            status = meta.get("status")
            if status in FINAL:
                stats = meta.get("stats") or {}
                self.update_run(run_id, status=status, message=meta.get("message", ""),
                                finished=meta.get("finished"), cycles=meta.get("end_cycle"),
                                warp_insts=stats.get("warp_insts"), stats=stats)
            elif status == "running":
                self.update_run(run_id, status="running")
        return self.get_run(run_id)

    def delete_run(self, run_id: str) -> bool:
        run = self.get_run(run_id)
        if run is None:
            return False
        for child in self.child_runs(run_id):
            self.delete_run(child["id"])
        self._q("DELETE FROM runs WHERE id=?", (run_id,))
        for p in (self.run_path(run_id), self.lock_path(run_id)):
            for q in (p, Path(str(p) + "-wal"), Path(str(p) + "-shm")):
                q.unlink(missing_ok=True)
        return True

    def writer_alive(self, run_id: str) -> bool:
        """True while some process holds the run's lock (its worker)."""
        lp = self.lock_path(run_id)
        if not lp.exists():
            return False
        with open(lp, "a+") as f:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            fcntl.flock(f, fcntl.LOCK_UN)
            return False

    def mark_interrupted(self, run_id: str, message: str) -> None:
        self.mark_final(run_id, "interrupted", message)

    def mark_final(self, run_id: str, status: str, message: str) -> None:
        """Record that a run ended without its writer saying so (interrupted, cancelled, failed)."""
        path = self.run_path(run_id)
        if path.is_file():
            try:
                con = runfile.connect(path)
                try:
                    runfile.set_meta(con, status=status, message=message, finished=time.time())
                finally:
                    con.close()
            except sqlite3.DatabaseError:
                pass
        self.update_run(run_id, status=status, message=message, finished=time.time())

    def recover(self) -> list[str]:
        """Start-up: runs left live by a dead server become interrupted; unknown run files are adopted."""
        fixed = []
        for run in self.list_runs():
            if run["status"] in LIVE and not self.writer_alive(run["id"]):
                self.mark_interrupted(run["id"], "the server stopped before this run finished")
                fixed.append(run["id"])
        known = {r["id"] for r in self.list_runs()}
        for p in sorted(self.runs_dir.glob(f"*{RUN_EXT}")):
            if p.stem not in known:
                ok, _why = runfile.is_run_file(p)
                if ok:
                    self._adopt(p.stem, p)
        return fixed

    def import_run(self, src: str | Path, name: str | None = None, imported: bool = False, check=None) -> dict:
        """Copy a run file (e.g. downloaded from another machine) into the store; returns its run.

        The copy is checked completely first (validate.py: every meta field, layout and chunk): a damaged
        or hostile file raises ValueError("cannot import: ...") naming what is wrong, and leaves nothing
        in the store. `imported`: name the run "<its name> (imported)" unless `name` is given. check(what):
        called as the check goes (a request's deadline, which may raise to stop it)."""
        rid = new_id()
        tmp = self.runs_dir / f".import-{rid}.tmp"       # not *.simtrun: recover() never adopts it
        try:
            shutil.copyfile(src, tmp)                     # (opening a WAL-mode file makes -wal/-shm: beside the copy)
            ok, why = runfile.is_run_file(tmp)
            if not ok:
                raise ValueError(f"cannot import: {why}")
            try:
                meta = check_run_file(tmp, check)
            except RunFileInvalid as e:
                raise ValueError(f"cannot import: {e}") from None
            if name is None and imported:
                name = f"{(meta.get('info') or {}).get('name') or 'run'} (imported)"[:120]
            dst = self.run_path(rid)
            os.replace(tmp, dst)
            try:
                return self._adopt(rid, dst, name, meta)
            except BaseException:
                dst.unlink(missing_ok=True)
                raise
        finally:
            for q in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):     # (reading a WAL-mode file makes these)
                q.unlink(missing_ok=True)

    def _adopt(self, rid: str, path: Path, name: str | None = None, meta: dict | None = None) -> dict:
        meta = runfile.read_meta(path) if meta is None else meta
        info, rec = meta.get("info") or {}, meta.get("recording") or {}
        status = meta.get("status", "interrupted")
        if status not in FINAL:
            status = "interrupted"
        # a run file written outside the explorer (run_trace(..., sink=RunWriter(path)), RunWriter(path) without
        # info) names its workload and config only in the recording: workload.name, config_name
        # (a present null counts as absent: a synthetic recording's config has "name": null, and the columns
        # are NOT NULL, so a null there used to escape as sqlite3.IntegrityError)
        wl, cname = rec.get("workload") or {}, rec.get("config_name")
        self._q("INSERT INTO runs(id, name, workload, config, overrides, level, record_sms, interval, status, "
                "message, created, finished, cycles, kind) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (rid, name or info.get("name") or wl.get("name") or rid,
                 info.get("workload") or wl.get("name") or "?",
                 info.get("config") or (cname if isinstance(cname, str) and cname else None) or
                 (rec.get("config") or {}).get("name") or "?",
                 json.dumps(info.get("overrides", [])), rec.get("level") or "?",
                 json.dumps(rec.get("record_sms")), rec.get("interval"), status, meta.get("message") or "",
                 meta.get("created") or time.time(), meta.get("finished"), meta.get("end_cycle"),
                 "workload" if meta.get("kind") == "workload" else "kernel"))
        stats = meta.get("stats")
        if status in FINAL and isinstance(stats, dict) and stats:     # as sync_run records a finished run
            wi = stats.get("warp_insts")
            self.update_run(rid, warp_insts=wi if isinstance(wi, int) else None, stats=stats)
        return self.get_run(rid)

    # ------------------------------------------------------------------ uploaded workloads
    @staticmethod
    def new_workload_id() -> str:
        return "u" + secrets.token_hex(4)

    def add_workload(self, name: str, kind: str, folder: Path, cases: list[str], info: dict,
                     wid: str | None = None) -> dict:
        wid = wid or self.new_workload_id()
        self._q("INSERT INTO workloads(id, name, kind, folder, cases, created, info) VALUES(?,?,?,?,?,?,?)",
                (wid, name, kind, str(folder), json.dumps(cases), time.time(), json.dumps(info)))
        return self.get_workload(wid)

    def get_workload(self, wid: str) -> dict | None:
        rows = self._q("SELECT * FROM workloads WHERE id=?", (wid,))
        return _workload_dict(rows[0]) if rows else None

    def list_workloads(self) -> list[dict]:
        return [_workload_dict(r) for r in self._q("SELECT * FROM workloads ORDER BY created")]

    def delete_workload(self, wid: str) -> bool:
        w = self.get_workload(wid)
        if w is None:
            return False
        self._q("DELETE FROM workloads WHERE id=?", (wid,))
        folder = Path(w["folder"])
        if folder.is_dir() and self.work_dir in folder.parents:
            shutil.rmtree(folder, ignore_errors=True)
        return True


def _run_dict(r: sqlite3.Row) -> dict:
    d = dict(r)
    d["overrides"] = json.loads(d["overrides"] or "[]")
    d["record_sms"] = json.loads(d["record_sms"]) if d["record_sms"] else None
    d["stats"] = json.loads(d["stats"]) if d["stats"] else None
    d["options"] = json.loads(d.get("options") or "{}")
    return d


def _workload_dict(r: sqlite3.Row) -> dict:
    d = dict(r)
    d["cases"] = json.loads(d["cases"])
    d["info"] = json.loads(d["info"])
    return d


def hold_lock(path: Path):
    """Take the run's lock for the life of the calling process (the worker); returns the open file."""
    f = open(path, "a+")
    fcntl.flock(f, fcntl.LOCK_EX)
    os.set_inheritable(f.fileno(), False)
    return f
