"""Check a run file from elsewhere (an import) completely before the store takes it.

A run file is an SQLite database written by this program (layout.py); an imported one may be damaged or
hostile. `check_run_file(path)` reads ALL of it once: SQLite's integrity_check, the two tables and
the type of every cell, every meta value (UTF-8, JSON, the type and range of every field the explorer
reads), the recording's row layouts and enum names, and every chunk (known table, level and key, cycle
bounds, a blob that decompresses to exactly n rows, and the values the readers use as indices: slots,
states, SMs, event kinds, memory levels). The first problem found raises `RunFileInvalid` (a ValueError)
naming the meta key or the chunk and what is wrong; a file that passes is read by RunReader, frames.py
and snapshot.py without surprises. Cost: one pass over the file, one chunk in memory at a time.
"""
from __future__ import annotations

import json
import math
import re
import sqlite3
from pathlib import Path

import numpy as np
import zstandard

from . import runfile
from .layout import (CARRY_DT, CTR_LEVELS, DELTA, READABLE, SLOT_LEVELS, STRIP_LEVELS, chunk_spec, schema_of)

MAX_SMS = 1 << 12                # bounds far above any GPU, so that sizes derived from them stay small
MAX_SLOTS = 1 << 10
MAX_CYCLE = 1 << 62
MAX_CHUNK_BYTES = 1 << 28        # one chunk, decompressed
MAX_ITEMSIZE = 1 << 12           # one row of a recorded table
MAX_NAMES = 254                  # enum names: stored as uint8, 255 is NO_DATA
STATUSES = ("created", "running", "done", "faulted", "failed", "interrupted", "cancelled")
LEVELS = ("off", "summary", "full")
INT_KINDS = "ui"
COLUMNS = {"meta": ("key", "value"), "chunks": ("id", "tbl", "level", "key", "lo", "hi", "n", "data", "extra")}
CELL_TYPES = {"tbl": ("text",), "level": ("integer",), "key": ("integer",), "lo": ("integer",),
              "hi": ("integer",), "n": ("integer",), "data": ("blob",), "extra": ("blob", "null")}


class RunFileInvalid(ValueError):
    """The run file cannot be imported; the message says where and why."""


def check_run_file(path: str | Path, check=None) -> dict:
    """Check the whole run file at `path`; returns its meta (decoded) or raises RunFileInvalid. check(what):
    called between chunks (a request's deadline: it may raise to stop the work)."""
    path = Path(path)
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    except sqlite3.Error as e:
        raise RunFileInvalid(f"cannot open the SQLite file ({e})") from None
    try:
        con.text_factory = bytes
        _check_sqlite(con)
        meta = _read_meta(con)
        rec = _check_meta(meta)
        if rec is not None:
            _check_chunks(con, meta, rec, check or (lambda what: None))
        elif con.execute("SELECT 1 FROM chunks LIMIT 1").fetchone():
            raise RunFileInvalid("the file has recorded chunks but no meta 'recording' saying how to read them")
        return meta
    except (sqlite3.Error, UnicodeDecodeError) as e:     # (an error text from a damaged file may not be UTF-8)
        raise RunFileInvalid(f"the SQLite file is damaged ({type(e).__name__}: {e})") from None
    finally:
        con.close()


# ---------------------------------------------------------------------- SQLite structure


