"""Compaction at the end of a run: merge consecutive small chunks (left by live commits) into chunks of
about the target row count. Same rows, fewer reads per window."""
from __future__ import annotations

import numpy as np

from . import codec
from .layout import DELTA, chunk_spec
from .runfile import put_chunk

SKIP = ("ws", "cta")        # ws chunks are segments with a carry-in; cta chunks overlap in cycles


def compact(con, targets: dict[str, int], rec: dict, default: int = 2048) -> int:
    """Returns the number of chunks removed."""
    removed = 0
    groups = con.execute("SELECT tbl, level, key FROM chunks GROUP BY tbl, level, key HAVING count(*) > 1").fetchall()
    for tbl, level, key in groups:
        if tbl in SKIP:
            continue
        target = targets.get(tbl, default)
        rows = con.execute("SELECT id, lo, hi, n FROM chunks WHERE tbl=? AND level=? AND key=? ORDER BY lo, id",
                           (tbl, level, key)).fetchall()
        batch, total = [], 0
        for r in rows + [None]:
            if r is not None and (not batch or total + r[3] <= target):
                batch.append(r)
                total += r[3]
                continue
            if len(batch) > 1:
                removed += _merge(con, tbl, level, key, batch, rec)
            batch, total = ([r], r[3]) if r is not None else ([], 0)
    return removed


def _merge(con, tbl, level, key, batch, rec) -> int:
    dtype, shape = chunk_spec(tbl, rec)
    delta = DELTA.get(tbl.removeprefix("raw:"), ())
    arrs = []
    for cid, _lo, _hi, n in batch:
        blob = con.execute("SELECT data FROM chunks WHERE id=?", (cid,)).fetchone()[0]
        arrs.append(codec.unpack(blob, dtype, n, shape, delta))
    con.executemany("DELETE FROM chunks WHERE id=?", [(b[0],) for b in batch])
    put_chunk(con, tbl, level, key, min(b[1] for b in batch), max(b[2] for b in batch), np.concatenate(arrs))
    return len(batch) - 1
