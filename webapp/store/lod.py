"""Level-of-detail arithmetic: cycles per state per bucket, dominant states, and streaming sum pyramids.

Everything here is exact integer arithmetic on run-length warp states: a run is [start, end) in one state.
The stored summaries are exact per level (the dominant state of a bucket is computed from the bucket's own
exact histogram, never from coarser or finer summaries).
"""
from __future__ import annotations

import numpy as np

from engine.recording import NSTATES, STATE_INDEX

from .layout import NOT_RESIDENT

_NOT_RES = np.array([STATE_INDEX[s] for s in NOT_RESIDENT])


def bucket_durations(key, start, end, state, nkeys: int, lo: int, nb: int, shift: int) -> np.ndarray:
    """Cycles each key spends in each state per bucket: int64 (nkeys, nb, NSTATES).

    Bucket i covers [lo + i * 2^shift, lo + (i + 1) * 2^shift); runs [start, end) are clipped to the nb
    buckets. A run inside one bucket adds its length there; a longer run adds partial lengths to its first
    and last buckets and 2^shift to every bucket between (through a difference array, so a long idle run
    costs O(1), not O(buckets))."""
    width = 1 << shift
    hi = lo + nb * width
    s = np.clip(np.asarray(start, np.int64), lo, hi)
    e = np.clip(np.asarray(end, np.int64), lo, hi)
    keep = e > s
    key = np.asarray(key, np.int64)[keep]
    st = np.asarray(state, np.int64)[keep]
    s, e = s[keep], e[keep]
    b0 = (s - lo) >> shift
    b1 = (e - 1 - lo) >> shift
    size = nkeys * nb * NSTATES
    same = b0 == b1
    cell = lambda k, b, x: (k * nb + b) * NSTATES + x   # noqa: E731
    out = np.bincount(cell(key[same], b0[same], st[same]), weights=(e - s)[same], minlength=size)
    span = ~same
    if span.any():
        k, x, s2, e2, c0, c1 = key[span], st[span], s[span], e[span], b0[span], b1[span]
        first = lo + (c0 + 1) * width - s2
        last = e2 - (lo + c1 * width)
        out += np.bincount(np.concatenate([cell(k, c0, x), cell(k, c1, x)]),
                           weights=np.concatenate([first, last]), minlength=size)
        # interior buckets c0+1 .. c1-1 are entirely in state x: +width from c0+1, -width from c1
        diff = np.bincount(cell(k, c0 + 1, x), minlength=size) - np.bincount(cell(k, c1, x), minlength=size)
        out += np.cumsum(diff.reshape(nkeys, nb, NSTATES), axis=1).reshape(-1) * width
    # float64 weights are exact below 2^53 cycles
    return np.rint(out).astype(np.int64).reshape(nkeys, nb, NSTATES)


def runs_of(key, cycle, state, carry_state, s0: int, s1: int, extra: dict | None = None):
    """Runs [start, end) per key from rows (key, cycle, state) sorted by (key, cycle) and every key's state
    at s0 (carry_state, one entry per key 0..nkeys-1). Returns (key, start, end, state, extra) sorted by
    (key, start); `extra` maps a name to (carry values, row values) and comes back as run values."""
    nkeys = len(carry_state)
    keys = np.concatenate([np.arange(nkeys, dtype=np.int64), np.asarray(key, np.int64)])
    starts = np.concatenate([np.full(nkeys, s0, np.int64), np.asarray(cycle, np.int64)])
    states = np.concatenate([np.asarray(carry_state, np.int64), np.asarray(state, np.int64)])
    order = np.lexsort((np.arange(len(keys)) >= nkeys, starts, keys))  # the carry run first at a tie
    keys, starts, states = keys[order], starts[order], states[order]
    ends = np.empty_like(starts)
    ends[:-1] = starts[1:]
    last = np.ones(len(keys), bool)
    last[:-1] = keys[1:] != keys[:-1]
    ends[last] = s1
    ext = {n: np.concatenate([np.asarray(c), np.asarray(r)])[order] for n, (c, r) in (extra or {}).items()}
    return keys, starts, ends, states, ext


def pairwise(h: np.ndarray, axis: int = 1) -> np.ndarray:
    """Sum adjacent bucket pairs (the next coarser level); the bucket count along `axis` must be even."""
    shape = list(h.shape)
    shape[axis:axis + 1] = [shape[axis] // 2, 2]
    return h.reshape(shape).sum(axis=axis + 1)


def dominant(h: np.ndarray) -> np.ndarray:
    """The state with the most cycles (ties: the lowest state index), uint8, over the last axis."""
    return np.argmax(h, axis=-1).astype(np.uint8)


def strip(h: np.ndarray, cycles: np.ndarray, slots: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-SM strip from histograms (..., NSTATES) of buckets of `cycles` cycles on SMs of `slots` slots:
    the dominant state among resident warps (idle when none) and the resident fraction as uint8 of 255."""
    resident = h.copy()
    resident[..., _NOT_RES] = 0
    dom = np.where(resident.sum(axis=-1) > 0, dominant(resident), STATE_INDEX["idle"]).astype(np.uint8)
    cap = np.maximum(np.asarray(cycles, np.float64) * slots, 1.0)
    act = np.rint(np.clip(resident.sum(axis=-1) / cap, 0.0, 1.0) * 255.0).astype(np.uint8)
    return dom, act


class SumPyramid:
    """Streaming exact sums over buckets of 2^k consecutive units (k in `levels`, k >= 1).

    `push(i0, cols)` adds units i0, i0+1, ... (one row of every column per unit; units only increase,
    gaps count as zeros) and returns the buckets completed by it as (k, first_bucket, n, cols); `finish()`
    returns the open ones. Memory: one open bucket per level."""

    def __init__(self, levels):
        self.levels = [k for k in levels if k >= 1]
        self.open: dict[int, tuple[int, dict]] = {}   # k -> (bucket index, sums)
        self.next_unit = 0

    def push(self, i0: int, cols: dict[str, np.ndarray]) -> list:
        n = len(next(iter(cols.values())))
        if i0 < self.next_unit:
            raise ValueError(f"units must increase: got {i0} after {self.next_unit - 1}")
        done = []
        end = i0 + n
        for k in self.levels:
            ids = (i0 + np.arange(n)) >> k
            starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
            gid = ids[starts]
            sums = {c: np.add.reduceat(v.astype(np.uint64) if v.dtype.kind == "u" else v, starts, axis=0)
                    for c, v in cols.items()}
            if k in self.open:
                b, acc = self.open.pop(k)
                if b == gid[0]:
                    for c in sums:
                        sums[c][0] += acc[c]
                else:
                    done.append((k, b, 1, {c: v[None] for c, v in acc.items()}))
            complete = ((gid + 1) << k) <= end
            if complete.any():
                idx = np.flatnonzero(complete)
                done.append((k, int(gid[idx[0]]), len(idx), {c: v[idx] for c, v in sums.items()}))
            if not complete[-1]:
                self.open[k] = (int(gid[-1]), {c: v[-1] for c, v in sums.items()})
        self.next_unit = end
        return done

    def finish(self) -> list:
        out = [(k, b, 1, {c: v[None] for c, v in acc.items()}) for k, (b, acc) in sorted(self.open.items())]
        self.open.clear()
        return out
