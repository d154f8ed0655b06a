"""RunWriter: the recorder's sink. It turns the engine's recorded tables into one run file.

    w = RunWriter(path, info={"id": ..., "name": ...})
    sim.run_case(case, sink=w, progress=w.progress)   # begin(meta) / append(table, chunk)* / end(stats, status)

Life of the file's `status`: created -> running -> done | faulted | failed. A writer that dies without
end() leaves `running`; the catalogue then marks the run `interrupted` (catalogue.py). Data is committed
every COMMIT_S seconds and at the end, each commit a consistent state (SQLite transactions, WAL), so a
reader never sees half a chunk and a crash loses at most the last COMMIT_S seconds of a run that is
then marked interrupted anyway.
"""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from engine.recording import LEVELS, TABLES, WARP_STATES, schema

from . import runfile
from .ctr_builder import CounterBuilder
from .layout import FORMAT, RAW_TABLES
from .runfile import ChunkBuffer
from .span_builder import SpanBuilder
from .ws_builder import WarpStateBuilder

COMMIT_S = 0.5                  # commit (progress, sealed raw segments) at most this often
LIVE_FLUSH_S = 4.0              # write partly filled LOD chunks this often (a live view sees them)
# raw chunks stay small enough that a snapshot (which reads the counters and samples around one cycle)
# decompresses well under a megabyte
RAW_CHUNK_ROWS = {"raw:sm_counters": 4096, "raw:mem_counters": 8192, "raw:events": 65536,
                  "raw:mem_samples": 4096, "raw:pc_stats": 1 << 30}
LOD_CHUNK_ROWS = {"slot": 2048, "strip": 2048, "ctr_gpu": 4096, "ctr_mem": 4096, "ctr_sm": 1024,
                  "cta": 1 << 30, "kernel": 1 << 30}


