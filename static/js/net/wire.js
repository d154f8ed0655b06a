// The wire format, browser side (Python side: webapp/wire.py; spec: docs/wire-format.md).
// A frame is a msgpack map {v, kind, seq, id, ...}; array data comes in groups
// {cycle0, step, n, cols: {name: bin}, types: {name: code}, shapes: {name: dims}}.
// decodeFrame turns every group's columns into typed arrays (a view on the frame when aligned, else a
// copy: msgpack bin fields decode to Uint8Array views at arbitrary byte offsets). Typed arrays use the
// platform's byte order; every browser we target is little-endian, like the wire.
// Precision: cycle0/step are JS Numbers (exact below 2^53 cycles); int64 columns arrive as
// BigInt64Array and are rebased by the server (offsets from cycle0), then converted with toNumbers().

export const VERSION = 1;
const CTORS = {
  u1: Uint8Array, u2: Uint16Array, u4: Uint32Array, u8: BigUint64Array,
  i1: Int8Array, i2: Int16Array, i4: Int32Array, i8: BigInt64Array, f4: Float32Array, f8: Float64Array,
};

export function typed(bytes, code) {
  const C = CTORS[code];
  if (!C) throw new Error(`wire: unknown column type ${code}`);
  let u8 = bytes;
  if (u8.byteOffset % C.BYTES_PER_ELEMENT !== 0) u8 = u8.slice();
  return new C(u8.buffer, u8.byteOffset, u8.byteLength / C.BYTES_PER_ELEMENT);
}

function walk(obj) {
  if (!obj || typeof obj !== 'object' || ArrayBuffer.isView(obj)) return;
  if (obj.cols && obj.types) {
    for (const name of Object.keys(obj.cols)) {
      const arr = typed(obj.cols[name], obj.types[name]);
      const shape = obj.shapes && obj.shapes[name];
      obj.cols[name] = arr;
      if (shape && shape.length > 1) obj.cols[name].shape = shape;
    }
  }
  for (const v of Object.values(obj)) if (v && typeof v === 'object') walk(v);
}

export function decodeFrame(buf) {
  const u8 = buf instanceof Uint8Array ? buf : new Uint8Array(buf);
  const f = globalThis.MessagePack.decode(u8);
  if (!f || f.v !== VERSION) throw new Error(`wire: version ${f && f.v} is not ${VERSION}`);
  walk(f);
  return f;
}

// int64 / uint64 / any numeric column -> Float64Array of Numbers
export function toNumbers(col) {
  if (col instanceof BigInt64Array || col instanceof BigUint64Array) {
    const out = new Float64Array(col.length);
    for (let i = 0; i < col.length; i++) out[i] = Number(col[i]);
    return out;
  }
  return Float64Array.from(col);
}

// row r of a 2-D column (shape [rows, cols])
export function row(col, r) {
  const w = col.shape ? col.shape[1] : col.length;
  return col.subarray(r * w, (r + 1) * w);
}
