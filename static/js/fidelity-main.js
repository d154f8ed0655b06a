// The fidelity page (/fidelity): the calibrated preset against the hardware. Every measured validation case
// and model bundle with the newest comparable run of the preset (GET /api/fidelity, webapp/fidelity.py): a
// log-log scatter of simulated against measured cycles (y = x, and ±10 % / ±20 % bands), the mean absolute
// error of each set, a table per set, worst first, each row opening its run, and the suite's stall mix (the
// median warp-cycles per issued instruction by reason, simulated and measured). Rows without a run can be
// simulated from here (POST /api/fidelity/runs); the page follows them while they run. The scatter exports as
// SVG or PNG, for papers.
import { api } from './net/api.js';
import { escapeHtml, exact, num, pct } from './lib/format.js';
import { STATE_COLOURS } from './lib/colours.js';
import { deviceShort, gapSpan } from './lib/measured.js';
import { download } from './render/export.js';
import { runHref } from './lib/links.js';

const $ = (s) => document.querySelector(s);
const KIND = { cases: { title: 'validation cases' }, bundles: { title: 'models' } };
const state = { data: null, timer: null };
window.__simtscopeFidelity = state;                       // for tests (tests/e2e)

const runUrl = (kind, id) => (kind === 'bundles' ? runHref(id, true) : runHref(id, false, '&tab=summary'));

function summary(d) {
  const dev = escapeHtml(d.device || 'the hardware');
  const parts = Object.keys(KIND).map((k) => {
    const s = d.summary[k];
    return `<span data-testid="fd-${k}-summary">${KIND[k].title}: <b>${s.compared}</b> of ${s.of} simulated${s.mae === null ? '' : `, mean |error| <b>${pct(s.mae)}</b>`}</span>`;
  });
  return `<p>The <b>${escapeHtml(d.config)}</b> preset against ${dev}: ${parts.join(' · ')}</p>`;
}

function table(kind, rows) {
  const live = rows.filter((r) => r.live).length, missing = rows.filter((r) => !r.run && !r.live).length;
  const sorted = [...rows].sort((a, b) => (a.gap === null) - (b.gap === null) || Math.abs(b.gap || 0) - Math.abs(a.gap || 0) || a.name.localeCompare(b.name));
  const body = sorted.map((r) => `<tr data-workload="${escapeHtml(r.workload)}">
      <td>${r.run ? `<a href="${runUrl(kind, r.run)}">${escapeHtml(r.name)}</a>` : escapeHtml(r.name)}</td>
      ${kind === 'bundles' ? `<td class="num">${r.launches}</td>` : ''}
      <td class="num">${r.sim_cycles ? exact(r.sim_cycles) : '–'}</td><td class="num">${exact(Math.round(r.hw_cycles))}</td>
      <td class="num">${r.gap === null ? (r.live ? '<span class="muted">simulating…</span>' : '–') : gapSpan(r.gap, true)}</td></tr>`).join('');
  const button = missing ? `<button type="button" data-simulate="${kind}" data-testid="fd-simulate-${kind}">simulate the ${missing} without a run</button>` : '';
  return `<p class="small">${button} ${live ? `<span class="muted">${live} simulating or queued</span>` : ''}</p>
    <table class="wl-table"><thead><tr><th>${kind === 'bundles' ? 'model' : 'case'}</th>${kind === 'bundles' ? '<th class="num">launches</th>' : ''}
    <th class="num">simulated cycles</th><th class="num">measured cycles</th><th class="num">error</th></tr></thead><tbody>${body}</tbody></table>`;
}

