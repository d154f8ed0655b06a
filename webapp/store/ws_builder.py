"""Warp-state rows -> per-SM raw segments + the `slot` and `strip` level-of-detail pyramids (streaming).

Rows arrive in cycle order (the recorder's contract). Every SEG cycles, once a row at or past the
segment's end has arrived (so no row of the segment can still come), the segment is sealed:
  * per recorded SM, a `ws` chunk: the segment's rows sorted by (slot, cycle), and in `extra` the state of
    every slot at the segment start (so any window is answered from its own segments);
  * levels inside a segment (2^L <= SEG) are computed from the segment's runs exactly;
  * coarser levels sum whole segments in a SumPyramid (exact), dominant states taken from those sums.
"""
from __future__ import annotations

import numpy as np

from engine.recording import NSTATES, STATE_INDEX, WARP_STATE_DT

from . import codec
from .layout import CARRY_DT, DELTA, SEG, SEG_SHIFT, SLOT_LEVELS, STRIP_LEVELS, WS_DT
from .lod import (SumPyramid, bucket_durations, dominant, dominant_levels, expand_states, pairwise, runs_of,
                  strip)
from .runfile import ChunkBuffer, put_blob

IDLE = STATE_INDEX["idle"]
FIELDS = tuple(dict.fromkeys(("cycle", "sm") + WS_DT.names))   # the columns kept from each row


