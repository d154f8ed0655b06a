// The Range tab: totals over the cycles selected with Shift+drag on the timeline. GPU-wide counters are
// summed over the range widened to the counter interval (said so); the chosen SM's warp states are
// exact, cycle by cycle.
import { api } from '../net/api.js';
import { STATE_COLOURS } from '../lib/colours.js';
import { escapeHtml, exact, num, pct } from '../lib/format.js';
import { cyclesToUs, fmtUs, fmtBytes } from '../lib/run-metrics.js';
import { definition } from '../lib/glossary.js';

function states(obj) {
  const rows = Object.entries(obj).filter(([s]) => s !== 'idle' && s !== 'done').sort((x, y) => y[1] - x[1]);
  const tot = rows.reduce((a, [, v]) => a + v, 0) || 1;
  return `<table class="stalls small"><thead><tr><th>state</th><th class="num">warp-cycles</th><th class="num">share</th><th></th></tr></thead><tbody>${rows.map(([s, v]) =>
    `<tr data-state="${s}"><td><a href="#" class="swatch gloss-link" data-gloss="${s}" style="background:${STATE_COLOURS[s]}" title="${escapeHtml(definition(s))}"></a>${s}</td>
     <td class="num">${exact(v)}</td><td class="num">${pct(v / tot)}</td><td class="bar"><div class="hbar" style="width:${(100 * v / rows[0][1]).toFixed(1)}%;background:${STATE_COLOURS[s]}"></div></td></tr>`).join('')}</tbody></table>`;
}

export async function renderRange(root, meta, s) {
  if (s.ra === undefined || s.ra === null || !(s.rb > s.ra)) {
    root.innerHTML = '<p class="muted">Shift+drag across the timeline to select a range; its totals appear here (Escape clears it).</p>';
    return;
  }
  root.innerHTML = '<p class="muted">summing…</p>';
  let t;
  try { t = await api(`/api/runs/${encodeURIComponent(meta.run.id)}/range?a=${s.ra}&b=${s.rb}&sm=${s.sm || 0}`); } catch (e) {
    root.innerHTML = `<p class="error">${escapeHtml(e.message)}</p>`; return;
  }
  const us = cyclesToUs(meta, t.cycles), bytes = t.dram_read_bytes + t.dram_write_bytes;
  const kv = [
    ['Cycles', `${exact(t.cycles)} (${fmtUs(us)})`],
    ['Warp instructions', exact(t.warp_insts)], ['IPC (GPU)', num(t.warp_insts / t.cycles, 4)],
    ['L1 hit rate', t.l1_accesses ? pct(t.l1_hits / t.l1_accesses) : '–'], ['L2 hit rate', t.l2_accesses ? pct(t.l2_hits / t.l2_accesses) : '–'],
    ['DRAM traffic', `${fmtBytes(bytes)} (${fmtBytes(t.dram_read_bytes)} read)`], ['DRAM bandwidth', us ? `${num(bytes / us / 1e3, 4)} GB/s` : '–'],
  ];
  root.innerHTML = `<div class="range-view" data-testid="range">
    <p><b>Range ${exact(t.a)}–${exact(t.b - 1)}</b> (${exact(t.b - t.a)} cycles, ${fmtUs(cyclesToUs(meta, t.b - t.a))}).
      <span class="muted">GPU counters are summed over ${exact(t.ctr_a)}–${exact(t.ctr_b - 1)}: the range widened to whole ${exact(meta.interval || 0)}-cycle counter intervals.</span></p>
    <div class="diff-grid"><section><h4>GPU</h4><table class="kv" data-testid="range-kv">${kv.map(([k, v]) => `<tr><th>${k}</th><td class="num">${v}</td></tr>`).join('')}</table>
      <h4>Warp states, all SMs</h4>${states(t.states)}</section>
    <section>${t.sm ? `<h4>Warp states of SM ${t.sm.sm}, exact over ${exact(t.a)}–${exact(t.b - 1)}</h4><div data-testid="range-sm">${states(t.sm.states)}</div>` : '<p class="muted">This SM has no warp-state recording.</p>'}</section></div></div>`;
}
