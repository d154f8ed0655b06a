// Every launch of a workload run on one cycle axis: a lane of simulated kernel spans in stream order, a lane
// of what the bundle's device measured for the same launches (where the bundle has it), and in compare mode a lane for
// the other run. Where the bundle measured the idle gaps between launches (hardware gap_ns), each lane
// leaves them empty (a thin line), converted to cycles at the run's SM clock; where it did not, launches are
// laid end to end. An opaque launch (no PTX: not simulated) is hatched and drawn with its measured time.
// Spans are coloured by what bounds the launch; labels are drawn inside spans wide enough for them.
// Hover: the launch's (or gap's) numbers; click: onPick(row); wheel and drag zoom and pan (launch-zoom.js).
import { BOUND_COLOURS, HW_COLOUR, gridText, signedPct } from '../../lib/workload-rows.js';
import { cycles, escapeHtml, exact, tickStep } from '../../lib/format.js';
import { fitText } from '../../render/fit-text.js';
import { sizeCanvas } from '../../render/hidpi.js';
import { hatch } from './hatch.js';
import { attachZoom } from './launch-zoom.js';
import { measuredLabels } from '../../lib/measured.js';

const LANE_H = 34, LABEL_W = 200, AXIS_H = 20, PAD = 6;

export class LaunchTimeline {
  constructor(root, onPick) {
    this.root = root; this.onPick = onPick;
    root.innerHTML = `<div class="wl-zoom small muted">wheel: zoom · drag: pan
      <button type="button" data-testid="wl-whole" hidden>whole run</button></div><canvas></canvas><div class="tooltip" hidden></div>`;
    this.canvas = root.querySelector('canvas'); this.tip = root.querySelector('.tooltip');
    this.whole = root.querySelector('[data-testid=wl-whole]');
    this.lanes = []; this.spans = []; this.labels = measuredLabels(null); this.view = { a: 0, b: 1, full: true }; this.total = 0;
    this.x0 = LABEL_W; this.plotW = 1; this.axisH = AXIS_H;
    this.canvas.addEventListener('mousemove', (e) => this._hover(e));
    this.canvas.addEventListener('mouseleave', () => { this.tip.hidden = true; });
    this.canvas.addEventListener('click', (e) => {
      if (this.dragged) { this.dragged = false; return; }
      const s = this._at(e);
      if (s && !s.gap) this.onPick(s.row);
    });
    attachZoom(this);
    new ResizeObserver(() => this.draw()).observe(root);
  }

  // show cycles [a, b) (kept inside the run, at least 64 cycles wide); the whole run again follows a live run
  setView(a, b) {
    const total = this.total || 1, w = Math.min(total, Math.max(64, b - a));
    a = Math.min(Math.max(0, a), total - w);
    this.view = { a, b: a + w, full: w >= total };
    this.draw();
  }

  // lanes: [{name, rows, key: 'sim_cycles' | 'hw_cycles' | 'b_cycles', kind: 'sim' | 'hw'}];
  // clockMhz: the run's SM clock, to draw measured gaps (ns) in cycles (none: gaps are not drawn);
  // labels: measuredLabels() of the run, for the tooltip (the measured device, error or difference)
  set(lanes, clockMhz = null, labels = measuredLabels(null)) {
    this.lanes = lanes; this.clockMhz = clockMhz; this.labels = labels; this.draw();
  }

  gapCycles(r) {
    return r.gap_ns !== undefined && r.gap_ns !== null && this.clockMhz ? (r.gap_ns * this.clockMhz) / 1000 : 0;
  }

  _len(lane, r) {                          // an opaque launch takes its measured time in a simulated lane
    const opaque = lane.kind === 'sim' && !!r.opaque;
    return { opaque, v: opaque ? (r[lane.key] || r.hw_cycles || 0) : (r[lane.key] || 0) };
  }