def _check_sqlite(con) -> None:
    # integrity_check, not quick_check: it also compares every index with its table (a damaged index page
    # passed quick_check and failed later, in the reader's indexed chunk queries)
    rows = con.execute("PRAGMA integrity_check(5)").fetchall()
    if [r[0] for r in rows] != [b"ok"]:
        text = "; ".join(_text(r[0]) for r in rows)[:300]
        raise RunFileInvalid(f"the SQLite file is damaged (integrity_check: {text})")
    for table, want in COLUMNS.items():
        have = tuple(_text(r[1]) for r in con.execute(f"PRAGMA table_info({table})"))
        if not have:
            raise RunFileInvalid(f"no table {table!r}: not a run file")
        missing = [c for c in want if c not in have]
        if missing:
            raise RunFileInvalid(f"table {table!r} lacks the column(s) {', '.join(missing)}")
    bad = con.execute("SELECT count(*) FROM meta WHERE typeof(key) != 'text' OR typeof(value) != 'text'").fetchone()[0]
    if bad:
        raise RunFileInvalid(f"{bad} meta row(s) whose key or value is not text")
    for col, types in CELL_TYPES.items():
        cond = " AND ".join(f"typeof({col}) != '{t}'" for t in types)
        row = con.execute(f"SELECT id, typeof({col}) FROM chunks WHERE {cond} LIMIT 1").fetchone()
        if row:
            raise RunFileInvalid(f"chunk {row[0]}: column {col!r} holds a {_text(row[1])}, expected {' or '.join(types)}")


def _text(b) -> str:
    return b.decode("utf-8", "replace") if isinstance(b, bytes) else str(b)


def _read_meta(con) -> dict:
    meta = {}
    for k, v in con.execute("SELECT key, value FROM meta"):
        try:
            key = k.decode("utf-8")
        except UnicodeDecodeError:
            raise RunFileInvalid(f"a meta key is not UTF-8 text ({k[:40]!r})") from None
        try:
            meta[key] = json.loads(v.decode("utf-8"))
        except UnicodeDecodeError as e:
            raise RunFileInvalid(f"meta {key!r}: not UTF-8 text ({e.reason} at byte {e.start})") from None
        except RecursionError:
            raise RunFileInvalid(f"meta {key!r}: JSON nested too deeply") from None
        except ValueError as e:
            raise RunFileInvalid(f"meta {key!r}: not valid JSON ({str(e)[:120]})") from None
    return meta


# ---------------------------------------------------------------------- meta


def _fail(where: str, what: str, found) -> None:
    shown = repr(found)
    raise RunFileInvalid(f"meta {where}: expected {what}, found {shown[:80]}{'...' if len(shown) > 80 else ''}")


def _int(d: dict, key: str, where: str, lo: int = 0, hi: int = MAX_CYCLE, need: bool = False):
    v = d.get(key)
    if v is None and not need:
        return None
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        _fail(f"{where}.{key}", f"an integer in [{lo}, {hi}]", v)
    return v


def _num(d: dict, key: str, where: str):
    v = d.get(key)
    if v is not None and (not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v)
                          or not -2**63 <= v < 2**63):          # (stored in the catalogue: SQLite's range)
        _fail(f"{where}.{key}", "a finite number", v)
    return v


def _str(d: dict, key: str, where: str, choices=None, need: bool = False):
    v = d.get(key)
    if v is None and not need:
        return None
    if not isinstance(v, str) or (choices is not None and v not in choices):
        _fail(f"{where}.{key}", f"one of {', '.join(choices)}" if choices else "a string", v)
    return v


def _dict(d: dict, key: str, where: str, need: bool = False) -> dict | None:
    v = d.get(key)
    if v is None and not need:
        return None
    if not isinstance(v, dict):
        _fail(f"{where}.{key}", "an object", v)
    return v


