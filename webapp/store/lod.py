"""Level-of-detail arithmetic: cycles per state per bucket, dominant states, and streaming sum pyramids.

Everything here is exact integer arithmetic on run-length warp states: a run is [start, end) in one state.
The stored summaries are exact per level (the dominant state of a bucket is computed from the bucket's own
exact histogram, never from coarser or finer summaries).
"""
from __future__ import annotations

import numpy as np

from engine.recording import NSTATES, STATE_INDEX

from .layout import NOT_RESIDENT

try:
    from ._lod import ffi, lib      # the store's C module (csrc/lod.c, built by build_lod.py)
except ImportError as exc:  # pragma: no cover - message for an unbuilt checkout
    raise ImportError("the run store's C module is not built: run `python setup.py build_ext --inplace` "
                      f"(or `pip install -e .`) in the project root ({exc})") from exc

_NOT_RES = np.array([STATE_INDEX[s] for s in NOT_RESIDENT])


def bucket_durations(key, start, end, state, nkeys: int, lo: int, nb: int, shift: int,
                     nstates: int = NSTATES) -> np.ndarray:
    """Cycles each key spends in each state per bucket, bucket-major: int64 (nb, nkeys, nstates).

    Bucket i covers [lo + i * 2^shift, lo + (i + 1) * 2^shift); runs [start, end) are clipped to the nb
    buckets and add their cycles in each bucket they cover. `state` values must be < nstates (callers may
    pass compacted state indices). Bucket-major so that sums over buckets and the per-SM slices of the
    output are contiguous. One pass over the runs in C (csrc/lod.c) with exact integer sums (a numpy
    scatter over a dense float array was the largest cost of storing full recordings)."""
    cols = [np.ascontiguousarray(a, np.int64) for a in (key, start, end, state)]
    out = np.zeros((nb, nkeys, nstates), np.int64)
    p = [ffi.from_buffer("int64_t[]", a) for a in cols]
    if lib.gs_lod_durations(*p, len(cols[0]), int(lo), int(nb), int(shift), int(nkeys), int(nstates),
                            ffi.from_buffer("int64_t[]", out)) < 0:
        raise ValueError(f"bucket_durations: a key >= {nkeys} or a state >= {nstates} among the runs")
    return out


def dominant_sparse(key, start, end, state, nkeys: int, lo: int, nb: int, shift: int, empty: int = 255) -> np.ndarray:
    """The dominant state per (key, bucket), uint8 (nkeys, nb), `empty` where no run covers the bucket:
    the same answer as dominant(bucket_durations(...)), computed from the runs' pieces instead of a dense
    (bucket, key, state) array, which is far cheaper when buckets outnumber runs (fine zoom). Buckets
    strictly inside a run are that run's state; the others compare summed partial pieces."""
    width = 1 << shift
    hi = lo + nb * width
    s = np.clip(np.asarray(start, np.int64), lo, hi)
    e = np.clip(np.asarray(end, np.int64), lo, hi)
    keep = e > s
    k, st, s, e = np.asarray(key, np.int64)[keep], np.asarray(state, np.int64)[keep], s[keep], e[keep]
    out = np.full(nkeys * nb, empty, np.uint8)
    b0, b1 = (s - lo) >> shift, (e - 1 - lo) >> shift
    inner = np.maximum(b1 - b0 - 1, 0)                     # whole buckets inside each run
    if inner.any():
        rep = np.repeat(np.arange(len(k)), inner)
        offs = np.arange(len(rep)) - np.repeat(np.cumsum(inner) - inner, inner)
        out[k[rep] * nb + b0[rep] + 1 + offs] = st[rep]
    one = b0 == b1                                         # partial pieces: first and last bucket of a run
    cell = np.concatenate([k * nb + b0, (k * nb + b1)[~one]])
    ln = np.concatenate([np.where(one, e - s, lo + (b0 + 1) * width - s), (e - (lo + b1 * width))[~one]])
    pst = np.concatenate([st, st[~one]])
    code = cell * 256 + pst
    order = np.argsort(code, kind="stable")
    code, ln = code[order], ln[order]
    # no piece at all (every run empty or outside [lo, hi)): no group either, not one group of nothing
    first = np.flatnonzero(np.r_[True, code[1:] != code[:-1]]) if len(code) else np.zeros(0, np.int64)
    sums = np.add.reduceat(ln, first) if len(first) else ln[:0]
    ucode = code[first]
    ucell, ust = ucode >> 8, ucode & 255
    # per cell, the largest sum; ties to the lowest state (stable order by state within a cell)
    o = np.lexsort((ust, -sums, ucell))
    head = o[np.r_[True, ucell[o][1:] != ucell[o][:-1]]] if len(o) else o
    out[ucell[head]] = ust[head]
    return out.reshape(nkeys, nb)


