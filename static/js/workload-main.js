// The workload run page (/workload?run=ID[&cmp=ID2][&sort=key&dir=asc|desc]): a whole model's launches on one
// timeline, the per-layer table and its bar chart; clicking a launch opens its per-cycle view (the
// single-kernel explorer at /?run=<child run>); `cmp` compares with another run of the same bundle.
// Data: GET /api/workload-runs/<id> (polled while the run simulates) and /api/workload-runs/compare.
import { api } from './net/api.js';
import { derive, groupByLayer, sortRows, signedPct } from './lib/workload-rows.js';
import { escapeHtml, exact, pct } from './lib/format.js';
import { measuredLabels } from './lib/measured.js';
import { LaunchTimeline } from './views/workload/launch-timeline.js';
import { LayerTable } from './views/workload/layer-table.js';
import { BarChart } from './views/workload/bar-chart.js';

const $ = (s) => document.querySelector(s);
const params = new URLSearchParams(location.search);
const state = { run: params.get('run'), cmp: params.get('cmp') || null, group: params.get('group') === 'layer', sort: { key: params.get('sort') || 'index', dir: params.get('dir') || 'asc' },
  selected: null, data: null, compare: null, others: [] };

const timeline = new LaunchTimeline($('#wl-timeline'), (r) => pick(r.index));
const table = new LayerTable($('#wl-table'), (key) => {
  state.sort = { key, dir: state.sort.key === key && state.sort.dir === 'desc' ? 'asc' : (state.sort.key === key ? 'desc' : (key === 'index' || key === 'label' ? 'asc' : 'desc')) };
  writeUrl(); render();
}, (i) => pick(i));
const chart = new BarChart($('#wl-chart'));
window.__simtscopeWorkload = { state, timeline, table, chart };       // for tests (tests/e2e)

function writeUrl() {
  const q = new URLSearchParams({ run: state.run });
  if (state.cmp) q.set('cmp', state.cmp);
  if (state.group) q.set('group', 'layer');
  if (state.sort.key !== 'index' || state.sort.dir !== 'asc') { q.set('sort', state.sort.key); q.set('dir', state.sort.dir); }
  history.replaceState(null, '', `?${q}`);
}

function pick(i) {
  if (state.group) {                        // a layer's row: its first launch with a timeline, else its first
    const label = state.data.workload.launches[i].label;
    const ms = state.data.workload.launches.filter((m) => m.label === label);
    i = (ms.find((m) => m.child && m.child_status === 'done') || ms[0]).index;
  }
  const r = state.data.workload.launches[i];
  state.selected = i;
  if (r && r.child && r.child_status === 'done') { location.href = `/?run=${encodeURIComponent(r.child)}`; return; }
  $('#wl-notes').textContent = r && r.child ? `launch ${i}: its timeline is ${r.child_status || 'queued'}`
    : `launch ${i} was simulated for its summary only; start a run with launch ${i} among the detailed launches to see its per-cycle view`;
  render();
}

function rowsWithCompare() {
  let rows = derive(state.data.workload.launches);
  if (state.compare) {
    const by = new Map(state.compare.launches.map((c) => [c.index, c]));
    rows = rows.map((r) => ({ ...r, b_cycles: (by.get(r.index) || {}).b_cycles, speedup: (by.get(r.index) || {}).speedup }));
  }
  const firstPending = rows.find((r) => r.pending);
  return rows.map((r) => (r.pending ? { ...r, running: r === firstPending } : r));
}

