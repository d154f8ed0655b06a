"""Wire format v1 across the language boundary: Python encodes (webapp/wire.py), Chromium decodes with
static/js/net/wire.js and the vendored msgpack; every column type and shape must arrive intact."""
from __future__ import annotations

import base64

import numpy as np

from tests.test_wire import TYPES, sample_columns
from webapp import wire


def test_python_frames_decode_in_the_browser(page, server, rng):
    cols = sample_columns(rng)
    data = wire.frame("window", 11, 5, run="r", groups={"g": wire.group(123456789012, 8, 7, cols)})
    page.goto(server.url + "/")
    got = page.evaluate("""async (b64) => {
        const { decodeFrame, toNumbers, row } = await import('/static/js/net/wire.js');
        const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
        const f = decodeFrame(bytes.buffer), g = f.groups.g, out = {};
        for (const [k, v] of Object.entries(g.cols)) {
            out[k] = { ctor: v.constructor.name, values: Array.from(v, (x) => typeof x === 'bigint' ? x.toString() : x),
                       shape: v.shape || null };
        }
        return { v: f.v, kind: f.kind, seq: f.seq, id: f.id, run: f.run, cycle0: g.cycle0, step: g.step, n: g.n,
                 cols: out, row1: Array.from(row(g.cols.matrix, 1)), i8: Array.from(toNumbers(g.cols.i4)) };
    }""", base64.b64encode(data).decode())
    assert (got["v"], got["kind"], got["seq"], got["id"], got["run"]) == (1, "window", 11, 5, "r")
    assert (got["cycle0"], got["step"], got["n"]) == (123456789012, 8, 7)
    ctors = {"u1": "Uint8Array", "u2": "Uint16Array", "u4": "Uint32Array", "u8": "BigUint64Array", "i1": "Int8Array",
             "i2": "Int16Array", "i4": "Int32Array", "i8": "BigInt64Array", "f4": "Float32Array", "f8": "Float64Array"}
    for t in TYPES:
        c = got["cols"][t]
        assert c["ctor"] == ctors[t]
        want = cols[t]
        if t in ("u8", "i8"):
            assert [int(x) for x in c["values"]] == [int(x) for x in want]
        else:
            assert np.array_equal(np.array(c["values"], dtype=want.dtype), want)
    assert got["cols"]["matrix"]["shape"] == [3, 5] and got["row1"] == cols["matrix"][1].tolist()
    assert got["i8"] == cols["i4"].astype(float).tolist()
