// Per-SM warp-state strips: a row per SM; colour = the dominant state among resident warps, opacity =
// the fraction of warp slots holding a resident warp. Recorded SMs come from the warp-state pyramid
// (group `strip`, down to 16-cycle buckets); the others from the interval counters (group `strip_c`).
import { statePixels, stateColour } from '../lib/colours.js';
import { indexBitmap, drawBuckets, rectBuckets } from '../render/bitmap.js';
import { bucketAt, frac } from './track.js';
import { exact, pct } from '../lib/format.js';

export class StripTrack {
  constructor(src) { this.src = src; this.id = 'strips'; this.groups = ['strip', 'strip_c']; this.bms = {}; this.label = 'Warp states per SM'; }
  nsm() { return (this.src.meta && this.src.meta.num_sms) || 0; }
  rowH() { return this.nsm() > 48 ? 3 : 6; }
  height() { return this.nsm() * this.rowH() + 2; }
  setData() {
    const px = statePixels(this.src.meta.states);
    for (const k of ['strip', 'strip_c']) {
      const g = this.src.groups[k];
      this.bms[k] = g ? indexBitmap(g.cols.dom, g.sms.length, g.n, px, g.cols.act) : null;
      if (g) g.rowOf = new Map(g.sms.map((sm, i) => [sm, i]));
    }
  }
  rowLabels() {
    const rh = this.rowH(), every = rh >= 6 ? 1 : 16, out = [];
    for (let s = 0; s < this.nsm(); s += every) out.push({ y: s * rh + rh / 2, text: `SM ${s}` });
    return out;
  }
  _source(sm) {
    for (const k of ['strip', 'strip_c']) {
      const g = this.src.groups[k];
      if (g && g.rowOf && g.rowOf.has(sm)) return [k, g, g.rowOf.get(sm)];
    }
    return [null, null, -1];
  }
  render(ctx, view, y) {
    const rh = this.rowH();
    for (let sm = 0; sm < this.nsm(); sm++) {
      const [k, g, r] = this._source(sm);
      if (!g) continue;
      const yy = y + sm * rh;
      if (ctx.vector) {
        rectBuckets(ctx, g.cols.dom, g.n, r, g.cycle0, g.step, view, yy, rh - (rh > 3 ? 1 : 0),
          (v) => stateColour(this.src.meta.states, v), (i) => (g.cols.act[i] ? Math.round((110 + 145 * frac(g.cols.act[i])) / 255 * 20) / 20 : 0));
      } else if (this.bms[k]) {
        const bm = this.bms[k];
        const i0 = Math.max(0, Math.floor((view.a - g.cycle0) / g.step));
        const i1 = Math.min(g.n, Math.ceil((view.b - g.cycle0) / g.step));
        if (i1 <= i0) continue;
        ctx.imageSmoothingEnabled = false;
        const x0 = view.toPx(g.cycle0 + i0 * g.step), x1 = view.toPx(g.cycle0 + i1 * g.step);
        ctx.drawImage(bm, i0, r, i1 - i0, 1, x0, yy, x1 - x0, rh - (rh > 3 ? 1 : 0));
      }
    }
  }
  hitTest(x, dy, view) {
    const sm = Math.floor(dy / this.rowH());
    const [k, g, r] = this._source(sm);
    if (!g) return null;
    const c = Math.floor(view.toCycle(x));
    const i = bucketAt(g, c);
    if (i < 0) return null;
    const dom = g.cols.dom[r * g.n + i], act = g.cols.act[r * g.n + i];
    return { title: `SM ${sm}: ${dom === 255 ? 'no data' : this.src.meta.states[dom]}`, sm, cycle: c,
      lines: [`cycles ${exact(g.cycle0 + i * g.step)}–${exact(g.cycle0 + (i + 1) * g.step - 1)}`,
        `resident warps ${pct(frac(act))} of slots`, k === 'strip' ? 'from warp-state recording' : 'from interval counters'] };
  }
}
