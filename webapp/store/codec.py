"""Chunk codec: numpy arrays <-> compressed columnar blobs (zstandard).

A structured array is stored column by column (all values of one field, then the next), which compresses
far better than rows; fields named in `delta` are stored as differences from the previous row (sorted
cycle columns become small numbers). A plain array is stored as its bytes. The caller keeps the dtype,
the row count and the shape: a blob is not self-describing (the run file's `chunks` row and the table
definitions in layout.py are). Compressor objects are per thread: python-zstandard's are not thread-safe.
"""
from __future__ import annotations

import threading

import numpy as np
import zstandard

LEVEL = 3                      # zstd level 3: ~300 MB/s on this machine kind, ratio close to level 9
_local = threading.local()


def _cctx() -> zstandard.ZstdCompressor:
    c = getattr(_local, "c", None)
    if c is None:
        c = _local.c = zstandard.ZstdCompressor(level=LEVEL)
    return c


def _dctx() -> zstandard.ZstdDecompressor:
    d = getattr(_local, "d", None)
    if d is None:
        d = _local.d = zstandard.ZstdDecompressor()
    return d


def _delta(col: np.ndarray) -> np.ndarray:
    out = np.empty_like(col)
    if len(col):
        out[0] = col[0]
        np.subtract(col[1:], col[:-1], out=out[1:], casting="unsafe")   # wraps modulo 2^bits: undone by cumsum
    return out


def pack(arr: np.ndarray, delta: tuple[str, ...] = ()) -> bytes:
    """Compress `arr`: by column when structured (fields in `delta` delta-coded), else its raw bytes."""
    arr = np.ascontiguousarray(arr)
    if arr.dtype.names is None:
        return _cctx().compress(arr.tobytes())
    parts = []
    for name in arr.dtype.names:
        col = np.ascontiguousarray(arr[name])
        parts.append((_delta(col) if name in delta else col).tobytes())
    return _cctx().compress(b"".join(parts))


def pack_columns(cols: dict, dtype: np.dtype, delta: tuple[str, ...] = ()) -> bytes:
    """pack() of the structured array whose fields are `cols`, without building it."""
    parts = []
    for name in dtype.names:
        col = np.ascontiguousarray(cols[name], dtype=dtype.fields[name][0].base)
        parts.append((_delta(col) if name in delta else col).tobytes())
    return _cctx().compress(b"".join(parts))


def unpack_columns(blob: bytes, dtype: np.dtype, n: int, delta: tuple[str, ...] = ()) -> dict[str, np.ndarray]:
    """A structured chunk as {field: array} without assembling records (gathering records is slow)."""
    raw = _dctx().decompress(blob, max_output_size=max(1, n * dtype.itemsize))
    out, off = {}, 0
    for name in dtype.names:
        field = dtype.fields[name][0]
        col = np.frombuffer(raw, field.base, count=n * max(1, int(np.prod(field.shape))), offset=off)
        col = col.reshape((n,) + field.shape)
        out[name] = np.cumsum(col, dtype=field.base) if name in delta else col
        off += n * field.itemsize
    return out


def unpack(blob: bytes, dtype: np.dtype, n: int, shape: tuple = (), delta: tuple[str, ...] = ()) -> np.ndarray:
    """Inverse of pack: `n` rows of `dtype` (each row of `shape` for plain arrays)."""
    dtype = np.dtype(dtype)
    raw = _dctx().decompress(blob, max_output_size=max(1, n * dtype.itemsize * int(np.prod(shape, dtype=np.int64))))
    if dtype.names is None:
        return np.frombuffer(raw, dtype).reshape((n,) + tuple(shape))
    out = np.zeros(n, dtype)                      # zeros: padding bytes between fields are defined
    off = 0
    for name in dtype.names:
        field = dtype.fields[name][0]
        size = n * field.itemsize
        col = np.frombuffer(raw, field.base, count=n * max(1, int(np.prod(field.shape))), offset=off)
        col = col.reshape((n,) + field.shape)
        if name in delta:
            col = np.cumsum(col, dtype=field.base)    # integer cumsum wraps exactly like the delta did
        out[name] = col
        off += size
    if off != len(raw):
        raise ValueError(f"chunk holds {len(raw)} bytes, expected {off} for {n} rows of {dtype}")
    return out