  draw() {
    const w = Math.max(300, this.root.clientWidth), h = AXIS_H + this.lanes.length * LANE_H + PAD;
    const dpr = sizeCanvas(this.canvas, w, h);
    const ctx = this.canvas.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, h);
    const total = Math.max(1, ...this.lanes.map((l) => l.rows.reduce((t, r) => t + this._len(l, r).v + this.gapCycles(r), 0)));
    const x0 = LABEL_W, plotW = w - LABEL_W - 8;
    this.total = total; this.x0 = x0; this.plotW = plotW;
    if (this.view.full) this.view = { a: 0, b: total, full: true };  // (a live run grows: the whole run follows it)
    else if (this.view.b > total) {
      const vw = Math.min(total, this.view.b - this.view.a);
      this.view = { a: total - vw, b: total, full: vw >= total };
    }
    this.whole.hidden = this.view.full;
    const { a: v0, b: v1 } = this.view;
    const X = (c) => x0 + ((c - v0) / (v1 - v0)) * plotW;     // cycleSpace -> cssPx
    this.X = X; this.spans = [];
    // axis
    ctx.font = '11px system-ui, sans-serif'; ctx.fillStyle = '#6b7280'; ctx.strokeStyle = '#e5e7eb';
    const step = tickStep(v1 - v0, Math.max(2, Math.floor(plotW / 90)));
    for (let c = Math.ceil(v0 / step) * step; c <= v1; c += step) {
      const x = Math.round(X(c)) + 0.5;
      ctx.beginPath(); ctx.moveTo(x, AXIS_H - 4); ctx.lineTo(x, h); ctx.stroke();
      if (x + 2 + ctx.measureText(cycles(c)).width < w) ctx.fillText(cycles(c), x + 2, AXIS_H - 7);
    }
    ctx.fillText('cycles', 4, AXIS_H - 7);
    this.lanes.forEach((lane, li) => {
      const y = AXIS_H + li * LANE_H + 3, sh = LANE_H - 8;
      ctx.fillStyle = '#1b1f24'; ctx.font = '12px system-ui, sans-serif';
      ctx.fillText(fitText(ctx, lane.name, LABEL_W - 10), 4, y + sh / 2 + 4);
      ctx.save();
      ctx.beginPath(); ctx.rect(x0, 0, plotW + 1, h); ctx.clip();   // zoomed in: spans end at the plot's edges
      let c = 0;
      for (const r of lane.rows) {
        const { opaque, v } = this._len(lane, r);
        const g = this.gapCycles(r);
        if (g > 0) {                                                // the measured idle gap before this launch
          const ga = X(c), gb = X(c + g);
          ctx.strokeStyle = '#9ca3af'; ctx.setLineDash([2, 2]);
          ctx.beginPath(); ctx.moveTo(ga, y + sh / 2 + 0.5); ctx.lineTo(gb, y + sh / 2 + 0.5); ctx.stroke();
          ctx.setLineDash([]);
          this.spans.push({ lane, row: r, xa: ga, xb: gb, y, h: sh, start: c, len: g, gap: true });
          c += g;
        }
        if (!v) continue;
        const xa = X(c), xb = X(c + v);
        if (xb < x0 || xa > x0 + plotW) { c += v; continue; }   // outside the view
        if (lane.kind === 'hw') {                                   // measured: outlined, so it never reads as simulated
          ctx.fillStyle = '#f3f4f6'; ctx.fillRect(xa, y, Math.max(1, xb - xa - 1), sh);
          ctx.strokeStyle = HW_COLOUR; ctx.strokeRect(xa + 0.5, y + 0.5, Math.max(1, xb - xa - 2), sh - 1);
        } else if (opaque) {
          ctx.fillStyle = hatch(ctx); ctx.fillRect(xa, y, Math.max(1, xb - xa - 1), sh);
        } else {
          ctx.fillStyle = r.error ? '#b91c1c' : BOUND_COLOURS[r.bound || 'none'];
          ctx.fillRect(xa, y, Math.max(1, xb - xa - 1), sh);      // 1 px gap: the boundary between launches
        }
        if (this.selected === r.index) {
          ctx.strokeStyle = '#000'; ctx.lineWidth = 2; ctx.strokeRect(xa + 1, y + 1, Math.max(1, xb - xa - 3), sh - 2);
          ctx.lineWidth = 1;
        }
        this._label(ctx, r, Math.max(xa, x0), Math.min(xb, x0 + plotW), y, sh, lane.kind === 'hw' || opaque ? '#1b1f24' : '#fff');
        this.spans.push({ lane, row: r, xa, xb, y, h: sh, start: c, len: v, opaque });
        c += v;
      }
      ctx.restore();
    });
  }

  _label(ctx, r, xa, xb, y, sh, ink) {
    const room = xb - xa - 6;
    if (room < 14) return;
    ctx.save();
    ctx.beginPath(); ctx.rect(xa, y, xb - xa - 1, sh); ctx.clip();
    ctx.fillStyle = ink; ctx.font = '11px system-ui, sans-serif';
    ctx.fillText(fitText(ctx, `${r.index} ${r.short || r.label}`, room), xa + 3, y + sh / 2 + 4);
    ctx.restore();
  }

  _at(e) {
    const b = this.canvas.getBoundingClientRect(), x = e.clientX - b.left, y = e.clientY - b.top;
    if (x < this.x0 || x > this.x0 + this.plotW) return null;
    return this.spans.find((s) => x >= s.xa && x < s.xb && y >= s.y && y < s.y + s.h) || null;
  }

  _hover(e) {
    const s = this._at(e);
    this.canvas.style.cursor = s ? 'pointer' : 'default';
    if (!s) { this.tip.hidden = true; return; }
    const r = s.row;
    if (s.gap) {
      this.tip.innerHTML = [`<b>idle gap before launch #${r.index}</b>`,
        `${(r.gap_ns / 1000).toFixed(2)} µs = ${exact(Math.round(s.len))} cycles at ${this.clockMhz} MHz`,
        'measured: CUDA events around a back-to-back replay of the bundle on the GPU'].join('<br>');
      this._place(e, s);
      return;
    }
    const lines = [`<b>#${r.index} ${escapeHtml(r.label)}</b>`, `${escapeHtml(r.kernel || '')}`,
      `${escapeHtml(s.lane.name)}: ${exact(s.len)} cycles, starts at ${exact(s.start)}`,
      `grid ${gridText(r.grid)} × block ${gridText(r.block)}`];
    if (r.hw_cycles && r.sim_cycles) lines.push(`simulated ${exact(r.sim_cycles)} vs ${escapeHtml(this.labels.dev)} ${exact(r.hw_cycles)} (${this.labels.gap} ${signedPct(r.err)})`);
    if (r.bound) lines.push(`bound: ${r.bound} · top stall ${escapeHtml(r.dominant_stall || '–')}`);
    if (s.opaque) lines.push('<b>opaque launch</b>: no PTX, not simulated; drawn with its measured time');
    if (r.gap_ns !== undefined && r.gap_ns !== null) lines.push(`measured idle gap before it: ${(r.gap_ns / 1000).toFixed(2)} µs`);
    if (r.error) lines.push(`<span class="tip-bad">${escapeHtml(r.error)}</span>`);
    lines.push(r.child ? 'click: open its per-cycle view' : 'no per-cycle timeline recorded for this launch');
    this.tip.innerHTML = lines.join('<br>');
    this._place(e, s);
  }

  _place(e, s) {
    const b = this.root.getBoundingClientRect(), cb = this.canvas.getBoundingClientRect();
    this.tip.hidden = false;
    this.tip.style.left = Math.min(e.clientX - b.left + 12, b.width - 300) + 'px';
    this.tip.style.top = (s.y + s.h + 4 + cb.top - b.top) + 'px';
  }
}
