// Index images: a (rows x n) array of state indices becomes an offscreen canvas of n x rows pixels, drawn
// later at any zoom with smoothing off (one bucket = one source pixel). Building is one typed-array pass;
// drawing the cached bitmap is what makes panning and scrubbing cheap.
import { NO_DATA } from '../lib/colours.js';

export function indexBitmap(indices, rows, n, pixels, alpha = null) {
  const canvas = document.createElement('canvas');
  canvas.width = Math.max(1, n); canvas.height = Math.max(1, rows);
  const ctx = canvas.getContext('2d');
  const img = ctx.createImageData(canvas.width, canvas.height);
  const out = new Uint32Array(img.data.buffer);
  for (let r = 0; r < rows; r++) {
    const base = r * n;
    for (let i = 0; i < n; i++) {
      const s = indices[base + i];
      let px = pixels[s];
      if (alpha && s !== NO_DATA) {
        // opacity from the resident fraction, floored so that a lightly occupied SM still shows its colour
        const f = alpha[base + i];
        const a = f ? Math.round(110 + 145 * f / 255) : 0;
        px = (px & 0x00ffffff) | (a << 24);
      }
      out[base + i] = px;
    }
  }
  ctx.putImageData(img, 0, 0);
  return canvas;
}

// Draw the part of a bucketed bitmap (first bucket at cycle0, `step` cycles each) visible in `view`,
// into the box [x, x+w) x [y, y+h).
export function drawBuckets(ctx, bitmap, cycle0, step, view, y, h, rows = bitmap.height) {
  const n = bitmap.width;
  const i0 = Math.max(0, Math.floor((view.a - cycle0) / step));
  const i1 = Math.min(n, Math.ceil((view.b - cycle0) / step));
  if (i1 <= i0) return;
  const x0 = view.toPx(cycle0 + i0 * step);
  const x1 = view.toPx(cycle0 + i1 * step);
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(bitmap, i0, 0, i1 - i0, rows, x0, y, x1 - x0, h);
}

// Vector form of the same thing for SVG: one rectangle per run of equal values in a row.
export function rectBuckets(ctx, values, n, rowIndex, cycle0, step, view, y, h, colourOf, alphaOf = null) {
  const base = rowIndex * n;
  const i0 = Math.max(0, Math.floor((view.a - cycle0) / step));
  const i1 = Math.min(n, Math.ceil((view.b - cycle0) / step));
  let i = i0;
  while (i < i1) {
    const v = values[base + i];
    const al = alphaOf ? alphaOf(base + i) : 1;
    let j = i + 1;
    while (j < i1 && values[base + j] === v && (!alphaOf || alphaOf(base + j) === al)) j++;
    if (v !== NO_DATA) {
      const xa = Math.max(view.x0, view.toPx(cycle0 + i * step));
      const xb = Math.min(view.x0 + view.width, view.toPx(cycle0 + j * step));
      ctx.globalAlpha = al; ctx.fillStyle = colourOf(v); ctx.fillRect(xa, y, xb - xa, h);
    }
    i = j;
  }
  ctx.globalAlpha = 1;
}
