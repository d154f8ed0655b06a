// Bar chart beside the layer table, rows in the table's order: simulated cycles per launch (coloured by what
// bounds it) with the measured cycles (the bundle's device) as a dark tick-bar under it; in compare mode the speed-up of
// run B over run A per launch, around a line at 1×.
import { BOUND_COLOURS, HW_COLOUR } from '../../lib/workload-rows.js';
import { cycles, escapeHtml } from '../../lib/format.js';
import { measuredLabels } from '../../lib/measured.js';
import { fitText } from '../../render/fit-text.js';
import { sizeCanvas } from '../../render/hidpi.js';
import { hatch, HATCH_CSS } from './hatch.js';

const ROW_H = 22, LABEL_W = 280, TOP = 18;

export class BarChart {
  constructor(root) {
    this.root = root;
    root.innerHTML = '<canvas></canvas><div class="wl-chart-legend small"></div>';
    this.canvas = root.querySelector('canvas'); this.legend = root.querySelector('.wl-chart-legend');
    this.rows = []; this.mode = 'time'; this.ml = measuredLabels(null);
    new ResizeObserver(() => this.draw()).observe(root);
  }

  set(rows, mode, ml = measuredLabels(null)) { this.rows = rows; this.mode = mode; this.ml = ml; this.draw(); }

  draw() {
    const w = Math.max(240, this.root.clientWidth), h = TOP + this.rows.length * ROW_H + 6;
    const dpr = sizeCanvas(this.canvas, w, h);
    const ctx = this.canvas.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, h);
    ctx.font = '11px system-ui, sans-serif';
    const plotW = w - LABEL_W - 50;
    if (this.mode === 'speedup') this._speedup(ctx, plotW, h); else this._time(ctx, plotW);
    ctx.fillStyle = '#1b1f24';
    this.rows.forEach((r, i) => ctx.fillText(fitText(ctx, `${r.index} ${r.short || r.label}`, LABEL_W - 10), 4, TOP + i * ROW_H + 14));
  }

  _time(ctx, plotW) {
    const max = Math.max(1, ...this.rows.map((r) => Math.max(r.sim_cycles || 0, r.hw_cycles || 0)));
    const X = (c) => LABEL_W + (c / max) * plotW;
    ctx.fillStyle = '#6b7280'; ctx.fillText(`0 … ${cycles(max)} cycles`, LABEL_W, 11);
    this.rows.forEach((r, i) => {
      const y = TOP + i * ROW_H;
      if (r.sim_cycles) {
        ctx.fillStyle = r.error ? '#b91c1c' : BOUND_COLOURS[r.bound || 'none'];
        ctx.fillRect(LABEL_W, y + 3, X(r.sim_cycles) - LABEL_W, 10);
        ctx.fillStyle = '#1b1f24'; ctx.fillText(cycles(r.sim_cycles), X(r.sim_cycles) + 3, y + 12);
      } else if (r.opaque && r.hw_cycles) {                       // not simulated: its measured time, hatched
        ctx.fillStyle = hatch(ctx);
        ctx.fillRect(LABEL_W, y + 3, X(r.hw_cycles) - LABEL_W, 10);
        ctx.fillStyle = '#1b1f24'; ctx.fillText(cycles(r.hw_cycles), X(r.hw_cycles) + 3, y + 12);
        if (X(r.hw_cycles) - LABEL_W > 140) {
          ctx.fillStyle = '#fff'; ctx.fillRect(LABEL_W + 2, y + 3, 112, 10);
          ctx.fillStyle = '#1b1f24'; ctx.fillText('opaque: measured', LABEL_W + 4, y + 12);
        }
      }
      if (r.hw_cycles) {
        ctx.fillStyle = HW_COLOUR;
        ctx.fillRect(LABEL_W, y + 15, X(r.hw_cycles) - LABEL_W, 4);
      }
    });
    this.legend.innerHTML = `<span class="swatch" style="background:${BOUND_COLOURS.compute}"></span>compute-bound
      <span class="swatch" style="background:${BOUND_COLOURS.memory}"></span>memory-bound
      <span class="swatch" style="background:${BOUND_COLOURS.latency}"></span>latency-bound (simulated)
      <span class="swatch" style="background:${HW_COLOUR};height:4px"></span>${escapeHtml(this.ml.dev)} measured${this.rows.some((r) => r.opaque)
    ? ` <span class="swatch" style="background:${HATCH_CSS}"></span>opaque launch (no PTX, not simulated): its measured time` : ''}`;
  }

  _speedup(ctx, plotW, h) {
    const vals = this.rows.map((r) => r.speedup || 1);
    const lo = Math.min(0.9, ...vals), hi = Math.max(1.1, ...vals);
    const X = (s) => LABEL_W + ((s - lo) / (hi - lo)) * plotW;
    const one = X(1);
    ctx.strokeStyle = '#1b1f24'; ctx.beginPath(); ctx.moveTo(one + 0.5, TOP - 4); ctx.lineTo(one + 0.5, h); ctx.stroke();
    ctx.fillStyle = '#6b7280'; ctx.fillText('1×', one - 6, 11);
    ctx.fillText(`${lo.toFixed(2)}×`, LABEL_W, 11);
    ctx.fillText(`${hi.toFixed(2)}×`, LABEL_W + plotW - 30, 11);
    this.rows.forEach((r, i) => {
      if (r.opaque) { ctx.fillStyle = '#6b7280'; ctx.fillText('opaque: not simulated', one + 3, TOP + i * ROW_H + 14); return; }
      if (!r.speedup) return;
      const y = TOP + i * ROW_H, x = X(r.speedup);
      ctx.fillStyle = r.speedup >= 1 ? '#047857' : '#b91c1c';
      ctx.fillRect(Math.min(one, x), y + 4, Math.max(1, Math.abs(x - one)), 12);
      ctx.fillStyle = '#1b1f24';
      ctx.fillText(`${r.speedup.toFixed(3)}×`, Math.max(one, x) + 3, y + 14);
    });
    this.legend.innerHTML = 'speed-up of run B over run A (A cycles / B cycles): green faster, red slower';
  }
}