def _list(d: dict, key: str, where: str, of=None, what: str = "", maxlen: int = 1 << 24) -> list | None:
    v = d.get(key)
    if v is None:
        return None
    if not isinstance(v, list) or len(v) > maxlen or (of is not None and not all(of(x) for x in v)):
        _fail(f"{where}.{key}", f"a list{' of ' + what if what else ''}", v)
    return v


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _check_meta(meta: dict):
    """Every meta field the store and the explorer read; returns the recording (or None)."""
    fmt = meta.get("format")
    if fmt not in READABLE:
        raise RunFileInvalid(f"meta 'format' is {fmt!r}: this simtscope reads {' and '.join(map(repr, READABLE))}")
    m = "'meta'"
    for k, v in meta.items():        # readers take a present key's value as is (meta.get(k, default) -> None)
        if v is None:
            raise RunFileInvalid(f"meta {k!r} is null (a field is either absent or has a value)")
    _str(meta, "kind", m, ("kernel", "workload"))
    _str(meta, "status", m, STATUSES)
    _str(meta, "message", m)
    for k in ("created", "started", "finished"):
        _num(meta, k, m)
    for k in ("end_cycle", "sealed_cycle", "ctr_cycle"):
        _int(meta, k, m)
    prog = _dict(meta, "progress", m)
    if prog is not None:
        for k, v in prog.items():
            if not isinstance(v, (int, float, bool)):
                _fail(f"'progress'.{k}", "a number", v)
        for k in ("cycle", "warp_insts", "ctas_done", "ctas_total", "launch", "launches"):
            _int(prog, k, "'progress'")
    info = _dict(meta, "info", m)
    if info is not None:
        for k in ("name", "workload", "config", "id", "parent", "label"):
            _str(info, k, "'info'")
        _list(info, "overrides", "'info'", lambda x: isinstance(x, str), "strings")
    stats = _dict(meta, "stats", m)
    if stats is not None:
        for k in ("gpu_sim_cycle", "warp_insts"):
            _int(stats, k, "'stats'")
    chk = _dict(meta, "check", m)
    if chk is not None:
        if chk.get("passed") not in (None, True, False):
            _fail("'check'.passed", "true, false or null", chk.get("passed"))
        errs = _dict(chk, "errors", "'check'")
        for k in errs or {}:
            _num(errs, k, "'check'.errors")
        _str(chk, "fault", "'check'")
    if meta.get("kind") == "workload":
        _check_workload(meta)
    rec = _dict(meta, "recording", m)
    if rec is not None:
        _check_recording(rec)
    return rec


def _check_workload(meta: dict) -> None:
    wl = _dict(meta, "workload", "'meta'", need=True)
    w = "'workload'"
    for k in ("name", "description", "config"):
        _str(wl, k, w)
    _list(wl, "detail", w, _is_int, "integers")
    rows = _list(wl, "launches", w, lambda x: isinstance(x, dict), "objects") or []
    for i, row in enumerate(rows):
        where = f"'workload'.launches[{i}]"
        _int(row, "index", where)
        for k in ("name", "kernel", "label", "op", "child", "error", "bound"):
            _str(row, k, where)
        for k in ("sim_cycles", "warp_insts"):
            _int(row, k, where)
        for k in ("hw_cycles", "dram_bytes", "compute_util", "dram_util"):
            _num(row, k, where)
    for k in ("summary", "hardware"):
        _dict(wl, k, w)
    _list(wl, "outputs", w)


def _check_recording(rec: dict) -> None:
    r = "'recording'"
    _str(rec, "level", r, LEVELS, need=True)
    nsm = _int(rec, "num_sms", r, 1, MAX_SMS, need=True)
    _int(rec, "warp_slots_per_sm", r, 1, MAX_SLOTS, need=True)
    _int(rec, "interval", r, 1, 1 << 40)
    sms = _list(rec, "record_sms", r, _is_int, "integers", MAX_SMS)
    if sms is None:
        _fail(f"{r}.record_sms", "a list of SM numbers", None)
    if sorted(set(sms)) != sms or any(not 0 <= s < nsm for s in sms):
        _fail(f"{r}.record_sms", f"distinct SM numbers in increasing order, each in [0, {nsm - 1}]", sms)
    _str(rec, "config_name", r)
    cfg = _dict(rec, "config", r)
    if cfg is not None:
        _str(cfg, "name", "'recording'.config")
        gpu = _dict(cfg, "gpu", "'recording'.config")
        if gpu is not None:
            _num(gpu, "sm_clock_mhz", "'recording'.config.gpu")
    wl = _dict(rec, "workload", r)
    if wl is not None:
        _str(wl, "name", "'recording'.workload")
    kernels = _list(rec, "kernels", r, lambda x: isinstance(x, dict), "objects") or []
    for i, k in enumerate(kernels):
        where = f"'recording'.kernels[{i}]"
        for key in ("name", "source", "filename"):
            _str(k, key, where)
        for key in ("grid", "block"):
            _list(k, key, where, lambda x: _is_int(x) and 0 <= x < 1 << 32, "integers", 3)
        for key in ("shared", "entry_pc", "end_pc"):
            _int(k, key, where, 0, 1 << 32)
        _list(k, "pc_text", where, lambda x: isinstance(x, str), "strings")
        _list(k, "pc_line", where, _is_int, "integers")
    _check_schema(rec)


