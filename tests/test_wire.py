"""Wire format v1, Python side: every column type round-trips, frames are self-describing msgpack maps."""
from __future__ import annotations

import msgpack
import numpy as np
import pytest

from webapp import wire

TYPES = ["u1", "u2", "u4", "u8", "i1", "i2", "i4", "i8", "f4", "f8"]


def sample_columns(rng) -> dict:
    cols = {}
    for t in TYPES:
        dt = np.dtype("<" + t[0] + t[1:])
        if dt.kind == "f":
            cols[t] = rng.standard_normal(7).astype(dt)
        else:
            info = np.iinfo(dt)
            cols[t] = rng.integers(info.min, info.max, 7, dtype=dt, endpoint=True)
            cols[t][0], cols[t][1] = info.min, info.max          # the extremes travel exactly
    cols["matrix"] = rng.integers(0, 255, (3, 5)).astype(np.uint8)
    cols["flag"] = np.array([True, False, True])
    return cols


def test_every_column_type_round_trips(rng):
    cols = sample_columns(rng)
    data = wire.frame("window", seq=7, req_id=3, groups={"g": wire.group(2**40, 16, 7, cols, extra="x")})
    f = wire.decode(data)
    assert (f["v"], f["kind"], f["seq"], f["id"]) == (wire.VERSION, "window", 7, 3)
    g = f["groups"]["g"]
    assert (g["cycle0"], g["step"], g["n"], g["extra"]) == (2**40, 16, 7, "x")
    for t in TYPES:
        assert g["types"][t] == t and g["cols"][t].dtype == np.dtype("<" + t[0] + t[1:])
        assert np.array_equal(g["cols"][t], cols[t])
    assert g["cols"]["matrix"].shape == (3, 5) and np.array_equal(g["cols"]["matrix"], cols["matrix"])
    assert g["types"]["flag"] == "u1" and g["cols"]["flag"].tolist() == [1, 0, 1]


def test_frames_are_plain_msgpack_maps_with_binary_columns():
    raw = msgpack.unpackb(wire.frame("snapshot", 1, None, warps=wire.group(0, 0, 2, {"pc": np.array([1, 2], np.uint32)})))
    col = raw["warps"]["cols"]["pc"]
    assert isinstance(col, bytes) and col == np.array([1, 2], "<u4").tobytes()
    assert raw["warps"]["shapes"]["pc"] == [2]


def test_bad_frames_are_refused():
    with pytest.raises(ValueError, match="unknown frame kind"):
        wire.frame("nonsense")
    with pytest.raises(ValueError, match="wire version 99"):
        wire.decode(msgpack.packb({"v": 99, "kind": "meta"}))
    with pytest.raises(TypeError, match="no wire type"):
        wire.group(0, 0, 1, {"c": np.array(["text"])})
    with pytest.raises(TypeError, match="cannot encode"):
        wire.frame("meta", 0, None, thing=object())


def test_numpy_scalars_and_lists_are_encoded():
    f = wire.decode(wire.frame("meta", 0, None, n=np.int64(5), xs=np.arange(3)))
    assert f["n"] == 5 and f["xs"] == [0, 1, 2]