// log-log scatter as SVG: each point a link to its run, with its numbers as a tooltip. Styles are attributes,
// not CSS classes, so that the exported file (exportScatter) looks the same anywhere: a figure for a paper.
const INK = 'fill="#1b1f24"', COLOUR = { cases: '#0072b2', bundles: '#d55e00' };
function scatter(d) {
  const pts = [];
  for (const kind of Object.keys(KIND)) for (const r of d[kind]) if (r.run && r.sim_cycles) pts.push({ kind, r });
  if (!pts.length) return '<p class="muted">No runs of the preset yet: simulate the cases or the models below.</p>';
  const W = 460, H = 420, L = 64, B = 44, T = 34, R = 12;
  const all = pts.flatMap((p) => [p.r.sim_cycles, p.r.hw_cycles]);
  const lo = Math.log10(Math.min(...all) / 1.4), hi = Math.log10(Math.max(...all) * 1.4);
  const X = (c) => L + ((Math.log10(c) - lo) / (hi - lo)) * (W - L - R);
  const Y = (c) => H - B - ((Math.log10(c) - lo) / (hi - lo)) * (H - B - T);
  const ticks = [];
  for (let e = Math.ceil(lo); e <= Math.floor(hi); e++) {
    const c = 10 ** e;
    ticks.push(`<line x1="${X(c)}" y1="${T}" x2="${X(c)}" y2="${H - B}" stroke="#eef0f3"/><text x="${X(c)}" y="${H - B + 14}" text-anchor="middle" ${INK}>${exact(c)}</text>
      <line x1="${L}" y1="${Y(c)}" x2="${W - R}" y2="${Y(c)}" stroke="#eef0f3"/><text x="${L - 4}" y="${Y(c) + 4}" text-anchor="end" ${INK}>${exact(c)}</text>`);
  }
  const a = 10 ** lo, b = 10 ** hi;
  const line = (f, stroke, dash) => `<line x1="${X(a)}" y1="${Y(a * f)}" x2="${X(b)}" y2="${Y(b * f)}" stroke="${stroke}"${dash ? ` stroke-dasharray="${dash}"` : ''}/>`;
  const marks = pts.map(({ kind, r }) => {
    const x = X(r.hw_cycles), y = Y(r.sim_cycles);
    const shape = kind === 'cases' ? `<circle cx="${x}" cy="${y}" r="4" fill="${COLOUR[kind]}"/>`
      : `<rect x="${x - 4}" y="${y - 4}" width="8" height="8" fill="${COLOUR[kind]}"/>`;
    const tip = `${r.name}: simulated ${exact(r.sim_cycles)}, measured ${exact(Math.round(r.hw_cycles))} cycles (${(r.gap >= 0 ? '+' : '−') + Math.abs(100 * r.gap).toFixed(1)}%)`;
    return `<a href="${runUrl(kind, r.run)}" class="pt" data-testid="fd-point"><title>${escapeHtml(tip)}</title>${shape}</a>`;
  }).join('');
  const key = Object.keys(KIND).filter((k) => d.summary[k].compared).map((k, i) => {
    const s = d.summary[k], x = L + 6, y = 10 + i * 13;
    const mark = k === 'cases' ? `<circle cx="${x}" cy="${y}" r="4" fill="${COLOUR[k]}"/>` : `<rect x="${x - 4}" y="${y - 4}" width="8" height="8" fill="${COLOUR[k]}"/>`;
    return `${mark}<text x="${x + 8}" y="${y + 4}" ${INK}>${KIND[k].title} (${s.compared}): mean |error| ${pct(s.mae)}</text>`;
  }).join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" class="fd-scatter" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" font-family="system-ui, sans-serif" font-size="10" role="img" aria-label="simulated against measured cycles">
    <rect x="0" y="0" width="${W}" height="${H}" fill="#fff"/>${key}
    ${ticks.join('')}${line(1.2, '#c7cbd1', '1 3')}${line(1 / 1.2, '#c7cbd1', '1 3')}${line(1.1, '#9ca3af', '4 3')}${line(1 / 1.1, '#9ca3af', '4 3')}${line(1, '#1b1f24')}
    ${marks}
    <text x="${(L + W - R) / 2}" y="${H - 8}" text-anchor="middle" ${INK}>measured cycles, ${escapeHtml(d.device || 'hardware')} (log)</text>
    <text x="14" y="${(T + H - B) / 2}" text-anchor="middle" transform="rotate(-90 14 ${(T + H - B) / 2})" ${INK}>simulated cycles, ${escapeHtml(d.config)} (log)</text></svg>
    <p class="small muted">solid: y = x · dashed: ±10 % · dotted: ±20 % · click a point to open its run ·
      export <button type="button" data-export="svg" data-testid="fd-export-svg">SVG</button>
      <button type="button" data-export="png" data-testid="fd-export-png">PNG 2×</button></p>`;
}

// the scatter as a file: the SVG without its links (a standalone figure), or a PNG of it at 2x
function exportScatter(kind) {
  const svg = $('#fd-scatter svg').cloneNode(true);
  svg.querySelectorAll('a').forEach((a) => a.replaceWith(...[...a.childNodes].filter((n) => n.nodeName !== 'title')));
  const text = new XMLSerializer().serializeToString(svg);
  const name = `simtscope-fidelity-${state.data.config}`;
  if (kind === 'svg') { download(new Blob([text], { type: 'image/svg+xml' }), `${name}.svg`); return; }
  const img = new Image(), w = Number(svg.getAttribute('width')), h = Number(svg.getAttribute('height'));
  img.onload = () => {
    const c = document.createElement('canvas');
    c.width = 2 * w; c.height = 2 * h;
    const ctx = c.getContext('2d');
    ctx.scale(2, 2); ctx.drawImage(img, 0, 0, w, h);
    c.toBlob((blob) => download(blob, `${name}@2x.png`), 'image/png');
  };
  img.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(text)}`;
}