def _check_schema(rec: dict) -> None:
    """The recording's own row layouts and enum names (issue 12), or none (a /2 file: its fixed layouts)."""
    sch = rec.get("schema")
    if sch is None:
        return
    s = "'recording'.schema"
    if not isinstance(sch, dict):
        _fail(s, "an object", sch)
    tables = _dict(sch, "tables", s, need=True)
    base = json.loads(_run2_text())["tables"]
    for t, want in base.items():
        d = tables.get(t)
        if not isinstance(d, dict):
            _fail(f"{s}.tables.{t}", "a row layout", d)
        dt = _dtype(d, f"{s}.tables.{t}")
        for name, (fmt, shape) in zip(want["names"], want["formats"]):
            if name.startswith("pad"):
                continue
            f = dt.fields.get(name)
            if f is None or f[0].base.kind != np.dtype(fmt).kind or f[0].shape != tuple(shape):
                _fail(f"{s}.tables.{t}", f"a field {name!r} of kind {np.dtype(fmt).kind} and shape {tuple(shape)}",
                      None if f is None else str(f[0]))
    for t in set(tables) - set(base):
        _dtype(tables[t], f"{s}.tables.{t}")
    for key in ("warp_states", "event_kinds", "mem_levels"):
        names = _list(sch, key, s, lambda x: isinstance(x, str) and 0 < len(x) <= 64, "short strings", MAX_NAMES)
        if not names or len(set(names)) != len(names):
            _fail(f"{s}.{key}", f"1 to {MAX_NAMES} distinct names", names)
    try:
        schema_of(rec)
    except (KeyError, TypeError, ValueError) as e:             # already checked above: a last guard
        raise RunFileInvalid(f"meta {s}: unusable ({e})") from None


# the row formats engine.recording writes: byte order, kind, size ('<u4', '|u1', '<f8')
_NUMERIC_FORMAT = re.compile(r"[<>|=](?:[ui][1248]|f[248])")   # numpy has no 1-byte float


def _dtype(d, where: str) -> np.dtype:
    """A row layout (engine.recording.dtype_to_json) checked before numpy sees it: plain numeric fields
    that fit in the row and do not overlap."""
    if not isinstance(d, dict):
        _fail(where, "a row layout object", d)
    names, formats, offsets, size = d.get("names"), d.get("formats"), d.get("offsets"), d.get("itemsize")
    if not (isinstance(names, list) and isinstance(formats, list) and isinstance(offsets, list)
            and len(names) == len(formats) == len(offsets) and 0 < len(names) <= 64):
        _fail(where, "names, formats and offsets: lists of one length (1 to 64)", d)
    if not _is_int(size) or not 0 < size <= MAX_ITEMSIZE:
        _fail(f"{where}.itemsize", f"an integer in [1, {MAX_ITEMSIZE}]", size)
    if len(set(map(str, names))) != len(names) or not all(isinstance(n, str) and n.isidentifier() for n in names):
        _fail(f"{where}.names", "distinct field names", names)
    spans, fields = [], []
    for n, f, off in zip(names, formats, offsets):
        ok = (isinstance(f, list) and len(f) == 2 and isinstance(f[0], str) and isinstance(f[1], list)
              and len(f[1]) <= 2 and all(_is_int(x) and 0 < x <= 256 for x in f[1])
              and _NUMERIC_FORMAT.fullmatch(f[0]) is not None)   # numpy parses other strings as code
        if ok:
            base = np.dtype(f[0])
        if not ok or base.kind not in "uif" or base.itemsize > 8 or base.str != f[0]:
            _fail(f"{where}.formats ({n})", "[a numeric type such as '<u4', [dims]]", f)
        width = base.itemsize * int(np.prod(f[1], dtype=np.int64))
        if not _is_int(off) or off < 0 or off + width > size:
            _fail(f"{where}.offsets ({n})", f"an offset with the field inside the row of {size} bytes", off)
        spans.append((off, off + width))
        fields.append((n, (base, tuple(f[1])) if f[1] else base, off))
    spans.sort()
    if any(a[1] > b[0] for a, b in zip(spans, spans[1:])):
        _fail(f"{where}.offsets", "fields that do not overlap", offsets)
    return np.dtype({"names": [x[0] for x in fields], "formats": [x[1] for x in fields],
                     "offsets": [x[2] for x in fields], "itemsize": size})


