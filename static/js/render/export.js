// Export of the current view for papers: PNG at 2x or 4x (the same drawing on a bigger canvas, not a
// screenshot), SVG (the same drawing through SvgContext), and the counters of the window as CSV.
import { SvgContext } from './svg-context.js';
import { drawRuler, drawTracks, drawCursor, drawLegend } from '../views/timeline-draw.js';
import { RULER_H } from '../views/layout.js';
import { clockMhz } from '../lib/run-metrics.js';

export const lastExport = { name: null, width: 0, height: 0, kind: null };

function composite(ctx, tl, width) {
  const view = tl.view(), s = tl.state.get(), m = tl.src.meta;
  drawRuler(ctx, view, width, s.cursor, m.run ? m.run.name : '', clockMhz(m));
  ctx.save(); ctx.translate(0, RULER_H);
  drawTracks(ctx, view, tl.layout, width, { sm: s.sm });
  drawCursor(ctx, view, s.cursor, tl.layout.height);
  ctx.restore();
  return drawLegend(ctx, m.states, RULER_H + tl.layout.height + 4, width);
}

function fileBase(tl) {
  const s = tl.state.get();
  return `simtscope-${tl.src.run}-${Math.round(s.a)}-${Math.round(s.b)}`;
}

export function download(blob, name) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob); a.download = name;
  document.body.appendChild(a); a.click(); a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10000);
}

export function exportPng(tl, scale = 2) {
  const width = tl.width;
  const probe = new SvgContext(width, 100);
  const legendH = drawLegend(probe, tl.src.meta.states, 0, width);
  const height = RULER_H + tl.layout.height + legendH + 12;
  const canvas = document.createElement('canvas');
  canvas.width = Math.round(width * scale); canvas.height = Math.round(height * scale);
  const ctx = canvas.getContext('2d');
  ctx.scale(scale, scale);
  ctx.fillStyle = '#fff'; ctx.fillRect(0, 0, width, height);
  composite(ctx, tl, width);
  const name = `${fileBase(tl)}@${scale}x.png`;
  Object.assign(lastExport, { name, width: canvas.width, height: canvas.height, kind: 'png' });
  return new Promise((res) => canvas.toBlob((b) => { download(b, name); res(name); }, 'image/png'));
}

export function exportSvg(tl) {
  const width = tl.width;
  const probe = new SvgContext(width, 100);
  const legendH = drawLegend(probe, tl.src.meta.states, 0, width);
  const svg = new SvgContext(width, RULER_H + tl.layout.height + legendH + 12);
  composite(svg, tl, width);
  const name = `${fileBase(tl)}.svg`;
  Object.assign(lastExport, { name, width, height: svg.height, kind: 'svg' });
  download(new Blob([svg.toString()], { type: 'image/svg+xml' }), name);
  return name;
}

export function exportCsv(tl) {
  const s = tl.state.get(), res = tl.view().resolution();
  const a = document.createElement('a');
  a.href = `/api/runs/${encodeURIComponent(tl.src.run)}/counters.csv?a=${Math.max(0, Math.round(s.a))}&b=${Math.round(s.b)}&res=${res}`;
  a.download = `${fileBase(tl)}-counters.csv`;
  document.body.appendChild(a); a.click(); a.remove();
}

// the whole run in Chrome's JSON trace format (server-side: webapp/trace_export.py), for ui.perfetto.dev
export function exportTrace(tl) {
  const s = tl.state.get();
  const a = document.createElement('a');
  a.href = `/api/runs/${encodeURIComponent(tl.src.run)}/trace.json?sms=${s.sm || 0}`;
  a.download = `simtscope-${tl.src.run}.trace.json`;
  document.body.appendChild(a); a.click(); a.remove();
}