// the suite's stall mix: per reason, the median warp-cycles per issued instruction, simulated and measured
function stallMix(d) {
  if (!d.stalls || !d.stalls.length) return '<p class="muted small">Appears when validation cases have runs.</p>';
  const dev = escapeHtml(deviceShort(d.device));
  const body = d.stalls.map((x) => {
    const ratio = x.hw ? x.sim / x.hw : null;
    const off = ratio === null ? '' : (ratio < 0.5 || ratio > 2 ? 'bad' : (ratio < 0.8 || ratio > 1.25 ? 'warn' : ''));
    return `<tr data-reason="${escapeHtml(x.reason)}"><td><span class="swatch" style="background:${STATE_COLOURS[x.reason] || '#999'}"></span>${escapeHtml(x.reason)}</td>
      <td class="num">${num(x.sim, 3)}</td><td class="num">${num(x.hw, 3)}</td><td class="num ${off}">${ratio === null ? '–' : `${num(ratio, 2)}×`}</td></tr>`;
  }).join('');
  return `<table class="wl-table" data-testid="fd-stalls"><thead><tr><th>reason</th><th class="num">simulated</th><th class="num">${dev}</th>
    <th class="num">simulated / ${dev}</th></tr></thead><tbody>${body}</tbody></table>
    <p class="small muted">medians over the ${d.stalls[0].cases} cases with a run; Nsight Compute's smsp__average_warps_issue_stalled_&lt;reason&gt;_per_issue_active.ratio</p>`;
}

function render() {
  const d = state.data;
  $('#fd-stalls').innerHTML = stallMix(d);
  $('#fd-summary').innerHTML = summary(d);
  $('#fd-scatter').innerHTML = scatter(d);
  $('#fd-cases').innerHTML = table('cases', d.cases);
  $('#fd-bundles').innerHTML = table('bundles', d.bundles);
}

async function load() {
  clearTimeout(state.timer);
  try {
    state.data = await api('/api/fidelity');
    $('#fd-error').textContent = '';
    render();
  } catch (e) { $('#fd-error').textContent = `Cannot read the fidelity table: ${e.message}`; return; }
  const live = [...state.data.cases, ...state.data.bundles].some((r) => r.live);
  state.timer = setTimeout(load, live ? 2000 : 10000);
}

document.addEventListener('click', async (e) => {
  if (e.target.dataset && e.target.dataset.export) { exportScatter(e.target.dataset.export); return; }
  const what = e.target.dataset && e.target.dataset.simulate;
  if (!what) return;
  e.target.disabled = true;
  try { await api('/api/fidelity/runs', { json: { what } }); }
  catch (err) { $('#fd-error').textContent = err.message; }
  load();
});
load();
