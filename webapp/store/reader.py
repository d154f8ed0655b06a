"""RunReader: window queries on a run file at a resolution, answered from the level-of-detail chunks.

Resolutions are powers of two (`shift`: 2^shift cycles per bucket); a window [a, b) is widened to whole
buckets. Each query reads only the chunks that overlap the window at one level, so its cost depends on the
number of buckets asked for, not on the length of the run. Answers are dicts of numpy arrays with
`cycle0` (first bucket's cycle), `step` (cycles per bucket) and `n` (buckets); wire.py encodes them.
The reader is used from one thread at a time (the server keeps one reader per thread, see cache.py).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from . import codec, runfile
from .layout import (CARRY_DT, CTR_LEVELS, CTR_MEM_DT, DELTA, KERNEL_DT, SLOT_LEVELS, STRIP_LEVELS, chunk_spec,
                     schema_of)
from .lod import dominant_sparse, runs_of

MAX_BUCKETS = 1 << 15          # a request for more buckets than this is answered at a coarser resolution
NO_DATA = 255                  # a state byte for buckets with no data (not recorded yet, outside the run)
PC_SHIFT = 2                   # heatmaps carry each bucket's PC up to 4 cycles per bucket (for tooltips)


class RunReader:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.con = runfile.connect(self.path, readonly=True)
        self.refresh()
        found = self.meta.get("format")
        why = runfile.format_mismatch(found) if found is not None else ""   # None: a file being created
        if why:
            self.con.close()
            raise ValueError(f"{self.path.name}: {why}")

    def close(self) -> None:
        self.con.close()

    def refresh(self) -> dict:
        """Re-read meta (progress and sealed frontiers of a run in flight)."""
        self.meta = runfile.all_meta(self.con)
        self.rec = self.meta.get("recording") or {}
        self.schema = schema_of(self.rec)      # the file's own row layouts and enum names
        return self.meta

    # ------------------------------------------------------------------ basics
    @property
    def status(self) -> str:
        return self.meta.get("status", "created")

    @property
    def end_cycle(self) -> int:
        """The last cycle with data: the run's end once finished, else what has been recorded so far."""
        if "end_cycle" in self.meta:
            return int(self.meta["end_cycle"])
        return max(int(self.meta.get("sealed_cycle", 0)), int(self.meta.get("ctr_cycle", 0)),
                   int((self.meta.get("progress") or {}).get("cycle", 0)))

    @property
    def slots(self) -> int:
        return int(self.rec.get("warp_slots_per_sm", 0))

    @property
    def interval(self) -> int:
        return int(self.rec.get("interval") or 1000)

    def chunks(self, tbl: str, level: int, key: int, a: int, b: int):
        """Chunks of (tbl, level, key) overlapping [a, b), ordered by lo: (lo, hi, n, data, extra)."""
        return self.con.execute(
            "SELECT lo, hi, n, data, extra FROM chunks WHERE tbl=? AND level=? AND key=? AND lo<? AND hi>? "
            "ORDER BY lo", (tbl, int(level), int(key), int(b), int(a))).fetchall()

    def decode(self, tbl: str, n: int, data: bytes) -> np.ndarray:
        dtype, shape = chunk_spec(tbl, self.rec)
        return codec.unpack(data, dtype, n, shape, DELTA.get(tbl.removeprefix("raw:"), ()))

    def table(self, tbl: str, level: int = 0, key: int = 0, a: int = 0, b: int = 1 << 62) -> np.ndarray:
        parts = [self.decode(tbl, n, d) for _lo, _hi, n, d, _x in self.chunks(tbl, level, key, a, b)]
        if parts:
            return np.concatenate(parts)
        dtype, shape = chunk_spec(tbl, self.rec)
        return np.zeros((0,) + shape, dtype)

    def columns(self, tbl: str, level: int = 0, key: int = 0, a: int = 0, b: int = 1 << 62) -> dict:
        """Like table() but as {field: array}, concatenated over the chunks (no record assembly)."""
        dtype, _shape = chunk_spec(tbl, self.rec)
        delta = DELTA.get(tbl.removeprefix("raw:"), ())
        parts = [codec.unpack_columns(d, dtype, n, delta) for _lo, _hi, n, d, _x in self.chunks(tbl, level, key, a, b)]
        if not parts:
            return {f: np.zeros((0,) + dtype.fields[f][0].shape, dtype.fields[f][0].base) for f in dtype.names}
        return {f: np.concatenate([p[f] for p in parts]) for f in dtype.names}

    def raw(self, table: str) -> np.ndarray:
        """One of the recorder's tables exactly as recorded (not warp_states: see warp_rows)."""
        if table not in self.schema.raw:
            raise KeyError(f"no raw table {table!r}")
        return self.table("raw:" + table)

    # ------------------------------------------------------------------ windows
    def _window(self, a: int, b: int, step: int) -> tuple[int, int]:
        a0 = max(0, int(a)) // step * step
        b0 = max(a0 + step, -(-int(b) // step) * step)
        return a0, (b0 - a0) // step

    @staticmethod
    def _fit(shift: int, a: int, b: int) -> int:
        while (max(int(b) - int(a), 1) >> shift) > MAX_BUCKETS:
            shift += 1
        return shift

    def heat(self, sm: int, a: int, b: int, shift: int) -> dict:
        """Warp x cycle heatmap of one recorded SM: the dominant state of every slot per bucket (slots, n),
        and at fine resolutions (below SLOT_LEVELS) the PC at each bucket's start."""
        if sm not in self.rec.get("record_sms", []) or self.rec.get("level") != "full":
            raise LookupError(f"SM {sm} has no warp-state recording in this run")
        shift = self._fit(max(0, int(shift)), a, b)
        if shift < SLOT_LEVELS[0]:
            return self._heat_raw(sm, a, b, shift)
        L = min(shift, SLOT_LEVELS[-1])
        step = 1 << L
        a0, nb = self._window(a, b, step)
        out = np.full((nb, self.slots), NO_DATA, np.uint8)
        for lo, hi, n, data, _x in self.chunks("slot", L, sm, a0, a0 + nb * step):
            arr = self.decode("slot", n, data)
            i0 = (lo - a0) >> L
            s, e = max(0, i0), min(nb, i0 + n)
            if e > s:
                out[s:e] = arr[s - i0:e - i0]
        self._blank_future(out, a0, step)
        return {"sm": sm, "cycle0": a0, "step": step, "n": nb, "state": np.ascontiguousarray(out.T), "pc": None}

    def _blank_future(self, arr: np.ndarray, a0: int, step: int) -> None:
        """Buckets at or after the end of the data read as NO_DATA."""
        first = -(-(self.end_cycle - a0) // step)
        if first < len(arr):
            arr[max(first, 0):] = NO_DATA

    def warp_runs(self, sm: int, a: int, b: int):
        """Every run of every slot of `sm` overlapping [a, b): (slot, start, end, state, pc, cta), by slot."""
        parts = []
        for lo, hi, n, data, extra in self.chunks("ws", 0, sm, a, b):
            rows = self.decode("ws", n, data)
            carry = np.frombuffer(extra, CARRY_DT)
            parts.append(runs_of(rows["slot"], rows["cycle"], rows["state"], carry["state"], lo, hi,
                                 {"pc": (carry["pc"], rows["pc"]), "cta": (carry["cta"], rows["cta"])}))
        if not parts:
            z = np.zeros(0, np.int64)
            return z, z, z, z, z, z
        k, s, e, st, ext = _cat_runs(parts)
        keep = (e > max(0, a)) & (s < b) & (e > s)
        order = np.lexsort((s[keep], k[keep]))
        return (k[keep][order], s[keep][order], e[keep][order], st[keep][order], ext["pc"][keep][order],
                ext["cta"][keep][order])

    def _heat_raw(self, sm: int, a: int, b: int, shift: int) -> dict:
        step = 1 << shift
        a0, nb = self._window(a, b, step)
        b0 = a0 + nb * step
        k, s, e, st, pc, _cta = self.warp_runs(sm, a0, b0)
        s, e = np.maximum(s, a0), np.minimum(e, b0)
        ok = e > s
        k, s, e, st, pc = k[ok], s[ok], e[ok], st[ok], pc[ok]
        ln = e - s
        if shift == 0 and np.bincount(k, weights=ln, minlength=self.slots).tolist() == [nb] * self.slots:
            # one cycle per bucket and every slot's runs tile the window: the state is the run's state
            state = np.repeat(st.astype(np.uint8), ln).reshape(self.slots, nb)
            pcs = np.repeat(pc.astype(np.uint32), ln).reshape(self.slots, nb)
            self._blank_future(state.T, a0, step)
            return {"sm": sm, "cycle0": a0, "step": step, "n": nb, "state": state, "pc": pcs}
        state = dominant_sparse(k, s, e, st, self.slots, a0, nb, shift, NO_DATA)
        self._blank_future(state.T, a0, step)
        pcs = None
        if shift <= PC_SHIFT:       # the PC of the run covering each bucket's start (tooltips at fine zoom)
            t = a0 + (np.arange(nb, dtype=np.int64) << shift)
            span = int(b0) + 1
            flat = k * span + s
            q = (np.arange(self.slots, dtype=np.int64)[:, None] * span + t[None, :]).ravel()
            idx = np.searchsorted(flat, q, side="right") - 1
            i = np.maximum(idx, 0)
            hit = (idx >= 0) & (k[i] == q // span) & (e[i] > q % span) if len(k) else np.zeros(len(q), bool)
            pcs = np.where(hit, pc[i] if len(pc) else 0, 0).astype(np.uint32).reshape(self.slots, nb)
        return {"sm": sm, "cycle0": a0, "step": step, "n": nb, "state": state, "pc": pcs}

    def strips(self, a: int, b: int, shift: int) -> dict:
        """Per recorded SM: dominant state among resident warps and resident fraction (of 255) per bucket."""
        sms = list(self.rec.get("record_sms", [])) if self.rec.get("level") == "full" else []
        L = min(max(self._fit(int(shift), a, b), STRIP_LEVELS[0]), STRIP_LEVELS[-1])
        step = 1 << L
        a0, nb = self._window(a, b, step)
        dom = np.full((nb, len(sms)), NO_DATA, np.uint8)
        act = np.zeros((nb, len(sms)), np.uint8)
        for lo, hi, n, data, _x in (self.chunks("strip", L, 0, a0, a0 + nb * step) if sms else []):
            arr = self.decode("strip", n, data)
            i0 = (lo - a0) >> L
            s, e = max(0, i0), min(nb, i0 + n)
            if e > s:
                dom[s:e], act[s:e] = arr[s - i0:e - i0, 0], arr[s - i0:e - i0, 1]
        self._blank_future(dom, a0, step)
        return {"sms": sms, "cycle0": a0, "step": step, "n": nb, "dom": np.ascontiguousarray(dom.T),
                "act": np.ascontiguousarray(act.T)}

    def _ctr_level(self, res: int, a: int, b: int) -> int:
        k = 0
        while k < CTR_LEVELS[-1] and (self.interval << (k + 1)) <= res:
            k += 1
        while k < CTR_LEVELS[-1] and (max(b - a, 1) // (self.interval << k)) > MAX_BUCKETS:
            k += 1
        return k

    def counters(self, a: int, b: int, res: int) -> dict:
        """GPU-wide counters per bucket of interval * 2^k cycles (the largest not above `res`): exact sums
        (dtype schema.ctr_gpu / CTR_MEM_DT fields) and the bucket's cycles; buckets without data are zero."""
        k = self._ctr_level(int(res), a, b)
        step = self.interval << k
        a0, nb = self._window(a, b, step)
        out = {"cycle0": a0, "step": step, "n": nb, "level": k}
        for tbl, dt in (("ctr_gpu", self.schema.ctr_gpu), ("ctr_mem", CTR_MEM_DT)):
            rows = self.table(tbl, k, 0, a0, a0 + nb * step)
            dense = np.zeros(nb, dt)
            i = (rows["cycle0"].astype(np.int64) - a0) // step
            ok = (i >= 0) & (i < nb)
            dense[i[ok]] = rows[ok]
            out[tbl] = dense
        starts = a0 + np.arange(nb, dtype=np.int64) * step
        out["cycles"] = np.clip(np.minimum(starts + step, self.end_cycle) - starts, 0, step)
        return out

    def sm_counters(self, a: int, b: int, res: int) -> dict:
        """Per SM (every SM, from the counters): dom, act (nsm, n) and issued (nsm, n)."""
        k = self._ctr_level(int(res), a, b)
        step = self.interval << k
        a0, nb = self._window(a, b, step)
        nsm = int(self.rec.get("num_sms", 0))
        rows = self.columns("ctr_sm", k, 0, a0, a0 + nb * step)
        dom = np.full((nsm, nb), NO_DATA, np.uint8)
        act = np.zeros((nsm, nb), np.uint8)
        issued = np.zeros((nsm, nb), np.uint64)
        i = (rows["cycle0"].astype(np.int64) - a0) // step
        ok = np.flatnonzero((i >= 0) & (i < nb))
        dom[:, i[ok]], act[:, i[ok]], issued[:, i[ok]] = rows["dom"][ok].T, rows["act"][ok].T, rows["issued"][ok].T
        return {"cycle0": a0, "step": step, "n": nb, "sms": list(range(nsm)), "dom": dom, "act": act, "issued": issued}

    def ctas(self, a: int, b: int, res: int = 1, limit: int = 200_000) -> dict:
        """CTA spans overlapping [a, b) as columns (CTA_DT fields plus count); per (SM, lane), spans under
        `res` cycles and closer than `res` to each other are merged (count > 1). The decoded span table
        is kept while the run file's CTA chunks do not change."""
        ver = self.con.execute("SELECT count(*), max(id) FROM chunks WHERE tbl='cta'").fetchone()
        if getattr(self, "_cta_cache", (None,))[0] != ver:
            self._cta_cache = (ver, self.columns("cta"))
        sp = self._cta_cache[1]
        sel = np.flatnonzero((sp["start"] < b) & (sp["end"] > max(a, 0)))
        return merge_spans({f: v[sel] for f, v in sp.items()}, max(1, int(res)), limit)

    def kernels(self) -> np.ndarray:
        return self.table("kernel") if self.chunks("kernel", 0, 0, 0, 1 << 62) else np.zeros(0, KERNEL_DT)

    def pc_stats(self) -> np.ndarray:
        return self.raw("pc_stats")


def _cat_runs(parts):
    k, s, e, st = (np.concatenate([p[i] for p in parts]) for i in range(4))
    ext = {name: np.concatenate([p[4][name] for p in parts]) for name in parts[0][4]}
    return k, s, e, st, ext


def merge_spans(sp: dict, res: int, limit: int = 1 << 62) -> dict:
    """Merge consecutive spans of one (sm, lane) that are each shorter than `res` cycles (under a pixel)
    and closer than `res` cycles to each other (Perfetto's merged slices); longer spans stay whole.
    Columns in, columns out (plus `count`, the spans each output span stands for)."""
    n = len(sp["start"])
    order = np.lexsort((sp["start"], sp["lane"], sp["sm"]))
    sp = {f: v[order] for f, v in sp.items()}
    if n == 0 or res <= 1:
        return {**{f: v[:limit] for f, v in sp.items()}, "count": np.ones(min(n, limit), np.uint32)}
    start, end = sp["start"].astype(np.int64), sp["end"].astype(np.int64)
    same = (sp["sm"][1:] == sp["sm"][:-1]) & (sp["lane"][1:] == sp["lane"][:-1])
    small = (end - start) < res
    join = same & (start[1:] - end[:-1] < res) & small[1:] & small[:-1]
    first = np.flatnonzero(np.r_[True, ~join])
    out = {f: v[first][:limit] for f, v in sp.items()}
    out["end"] = np.maximum.reduceat(sp["end"], first)[:limit]
    out["count"] = np.diff(np.r_[first, n]).astype(np.uint32)[:limit]
    return out