def _run2_text() -> str:
    from .layout import _run2_schema
    return _run2_schema()


# ---------------------------------------------------------------------- chunks


def _check_chunks(con, meta: dict, rec: dict, check) -> None:
    sch = schema_of(rec)
    sms = set(rec["record_sms"])
    full = rec["level"] == "full"
    nsm, slots, nst = rec["num_sms"], rec["warp_slots_per_sm"], len(sch.states)
    levels = {"slot": SLOT_LEVELS, "strip": STRIP_LEVELS, "ctr_gpu": CTR_LEVELS, "ctr_mem": CTR_LEVELS,
              "ctr_sm": CTR_LEVELS}
    raw = {"raw:" + t for t in sch.raw if t != "warp_states"}
    known = raw | {"ws", "slot", "strip", "ctr_gpu", "ctr_mem", "ctr_sm", "cta", "kernel"}
    dctx = zstandard.ZstdDecompressor()
    specs: dict = {}
    for cid, tbl_b, level, key, lo, hi, n, data, extra in con.execute(
            "SELECT id, tbl, level, key, lo, hi, n, data, extra FROM chunks ORDER BY id"):
        tbl = _text(tbl_b)
        check("checking the run file")
        where = f"chunk {cid} ({tbl[:40]!r}, level {level}, key {key})"
        if tbl not in known:
            raise RunFileInvalid(f"{where}: unknown table (known: {', '.join(sorted(known))})")
        if level not in levels.get(tbl, (0,)):
            raise RunFileInvalid(f"{where}: level {level} is not a level of {tbl!r}")
        if tbl in ("ws", "slot"):
            if not full or key not in sms:
                raise RunFileInvalid(f"{where}: SM {key} has no warp-state recording (record_sms {sorted(sms)[:8]})")
        elif key != 0:
            raise RunFileInvalid(f"{where}: key {key} (this table has only key 0)")
        if tbl in ("strip", "ws") and not full:
            raise RunFileInvalid(f"{where}: warp-state data in a recording of level {rec['level']!r}")
        if not 0 <= lo <= hi <= MAX_CYCLE:
            raise RunFileInvalid(f"{where}: cycle range [{lo}, {hi}) is not within [0, 2^62)")
        if tbl not in specs:
            specs[tbl] = chunk_spec(tbl, rec)
        dtype, shape = specs[tbl]
        if dtype.names is None:
            row = dtype.itemsize * int(np.prod(shape, dtype=np.int64))
        else:                                      # stored by column: the fields' bytes, no padding
            row = sum(dtype.fields[f][0].itemsize for f in dtype.names)
        if not 0 <= n <= MAX_CHUNK_BYTES // max(1, row):
            raise RunFileInvalid(f"{where}: {n} rows of {row} bytes (at most {MAX_CHUNK_BYTES >> 20} MiB a chunk)")
        try:
            blob = dctx.decompress(data, max_output_size=max(1, n * row))
        except zstandard.ZstdError as e:
            raise RunFileInvalid(f"{where}: the compressed data is damaged ({e})") from None
        except MemoryError:                        # within MAX_CHUNK_BYTES, but not within this process's memory
            raise RunFileInvalid(f"{where}: {n * row} bytes of decompressed data do not fit in this "
                                 f"process's memory") from None
        if len(blob) != n * row:
            raise RunFileInvalid(f"{where}: decompresses to {len(blob)} bytes, expected {n * row} ({n} rows)")
        arr = _decode(blob, dtype, n, shape, DELTA.get(tbl.removeprefix("raw:"), ()))
        _check_values(where, tbl, arr, extra, lo, hi, slots, nst, nsm, sch)


