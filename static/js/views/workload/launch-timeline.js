// Every launch of a workload run on one cycle axis: a lane of simulated kernel spans laid end to end (as one
// stream runs them), a lane of what the H200 measured for the same launches (where the bundle has it), and
// in compare mode a lane for the other run. Spans are coloured by what bounds the launch; labels are drawn
// inside spans wide enough for them. Hover: the launch's numbers; click: onPick(row).
import { BOUND_COLOURS, HW_COLOUR, gridText, signedPct } from '../../lib/workload-rows.js';
import { cycles, escapeHtml, exact, tickStep } from '../../lib/format.js';
import { fitText } from '../../render/fit-text.js';
import { sizeCanvas } from '../../render/hidpi.js';

const LANE_H = 34, LABEL_W = 200, AXIS_H = 20, PAD = 6;

export class LaunchTimeline {
  constructor(root, onPick) {
    this.root = root; this.onPick = onPick;
    root.innerHTML = '<canvas></canvas><div class="tooltip" hidden></div>';
    this.canvas = root.querySelector('canvas'); this.tip = root.querySelector('.tooltip');
    this.lanes = []; this.spans = [];
    this.canvas.addEventListener('mousemove', (e) => this._hover(e));
    this.canvas.addEventListener('mouseleave', () => { this.tip.hidden = true; });
    this.canvas.addEventListener('click', (e) => { const s = this._at(e); if (s) this.onPick(s.row); });
    new ResizeObserver(() => this.draw()).observe(root);
  }

  // lanes: [{name, rows, key: 'sim_cycles' | 'hw_cycles' | 'b_cycles', kind: 'sim' | 'hw'}]
  set(lanes) { this.lanes = lanes; this.draw(); }

  draw() {
    const w = Math.max(300, this.root.clientWidth), h = AXIS_H + this.lanes.length * LANE_H + PAD;
    const dpr = sizeCanvas(this.canvas, w, h);
    const ctx = this.canvas.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, h);
    const total = Math.max(1, ...this.lanes.map((l) => l.rows.reduce((t, r) => t + (r[l.key] || 0), 0)));
    const x0 = LABEL_W, plotW = w - LABEL_W - 8;
    const X = (c) => x0 + (c / total) * plotW;                 // cycleSpace -> cssPx
    this.X = X; this.spans = [];
    // axis
    ctx.font = '11px system-ui, sans-serif'; ctx.fillStyle = '#6b7280'; ctx.strokeStyle = '#e5e7eb';
    const step = tickStep(total, Math.max(2, Math.floor(plotW / 90)));
    for (let c = 0; c <= total; c += step) {
      const x = Math.round(X(c)) + 0.5;
      ctx.beginPath(); ctx.moveTo(x, AXIS_H - 4); ctx.lineTo(x, h); ctx.stroke();
      if (x + 2 + ctx.measureText(cycles(c)).width < w) ctx.fillText(cycles(c), x + 2, AXIS_H - 7);
    }
    ctx.fillText('cycles', 4, AXIS_H - 7);
    this.lanes.forEach((lane, li) => {
      const y = AXIS_H + li * LANE_H + 3, sh = LANE_H - 8;
      ctx.fillStyle = '#1b1f24'; ctx.font = '12px system-ui, sans-serif';
      ctx.fillText(fitText(ctx, lane.name, LABEL_W - 10), 4, y + sh / 2 + 4);
      let c = 0;
      for (const r of lane.rows) {
        // an opaque launch (an extern library call captured without PTX) takes its measured time, hatched
        const opaque = lane.kind === 'sim' && r.opaque && !r[lane.key] && r.hw_cycles;
        const v = opaque ? r.hw_cycles : r[lane.key];
        if (!v) continue;
        const xa = X(c), xb = X(c + v);
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
        this._label(ctx, r, xa, xb, y, sh, lane.kind === 'hw' || opaque ? '#1b1f24' : '#fff');
        this.spans.push({ lane, row: r, xa, xb, y, h: sh, start: c, len: v, opaque });
        c += v;
      }
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
    return this.spans.find((s) => x >= s.xa && x < s.xb && y >= s.y && y < s.y + s.h) || null;
  }

  _hover(e) {
    const s = this._at(e);
    this.canvas.style.cursor = s ? 'pointer' : 'default';
    if (!s) { this.tip.hidden = true; return; }
    const r = s.row;
    const lines = [`<b>#${r.index} ${escapeHtml(r.label)}</b>`, `${escapeHtml(r.kernel || '')}`,
      `${escapeHtml(s.lane.name)}: ${exact(s.len)} cycles, starts at ${exact(s.start)}`,
      `grid ${gridText(r.grid)} × block ${gridText(r.block)}`];
    if (r.hw_cycles && r.sim_cycles) lines.push(`simulated ${exact(r.sim_cycles)} vs H200 ${exact(r.hw_cycles)} (${signedPct(r.err)})`);
    if (r.bound) lines.push(`bound: ${r.bound} · top stall ${escapeHtml(r.dominant_stall || '–')}`);
    if (s.opaque) lines.push('opaque launch: no PTX, drawn with its measured time');
    if (r.error) lines.push(`<span class="tip-bad">${escapeHtml(r.error)}</span>`);
    lines.push(r.child ? 'click: open its per-cycle view' : 'no per-cycle timeline recorded for this launch');
    this.tip.innerHTML = lines.join('<br>');
    const b = this.root.getBoundingClientRect(), cb = this.canvas.getBoundingClientRect();
    this.tip.hidden = false;
    this.tip.style.left = Math.min(e.clientX - b.left + 12, b.width - 300) + 'px';
    this.tip.style.top = (s.y + s.h + 4 + cb.top - b.top) + 'px';
  }
}

let hatchPattern = null;
function hatch(ctx) {                                // grey diagonal stripes: "not simulated"
  if (!hatchPattern) {
    const c = document.createElement('canvas'); c.width = c.height = 8;
    const g = c.getContext('2d');
    g.fillStyle = '#e5e7eb'; g.fillRect(0, 0, 8, 8);
    g.strokeStyle = '#9ca3af'; g.beginPath(); g.moveTo(0, 8); g.lineTo(8, 0); g.stroke();
    hatchPattern = ctx.createPattern(c, 'repeat');
  }
  return hatchPattern;
}
