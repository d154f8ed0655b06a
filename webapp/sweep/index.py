"""The sweep index: one SQLite file beside the run store's catalogue (data/sweeps.sqlite).

    sweeps(id, name, spec, status, total, created, updated, message, out_dir, pid)
    sweep_points(sweep_id, idx, key, workload, label, vals)       the points of each sweep, in order
    points(key, run_id, status, message, row, wall_s, finished)   what each point key gave, and its run

A point's key hashes workload bytes, resolved configuration and simtscope version (spec.py), so `points`
is a cache shared by every sweep on this store: a point done once (and whose run is still in the
catalogue) is never simulated again. Only the sweep driver writes; the explorer reads (WAL mode).
"""
from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS sweeps(id TEXT PRIMARY KEY, name TEXT NOT NULL, spec TEXT NOT NULL,
    status TEXT NOT NULL, total INTEGER NOT NULL, created REAL NOT NULL, updated REAL NOT NULL,
    message TEXT NOT NULL DEFAULT '', out_dir TEXT, pid INTEGER);
CREATE TABLE IF NOT EXISTS sweep_points(sweep_id TEXT NOT NULL, idx INTEGER NOT NULL, key TEXT NOT NULL,
    workload TEXT NOT NULL, label TEXT NOT NULL, vals TEXT NOT NULL, PRIMARY KEY(sweep_id, idx));
CREATE TABLE IF NOT EXISTS points(key TEXT PRIMARY KEY, run_id TEXT, status TEXT NOT NULL,
    message TEXT NOT NULL DEFAULT '', row TEXT NOT NULL DEFAULT '{}', wall_s REAL, finished REAL NOT NULL);
"""
FINAL_POINT = ("done", "faulted")      # a deterministic outcome: not simulated again
FILE = "sweeps.sqlite"


def _alive(pid: int | None) -> bool:
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class SweepIndex:
    def __init__(self, data_dir: str | Path):
        self.path = Path(data_dir) / FILE
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self.con = sqlite3.connect(str(self.path), check_same_thread=False, timeout=10, isolation_level=None)
        self.con.row_factory = sqlite3.Row
        self.con.execute("PRAGMA journal_mode=WAL")
        self.con.executescript(SCHEMA)

    def close(self) -> None:
        self.con.close()

    def _q(self, sql: str, args=()) -> list[sqlite3.Row]:
        with self._lock:
            return self.con.execute(sql, args).fetchall()

    # ------------------------------------------------------------------ driver side
    def begin(self, spec, points, out_dir: str | Path | None, pid: int | None = None) -> None:
        """Register (or re-register, when started again) a sweep and its points; status running."""
        now = time.time()
        with self._lock:
            self.con.execute("BEGIN")
            try:
                old = self.con.execute("SELECT created FROM sweeps WHERE id=?", (spec.id,)).fetchone()
                self.con.execute("DELETE FROM sweeps WHERE id=?", (spec.id,))
                self.con.execute("DELETE FROM sweep_points WHERE sweep_id=?", (spec.id,))
                self.con.execute("INSERT INTO sweeps(id, name, spec, status, total, created, updated, out_dir, pid) "
                                 "VALUES(?,?,?,?,?,?,?,?,?)",
                                 (spec.id, spec.name, json.dumps(spec.describe()), "running", len(points),
                                  old["created"] if old else now, now, str(out_dir) if out_dir else None,
                                  pid or os.getpid()))
                self.con.executemany("INSERT INTO sweep_points(sweep_id, idx, key, workload, label, vals) "
                                     "VALUES(?,?,?,?,?,?)",
                                     [(spec.id, p.index, p.key, p.workload.id, p.label, json.dumps(p.values))
                                      for p in points])
                self.con.execute("COMMIT")
            except BaseException:
                self.con.execute("ROLLBACK")
                raise

    def finished_keys(self, keys, run_exists) -> dict[str, dict]:
        """{key: point} for the keys already done (or faulted) whose run `run_exists(run_id)` still."""
        out = {}
        for k in set(keys):
            rows = self._q("SELECT * FROM points WHERE key=?", (k,))
            if rows and rows[0]["status"] in FINAL_POINT and rows[0]["run_id"] and run_exists(rows[0]["run_id"]):
                out[k] = _point(rows[0])
        return out

    def record(self, key: str, run_id: str | None, status: str, message: str, row: dict, wall_s: float) -> None:
        self._q("INSERT INTO points(key, run_id, status, message, row, wall_s, finished) VALUES(?,?,?,?,?,?,?) "
                "ON CONFLICT(key) DO UPDATE SET run_id=excluded.run_id, status=excluded.status, "
                "message=excluded.message, row=excluded.row, wall_s=excluded.wall_s, finished=excluded.finished",
                (key, run_id, status, message, json.dumps(row), wall_s, time.time()))

    def touch(self, sweep_id: str) -> None:
        self._q("UPDATE sweeps SET updated=? WHERE id=?", (time.time(), sweep_id))

    def finish(self, sweep_id: str, status: str, message: str = "") -> None:
        self._q("UPDATE sweeps SET status=?, message=?, updated=?, pid=NULL WHERE id=?",
                (status, message, time.time(), sweep_id))

    # ------------------------------------------------------------------ reader side
    def list(self) -> list[dict]:
        out = []
        for r in self._q("SELECT s.*, (SELECT COUNT(*) FROM sweep_points sp JOIN points p ON p.key = sp.key "
                         "WHERE sp.sweep_id = s.id AND p.status IN ('done', 'faulted')) AS done "
                         "FROM sweeps s ORDER BY created DESC"):
            out.append(self._sweep(r))
        return out

    def get(self, sweep_id: str) -> dict | None:
        rows = self._q("SELECT s.*, 0 AS done FROM sweeps s WHERE id=?", (sweep_id,))
        if not rows:
            return None
        sw = self._sweep(rows[0])
        pts = []
        for r in self._q("SELECT sp.idx, sp.key, sp.workload, sp.label, sp.vals, p.run_id, p.status, p.message, "
                         "p.row, p.wall_s, p.finished FROM sweep_points sp LEFT JOIN points p ON p.key = sp.key "
                         "WHERE sp.sweep_id=? ORDER BY sp.idx", (sweep_id,)):
            pts.append({"index": r["idx"], "key": r["key"], "workload": r["workload"], "label": r["label"],
                        "values": json.loads(r["vals"]), "run_id": r["run_id"], "status": r["status"] or "pending",
                        "message": r["message"] or "", "row": json.loads(r["row"]) if r["row"] else {},
                        "wall_s": r["wall_s"], "finished": r["finished"]})
        sw["points"] = pts
        sw["done"] = sum(1 for p in pts if p["status"] in FINAL_POINT)
        return sw

    def _sweep(self, r: sqlite3.Row) -> dict:
        d = dict(r)
        d["spec"] = json.loads(d["spec"])
        if d["status"] == "running" and not _alive(d.get("pid")):
            d["status"] = "interrupted"                 # its driver is gone (same host); start it again to resume
        d.pop("pid", None)
        return d


def _point(r: sqlite3.Row) -> dict:
    d = dict(r)
    d["row"] = json.loads(d["row"]) if d["row"] else {}
    return d
