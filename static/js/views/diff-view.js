// The compare tab (tab=diff): run A (the one opened) against run B (toolbar "compare") as a table of
// differences: time in cycles and µs, IPC, occupancy, hit rates, DRAM, then the warp-state totals, then
// the PTX lines whose stall cycles changed most (when both ran the same kernel source).
import { STATE_COLOURS } from '../lib/colours.js';
import { escapeHtml, exact, num } from '../lib/format.js';
import { runMetrics, stallTotals } from '../lib/run-metrics.js';
import { lineStats } from '../lib/ptx-stats.js';
import { definition } from '../lib/glossary.js';

const name = (m) => `${escapeHtml(m.run ? m.run.name : '?')} <span class="muted">(${escapeHtml(m.config && m.config.gpu ? m.config.gpu.name : '')})</span>`;

function delta(a, b, better) {
  if (typeof a !== 'number' || typeof b !== 'number' || Number.isNaN(a) || Number.isNaN(b)) return ['', '', ''];
  const d = b - a, r = a !== 0 ? b / a : null;
  const good = better === 'higher' ? d > 0 : (better === 'lower' ? d < 0 : null);
  const cls = d === 0 || good === null ? '' : (good ? 'better' : 'worse');
  const sign = d > 0 ? '+' : (d < 0 ? '−' : '±');
  return [cls, sign, r === null ? '' : `×${num(r, 3)}`];
}

export function renderDiff(root, A, B) {
  if (!B) { root.innerHTML = '<p class="muted">Choose a run to compare in the toolbar ("compare").</p>'; return; }
  if (!A.stats || !B.stats) { root.innerHTML = '<p class="muted">Both runs must have finished to be compared.</p>'; return; }
  const ma = runMetrics(A), mb = Object.fromEntries(runMetrics(B).map((m) => [m.key, m]));
  const rows = ma.filter((m) => mb[m.key]).map((m) => {
    const b = mb[m.key];
    const [cls, sign, ratio] = delta(m.value, b.value, m.better);
    const d = typeof m.value === 'number' && typeof b.value === 'number' ? m.fmt(Math.abs(b.value - m.value)) : (m.value === b.value ? 'same' : 'differs');
    return `<tr data-metric="${m.key}" class="${cls}"><th>${m.label}</th><td class="num a">${escapeHtml(m.fmt(m.value))}</td>
      <td class="num b">${escapeHtml(b.fmt(b.value))}</td><td class="num d">${typeof m.value === 'number' ? sign : ''}${escapeHtml(d)}</td><td class="num">${ratio}</td></tr>`;
  });
  const sa = new Map(stallTotals(A).map((r) => [r.state, r])), sb = new Map(stallTotals(B).map((r) => [r.state, r]));
  const states = [...new Set([...sa.keys(), ...sb.keys()])].filter((s) => (sa.get(s) || {}).cycles || (sb.get(s) || {}).cycles)
    .sort((x, y) => Math.abs(((sb.get(y) || {}).cycles || 0) - ((sa.get(y) || {}).cycles || 0)) - Math.abs(((sb.get(x) || {}).cycles || 0) - ((sa.get(x) || {}).cycles || 0)));
  const srow = (s) => {
    const a = sa.get(s) || { cycles: 0, perIssue: 0 }, b = sb.get(s) || { cycles: 0, perIssue: 0 };
    const [cls, sign, ratio] = delta(a.cycles, b.cycles, s === 'selected' ? null : 'lower');
    return `<tr data-state="${s}" class="${cls}"><td><a href="#" class="swatch gloss-link" data-gloss="${s}" style="background:${STATE_COLOURS[s]}" title="${escapeHtml(definition(s))}"></a>${s}</td>
      <td class="num">${exact(a.cycles)}</td><td class="num">${exact(b.cycles)}</td><td class="num">${sign}${exact(Math.abs(b.cycles - a.cycles))}</td><td class="num">${ratio}</td>
      <td class="num">${a.perIssue === null ? '–' : num(a.perIssue, 3)}</td><td class="num">${b.perIssue === null ? '–' : num(b.perIssue, 3)}</td></tr>`;
  };
  let lines = '';
  const la = lineStats(A), lb = lineStats(B);
  if (la.k && lb.k && la.k.source === lb.k.source) {
    const src = (la.k.source || '').split('\n');
    const all = [...new Set([...la.issued.keys(), ...lb.issued.keys()])];
    const d = (l) => (lb.total.get(l) || 0) - (la.total.get(l) || 0);
    all.sort((x, y) => Math.abs(d(y)) - Math.abs(d(x)));
    lines = `<h4>PTX lines whose stall cycles changed most <span class="muted small">(same kernel source in both runs; issue cycles not counted as stalls)</span></h4>
      <table class="diff lines" data-testid="diff-lines"><thead><tr><th>line</th><th>PTX</th><th class="num">issued A</th><th class="num">issued B</th>
      <th class="num">stall cycles A</th><th class="num">stall cycles B</th><th class="num">Δ</th></tr></thead><tbody>${all.slice(0, 25).map((l) => {
        const [cls, sign] = delta(la.total.get(l) || 0, lb.total.get(l) || 0, 'lower');
        return `<tr data-line="${l}" class="${cls}"><td class="num">${l}</td><td class="code">${escapeHtml((src[l - 1] || '').trim())}</td>
          <td class="num">${exact(la.issued.get(l) || 0)}</td><td class="num">${exact(lb.issued.get(l) || 0)}</td>
          <td class="num">${exact(la.total.get(l) || 0)}</td><td class="num">${exact(lb.total.get(l) || 0)}</td><td class="num">${sign}${exact(Math.abs(d(l)))}</td></tr>`;
      }).join('')}</tbody></table>`;
  } else {
    lines = '<p class="muted">The two runs ran different kernel sources: no per-line comparison.</p>';
  }
  const clk = (m) => (m.config && m.config.gpu ? m.config.gpu.sm_clock_mhz : '?');
  root.innerHTML = `<div class="diff-view" data-testid="diff">
    <p><b>A</b>: ${name(A)} vs <b>B</b>: ${name(B)}. Green: B is better, red: B is worse. The timeline shows both on A's cycle axis
      (A at ${clk(A)} MHz, B at ${clk(B)} MHz${clk(A) !== clk(B) ? ': the same cycle is a different time' : ''}).</p>
    <div class="diff-grid"><section><h4>Run</h4><table class="diff" data-testid="diff-metrics"><thead><tr><th></th><th class="num">A</th><th class="num">B</th>
      <th class="num">B − A</th><th class="num">B / A</th></tr></thead><tbody>${rows.join('')}</tbody></table></section>
    <section><h4>Warp states <span class="muted small">(warp-cycles; per issued instruction)</span></h4><table class="diff" data-testid="diff-stalls"><thead><tr><th>state</th>
      <th class="num">A</th><th class="num">B</th><th class="num">B − A</th><th class="num">B / A</th><th class="num">A per inst</th><th class="num">B per inst</th></tr></thead>
      <tbody>${states.map(srow).join('')}</tbody></table></section></div>${lines}</div>`;
}
