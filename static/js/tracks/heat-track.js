// Warp x cycle heatmap for one SM: a row per warp slot, coloured by the slot's (dominant) state per
// bucket; issue markers of the PTX line chosen in the source view are drawn on top. Only the slots that
// ever held a warp in the data seen so far get a row (never fewer later: rows do not jump), so a kernel
// with 40 resident warps on an SM of 64 slots fills the track. The pinned warp's row is outlined.
import { statePixels, stateColour, HIGHLIGHT } from '../lib/colours.js';
import { indexBitmap, drawBuckets, rectBuckets } from '../render/bitmap.js';
import { bucketAt } from './track.js';
import { cycles as fmtCycles, exact } from '../lib/format.js';

export class HeatTrack {
  constructor(src, sm, prefix = '') {
    this.src = src; this.sm = sm; this.id = prefix ? 'heat-b' : 'heat'; this.groups = ['heat', 'issues'];
    this.bitmap = null; this._label = `${prefix}Warps of SM ${sm}`;
  }
  get label() { return this._label; }
  set label(v) { this._label = v; }
  slots() { return (this.src.meta && this.src.meta.slots) || 0; }
  rows() { return this.used || this.slots(); }              // slots that held a warp (all until data came)
  rowH() { const s = this.rows(); return s ? Math.max(3, Math.min(12, Math.floor(256 / s))) : 0; }
  height() { return this.rows() * this.rowH() + 2; }
  setData() {
    const g = this.src.groups.heat;
    this.bitmap = g && g.sm === this.sm ? indexBitmap(g.cols.state, this.slots(), g.n, statePixels(this.src.meta.states)) : null;
    if (this.bitmap) {
      const idle = this.src.meta.states.indexOf('idle'), st = g.cols.state;
      let top = 0;
      for (let slot = this.slots() - 1; slot >= 0 && !top; slot--) {
        for (let i = slot * g.n, e = i + g.n; i < e; i++) if (st[i] !== idle && st[i] !== 255) { top = slot + 1; break; }
      }
      this.used = Math.max(this.used || 0, top);
    }
  }
  rowLabels() {
    const rh = this.rowH(), out = [], every = rh >= 11 ? 1 : (rh >= 5 ? 4 : 16);
    for (let s = 0; s < this.rows(); s += every) out.push({ y: s * rh + rh / 2, text: `w${s}` });
    return out;
  }
  render(ctx, view, y) {
    const g = this.src.groups.heat;
    if (!g || g.sm !== this.sm) return;
    const rh = this.rowH(), slots = this.rows();
    if (ctx.vector) {
      for (let s = 0; s < slots; s++) {
        rectBuckets(ctx, g.cols.state, g.n, s, g.cycle0, g.step, view, y + s * rh, rh,
          (v) => stateColour(this.src.meta.states, v));
      }
    } else if (this.bitmap) {
      drawBuckets(ctx, this.bitmap, g.cycle0, g.step, view, y, slots * rh, slots);
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
    if (!g || slot < 0 || slot >= this.rows()) return null;
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
