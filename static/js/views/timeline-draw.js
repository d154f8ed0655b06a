// Drawing the timeline on any 2-D context (the screen's canvases, a PNG export canvas, an SvgContext):
// the cycle ruler, the gutter with track labels, the tracks, the selection band and the cursor.
import { tickStep, cycles as fmtCycles, exact } from '../lib/format.js';
import { INK, MUTED, GRID, CURSOR, STATE_COLOURS } from '../lib/colours.js';
import { GUTTER, RULER_H } from './layout.js';
import { clipRect } from '../render/svg-context.js';
import { fitText } from '../render/fit-text.js';

// mhz: the run's SM clock; the span shown is also given in µs (cycles stay the axis)
export function drawRuler(ctx, view, width, cursor, title = '', mhz = null) {
  ctx.fillStyle = '#fafafa'; ctx.fillRect(0, 0, width, RULER_H);
  ctx.fillStyle = GRID; ctx.fillRect(0, RULER_H - 1, width, 1);
  const span = view.b - view.a, step = Math.max(1, tickStep(span, Math.max(2, view.width / 110)));
  ctx.font = '10px sans-serif'; ctx.textBaseline = 'top'; ctx.textAlign = 'left';
  for (let c = Math.ceil(view.a / step) * step; c <= view.b; c += step) {
    const x = view.toPx(c);
    if (x < view.x0) continue;
    ctx.fillStyle = MUTED; ctx.fillRect(x, RULER_H - 8, 1, 7);
    ctx.fillStyle = INK; ctx.fillText(step < 1e4 ? exact(c) : fmtCycles(c), x + 3, RULER_H - 20);
  }
  // the title stays in the gutter (a workload launch's run name is long): cut with an ellipsis, never over the ticks
  ctx.fillStyle = INK; ctx.font = 'bold 11px sans-serif'; ctx.fillText(fitText(ctx, title || 'cycle', view.x0 - 10), 6, 4);
  ctx.font = '10px sans-serif'; ctx.fillStyle = MUTED;
  const us = mhz ? span / mhz : null;
  const time = us === null ? '' : (us >= 1000 ? ` · ${(us / 1000).toPrecision(3)} ms` : (us >= 1 ? ` · ${us.toPrecision(3)} µs` : ` · ${(us * 1000).toPrecision(3)} ns`));
  ctx.fillText(`${fmtCycles(span)} cycles shown${time}`, 6, 17);
  if (cursor !== null && cursor !== undefined) {
    const x = view.toPx(cursor);
    if (x >= view.x0 && x <= view.x0 + view.width) {
      ctx.fillStyle = CURSOR; ctx.fillRect(x - 0.5, 0, 1.5, RULER_H);
      const label = exact(cursor);
      ctx.font = 'bold 10px sans-serif';
      const w = ctx.measureText(label).width + 8;
      const lx = Math.min(x + 2, view.x0 + view.width - w);
      ctx.fillRect(lx, 2, w, 13); ctx.fillStyle = '#fff'; ctx.fillText(label, lx + 4, 3);
    }
  }
}

export function drawTracks(ctx, view, layout, width, sel = {}) {
  ctx.fillStyle = '#ffffff'; ctx.fillRect(0, 0, width, layout.height);
  for (const r of layout.rows) {
    if (r.header) {
      ctx.fillStyle = '#f3f4f6'; ctx.fillRect(0, r.y, width, r.h);
      ctx.fillStyle = INK; ctx.font = 'bold 11px sans-serif'; ctx.textBaseline = 'middle'; ctx.textAlign = 'left';
      ctx.fillText(r.header, 6, r.y + r.h / 2);
      continue;
    }
    const t = r.track;
    ctx.fillStyle = MUTED; ctx.font = '9px sans-serif'; ctx.textBaseline = 'top'; ctx.textAlign = 'left';
    ctx.fillText(r.collapsed ? '▸' : '▾', 3, r.y + 2);                 // click the name: collapse / expand
    ctx.fillStyle = INK; ctx.font = 'bold 11px sans-serif';
    ctx.fillText(t.label, 12, r.y + 1);
    if (r.collapsed) { ctx.fillStyle = GRID; ctx.fillRect(0, r.y + r.h + 2, width, 1); continue; }
    if (t.rowLabels) {
      ctx.font = '9px sans-serif'; ctx.fillStyle = MUTED; ctx.textAlign = 'right'; ctx.textBaseline = 'middle';
      ctx.font = 'bold 11px sans-serif';
      const titleEnd = 12 + ctx.measureText(t.label).width;
      ctx.font = '9px sans-serif';
      for (const l of t.rowLabels()) {
        if (l.y > 13 || GUTTER - 6 - ctx.measureText(l.text).width > titleEnd + 4) ctx.fillText(l.text, GUTTER - 6, r.y + l.y);
      }
    }
    ctx.save();
    clipRect(ctx, view.x0, r.y, view.width, r.h);
    t.render(ctx, view, r.y);
    ctx.restore();
    if (sel.sm !== undefined && sel.sm !== null && t.rowLabels && (t.id === 'strips' || t.id === 'ctas')) {
      const rh = t.rowH();
      ctx.strokeStyle = CURSOR; ctx.lineWidth = 1;
      ctx.strokeRect(view.x0 - 3, r.y + sel.sm * rh - 0.5, view.width + 3, rh + 1);
    }
    ctx.fillStyle = GRID; ctx.fillRect(0, r.y + r.h + 2, width, 1);
  }
}

export function drawCursor(ctx, view, cursor, height, y0 = 0) {
  if (cursor === null || cursor === undefined) return;
  const x = view.toPx(cursor), w = Math.max(1, view.pxPerCycle);
  if (x < view.x0 - w || x > view.x0 + view.width) return;
  ctx.fillStyle = CURSOR; ctx.globalAlpha = w > 3 ? 0.18 : 1;
  ctx.fillRect(w > 3 ? x : x - 0.5, y0, w > 3 ? w : 1.5, height);
  ctx.globalAlpha = 1;
  if (w > 3) { ctx.fillRect(x, y0, 1, height); }
}

export function drawLegend(ctx, states, y, width) {
  ctx.font = '10px sans-serif'; ctx.textBaseline = 'middle'; ctx.textAlign = 'left';
  let x = 6, yy = y + 8;
  for (const s of states) {
    const w = ctx.measureText(s).width + 22;
    if (x + w > width) { x = 6; yy += 16; }
    ctx.fillStyle = STATE_COLOURS[s]; ctx.fillRect(x, yy - 5, 10, 10);
    ctx.strokeStyle = '#9ca3af'; ctx.lineWidth = 0.5; ctx.strokeRect(x, yy - 5, 10, 10);
    ctx.fillStyle = INK; ctx.fillText(s, x + 14, yy);
    x += w;
  }
  return yy + 10 - y;
}
