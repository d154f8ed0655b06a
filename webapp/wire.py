"""The wire format, Python side (the JS side is static/js/net/wire.js; the spec is docs/wire-format.md).

Every frame is one msgpack map, sent as a binary Socket.IO event:

    {v: VERSION, kind: str, seq: int, id: request id or None, ...kind-specific fields}

Array data travels as *groups*, each a structure of arrays over one bucket axis:

    {cycle0: int, step: int, n: int, cols: {name: bin}, types: {name: code}, shapes: {name: [dims]}}

`cols` are little-endian typed arrays (never lists of dicts); `types` gives each column's element type
code (u1 u2 u4 u8 i1 i2 i4 i8 f4 f8), `shapes` its dimensions (row-major; a 1-D column may be absent
there). Cycles are integers: `cycle0` and `step` are msgpack integers, span times are int64 offsets from
`cycle0` (the JS side rebases before converting to doubles; exact below 2^53).

History: v1 - first version (kinds: meta, window, snapshot, progress, error).
"""
from __future__ import annotations

import msgpack
import numpy as np

VERSION = 1
KINDS = ("meta", "window", "snapshot", "progress", "error")
_CODES = {"u1", "u2", "u4", "u8", "i1", "i2", "i4", "i8", "f4", "f8"}


def type_code(dt: np.dtype) -> str:
    dt = np.dtype(dt)
    code = f"{dt.kind}{dt.itemsize}"
    if dt.kind == "b":
        code = "u1"
    if code not in _CODES:
        raise TypeError(f"no wire type for numpy dtype {dt}")
    return code


def column(arr) -> tuple[bytes, str, list[int]]:
    a = np.asarray(arr)
    if a.dtype.kind == "b":
        a = a.astype(np.uint8)
    a = np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("<"))
    return a.tobytes(), type_code(a.dtype), list(a.shape)


def group(cycle0: int, step: int, n: int, cols: dict, **extra) -> dict:
    """A group of columns over `n` buckets of `step` cycles from `cycle0` (step 0: not bucketed)."""
    g = {"cycle0": int(cycle0), "step": int(step), "n": int(n), "cols": {}, "types": {}, "shapes": {}}
    for name, arr in cols.items():
        if arr is None:
            continue
        data, code, shape = column(arr)
        g["cols"][name], g["types"][name], g["shapes"][name] = data, code, shape
    g.update(extra)
    return g


def frame(kind: str, seq: int = 0, req_id=None, **fields) -> bytes:
    if kind not in KINDS:
        raise ValueError(f"unknown frame kind {kind!r}")
    return msgpack.packb({"v": VERSION, "kind": kind, "seq": int(seq), "id": req_id, **fields},
                         use_bin_type=True, default=_default)


def _default(o):
    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    raise TypeError(f"cannot encode {type(o).__name__} on the wire")


def decode(data: bytes) -> dict:
    """Decode a frame and turn its groups' columns back into numpy arrays (used by tests and tools)."""
    f = msgpack.unpackb(data, raw=False)
    if f.get("v") != VERSION:
        raise ValueError(f"wire version {f.get('v')} is not {VERSION}")
    _arrays(f)
    return f


def _arrays(obj):
    if isinstance(obj, dict):
        if "cols" in obj and "types" in obj:
            for name, raw in list(obj["cols"].items()):
                dt = np.dtype("<" + obj["types"][name][0] + obj["types"][name][1:])
                a = np.frombuffer(raw, dt)
                shape = obj.get("shapes", {}).get(name)
                obj["cols"][name] = a.reshape(shape) if shape else a
        for v in obj.values():
            _arrays(v)
    elif isinstance(obj, list):
        for v in obj:
            _arrays(v)
