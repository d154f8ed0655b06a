// The per-layer table of a workload run: one row per launch, sortable by any column (click its header;
// again to reverse). In compare mode it adds the other run's cycles and the speed-up. A row with a recorded
// timeline opens its per-cycle view (the single-kernel explorer) when clicked.
import { BOUND_COLOURS, bytesText, gridText } from '../../lib/workload-rows.js';
import { escapeHtml, exact, pct } from '../../lib/format.js';
import { gapSpan, measuredLabels } from '../../lib/measured.js';
import { HATCH_CSS } from './hatch.js';

// ml: measuredLabels() of the run: the measured device's name and whether the gap to it is an error
const columns = (ml) => [
  { key: 'index', head: '#', num: true, cell: (r) => r.index },
  { key: 'label', head: 'layer / op', cell: (r) => `<span class="wl-label" title="${escapeHtml(r.kernel || '')}">${escapeHtml(r.short || r.label)}</span>${r.op ? ` <span class="wl-op muted small" title="${escapeHtml(r.op)}">${escapeHtml(r.op)}</span>` : ''}` },
  { key: 'grid', head: 'grid', sortable: false, cell: (r) => gridText(r.grid) },
  { key: 'sim_cycles', head: 'sim cycles', num: true, title: 'simulated cycles of this launch (cold caches)', cell: (r) => (r.sim_cycles ? exact(r.sim_cycles)
    : (r.opaque ? `<span class="opaque-tag" data-testid="opaque-tag" style="background:${HATCH_CSS}" title="opaque launch: no PTX, not simulated; its measured time (${escapeHtml(ml.dev)} column) counts in the totals">opaque</span>` : '–')) },
  { key: 'time_us', head: 'time µs', num: true, cell: (r) => (r.time_us ? r.time_us.toFixed(2) : '–') },
  { key: 'share', head: 'share', num: true, title: 'share of the workload\u2019s simulated cycles', cell: (r) => (r.share === null ? '–' : pct(r.share)) },
  { key: 'hw_cycles', head: `${escapeHtml(ml.dev)} cycles`, num: true, title: 'Nsight Compute gpc__cycles_elapsed.max, mean of the bundle\u2019s measurements', cell: (r) => (r.hw_cycles ? exact(r.hw_cycles) : '–') },
  { key: 'err', head: ml.gap, num: true, title: `(simulated − measured) / measured${ml.why ? ` — not the model's error: ${ml.why}` : ''}`, cell: (r) => gapSpan(r.err, ml.comparable) },
  { key: 'ipc', head: 'IPC', num: true, title: 'warp instructions per cycle, whole GPU', cell: (r) => (r.ipc === undefined ? '–' : r.ipc.toFixed(2)) },
  { key: 'dram_bytes', head: 'DRAM', num: true, title: 'DRAM bytes read + written', cell: (r) => bytesText(r.dram_bytes) },
  { key: 'l2_hit_rate', head: 'L2 hit', num: true, cell: (r) => (r.l2_hit_rate === undefined ? '–' : pct(r.l2_hit_rate)) },
  { key: 'compute_util', head: 'issue %', num: true, title: 'issued warp instructions / (cycles × SMs × schedulers)', cell: (r) => (r.compute_util === undefined ? '–' : pct(r.compute_util)) },
  { key: 'dram_util', head: 'DRAM %', num: true, title: 'DRAM bytes / (cycles × peak bytes per cycle)', cell: (r) => (r.dram_util === undefined ? '–' : pct(r.dram_util)) },
  { key: 'bound', head: 'bound by', title: 'compute or memory: the larger of issue % and DRAM %; latency: both below 60 % (Nsight Compute\u2019s rule)', cell: (r) => (r.bound ? `<span class="bound" style="background:${BOUND_COLOURS[r.bound]}">${r.bound}</span>` : '–') },
  { key: 'dominant_stall', head: 'top stall', cell: (r) => escapeHtml(r.dominant_stall || '–') },
];
const CMP_COLUMNS = [
  { key: 'b_cycles', head: 'B cycles', num: true, cell: (r) => (r.b_cycles ? exact(r.b_cycles) : '–') },
  { key: 'speedup', head: 'speed-up', num: true, title: 'A cycles / B cycles', cell: (r) => (r.opaque ? '<span class="muted" title="not simulated: its measured time on both sides">opaque</span>' : speedCell(r.speedup)) },
];

function speedCell(s) {
  if (!s) return '–';
  return `<span class="${s > 1.005 ? 'good' : (s < 0.995 ? 'bad' : '')}">${s.toFixed(3)}×</span>`;
}

export class LayerTable {
  constructor(root, onSort, onPick) {
    this.root = root; this.onSort = onSort; this.onPick = onPick;
    root.addEventListener('click', (e) => {
      const th = e.target.closest('th[data-key]');
      if (th) { this.onSort(th.dataset.key); return; }
      const tr = e.target.closest('tr[data-index]');
      if (tr && !e.target.closest('a')) this.onPick(Number(tr.dataset.index));
    });
  }

  render(rows, sort, cmp, selected, ml = measuredLabels(null)) {
    const cols = cmp ? [...columns(ml), ...CMP_COLUMNS] : columns(ml);
    const arrow = (k) => (sort.key === k ? (sort.dir === 'asc' ? ' ▲' : ' ▼') : '');
    const head = cols.map((c) => (c.sortable === false ? `<th>${c.head}</th>`
      : `<th data-key="${c.key}" class="${c.num ? 'num ' : ''}sortable${sort.key === c.key ? ' sorted' : ''}"${c.title ? ` title="${escapeHtml(c.title)}"` : ''}>${c.head}${arrow(c.key)}</th>`)).join('');
    const body = rows.map((r) => {
      const open = r.child && r.child_status === 'done'
        ? `<a href="/?run=${encodeURIComponent(r.child)}" data-testid="open-launch">per-cycle view</a>`
        : (r.child ? `<span class="muted">${escapeHtml(r.child_status || 'queued')}</span>`
          : `<span class="muted">${r.opaque ? 'not simulated' : 'summary only'}</span>`);
      const cells = cols.map((c) => `<td class="${c.num ? 'num' : ''}">${c.cell(r)}</td>`).join('');
      const why = r.error || (r.opaque ? r.note || 'opaque launch (no PTX): not simulated, its measured time counts in the totals' : '');
      const err = why ? `<tr class="err-row"><td></td><td colspan="${cols.length + 1}" class="${r.error ? 'error' : 'muted'} small">${escapeHtml(why)}</td></tr>` : '';
      return `<tr data-index="${r.index}" class="${r.pending ? 'pending' : ''}${r.opaque ? ' opaque' : ''}${selected === r.index ? ' selected' : ''}${r.child ? ' has-child' : ''}">${cells}<td>${r.pending ? `<span class="muted">${r.running ? 'simulating…' : 'queued'}</span>` : open}</td></tr>${err}`;
    }).join('');
    this.root.innerHTML = `<table class="wl-table" data-testid="layer-table"><thead><tr>${head}<th>timeline</th></tr></thead><tbody>${body}</tbody></table>`;
  }
}