function head() {
  const { run, workload: wl, progress } = state.data;
  const s = wl.summary || {};
  const live = state.data.live;
  const prog = live && progress ? `<progress value="${progress.launch}" max="${progress.launches}"></progress>
      <span data-testid="wl-progress">launch ${Math.min(progress.launch + 1, progress.launches)} of ${progress.launches} simulating${progress.ctas_total ? ` (${exact(progress.ctas_done)}/${exact(progress.ctas_total)} CTAs)` : ''} · ${exact(progress.cycle || 0)} cycles so far</span>` : '';
  const facts = [];
  if (s.sim_cycles) facts.push(s.opaque ? `<b>${exact(s.sim_cycles)}</b> cycles (simulated, plus the measured time of opaque launches)` : `<b>${exact(s.sim_cycles)}</b> simulated cycles`);
  if (s.opaque) facts.push(`<span data-testid="wl-opaque">${s.opaque} opaque launch${s.opaque > 1 ? 'es' : ''} (no PTX, not simulated): ${exact(Math.round(s.opaque_cycles || 0))} measured cycles counted in the totals</span>`);
  if (s.gaps_ns) facts.push(`${(s.gaps_ns / 1000).toFixed(1)} µs of measured gaps between launches`);
  const ml = measuredLabels(wl.measured);
  if (s.hw_cycles) facts.push(`${escapeHtml(ml.dev)} <b>${exact(s.hw_cycles)}</b> cycles measured`);
  if (s.err_total !== null && s.err_total !== undefined) facts.push(`<span data-testid="wl-gap">${ml.gap} ${signedPct(s.err_total)} total, ${pct(s.mae_launch)} mean per launch</span>`);
  if (s.warp_insts) facts.push(`${exact(s.warp_insts)} warp instructions`);
  if (s.outputs_pass !== undefined) facts.push(s.outputs_pass ? '<span class="good">outputs match the bundle</span>' : '<span class="bad">outputs differ or a launch failed</span>');
  const others = state.others.map((o) => `<option value="${o.id}"${o.id === state.cmp ? ' selected' : ''}>${escapeHtml(o.name)} (${escapeHtml([o.config, ...o.overrides].join(' '))})</option>`).join('');
  $('#wl-head').innerHTML = `
    <div class="wl-title"><a href="/" class="back">← runs</a> <b data-testid="wl-title">${escapeHtml(run.name)}</b>
      <span class="status status-${run.status}" data-testid="wl-status">${run.status}</span>
      <span class="muted">${escapeHtml(wl.name || '')} · ${escapeHtml(run.config)}${run.overrides.length ? ' ' + escapeHtml(run.overrides.join(' ')) : ''} · ${wl.launches.length} launches</span></div>
    ${run.message ? `<div class="error small">${escapeHtml(run.message)}</div>` : ''}
    ${ml.why && s.hw_cycles ? `<div class="warn small" data-testid="wl-not-error">Not the model's error: ${escapeHtml(ml.why)}.</div>` : ''}
    <div class="wl-facts">${prog}${facts.join(' · ')}</div>
    <div class="wl-compare"><label>compare with <select data-testid="wl-compare"><option value="">(none)</option>${others}</select></label>
      ${state.compare ? `<span data-testid="wl-speedup">whole workload: B is <b>${state.compare.total.speedup ? state.compare.total.speedup.toFixed(3) + '×' : '–'}</b> as fast as A (A cycles / B cycles)</span>` : ''}</div>`;
  $('#wl-head select').addEventListener('change', (e) => { state.cmp = e.target.value || null; writeUrl(); loadCompare().then(render); });
}

function render() {
  if (!state.data) return;
  head();
  const rows = rowsWithCompare();
  const layered = rows.some((r, i) => rows.findIndex((x) => x.label === r.label) !== i);   // labels repeat
  const shown = state.group && layered ? groupByLayer(rows) : rows;
  const sorted = sortRows(shown, state.sort.key, state.sort.dir);
  const { run } = state.data;
  const ml = measuredLabels(state.data.workload.measured);
  const lanes = [{ name: `simulated · ${run.config}`, rows, key: 'sim_cycles', kind: 'sim' }];
  if (rows.some((r) => r.hw_cycles)) lanes.push({ name: `${ml.dev} measured`, rows, key: 'hw_cycles', kind: 'hw' });
  if (state.compare) {
    const b = state.compare.b;
    lanes.push({ name: `B · ${[b.config, ...b.overrides].join(' ')}`, rows: rows.map((r) => ({ ...r })), key: 'b_cycles', kind: 'sim' });
  }
  timeline.selected = state.selected;
  const clock = state.data.workload.clock_mhz || null;
  const gaps = rows.some((r) => r.gap_ns !== undefined && r.gap_ns !== null);
  timeline.set(lanes, gaps ? clock : null, ml);
  const notes = [gaps && clock ? `launches in stream order with the idle gaps between them as measured on the GPU (dashed; CUDA events around a back-to-back replay), at ${clock} MHz`
    : 'gaps not measured: launches end to end in stream order (the bundle records no gaps between them)', 'each span includes its launch overhead'];
  if (rows.some((r) => r.opaque)) notes.push('hatched: opaque launches (no PTX, not simulated) drawn with their measured time');
  $('#wl-axis-note').textContent = notes.join('; ');
  $('#wl-group').innerHTML = layered ? `rows: <label><input type="radio" name="grp" value="launch"${state.group ? '' : ' checked'}> launches</label>
    <label><input type="radio" name="grp" value="layer" data-testid="group-layer"${state.group ? ' checked' : ''}> layers (launches with one label summed)</label>` : '';
  table.render(sorted, state.sort, !!state.compare, state.group ? null : state.selected, ml);
  $('#wl-chart-title').textContent = state.compare ? 'Speed-up per launch (B over A)' : `Time per launch: simulated vs ${ml.dev}`;
  chart.set(sorted, state.compare ? 'speedup' : 'time', ml);
}

async function loadCompare() {
  state.compare = null;
  if (!state.cmp) return;
  try { state.compare = await api(`/api/workload-runs/compare?a=${encodeURIComponent(state.run)}&b=${encodeURIComponent(state.cmp)}`); }
  catch (e) { $('#wl-error').textContent = e.message; }
}

async function load() {
  try {
    state.data = await api(`/api/workload-runs/${encodeURIComponent(state.run)}`);
    $('#wl-error').textContent = '';
  } catch (e) { $('#wl-error').textContent = `Cannot open workload run ${state.run}: ${e.message}`; return; }
  const runs = await api('/api/runs');
  state.others = runs.filter((r) => r.kind === 'workload' && r.id !== state.run && r.workload === state.data.run.workload && r.status === 'done');
  if (state.cmp && !state.compare && !state.data.live) await loadCompare();
  render();
  if (state.data.live) setTimeout(load, 700);
}

$('#wl-group').addEventListener('change', (e) => { state.group = e.target.value === 'layer'; writeUrl(); render(); });
if (!state.run) $('#wl-error').textContent = 'No run given: open a workload run from the run list.';
else load();