def runs_of(key, cycle, state, carry_state, s0: int, s1: int, extra: dict | None = None):
    """Runs [start, end) per key from rows (key, cycle, state) sorted by (key, cycle) and every key's state
    at s0 (carry_state, one entry per key 0..nkeys-1). Returns (key, start, end, state, extra) sorted by
    (key, start); `extra` maps a name to (carry values, row values) and comes back as run values."""
    nkeys = len(carry_state)
    key = np.asarray(key, np.int64)
    pos = np.searchsorted(key, np.arange(nkeys))             # each key's carry run goes before its rows
    keys = np.insert(key, pos, np.arange(nkeys))
    starts = np.insert(np.asarray(cycle, np.int64), pos, s0)
    states = np.insert(np.asarray(state, np.int64), pos, np.asarray(carry_state, np.int64))
    ends = np.empty_like(starts)
    ends[:-1] = starts[1:]
    last = np.ones(len(keys), bool)
    last[:-1] = keys[1:] != keys[:-1]
    ends[last] = s1
    ext = {n: np.insert(np.asarray(r), pos, np.asarray(c)) for n, (c, r) in (extra or {}).items()}
    return keys, starts, ends, states, ext


def pairwise(h: np.ndarray, axis: int = 0) -> np.ndarray:
    """Sum adjacent bucket pairs (the next coarser level); the bucket count along `axis` must be even."""
    shape = list(h.shape)
    shape[axis:axis + 1] = [shape[axis] // 2, 2]
    return h.reshape(shape).sum(axis=axis + 1)


def dominant(h: np.ndarray, state_ids: np.ndarray | None = None) -> np.ndarray:
    """The state with the most cycles (ties: the lowest state index), uint8, over the last axis, whose
    entries are the states `state_ids` (ascending; default all states)."""
    i = argmax_last(h)
    return (i if state_ids is None else np.asarray(state_ids)[i]).astype(np.uint8)


def dominant_levels(h: np.ndarray, state_ids, levels: int):
    """For `levels` successive levels from h (int64 (nb, nkeys, nstates) histograms over the states
    `state_ids`), yields the dominant state (ties: the lowest entry) of every (bucket, key) as uint8
    (nb_level, nkeys); each next level sums the previous one's bucket pairs. Works in place in C
    (csrc/lod.c): after the last level, h[0] holds that level's first histogram."""
    if not (h.flags.c_contiguous and h.dtype == np.int64):
        raise TypeError("dominant_levels needs a C-contiguous int64 array (it folds in place)")
    nb, nk, ns = h.shape
    ids = np.ascontiguousarray(state_ids, np.uint8)
    if len(ids) != ns or ns == 0:
        raise ValueError(f"dominant_levels: {len(ids)} state ids for {ns} histogram entries")
    hp, ip = ffi.from_buffer("int64_t[]", h), ffi.from_buffer("uint8_t[]", ids)
    for i in range(levels):
        dom = np.empty((nb, nk), np.uint8)
        lib.gs_lod_dominant_fold(hp, nb, nk, ns, ip, ffi.from_buffer("uint8_t[]", dom), int(i < levels - 1))
        yield dom
        nb //= 2


def argmax_last(h: np.ndarray) -> np.ndarray:
    """np.argmax(h, axis=-1) (first maximum wins) for a short last axis: one vector pass per entry of
    that axis, several times faster than numpy's per-row argmax on arrays like (64, 2048, 10)."""
    if h.shape[-1] == 0:
        return np.zeros(h.shape[:-1], np.int64)
    best = h[..., 0].copy()
    idx = np.zeros(h.shape[:-1], np.int64)
    for j in range(1, h.shape[-1]):
        col = h[..., j]
        m = col > best
        np.copyto(best, col, where=m)
        idx[m] = j
    return idx


def strip(h: np.ndarray, cycles: np.ndarray, slots: int, state_ids: np.ndarray | None = None):
    """Per-SM strip from histograms (..., states) of buckets of `cycles` cycles on SMs of `slots` slots:
    the dominant state among resident warps (idle when none) and the resident fraction as uint8 of 255."""
    ids = np.arange(h.shape[-1]) if state_ids is None else np.asarray(state_ids)
    res_cols = ~np.isin(ids, _NOT_RES)
    resident = h[..., res_cols]
    rsum = resident.sum(axis=-1)
    dom = np.where(rsum > 0, dominant(resident, ids[res_cols]) if res_cols.any() else STATE_INDEX["idle"],
                   STATE_INDEX["idle"]).astype(np.uint8)
    cap = np.maximum(np.asarray(cycles, np.float64) * slots, 1.0)
    act = np.rint(np.clip(rsum / cap, 0.0, 1.0) * 255.0).astype(np.uint8)
    return dom, act


def expand_states(h: np.ndarray, state_ids: np.ndarray) -> np.ndarray:
    """Histograms over the states `state_ids` -> histograms over all NSTATES states (zeros elsewhere)."""
    out = np.zeros(h.shape[:-1] + (NSTATES,), h.dtype)
    out[..., state_ids] = h
    return out


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
        if n == 1:                                 # one unit (a segment): no reduceat, no copies
            for k in self.levels:
                g = i0 >> k
                b, acc = self.open.get(k, (None, None))
                if b is not None and b != g:
                    done.append((k, b, 1, {c: v[None] for c, v in acc.items()}))
                    b = None
                if b is None:
                    acc = {c: v[0].copy() for c, v in cols.items()}
                else:
                    for c, v in cols.items():
                        acc[c] += v[0]
                if ((g + 1) << k) <= end:
                    done.append((k, g, 1, {c: v[None] for c, v in acc.items()}))
                    self.open.pop(k, None)
                else:
                    self.open[k] = (g, acc)
            self.next_unit = end
            return done
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
