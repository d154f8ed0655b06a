// The summary's "Measured" card: the run beside the hardware measurement of the same launch (a validation
// case's Nsight Compute row, or a bundle launch's measured cycles), with the gap named an error only when
// the run simulates the measured device unchanged (meta.measured.comparable; engine/measured.py).
import { escapeHtml, exact, pct } from '../lib/format.js';
import { fmtBytes } from '../lib/run-metrics.js';
import { gapSpan, measuredLabels } from '../lib/measured.js';

const gapText = (sim, hw, comparable) => (!hw || sim === undefined || sim === null ? '' : gapSpan((sim - hw) / hw, comparable));

export function measuredCard(meta) {
  const m = meta.measured, st = meta.stats || {};
  if (!m || typeof m !== 'object' || !m.cycles) return '';
  const ml = measuredLabels(m);
  const rows = [['Cycles', st.gpu_sim_cycle, m.cycles, exact, gapText(st.gpu_sim_cycle, m.cycles, ml.comparable)]];
  if (m.dram_bytes !== undefined) {
    const sim = (st.dram_read_bytes || 0) + (st.dram_write_bytes || 0);
    rows.push(['DRAM traffic', sim, m.dram_bytes, fmtBytes, gapText(sim, m.dram_bytes, ml.comparable)]);
  }
  if (m.l2_hit_rate !== undefined) rows.push(['L2 hit rate', st.L2_hit_rate, m.l2_hit_rate, pct, '']);
  if (m.l1_hit_rate !== undefined) rows.push(['L1 hit rate', st.L1D_hit_rate, m.l1_hit_rate, pct, '']);
  if (m.sass_warp_insts && st.sass_warp_insts) rows.push(['SASS warp insts', Math.round(st.sass_warp_insts), m.sass_warp_insts, exact, gapText(st.sass_warp_insts, m.sass_warp_insts, ml.comparable)]);
  const f = (fmt, v) => (v === undefined || v === null ? '–' : escapeHtml(fmt(v)));
  return `<section class="card" data-testid="measured-card"><h4>Measured on ${escapeHtml(ml.dev)}
      <span class="muted small">(${escapeHtml([m.tool, m.source].filter(Boolean).join('; '))})</span></h4>
    <table class="kv"><thead><tr><th></th><th class="num">simulated</th><th class="num">measured</th><th class="num">${ml.gap}</th></tr></thead><tbody>
    ${rows.map(([label, sim, hw, fmt, gap]) => `<tr><th>${label}</th><td class="num">${f(fmt, sim)}</td><td class="num">${f(fmt, hw)}</td><td class="num">${gap}</td></tr>`).join('')}
    </tbody></table>${ml.why ? `<p class="small muted" data-testid="measured-why">Not the model's error: ${escapeHtml(ml.why)}.</p>` : ''}</section>`;
}