def _decode(blob: bytes, dtype, n: int, shape, delta):
    """codec.unpack(_columns) of an already decompressed blob (its size checked by the caller): a plain
    array, or {field: column} for a structured one."""
    if dtype.names is None:
        return np.frombuffer(blob, dtype).reshape((n,) + tuple(shape))
    out, off = {}, 0
    for name in dtype.names:
        f = dtype.fields[name][0]
        col = np.frombuffer(blob, f.base, count=n * max(1, int(np.prod(f.shape))), offset=off).reshape((n,) + f.shape)
        out[name] = np.cumsum(col, dtype=f.base) if name in delta else col
        off += n * f.itemsize
    return out


def _check_values(where, tbl, arr, extra, lo, hi, slots, nst, nsm, sch) -> None:
    def bad(what):
        raise RunFileInvalid(f"{where}: {what}")

    def state_ok(v, allow_none=True):
        v = np.asarray(v)
        return bool(np.all((v < nst) | ((v == 255) if allow_none else False)))

    if tbl == "ws":
        if extra is None or len(extra) != slots * CARRY_DT.itemsize:
            bad(f"carry-in of {0 if extra is None else len(extra)} bytes, expected {slots * CARRY_DT.itemsize} "
                f"({slots} slots)")
        if not state_ok(np.frombuffer(extra, CARRY_DT)["state"], False):
            bad(f"a carry-in state outside the {nst} warp states")
        if len(arr["slot"]):
            slot, cyc = arr["slot"].astype(np.int64), arr["cycle"].astype(np.uint64)
            if slot.max() >= slots:
                bad(f"a row for slot {int(slot.max())} (the SM has {slots} slots)")
            if not state_ok(arr["state"], False):
                bad(f"a warp state outside the {nst} recorded states")
            if np.any(cyc < lo) or np.any(cyc >= max(hi, lo + 1)):
                bad(f"a row outside the chunk's cycles [{lo}, {hi})")
            ds = np.diff(slot)
            if np.any(ds < 0) or np.any((ds == 0) & (cyc[1:] < cyc[:-1])):
                bad("rows not ordered by slot and cycle")
    elif tbl in ("slot", "strip") and not state_ok(arr if tbl == "slot" else arr[:, 0]):
        bad(f"a warp state outside the {nst} recorded states")
    elif tbl == "ctr_sm" and not state_ok(arr["dom"]):
        bad(f"a warp state outside the {nst} recorded states")
    elif tbl == "cta" and (np.any(arr["sm"] >= nsm) or np.any(arr["start"] > arr["end"])):
        bad(f"a CTA span on an SM >= {nsm} or ending before it starts")
    elif tbl == "kernel" and np.any(arr["start"] > arr["end"]):
        bad("a kernel span ending before it starts")
    elif tbl == "raw:events" and "kind" in arr and np.any(arr["kind"] >= len(sch.event_kinds)):
        bad(f"an event kind >= {len(sch.event_kinds)} (the file names {len(sch.event_kinds)})")
    elif tbl == "raw:mem_samples" and "hit_level" in arr and np.any(arr["hit_level"] >= len(sch.mem_levels)):
        bad(f"a memory level >= {len(sch.mem_levels)} (the file names {len(sch.mem_levels)})")
    if tbl.startswith("raw:") and "sm" in arr and np.any(arr["sm"] >= nsm):
        bad(f"a row for SM {int(arr['sm'].max())} (the GPU has {nsm})")
