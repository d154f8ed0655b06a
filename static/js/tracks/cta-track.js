// Kernels (one row) and CTAs per SM (a row per SM; CTAs resident together sit in different lanes and
// alternate shade). Spans narrower than a pixel were merged by the server (count > 1).
import { kernelColour, MUTED } from '../lib/colours.js';
import { exact } from '../lib/format.js';

export class KernelTrack {
  constructor(src, prefix = '') { this.src = src; this.id = prefix + 'kernels'; this.groups = ['kernel']; this.label = prefix + 'Kernels'; }
  height() { return 18; }
  setData() {}
  _spans() {
    const g = this.src.groups.kernel;
    if (!g) return [];
    const out = [];
    for (let i = 0; i < g.n; i++) out.push({ k: g.cols.kernel[i], a: Number(g.cols.start[i]), b: Number(g.cols.end[i]) });
    return out;
  }
  render(ctx, view, y) {
    ctx.font = '11px sans-serif'; ctx.textBaseline = 'middle';
    for (const s of this._spans()) {
      const x0 = Math.max(view.x0, view.toPx(s.a)), x1 = Math.min(view.x0 + view.width, view.toPx(s.b));
      if (x1 <= x0) continue;
      ctx.fillStyle = kernelColour(s.k); ctx.fillRect(x0, y + 2, x1 - x0, 14);
      const name = this.src.kernelName(s.k);
      if (x1 - x0 > 40) { ctx.fillStyle = '#fff'; ctx.textAlign = 'left'; ctx.fillText(name, x0 + 4, y + 9); }
    }
  }
  hitTest(x, dy, view) {
    const c = view.toCycle(x);
    const s = this._spans().find((k) => k.a <= c && c < k.b);
    return s ? { title: `kernel ${this.src.kernelName(s.k)}`, lines: [`cycles ${exact(s.a)}–${exact(s.b)} (${exact(s.b - s.a)} cycles)`] } : null;
  }
}

export class CtaTrack {
  constructor(src) { this.src = src; this.id = 'ctas'; this.groups = ['cta']; this.label = 'CTAs per SM'; this.lanes = 1; }
  nsm() { return (this.src.meta && this.src.meta.num_sms) || 0; }
  rowH() { return this.nsm() > 48 ? 2 : 14; }
  height() { return this.nsm() * this.rowH() + 2; }
  setData() {
    const g = this.src.groups.cta;                  // lanes seen so far (never shrinks: no jumping rows)
    if (g) for (let i = 0; i < g.n; i++) this.lanes = Math.max(this.lanes, g.cols.lane[i] + 1);
  }
  rowLabels() {
    const rh = this.rowH(), every = rh >= 6 ? 1 : 16, out = [];
    for (let s = 0; s < this.nsm(); s += every) out.push({ y: s * rh + rh / 2, text: `SM ${s}` });
    return out;
  }
  _box(i, g, y) {
    const rh = this.rowH(), lh = (rh - 1) / this.lanes;
    if (lh < 1.5) return [y + g.cols.sm[i] * rh, rh];     // too thin for lanes: CTAs share the SM's row
    return [y + g.cols.sm[i] * rh + g.cols.lane[i] * lh, lh];
  }
  render(ctx, view, y) {
    const g = this.src.groups.cta;
    if (!g || !g.n) return;
    const c = g.cols, x1max = view.x0 + view.width;
    for (let i = 0; i < g.n; i++) {
      const a = g.cycle0 + Number(c.start[i]), b = g.cycle0 + Number(c.end[i]);
      let x0 = view.toPx(a), x1 = view.toPx(b);
      if (x1 < view.x0 || x0 > x1max) continue;
      x0 = Math.max(x0, view.x0); x1 = Math.min(x1, x1max);
      const [yy, lh] = this._box(i, g, y);
      ctx.fillStyle = c.count[i] > 1 ? MUTED : kernelColour(c.kernel[i], c.cta[i] % 2 === 1);
      const w = x1 - x0 > 3 ? x1 - x0 - 1 : Math.max(1, x1 - x0);
      ctx.fillRect(x0, yy, w, lh > 2 ? lh - 0.5 : lh);
      if (lh >= 9 && x1 - x0 > 28 && c.count[i] === 1) {
        ctx.font = '8px sans-serif'; ctx.fillStyle = '#fff'; ctx.textBaseline = 'middle'; ctx.textAlign = 'left';
        ctx.fillText(`${c.cta[i]}`, x0 + 2, yy + lh / 2);
      }
    }
  }
  hitTest(x, dy, view) {
    const g = this.src.groups.cta;
    const sm = Math.floor(dy / this.rowH());
    if (!g) return null;
    const cyc = view.toCycle(x), tol = 2 / view.pxPerCycle;
    const hits = [];
    for (let i = 0; i < g.n; i++) {
      if (g.cols.sm[i] !== sm) continue;
      const a = g.cycle0 + Number(g.cols.start[i]), b = g.cycle0 + Number(g.cols.end[i]);
      if (a - tol <= cyc && cyc < b + tol) hits.push(i);
    }
    if (!hits.length) return { title: `SM ${sm}: no CTA`, lines: [], sm };
    const lines = hits.slice(0, 8).map((i) => {
      const a = g.cycle0 + Number(g.cols.start[i]), b = g.cycle0 + Number(g.cols.end[i]);
      return g.cols.count[i] > 1 ? `${g.cols.count[i]} short CTAs merged, ${exact(a)}–${exact(b)}`
        : `CTA ${g.cols.cta[i]} (${this.src.kernelName(g.cols.kernel[i])}), lane ${g.cols.lane[i]}: ${exact(a)}–${exact(b)}`;
    });
    return { title: `SM ${sm}: ${hits.length} CTA(s)`, lines, sm };
  }
}
