"""Low-level access to one run file: connection settings, meta values, chunk rows, pending chunk buffers."""
from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import numpy as np

from . import codec
from .layout import DELTA, FORMAT, READABLE, SCHEMA


def connect(path: str | Path, readonly: bool = False) -> sqlite3.Connection:
    """Open a run file. Writers create it in WAL mode (readers see each committed transaction while the
    run is simulated); readers open it read-only. `check_same_thread=False`: callers serialise use."""
    path = Path(path)
    if readonly:
        if not path.is_file():
            raise FileNotFoundError(f"no run file at {path}")
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False, timeout=10)
    else:
        con = sqlite3.connect(str(path), check_same_thread=False, timeout=10, isolation_level=None)
        con.execute("PRAGMA journal_mode=WAL")
        con.execute("PRAGMA synchronous=NORMAL")   # WAL + NORMAL: a crash loses at most the last commit
        con.executescript(SCHEMA)
    return con


def is_run_file(path: str | Path) -> tuple[bool, str]:
    """(True, "") when `path` is an SQLite run file of our format, else (False, why)."""
    p = Path(path)
    try:
        with open(p, "rb") as f:
            if f.read(16) != b"SQLite format 3\x00":
                return False, "not an SQLite database"
        con = sqlite3.connect(f"file:{p}?mode=ro", uri=True)
        try:
            row = con.execute("SELECT value FROM meta WHERE key='format'").fetchone()
        finally:
            con.close()
    except (OSError, sqlite3.DatabaseError, UnicodeDecodeError) as e:    # (a damaged schema's error text
        return False, f"unreadable run file ({e})"                        # may not even be UTF-8)
    if not row:
        return False, f"not a {FORMAT} file"
    try:
        found = json.loads(row[0])
    except (TypeError, ValueError, RecursionError):          # not text, not UTF-8, not JSON
        return False, f"not a {FORMAT} file (its meta 'format' is not a JSON string)"
    why = format_mismatch(found)
    return (False, why) if why else (True, "")


def format_mismatch(found) -> str:
    """Why a run file whose meta says format `found` cannot be read here, or "" when it can."""
    if found in READABLE:
        return ""
    return f"run file format {found!r}, this simtscope reads {' and '.join(map(repr, READABLE))} (simulate the run again)"


def get_meta(con: sqlite3.Connection, key: str, default=None):
    row = con.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
    return json.loads(row[0]) if row else default


def all_meta(con: sqlite3.Connection) -> dict:
    return {k: json.loads(v) for k, v in con.execute("SELECT key, value FROM meta")}


def read_meta(path: str | Path, key: str | None = None):
    """The meta of the run file at `path` (all of it, or one key's value, None when absent) through a
    read-only connection that is closed again. Raises sqlite3.DatabaseError for a damaged file."""
    con = connect(path, readonly=True)
    try:
        return all_meta(con) if key is None else get_meta(con, key)
    finally:
        con.close()


def set_meta(con: sqlite3.Connection, **values) -> None:
    con.executemany("INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value",
                    [(k, json.dumps(v)) for k, v in values.items()])


def put_chunk(con, tbl: str, level: int, key: int, lo: int, hi: int, arr: np.ndarray, extra: bytes | None = None):
    put_blob(con, tbl, level, key, lo, hi, len(arr), codec.pack(arr, DELTA.get(tbl.removeprefix("raw:"), ())), extra)


def put_blob(con, tbl: str, level: int, key: int, lo: int, hi: int, n: int, blob: bytes, extra: bytes | None = None):
    con.execute("INSERT INTO chunks(tbl, level, key, lo, hi, n, data, extra) VALUES(?,?,?,?,?,?,?,?)",
                (tbl, int(level), int(key), int(lo), int(hi), int(n), blob, extra))


class Pending:
    """Arrays waiting to become one chunk of (tbl, level, key): rows along axis 0, contiguous in cycles."""

    __slots__ = ("parts", "lo", "hi", "rows")

    def __init__(self):
        self.parts, self.lo, self.hi, self.rows = [], None, None, 0

    def add(self, lo: int, hi: int, arr: np.ndarray) -> None:
        self.parts.append(arr)
        self.lo = lo if self.lo is None else min(self.lo, lo)
        self.hi = hi if self.hi is None else max(self.hi, hi)
        self.rows += len(arr)


class ChunkBuffer:
    """Collects LOD rows per (tbl, level, key) and writes a chunk once `rows_for(tbl)` rows are waiting,
    or on flush() (called at each commit, so a live reader sees data soon)."""

    def __init__(self, con, target_rows: dict[str, int] | None = None, default_rows: int = 2048):
        self.con = con
        self.target = target_rows or {}
        self.default = default_rows
        self.pending: dict[tuple, Pending] = {}

    def add(self, tbl: str, level: int, key: int, lo: int, hi: int, arr: np.ndarray) -> None:
        if len(arr) == 0:
            return
        p = self.pending.get((tbl, level, key))
        if p is None:
            p = self.pending[(tbl, level, key)] = Pending()
        p.add(lo, hi, arr)
        if p.rows >= self.target.get(tbl, self.default):
            self._write((tbl, level, key))

    def _write(self, k: tuple) -> None:
        p = self.pending.pop(k)
        arr = np.concatenate(p.parts) if len(p.parts) > 1 else p.parts[0]
        put_chunk(self.con, k[0], k[1], k[2], p.lo, p.hi, arr)

    def flush(self) -> None:
        for k in list(self.pending):
            self._write(k)
