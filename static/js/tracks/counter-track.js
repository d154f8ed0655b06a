// Counter tracks over the shared cycle axis: one metric per track as a step line (value per bucket of
// interval * 2^k cycles), and the GPU-wide warp-state breakdown as stacked areas. Gauges (occupancy, queue
// depths) also get a band from the smallest to the largest sample in each bucket (`<key>_min/_max` from
// the server), so a short peak stays visible however far one zooms out.
import { STATE_COLOURS, INK, MUTED, GRID, hiddenStates } from '../lib/colours.js';
import { toNumbers } from '../net/wire.js';
import { bucketAt } from './track.js';
import { exact, num, pct } from '../lib/format.js';

const FRACTION = new Set(['occupancy', 'l1_hit', 'l2_hit']);

export class CounterTrack {
  constructor(src, key, label, unit, prefix = '', desc = '') {
    this.src = src; this.key = key; this.unit = unit; this.desc = desc; this.id = prefix + 'ctr:' + key;
    this.groups = ['ctr']; this.label = prefix + label;
  }
  height() { return 38; }
  setData() {
    const g = this.src.groups.ctr;
    this.max = 1;
    if (g && !FRACTION.has(this.key)) {
      let m = 0;
      for (const v of g.cols[this.key + '_max'] || g.cols[this.key]) if (v > m) m = v;
      this.max = m > 0 ? m * 1.1 : 1;
    }
  }
  render(ctx, view, y) {
    const g = this.src.groups.ctr;
    const h = this.height() - 6, top = y + 3;
    ctx.fillStyle = GRID; ctx.fillRect(view.x0, top + h, view.width, 1);
    if (!g) return;
    const v = g.cols[this.key];
    const i0 = Math.max(0, Math.floor((view.a - g.cycle0) / g.step));
    const i1 = Math.min(g.n, Math.ceil((view.b - g.cycle0) / g.step));
    const max = this.scaleMax();
    const yOf = (val) => top + h - Math.min(1, val / max) * h;
    const lo = g.cols[this.key + '_min'], hi = g.cols[this.key + '_max'];
    if (lo && hi) {                                                  // min..max band of a gauge
      ctx.fillStyle = 'rgba(0,114,178,0.22)';
      for (let i = i0; i < i1; i++) {
        if (Number.isNaN(hi[i])) continue;
        const xa = Math.max(view.x0, view.toPx(g.cycle0 + i * g.step));
        const xb = Math.min(view.x0 + view.width, view.toPx(g.cycle0 + (i + 1) * g.step));
        const ya = yOf(hi[i]), yb = yOf(lo[i]);
        ctx.fillRect(xa, ya, Math.max(0.5, xb - xa), Math.max(1, yb - ya));
      }
    }
    ctx.beginPath();
    let open = false;
    for (let i = i0; i < i1; i++) {
      const xa = Math.max(view.x0, view.toPx(g.cycle0 + i * g.step));
      const xb = Math.min(view.x0 + view.width, view.toPx(g.cycle0 + (i + 1) * g.step));
      if (Number.isNaN(v[i]) || Number(g.cols.cycles[i]) === 0) { open = false; continue; }
      const yy = yOf(v[i]);
      if (!open) { ctx.moveTo(xa, yy); open = true; } else ctx.lineTo(xa, yy);
      ctx.lineTo(xb, yy);
    }
    ctx.strokeStyle = INK; ctx.lineWidth = 1.25; ctx.stroke();
    ctx.font = '9px sans-serif'; ctx.fillStyle = MUTED; ctx.textAlign = 'right'; ctx.textBaseline = 'top';
    ctx.fillText(FRACTION.has(this.key) ? '100%' : num(max / 1.1), view.x0 + view.width - 2, top);
  }
  // a compared run's track shares its scale with the same metric of the main run (`peer`)
  scaleMax() { return Math.max(this.max || 1, (this.peer && this.peer.max) || 0); }
  valueAt(cycle) {
    const g = this.src.groups.ctr;
    const i = bucketAt(g, cycle);
    if (i < 0) return null;
    const lo = g.cols[this.key + '_min'], hi = g.cols[this.key + '_max'];
    return { v: g.cols[this.key][i], a: g.cycle0 + i * g.step, b: g.cycle0 + (i + 1) * g.step,
      lo: lo ? lo[i] : null, hi: hi ? hi[i] : null };
  }
  hitTest(x, dy, view) {
    const r = this.valueAt(Math.floor(view.toCycle(x)));
    if (!r) return null;
    const f = (v) => (FRACTION.has(this.key) ? pct(v) : `${num(v)} ${this.unit}`);
    const range = r.hi !== null && !Number.isNaN(r.hi) ? `min ${f(r.lo)}, max ${f(r.hi)} (per-interval samples)` : '';
    return { title: `${this.label}: ${f(r.v)}${range ? ' mean' : ''}`, lines: [range, this.desc, `cycles ${exact(r.a)}–${exact(r.b - 1)}`].filter(Boolean) };
  }
}

