// Warp x cycle heatmap for one SM: a row per warp slot, coloured by the slot's (dominant) state per
// bucket; issue markers of the PTX line chosen in the source view are drawn on top.
import { statePixels, stateColour, HIGHLIGHT } from '../lib/colours.js';
import { indexBitmap, drawBuckets, rectBuckets } from '../render/bitmap.js';
import { bucketAt } from './track.js';
import { cycles as fmtCycles, exact } from '../lib/format.js';

export class HeatTrack {
  constructor(src, sm) {
    this.src = src; this.sm = sm; this.id = 'heat'; this.groups = ['heat', 'issues'];
    this.bitmap = null;
  }
  get label() { return `Warps of SM ${this.sm}`; }
  slots() { return (this.src.meta && this.src.meta.slots) || 0; }
  rowH() { const s = this.slots(); return s ? Math.max(3, Math.min(8, Math.floor(256 / s))) : 0; }
  height() { return this.slots() * this.rowH() + 2; }
  setData() {
    const g = this.src.groups.heat;
    this.bitmap = g && g.sm === this.sm ? indexBitmap(g.cols.state, this.slots(), g.n, statePixels(this.src.meta.states)) : null;
  }
  rowLabels() {
    const rh = this.rowH(), out = [], every = rh >= 8 ? 1 : (rh >= 4 ? 8 : 16);
    for (let s = 0; s < this.slots(); s += every) out.push({ y: s * rh + rh / 2, text: `w${s}` });
    return out;
  }
  render(ctx, view, y) {
    const g = this.src.groups.heat;
    if (!g || g.sm !== this.sm) return;
    const rh = this.rowH(), slots = this.slots();
    if (ctx.vector) {
      for (let s = 0; s < slots; s++) {
        rectBuckets(ctx, g.cols.state, g.n, s, g.cycle0, g.step, view, y + s * rh, rh,
          (v) => stateColour(this.src.meta.states, v));
      }
    } else if (this.bitmap) {
      drawBuckets(ctx, this.bitmap, g.cycle0, g.step, view, y, slots * rh);
    }
    const iss = this.src.groups.issues;
    if (iss && iss.sm === this.sm && iss.n) {
      ctx.fillStyle = HIGHLIGHT;
      const w = Math.max(2, view.pxPerCycle);
      for (let i = 0; i < iss.n; i++) {
        const x = view.toPx(iss.cycle0 + Number(iss.cols.cycle[i]));
        if (x < view.x0 - w || x > view.x0 + view.width) continue;
        ctx.fillRect(x, y + iss.cols.slot[i] * rh, w, Math.max(2, rh - 1));
      }
    }
  }
  hitTest(x, dy, view) {
    const g = this.src.groups.heat;
    const slot = Math.floor(dy / this.rowH());
    if (!g || slot < 0 || slot >= this.slots()) return null;
    const c = Math.floor(view.toCycle(x));
    const i = bucketAt(g, c);
    if (i < 0) return null;
    const st = g.cols.state[slot * g.n + i];
    const lines = [g.step > 1 ? `cycles ${exact(g.cycle0 + i * g.step)}–${exact(g.cycle0 + (i + 1) * g.step - 1)} (dominant)` : `cycle ${exact(c)}`];
    if (g.cols.pc) {
      const pc = g.cols.pc[slot * g.n + i];
      lines.push(`pc ${pc}: ${this.src.pcText(pc)}`);
    }
    return { title: `SM ${this.sm} warp slot ${slot}: ${st === 255 ? 'no data' : this.src.meta.states[st]}`,
      lines, state: st, slot, cycle: c, bucket: fmtCycles(g.step) };
  }
}