class RunWriter:
    def __init__(self, path: str | Path, info: dict | None = None):
        self.path = Path(path)
        if self.path.exists():
            raise FileExistsError(f"run file {self.path} already exists")
        self.con = runfile.connect(self.path)
        self.con.execute("BEGIN")
        runfile.set_meta(self.con, format=FORMAT, status="created", created=time.time(), info=info or {},
                         progress={"cycle": 0, "warp_insts": 0, "ctas_done": 0, "ctas_total": 0})
        self.con.execute("COMMIT")
        self.con.execute("BEGIN")
        self.buf = ChunkBuffer(self.con, {**RAW_CHUNK_ROWS, **LOD_CHUNK_ROWS})
        self.meta: dict | None = None
        self.ws = self.ctr = self.spans = None
        self.raw_max: dict[str, int] = {}
        self.last_commit = self.last_flush = time.monotonic()
        self.closed = False
        self.t0 = time.time()

    # ------------------------------------------------------------------ sink interface
    def begin(self, meta: dict) -> None:
        """Contract: once, before any append. meta: config, workload, kernels, num_sms, warp_slots_per_sm,
        interval, states, level, record_sms (None = all SMs)."""
        if self.meta is not None:
            raise RuntimeError("begin() called twice")
        states = list(meta.get("states") or WARP_STATES)
        if states != list(WARP_STATES):
            raise ValueError(f"recorder's state names {states[:4]}... differ from engine.recording.WARP_STATES")
        level = meta.get("level", "full")
        if level not in LEVELS:
            raise ValueError(f"unknown recording level {level!r} (one of {LEVELS})")
        num_sms, slots = int(meta["num_sms"]), int(meta["warp_slots_per_sm"])
        rec = meta.get("record_sms")
        rec = list(range(num_sms)) if rec is None else sorted({int(s) for s in rec})
        if any(not 0 <= s < num_sms for s in rec):
            raise ValueError(f"record_sms {rec} outside 0..{num_sms - 1}")
        # the file describes itself: row layouts and enum names as recorded (layout.schema_of reads them back)
        self.meta = {**meta, "record_sms": rec, "states": states, "level": level, "schema": schema()}
        self.ws = WarpStateBuilder(self.con, self.buf, rec, slots, num_sms) if level == "full" else None
        self.ctr = CounterBuilder(self.buf, num_sms, int(meta.get("interval") or 1000), slots)
        self.spans = SpanBuilder(self.buf)
        runfile.set_meta(self.con, recording=self.meta, status="running", started=time.time())
        self._commit(flush=True)

    def append(self, table: str, chunk: np.ndarray) -> None:
        if self.meta is None:
            raise RuntimeError("append() before begin()")
        if table not in TABLES:
            raise ValueError(f"unknown recorded table {table!r}")
        chunk = np.asarray(chunk)
        if table == "warp_states":
            if self.ws is None:
                raise ValueError("warp_states recorded although the level is not 'full'")
            self.ws.append(chunk)
        else:
            if chunk.dtype != RAW_TABLES[table]:
                raise TypeError(f"{table} chunk has dtype {chunk.dtype}, expected {RAW_TABLES[table]}")
            if table == "sm_counters":
                self.ctr.append_sm(chunk)
            elif table == "mem_counters":
                self.ctr.append_mem(chunk)
            elif table == "events":
                self.spans.append(chunk)
            if len(chunk):
                self._raw(table, chunk)
        self._maybe_commit()

    def progress(self, cycle: int, warp_insts: int, ctas_done: int, ctas_total: int) -> None:
        """The engine's progress callback: stored (and committed at most every COMMIT_S). CTAs done are
        also counted from the recorded CTA ends, for recorders that do not count them."""
        done = max(int(ctas_done), self.spans.ctas_done if self.spans is not None else 0)
        total = max(int(ctas_total), self._grid_ctas())
        self._progress = {"cycle": int(cycle), "warp_insts": int(warp_insts), "ctas_done": done,
                          "ctas_total": total, "wall_s": round(time.time() - self.t0, 3)}
        self._maybe_commit()

    def end(self, stats: dict, status: str = "done") -> None:
        """Contract: once, last. status: done, or faulted (a kernel fault) or failed (a run cap reached)
        with the message in stats['fault']."""
        if status not in ("done", "faulted", "failed"):
            raise ValueError(f"end status must be done, faulted or failed, got {status!r}")
        if self.meta is None:
            self.fail("the recorder ended without beginning")
            return
        end_cycle = int(stats.get("gpu_sim_cycle") or stats.get("cycles") or 0)
        if self.ws is not None:
            self.ws.finish(end_cycle)
            end_cycle = max(end_cycle, self.ws.end_cycle)
        self.ctr.finish(end_cycle)
        self.spans.finish(end_cycle)
        self.buf.flush()
        self._compact()
        prog = getattr(self, "_progress", {})
        runfile.set_meta(self.con, stats=_jsonable(stats), end_cycle=end_cycle, sealed_cycle=end_cycle,
                         status=status, finished=time.time(), message=str(stats.get("fault") or ""),
                         progress={**prog, "cycle": end_cycle, "done": True})
        self._commit(begin_again=False, flush=True)
        self._close()

    def fail(self, message: str, status: str = "failed") -> None:
        """The simulation raised or was stopped: keep what was committed, say why."""
        if self.closed:
            return
        try:
            self.con.execute("ROLLBACK")
        except Exception:                                     # noqa: BLE001 - nothing to roll back
            pass
        runfile.set_meta(self.con, status=status, message=message, finished=time.time())
        self._close()

    # ------------------------------------------------------------------ internals
    def _grid_ctas(self) -> int:
        total = 0
        for k in (self.meta or {}).get("kernels") or []:
            g = list(k.get("grid") or [0]) + [1, 1]
            total += int(g[0]) * int(g[1]) * int(g[2])
        return total

    def _raw(self, table: str, chunk: np.ndarray) -> None:
        col = "cycle0" if "cycle0" in chunk.dtype.names else ("cycle" if "cycle" in chunk.dtype.names else None)
        if col is None and table == "mem_samples":
            lo, hi = int(chunk["t_issue"].min()), int(chunk["t_return"].max()) + 1
        elif col is None:
            lo, hi = 0, 1 << 62                # not cycle-indexed (pc_stats): covers everything
        else:
            lo, hi = int(chunk[col][0]), int(chunk[col][-1]) + 1
        self.buf.add("raw:" + table, 0, 0, lo, hi, chunk)

    def _maybe_commit(self) -> None:
        if time.monotonic() - self.last_commit >= COMMIT_S:
            self._commit()

    def _commit(self, begin_again: bool = True, flush: bool | None = None) -> None:
        now = time.monotonic()
        if flush is None:
            flush = now - self.last_flush >= LIVE_FLUSH_S
        if flush:
            if self.spans is not None:
                self.spans.flush()
            self.buf.flush()
            self.last_flush = now
        sealed = {}
        if self.ws is not None:
            sealed["sealed_cycle"] = self.ws.sealed
        if self.ctr is not None:
            sealed["ctr_cycle"] = self.ctr.sealed
        if hasattr(self, "_progress"):
            sealed["progress"] = self._progress
        if sealed:
            runfile.set_meta(self.con, **sealed)
        self.con.execute("COMMIT")
        self.last_commit = time.monotonic()
        if begin_again:
            self.con.execute("BEGIN")

    def _compact(self) -> None:
        """Merge the small chunks that live commits left into chunks of the target size (same data)."""
        from .compact import compact
        compact(self.con, {**RAW_CHUNK_ROWS, **LOD_CHUNK_ROWS}, self.meta)

    def _close(self) -> None:
        self.closed = True
        try:
            self.con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            self.con.close()


def _jsonable(d: dict) -> dict:
    out = {}
    for k, v in d.items():
        if isinstance(v, np.generic):
            v = v.item()
        elif isinstance(v, np.ndarray):
            v = v.tolist()
        elif isinstance(v, dict):
            v = _jsonable(v)
        out[k] = v
    return out