export class StatesTrack {
  constructor(src, prefix = '') { this.src = src; this.id = prefix + 'states'; this.groups = ['ctr']; this.label = prefix + 'Warp states (all SMs)'; }
  height() { return 64; }
  setData() {
    const g = this.src.groups.ctr;
    this.fr = null;
    if (!g || !g.hist_states.length) return;
    const k = g.hist_states.length, h = toNumbers(g.cols.hist), fr = new Float32Array(g.n * k);
    for (let i = 0; i < g.n; i++) {
      let tot = 0;
      for (let j = 0; j < k; j++) if (this.src.meta.states[g.hist_states[j]] !== 'idle') tot += h[i * k + j];
      for (let j = 0; j < k; j++) fr[i * k + j] = tot > 0 && this.src.meta.states[g.hist_states[j]] !== 'idle' ? h[i * k + j] / tot : 0;
    }
    this.fr = fr;
  }
  render(ctx, view, y) {
    const g = this.src.groups.ctr;
    if (!g || !this.fr) return;
    const k = g.hist_states.length, H = this.height() - 4;
    const i0 = Math.max(0, Math.floor((view.a - g.cycle0) / g.step));
    const i1 = Math.min(g.n, Math.ceil((view.b - g.cycle0) / g.step));
    for (let i = i0; i < i1; i++) {
      const xa = Math.max(view.x0, view.toPx(g.cycle0 + i * g.step));
      const xb = Math.min(view.x0 + view.width, view.toPx(g.cycle0 + (i + 1) * g.step));
      let acc = 0;
      for (let j = 0; j < k; j++) {
        const f = this.fr[i * k + j];
        if (f <= 0) continue;
        const name = this.src.meta.states[g.hist_states[j]];
        if (!hiddenStates.has(name)) {                  // a hidden state leaves its gap: the others stay put
          ctx.fillStyle = STATE_COLOURS[name];
          ctx.fillRect(xa, y + 2 + H * (1 - acc - f), Math.max(0.5, xb - xa), H * f);
        }
        acc += f;
      }
    }
  }
  hitTest(x, dy, view) {
    const g = this.src.groups.ctr;
    const i = bucketAt(g, Math.floor(view.toCycle(x)));
    if (i < 0 || !this.fr) return null;
    const k = g.hist_states.length;
    const parts = [];
    for (let j = 0; j < k; j++) if (this.fr[i * k + j] > 0.0005) parts.push([this.fr[i * k + j], this.src.meta.states[g.hist_states[j]]]);
    parts.sort((p, q) => q[0] - p[0]);
    return { title: `resident warps, cycles ${exact(g.cycle0 + i * g.step)}–${exact(g.cycle0 + (i + 1) * g.step - 1)}`,
      lines: parts.map(([f, s]) => `${s}: ${pct(f)}`) };
  }
}
