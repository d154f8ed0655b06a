// Coordinate spaces (STYLE.md guideline 9): cycleSpace (integer cycles, held as Numbers: exact below
// 2^53), cssPx (CSS pixels from the left edge of the track area) and devicePx (cssPx * devicePixelRatio).
// Convert only through these transforms.

export class CycleTransform {
  // Maps the visible cycle range [a, b) onto [x0, x0 + width) CSS pixels.
  constructor(a, b, x0, width) {
    this.a = a; this.b = Math.max(b, a + 1e-9); this.x0 = x0; this.width = Math.max(1, width);
    this.pxPerCycle = this.width / (this.b - this.a);
  }
  toPx(cycle) { return this.x0 + (cycle - this.a) * this.pxPerCycle; }
  toCycle(px) { return this.a + (px - this.x0) / this.pxPerCycle; }
  // cycles per CSS pixel, rounded to the nearest power of two (>= 1): the resolution a fetch asks for
  // (a bucket then spans 0.7 to 1.4 pixels; rounding down as Perfetto does doubles the data for little gain)
  resolution() { return pow2round(Math.max(1, (this.b - this.a) / this.width)); }
}

export function pow2round(x) { return x < 1 ? 1 : 2 ** Math.round(Math.log2(x)); }

export function clamp(x, lo, hi) { return x < lo ? lo : (x > hi ? hi : x); }

// The visible range after zooming by `factor` (< 1 zooms in) around cycle `at`, kept inside [0, end]
// and at least `minSpan` cycles wide.
export function zoomRange(a, b, at, factor, end, minSpan = 16) {
  let span = clamp((b - a) * factor, minSpan, Math.max(minSpan, end * 1.05));
  const f = (at - a) / (b - a);
  let na = at - f * span;
  return shiftRange(na, na + span, 0, end);
}

// [a, b) moved by `by` cycles, kept inside [0, end] where possible.
export function shiftRange(a, b, by, end) {
  const span = b - a;
  let na = a + by;
  na = clamp(na, -span * 0.05, Math.max(0, end - span * 0.95));
  return [na, na + span];
}
