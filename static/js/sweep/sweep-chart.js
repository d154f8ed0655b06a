// The sweep chart (uPlot): a metric against one swept key, one line per workload (and per combination of
// the other keys' values). Points appear as the sweep stores them. Clicking near a point calls onPick(point).
import { num } from '../lib/format.js';

const PALETTE = ['#0072b2', '#e69f00', '#009e73', '#cc79a7', '#56b4e9', '#d55e00', '#f0e442', '#000000'];

// x positions: the key's values as numbers when they all are, else their index in the list
export function xPositions(values) {
  const nums = values.map(Number);
  return nums.every(Number.isFinite) ? nums : values.map((_, i) => i);
}

// {xs, groups: [{label, ys, points}]} for uPlot's aligned columns (null where a group has no point yet)
export function chartData(sweep, xKey, metric, valueOf) {
  const axes = sweep.spec.axes, values = axes[xKey], xs = xPositions(values);
  const others = Object.keys(axes).filter((k) => k !== xKey);
  const groups = new Map();
  for (const p of sweep.points) {
    const label = p.workload.replace(/^[^:]*:/, '') + others.map((k) => `, ${k}=${p.values[k]}`).join('');
    if (!groups.has(label)) groups.set(label, { label, ys: values.map(() => null), points: values.map(() => null) });
    const g = groups.get(label), i = values.indexOf(p.values[xKey]);
    g.points[i] = p;
    const v = valueOf(p, metric);
    g.ys[i] = (v === null || v === undefined || Number.isNaN(v)) ? null : v;
  }
  const order = xs.map((x, i) => i).sort((a, b) => xs[a] - xs[b]);
  const sorted = [...groups.values()].map((g) => ({ ...g, ys: order.map((i) => g.ys[i]), points: order.map((i) => g.points[i]) }));
  return { xs: order.map((i) => xs[i]), labels: order.map((i) => values[i]), groups: sorted };
}

export class SweepChart {
  constructor(root, onPick) {
    this.root = root; this.onPick = onPick; this.plot = null; this.sig = '';
  }

  update(sweep, xKey, metric, metricLabel, valueOf) {
    const d = chartData(sweep, xKey, metric, valueOf);
    this.data = d;
    const sig = JSON.stringify([sweep.id, xKey, metric, d.groups.map((g) => g.label), this.root.clientWidth]);
    const cols = [d.xs, ...d.groups.map((g) => g.ys)];
    if (this.plot && sig === this.sig) { this.plot.setData(cols); return; }
    this.sig = sig;
    if (this.plot) this.plot.destroy();
    const numeric = !d.labels.some((v) => !Number.isFinite(Number(v)));
    const opts = {
      width: Math.max(420, Math.min(980, this.root.clientWidth || 900)), height: 300,
      // padded so that the first and last points sit inside the plot (and can be clicked)
      scales: { x: { time: false, range: (u, lo, hi) => { const pad = (hi - lo || 1) * 0.06; return [lo - pad, hi + pad]; } },
        y: { auto: true } },
      axes: [
        { label: xKey, values: (u, ticks) => ticks.map((t) => (numeric ? t : (d.labels[t] ?? ''))),
          splits: () => d.xs },
        { label: metricLabel, size: 80, values: (u, ticks) => ticks.map((t) => num(t, 4)) },
      ],
      series: [{ label: xKey, value: (u, v) => (v === null ? '' : (numeric ? v : d.labels[v])) },
        ...d.groups.map((g, i) => ({ label: g.label, stroke: PALETTE[i % PALETTE.length], width: 2,
          points: { show: true, size: 8, fill: PALETTE[i % PALETTE.length] }, spanGaps: true }))],
      cursor: { focus: { prox: 24 } },
      // a key of the lines (colour, workload) under the chart; the values are in the table, so no live readout
      legend: { live: false },
    };
    this.plot = new globalThis.uPlot(opts, cols, this.root);
    this.plot.over.addEventListener('click', (e) => this._click(e));
  }

  // the stored point nearest to a click (within 14 CSS px), or null
  pointAt(cx, cy) {
    const u = this.plot, d = this.data;
    let best = null, bestD = 14 * 14;
    d.groups.forEach((g, gi) => g.ys.forEach((y, i) => {
      if (y === null || !g.points[i]) return;
      const px = u.valToPos(d.xs[i], 'x'), py = u.valToPos(y, 'y');
      const dd = (px - cx) ** 2 + (py - cy) ** 2;
      if (dd < bestD) { bestD = dd; best = g.points[i]; }
    }));
    return best;
  }

  _click(e) {
    const r = this.plot.over.getBoundingClientRect();
    const p = this.pointAt(e.clientX - r.left, e.clientY - r.top);
    if (p) this.onPick(p);
  }

  // CSS position of a point inside the chart's plotting area (for tests)
  positionOf(pointIndex) {
    const u = this.plot, d = this.data;
    for (const g of d.groups) {
      const i = g.points.findIndex((p) => p && p.index === pointIndex);
      if (i >= 0 && g.ys[i] !== null) return { x: u.valToPos(d.xs[i], 'x'), y: u.valToPos(g.ys[i], 'y') };
    }
    return null;
  }

}
