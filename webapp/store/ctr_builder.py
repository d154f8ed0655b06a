"""Interval counters -> `ctr_gpu`, `ctr_mem` and `ctr_sm` pyramids (streaming, exact sums).

Level k buckets are interval * 2^k cycles. An interval is processed once a row of a later interval has
arrived (rows of one interval may span several chunks) or at the end. Missing intervals (an engine that
skips dead time may record none) count as zeros.
"""
from __future__ import annotations

import numpy as np

from engine.recording import MEM_COUNTER_DT, NSTATES, SM_COUNTER_DT

from .layout import CTR_GPU_DT, CTR_GPU_FIELDS, CTR_LEVELS, CTR_MEM_DT, CTR_MEM_FIELDS
from .lod import SumPyramid, strip
from .runfile import ChunkBuffer

BATCH = 256                     # intervals per dense step (num_sms x NSTATES x 8 bytes each)


def ctr_sm_dtype(num_sms: int) -> np.dtype:
    return np.dtype([("cycle0", "<u8"), ("dom", "u1", (num_sms,)), ("act", "u1", (num_sms,)),
                     ("issued", "<u8", (num_sms,))])


def _contiguous(units: np.ndarray) -> list[slice]:
    """Slices of `units` (sorted, unique) that are runs of consecutive integers, at most BATCH long."""
    cuts = np.flatnonzero(np.diff(units) != 1) + 1
    out = []
    for a, b in zip(np.r_[0, cuts], np.r_[cuts, len(units)]):
        out += [slice(i, min(i + BATCH, b)) for i in range(int(a), int(b), BATCH)]
    return out


class _Stream:
    """Rows of one counter table in cycle order; hands out the complete intervals."""

    def __init__(self, dtype):
        self.dtype, self.pending, self.last = dtype, [], -1

    def add(self, rows: np.ndarray, name: str) -> np.ndarray:
        if rows.dtype != self.dtype:
            raise TypeError(f"{name} chunk has dtype {rows.dtype}, expected {self.dtype}")
        c = rows["cycle0"]
        if len(rows) and (int(c[0]) < self.last or np.any(c[1:] < c[:-1])):
            raise ValueError(f"{name} rows out of cycle order (chunk starts at {int(c[0])} after {self.last})")
        if len(rows):
            self.pending.append(rows)
            self.last = int(c[-1])
        return self.take(final=False)

    def take(self, final: bool) -> np.ndarray:
        if not self.pending:
            return np.zeros(0, self.dtype)
        rows = np.concatenate(self.pending)
        done = np.ones(len(rows), bool) if final else rows["cycle0"] < self.last
        self.pending = [rows[~done]] if not done.all() else []
        return rows[done]


