// The run summary (details tab "Summary"): time in cycles and µs, IPC, occupancy and its limiter, hit
// rates, DRAM bytes and bandwidth, the hardware measurement of the same launch where there is one, and the warp-state totals with what each state means. Every stall
// colour links to its glossary entry. A run still simulating shows its progress; a failed one its error.
import { STATE_COLOURS } from '../lib/colours.js';
import { escapeHtml, exact, num, pct } from '../lib/format.js';
import { runMetrics, stallTotals } from '../lib/run-metrics.js';
import { GLOSSARY, definition } from '../lib/glossary.js';
import { measuredCard } from './measured-card.js';
import { measuredLabels } from '../lib/measured.js';

export function stallSwatch(state, extra = '') {
  return `<a href="#" class="swatch gloss-link" data-gloss="${state}" style="background:${STATE_COLOURS[state] || '#f0f'}" title="${escapeHtml(state)}: ${escapeHtml(definition(state))} (click: glossary)"${extra}></a>`;
}

export function renderSummary(root, meta) {
  const st = meta.stats;
  if (!st) {
    const p = meta.progress;
    root.innerHTML = `<p class="muted" data-testid="summary-pending">${meta.status === 'running' || meta.status === 'created'
      ? `Simulating${p ? `: cycle ${exact(p.cycle)}, ${p.ctas_done}/${p.ctas_total} CTAs` : '…'}. The summary appears when the run has finished.`
      : `No statistics in this run file (status ${escapeHtml(meta.status)}).`}</p>`;
    return;
  }
  const ms = runMetrics(meta);
  const groups = [...new Set(ms.map((m) => m.group))];
  const cards = groups.map((g) => `<section class="card"><h4>${g}</h4><table class="kv">${ms.filter((m) => m.group === g).map((m) =>
    `<tr data-metric="${m.key}" title="${escapeHtml(m.help || '')}"><th>${m.label}</th><td class="num">${escapeHtml(m.fmt(m.value))}</td>
      <td class="muted small">${escapeHtml(m.note || m.unit || '')}</td></tr>`).join('')}</table></section>`);
  const rows = stallTotals(meta).filter((r) => r.cycles > 0);
  // the hardware's warp-cycles per issued instruction by reason, where the same launch was measured (a suite case)
  const hw = meta.measured && meta.measured.stalls && typeof meta.measured.stalls === 'object' ? meta.measured.stalls : null;
  const ml = measuredLabels(meta.measured);
  const top = rows.length ? rows[0].cycles : 1;
  const stall = `<section class="card wide"><h4>Warp states <span class="muted small">(warp-cycles of resident warps;
      per issued instruction: Nsight's "warp cycles per issued instruction" split by reason; click a colour for its meaning)</span></h4>
    <table class="stalls" data-testid="stall-table"><thead><tr><th>state</th><th class="num">warp-cycles</th><th class="num">share</th>
      <th class="num">per issued inst</th>${hw ? `<th class="num" data-testid="stall-hw-head" title="Nsight Compute's smsp__average_warps_issue_stalled_&lt;reason&gt;_per_issue_active.ratio of the same launch${ml.why ? ` (not the model's error: ${escapeHtml(ml.why)})` : ''}">${escapeHtml(ml.dev)} per issue</th>` : ''}<th></th><th>meaning</th></tr></thead><tbody>${rows.map((r) => `<tr data-state="${r.state}">
      <td>${stallSwatch(r.state)}<a href="#" class="gloss-link" data-gloss="${r.state}">${r.state}</a></td><td class="num">${exact(r.cycles)}</td>
      <td class="num">${pct(r.share)}</td><td class="num">${r.perIssue === null ? '–' : num(r.perIssue, 3)}</td>${hw ? `<td class="num${ml.comparable ? '' : ' muted'}">${typeof hw[r.state] === 'number' ? num(hw[r.state], 3) : '–'}</td>` : ''}
      <td class="bar"><div class="hbar" style="width:${(100 * r.cycles / top).toFixed(1)}%;background:${STATE_COLOURS[r.state]}"></div></td>
      <td class="small">${escapeHtml(GLOSSARY[r.state] ? GLOSSARY[r.state].text.split('. ')[0].replace(/\.?$/, '.') : '')}</td></tr>`).join('')}</tbody></table></section>`;
  const check = meta.check ? `<span class="${meta.check.passed ? 'ok' : 'error'}">outputs ${meta.check.passed ? 'match' : 'DO NOT match'} the reference</span>` : '';
  const mix = st.unit_insts ? `<section class="card"><h4>Instruction mix <span class="muted small">(warp instructions per unit)</span></h4><table class="kv">${
    Object.entries(st.unit_insts).filter(([, v]) => v > 0).sort((a, b) => b[1] - a[1]).map(([k, v]) =>
      `<tr><th>${k}</th><td class="num">${exact(v)}</td><td class="muted small">${pct(v / (st.warp_insts || 1))}</td></tr>`).join('')}</table></section>` : '';
  root.innerHTML = `<div class="summary" data-testid="summary">
    <p class="summary-head"><b>${escapeHtml(meta.run ? meta.run.name : '')}</b> · ${escapeHtml(meta.config && meta.config.gpu ? meta.config.gpu.name : '')}
      · ${exact(meta.num_sms || 0)} SMs · ${exact(st.ctas || 0)} CTAs ${check}</p>
    <div class="cards">${cards.join('')}${mix}${measuredCard(meta)}</div>${stall}</div>`;
}