class WarpStateBuilder:
    def __init__(self, con, buf: ChunkBuffer, record_sms: list[int], slots: int, num_sms: int):
        self.con, self.buf = con, buf
        self.sms = [int(s) for s in record_sms]
        self.slots = int(slots)
        self.smidx = np.full(max(num_sms, max(self.sms, default=0) + 1), -1, np.int64)
        self.smidx[self.sms] = np.arange(len(self.sms))
        self.nkeys = len(self.sms) * self.slots
        self.carry = np.zeros(self.nkeys, CARRY_DT)
        self.carry["state"] = IDLE
        self.pending: list[np.ndarray] = []
        self.max_cycle = -1
        self.seg0 = 0                       # start of the next segment to seal
        self.strip_pyr = SumPyramid(L - SEG_SHIFT for L in STRIP_LEVELS if L > SEG_SHIFT)
        self.slot_pyr = SumPyramid(L - SEG_SHIFT for L in SLOT_LEVELS if L > SEG_SHIFT)
        self.end_cycle = None

    @property
    def sealed(self) -> int:
        return self.seg0

    def append(self, rows: np.ndarray) -> None:
        if rows.dtype != WARP_STATE_DT:
            raise TypeError(f"warp_states chunk has dtype {rows.dtype}, expected {WARP_STATE_DT}")
        if not len(rows):
            return
        cyc = rows["cycle"]
        if int(cyc[0]) < self.max_cycle or np.any(cyc[1:] < cyc[:-1]):
            raise ValueError(f"warp_states rows out of cycle order (chunk starts at {int(cyc[0])}, "
                             f"previous rows reached {self.max_cycle})")
        sm = rows["sm"].astype(np.int64)
        if sm.max() >= len(self.smidx) or np.any(self.smidx[sm] < 0):
            bad = sorted(set(sm.tolist()) - set(self.sms))[:5]
            raise ValueError(f"warp_states rows for SMs {bad} that are not recorded (record_sms={self.sms[:8]}...)")
        if rows["slot"].max() >= self.slots:
            raise ValueError(f"warp slot {int(rows['slot'].max())} >= warp_slots_per_sm {self.slots}")
        # keep columns, not records: gathering 24-byte records is ~25x slower than gathering columns
        self.pending.append({f: np.ascontiguousarray(rows[f]) for f in FIELDS})
        self.max_cycle = int(cyc[-1])
        while self.seg0 + SEG <= self.max_cycle:
            self._seal(self.seg0, self.seg0 + SEG)

    def finish(self, end_cycle: int) -> None:
        end = max(int(end_cycle), self.max_cycle + 1)
        self.end_cycle = end
        while self.seg0 < end:
            self._seal(self.seg0, min(self.seg0 + SEG, end))
        for k, b, n, cols in self.strip_pyr.finish():
            self._emit_strip(SEG_SHIFT + k, b, n, cols["h"])
        for k, b, n, cols in self.slot_pyr.finish():
            self._emit_slot(SEG_SHIFT + k, b, n, cols["h"])

    # ------------------------------------------------------------------ one segment
    def _seal(self, s0: int, s1: int) -> None:
        if len(self.pending) == 1:                             # views of the rows left by the last seal
            cols = self.pending[0]
        elif self.pending:
            cols = {f: np.concatenate([p[f] for p in self.pending]) for f in FIELDS}
        else:
            cols = {f: np.zeros(0, WARP_STATE_DT.fields[f][0]) for f in FIELDS}
        n = int(np.searchsorted(cols["cycle"], s1))           # rows are in cycle order
        seg = {f: v[:n] for f, v in cols.items()}
        self.pending = [{f: v[n:] for f, v in cols.items()}] if n < len(cols["cycle"]) else []
        key = self.smidx[seg["sm"]] * self.slots + seg["slot"]
        # a stable sort by key gives (key, cycle) order with same-cycle rows in arrival order (radix sort)
        order = np.argsort(key.astype(np.uint16 if self.nkeys <= 1 << 16 else np.uint32), kind="stable")
        seg = {f: v[order] for f, v in seg.items()}
        key = key[order]
        self._write_raw(s0, s1, seg, key)
        keys, starts, ends, states, _ = runs_of(key, seg["cycle"], seg["state"], self.carry["state"], s0, s1)
        present = np.bincount(seg["state"], minlength=NSTATES) + np.bincount(self.carry["state"], minlength=NSTATES)
        ids = np.flatnonzero(present)                                      # the states present
        lut = np.zeros(NSTATES, np.int64)
        lut[ids] = np.arange(len(ids))
        self._strips(s0, s1, keys, starts, ends, lut[states], ids)
        self._slots(s0, s1, key, keys, starts, ends, lut[states], ids)
        if len(key):                                           # the carry-in of the next segment
            last = np.r_[key[1:] != key[:-1], True]
            k = key[last]
            self.carry["state"][k], self.carry["cta"][k] = seg["state"][last], seg["cta"][last]
            self.carry["pc"][k], self.carry["since"][k] = seg["pc"][last], seg["cycle"][last]
            self.carry["active"][k] = seg["active"][last]
        self.seg0 = s1

    def _write_raw(self, s0, s1, seg, key) -> None:
        bounds = np.searchsorted(key, np.arange(len(self.sms) + 1) * self.slots)
        for i, sm in enumerate(self.sms):
            a, b = bounds[i], bounds[i + 1]
            blob = codec.pack_columns({f: seg[f][a:b] for f in WS_DT.names}, WS_DT, DELTA["ws"])
            put_blob(self.con, "ws", 0, sm, s0, s1, b - a, blob,
                     extra=self.carry[i * self.slots:(i + 1) * self.slots].tobytes())

    def _cycles(self, s0: int, s1: int, shift: int, nb: int) -> np.ndarray:
        lo = s0 + (np.arange(nb, dtype=np.int64) << shift)
        return np.minimum(lo + (1 << shift), s1) - lo

    def _strips(self, s0, s1, keys, starts, ends, cstates, ids) -> None:
        nsm = len(self.sms)
        L0 = STRIP_LEVELS[0]
        h = bucket_durations(keys // self.slots, starts, ends, cstates, nsm, s0, SEG >> L0, L0, len(ids))
        for L in range(L0, SEG_SHIFT + 1):                                  # h: (buckets, sm, states)
            if L > L0:
                h = pairwise(h)
            nb = -(-(s1 - s0) >> L)
            dom, act = strip(h[:nb], self._cycles(s0, s1, L, nb)[:, None], self.slots, ids)
            self.buf.add("strip", L, 0, s0, s0 + (nb << L), np.stack([dom, act], axis=1))
        for k, b, n, cols in self.strip_pyr.push(s0 >> SEG_SHIFT, {"h": expand_states(h[:1], ids)}):
            self._emit_strip(SEG_SHIFT + k, b, n, cols["h"])

    def _emit_strip(self, L: int, b: int, n: int, h: np.ndarray) -> None:
        lo = b << L
        end = self.end_cycle if self.end_cycle is not None else lo + (n << L)
        starts = lo + (np.arange(n, dtype=np.int64) << L)
        cyc = np.minimum(starts + (1 << L), end) - starts                   # the run's last bucket is partial
        dom, act = strip(h, cyc[:, None], self.slots)                        # (n, nsm)
        self.buf.add("strip", L, 0, lo, lo + (n << L), np.stack([dom, act], axis=1))

    def _slots(self, s0, s1, key, keys, starts, ends, cstates, ids) -> None:
        L0 = SLOT_LEVELS[0]
        active = key[np.r_[True, key[1:] != key[:-1]]] if len(key) else key.astype(np.int64)   # key is sorted
        const = np.ones(self.nkeys, bool)
        const[active] = False
        compact = np.full(self.nkeys, -1, np.int64)
        compact[active] = np.arange(len(active))
        ck = compact[keys]
        sel = ck >= 0
        h = bucket_durations(ck[sel], starts[sel], ends[sel], cstates[sel], len(active), s0, SEG >> L0, L0, len(ids))
        for L, dact in zip(range(L0, SEG_SHIFT + 1), dominant_levels(h, ids, SEG_SHIFT + 1 - L0)):
            nb = -(-(s1 - s0) >> L)                                         # h: (buckets, active slot, states)
            dom = np.repeat(self.carry["state"][None, :], nb, axis=0)       # constant slots keep their state
            dom[:, active] = dact[:nb]
            self._add_slot(L, s0, dom)
        total = np.zeros((self.nkeys, NSTATES), np.int64)                    # the whole segment per slot
        total[active[:, None], ids[None, :]] = h[0]
        total[np.flatnonzero(const), self.carry["state"][const]] = s1 - s0
        for k, b, n, cols in self.slot_pyr.push(s0 >> SEG_SHIFT, {"h": total[None]}):
            self._emit_slot(SEG_SHIFT + k, b, n, cols["h"])

    def _emit_slot(self, L: int, b: int, n: int, h: np.ndarray) -> None:
        self._add_slot(L, b << L, dominant(h))

    def _add_slot(self, L: int, lo: int, dom: np.ndarray) -> None:
        """Level-L slot chunks from `dom` (buckets, recorded SM x slot) starting at cycle lo, one per SM."""
        n = len(dom)
        dom = dom.reshape(n, len(self.sms), self.slots).transpose(1, 0, 2).copy()   # (sm, bucket, slot)
        for i, sm in enumerate(self.sms):
            self.buf.add("slot", L, sm, lo, lo + (n << L), dom[i])