class CounterBuilder:
    def __init__(self, buf: ChunkBuffer, num_sms: int, interval: int, slots: int):
        self.buf, self.nsm, self.iv, self.slots = buf, int(num_sms), int(interval), int(slots)
        if self.iv <= 0:
            raise ValueError(f"counter interval must be positive, got {interval}")
        self.sm_dt = ctr_sm_dtype(self.nsm)
        self.sm_stream, self.mem_stream = _Stream(SM_COUNTER_DT), _Stream(MEM_COUNTER_DT)
        self.gpu_pyr, self.mem_pyr = SumPyramid(CTR_LEVELS), SumPyramid(CTR_LEVELS)
        self.end_cycle = None
        self.sealed = 0                 # counters are complete below this cycle

    def append_sm(self, rows: np.ndarray) -> None:
        self._sm(self.sm_stream.add(rows, "sm_counters"))

    def append_mem(self, rows: np.ndarray) -> None:
        self._mem(self.mem_stream.add(rows, "mem_counters"))

    def finish(self, end_cycle: int) -> None:
        self.end_cycle = int(end_cycle)
        self._sm(self.sm_stream.take(final=True))
        self._mem(self.mem_stream.take(final=True))
        for k, b, n, cols in self.gpu_pyr.finish():
            self._emit_gpu(k, b, n, cols)
        for k, b, n, cols in self.mem_pyr.finish():
            self._emit_mem(k, b, n, cols)

    # ------------------------------------------------------------------ SM counters
    def _sm(self, rows: np.ndarray) -> None:
        if not len(rows):
            return
        if rows["sm"].max() >= self.nsm:
            raise ValueError(f"sm_counters row for SM {int(rows['sm'].max())} >= num_sms {self.nsm}")
        unit = rows["cycle0"].astype(np.int64) // self.iv
        units = np.unique(unit)
        for sl in _contiguous(units):
            u = units[sl]
            r = rows[(unit >= u[0]) & (unit <= u[-1])]
            ui = r["cycle0"].astype(np.int64) // self.iv - u[0]
            n = len(u)
            cols = {"units": np.ones(n, np.uint64)}
            for f in CTR_GPU_FIELDS:
                cols[f] = np.bincount(ui, weights=r[f], minlength=n).astype(np.uint64)
            h = np.zeros((n, self.nsm, NSTATES), np.uint64)
            np.add.at(h, (ui, r["sm"]), r["state_hist"].astype(np.uint64))
            iss = np.zeros((n, self.nsm), np.uint64)
            np.add.at(iss, (ui, r["sm"]), r["issued"].astype(np.uint64))
            cols["state_hist"], cols["sm_h"], cols["sm_issued"] = h.sum(axis=1), h, iss
            self._emit_gpu(0, int(u[0]), n, cols)
            for k, b, m, c in self.gpu_pyr.push(int(u[0]), cols):
                self._emit_gpu(k, b, m, c)
            self.sealed = max(self.sealed, int(u[-1] + 1) * self.iv)

    def _bucket_cycles(self, k: int, b: int, n: int) -> np.ndarray:
        width = self.iv << k
        starts = (b + np.arange(n, dtype=np.int64)) * width
        end = self.end_cycle if self.end_cycle is not None else int(starts[-1]) + width
        return np.maximum(np.minimum(starts + width, end) - starts, 1)

    def _emit_gpu(self, k: int, b: int, n: int, cols: dict) -> None:
        width = self.iv << k
        g = np.zeros(n, CTR_GPU_DT)
        g["cycle0"] = (b + np.arange(n, dtype=np.uint64)) * width
        g["units"] = cols["units"]
        for f in CTR_GPU_FIELDS + ("state_hist",):
            g[f] = cols[f]
        self.buf.add("ctr_gpu", k, 0, b * width, (b + n) * width, g)
        s = np.zeros(n, self.sm_dt)
        s["cycle0"] = g["cycle0"]
        s["dom"], s["act"] = strip(cols["sm_h"], self._bucket_cycles(k, b, n)[:, None], self.slots)
        s["issued"] = cols["sm_issued"]
        self.buf.add("ctr_sm", k, 0, b * width, (b + n) * width, s)

    # ------------------------------------------------------------------ memory partitions
    def _mem(self, rows: np.ndarray) -> None:
        if not len(rows):
            return
        unit = rows["cycle0"].astype(np.int64) // self.iv
        units = np.unique(unit)
        for sl in _contiguous(units):
            u = units[sl]
            r = rows[(unit >= u[0]) & (unit <= u[-1])]
            ui = r["cycle0"].astype(np.int64) // self.iv - u[0]
            n = len(u)
            cols = {"units": np.ones(n, np.uint64)}
            for f in CTR_MEM_FIELDS:
                cols[f] = np.bincount(ui, weights=r[f], minlength=n).astype(np.uint64)
            self._emit_mem(0, int(u[0]), n, cols)
            for k, b, m, c in self.mem_pyr.push(int(u[0]), cols):
                self._emit_mem(k, b, m, c)

    def _emit_mem(self, k: int, b: int, n: int, cols: dict) -> None:
        width = self.iv << k
        g = np.zeros(n, CTR_MEM_DT)
        g["cycle0"] = (b + np.arange(n, dtype=np.uint64)) * width
        for f in ("units",) + CTR_MEM_FIELDS:
            g[f] = cols[f]
        self.buf.add("ctr_mem", k, 0, b * width, (b + n) * width, g)
