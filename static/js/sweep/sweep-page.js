// The sweep page: the sweeps of this run store, one sweep's chart and table (live while it runs: polled
// every second, points appear as they are stored), open a point's run, compare two, start a small sweep.
// The selected sweep lives in the URL (?sweep=ID&x=KEY&metric=NAME).
import { api } from '../net/api.js';
import { runHref } from '../lib/links.js';
import { escapeHtml, exact, num, pct } from '../lib/format.js';
import { SweepChart } from './sweep-chart.js';
import { NewSweepForm } from './new-sweep-form.js';

export const METRICS = {
  speedup: { label: 'speed-up over the first values', fmt: (v) => v.toFixed(3) + '×' },
  sim_cycles: { label: 'cycles', fmt: exact },
  time_us: { label: 'time (µs)', fmt: (v) => num(v, 4) },
  ipc: { label: 'IPC (thread insts / cycle)', fmt: (v) => num(v, 4) },
  dram_bytes: { label: 'DRAM bytes', fmt: (v) => num(v, 4) },
  l2_hit_rate: { label: 'L2 hit rate', fmt: pct },
  l1_hit_rate: { label: 'L1 hit rate', fmt: pct },
};
const STALL_PREFIX = 'stall_';

// speed-up of a point over its workload's baseline (every key at its first value)
export function withSpeedup(sweep) {
  const first = Object.fromEntries(Object.entries(sweep.spec.axes).map(([k, v]) => [k, v[0]]));
  const base = {};
  for (const p of sweep.points) {
    if (Object.entries(first).every(([k, v]) => p.values[k] === v) && p.row.sim_cycles) base[p.workload] = p.row.sim_cycles;
  }
  for (const p of sweep.points) {
    const b = base[p.workload], c = p.row.sim_cycles;
    p.row.speedup = b && c ? b / c : null;
  }
  return sweep;
}

function topStall(row) {
  let best = null;
  for (const [k, v] of Object.entries(row)) if (k.startsWith(STALL_PREFIX) && v > 0 && (!best || v > best[1])) best = [k.slice(STALL_PREFIX.length), v];
  return best ? `${best[0]} ${pct(best[1])}` : '';
}

const valueOf = (p, metric) => (p.row ? p.row[metric] : null);
// a bundle's point is a workload run (its launch table, /workload); the others are kernel runs (/)
const isWorkload = (p) => p.workload.startsWith('bundle:');
const runUrl = (p) => runHref(p.run_id, isWorkload(p));

class SweepPage {
  constructor(root) {
    this.root = root;
    this.list = root.querySelector('[data-testid=sweep-table] tbody');
    this.view = root.querySelector('#sweep-view');
    this.chart = new SweepChart(root.querySelector('#sweep-chart'), (p) => this.open(p));
    this.picked = new Set();
    this.sweep = null; this.timer = null; this.seen = new Set();
    const q = new URLSearchParams(window.location.search);
    this.id = q.get('sweep'); this.x = q.get('x'); this.metric = q.get('metric') || 'speedup';
    const msel = root.querySelector('[data-act=metric]');
    msel.innerHTML = Object.entries(METRICS).map(([k, m]) => `<option value="${k}">${escapeHtml(m.label)}</option>`).join('');
    msel.value = this.metric;
    msel.addEventListener('change', () => { this.metric = msel.value; this._url(); this._draw(); });
    root.querySelector('[data-act=x]').addEventListener('change', (e) => { this.x = e.target.value; this._url(); this._draw(); });
    root.querySelector('[data-act=compare]').addEventListener('click', () => this.compare());
    this.list.addEventListener('click', (e) => { const tr = e.target.closest('tr[data-sweep]'); if (tr) this.select(tr.dataset.sweep); });
    root.querySelector('[data-testid=sweep-points] tbody').addEventListener('change', (e) => this._pick(e));
    this.form = new NewSweepForm(root.querySelector('#new-sweep-form'), Number(root.dataset.maxWorkers) || 1,
      (id) => this.select(id));
    this.form.load().catch((e) => console.error(e));
  }

  async refreshList() {
    try {
      const sweeps = await api('/api/sweeps');
      this.root.querySelector('p.empty').hidden = sweeps.length > 0;
      this.list.innerHTML = sweeps.map((s) => `
        <tr data-sweep="${s.id}" class="${s.id === this.id ? 'selected' : ''}">
          <td>${escapeHtml(s.name)}<div class="muted small">${s.id} · ${escapeHtml(s.spec.config)}</div></td>
          <td class="code small">${escapeHtml(Object.entries(s.spec.axes).map(([k, v]) => `${k}=${v.join(',')}`).join('\n'))}</td>
          <td><span class="status status-${s.status}">${s.status}</span>${s.message ? `<div class="msg small">${escapeHtml(s.message)}</div>` : ''}</td>
          <td class="num">${s.done}/${s.total}</td><td class="muted small">${new Date(s.updated * 1000).toLocaleTimeString()}</td></tr>`).join('');
      if (!this.id && sweeps.length) this.select(sweeps[0].id);
    } catch (e) { console.error(e); }
  }

  select(id) {
    this.id = id; this.x = null; this.picked.clear(); this.seen.clear(); this.sweep = null;
    this._url(); this.poll();
    for (const tr of this.list.querySelectorAll('tr')) tr.classList.toggle('selected', tr.dataset.sweep === id);
  }

  async poll() {
    clearTimeout(this.timer);
    if (!this.id) return;
    let live = true;
    try {
      this.sweep = withSpeedup(await api(`/api/sweeps/${encodeURIComponent(this.id)}`));
      live = this.sweep.status === 'running';
      this._render();
    } catch (e) {
      // a sweep started from the page is registered by its driver a moment later: keep asking
      this.view.hidden = false;
      this.root.querySelector('[data-testid=sweep-title]').textContent = e.message;
    }
    if (live) this.timer = setTimeout(() => { this.poll(); this.refreshList(); }, 1000);
    else this.refreshList();
  }

  _render() {
    const s = this.sweep, keys = Object.keys(s.spec.axes);
    this.view.hidden = false;
    this.root.querySelector('[data-testid=sweep-title]').textContent = s.name;
    const st = this.root.querySelector('[data-testid=sweep-status]');
    st.textContent = s.status; st.className = `status status-${s.status}`;
    this.root.querySelector('[data-testid=sweep-progress]').textContent =
      `${s.done}/${s.total} points · ${s.spec.config} · ${s.id}${s.message ? ' · ' + s.message : ''}`;
    if (!this.x || !keys.includes(this.x)) this.x = keys[0] || null;
    const xsel = this.root.querySelector('[data-act=x]');
    xsel.innerHTML = keys.map((k) => `<option>${escapeHtml(k)}</option>`).join('');
    if (this.x) xsel.value = this.x;
    this._table();
    this._draw();
  }

  _draw() {
    if (!this.sweep || !this.x) return;
    this.chart.update(this.sweep, this.x, this.metric, METRICS[this.metric].label, valueOf);
  }

  _table() {
    const s = this.sweep, keys = Object.keys(s.spec.axes);
    const tbl = this.root.querySelector('[data-testid=sweep-points]');
    tbl.querySelector('thead').innerHTML = `<tr><th>pick</th><th>workload</th>${keys.map((k) => `<th class="num">${escapeHtml(k)}</th>`).join('')}
      <th>status</th><th class="num">cycles</th><th class="num">speed-up</th><th class="num">time µs</th><th class="num">IPC</th>
      <th class="num">DRAM MB</th><th class="num">L1 hit</th><th class="num">L2 hit</th><th>top stall</th><th>run</th></tr>`;
    tbl.querySelector('tbody').innerHTML = s.points.map((p) => {
      const r = p.row, done = r.sim_cycles !== undefined;
      const fresh = done && !this.seen.has(p.key) && this.seen.size > 0;
      return `<tr data-point="${p.index}" data-status="${p.status}" class="${done ? '' : 'pending'} ${fresh ? 'flash' : ''}">
        <td><input type="checkbox" data-pick="${p.index}" ${p.run_id ? '' : 'disabled'} ${this.picked.has(p.index) ? 'checked' : ''}></td>
        <td>${escapeHtml(p.workload.replace(/^[^:]*:/, ''))}</td>${keys.map((k) => `<td class="num">${escapeHtml(p.values[k])}</td>`).join('')}
        <td><span class="status status-${p.status}">${p.status}</span>${p.message ? `<div class="msg small">${escapeHtml(p.message)}</div>` : ''}</td>
        <td class="num" data-testid="cycles">${done ? exact(r.sim_cycles) : ''}</td>
        <td class="num">${r.speedup ? r.speedup.toFixed(3) + '×' : ''}</td>
        <td class="num">${done ? num(r.time_us, 4) : ''}</td><td class="num">${done ? num(r.ipc, 4) : ''}</td>
        <td class="num">${done ? (r.dram_bytes / 1e6).toFixed(2) : ''}</td>
        <td class="num">${done ? pct(r.l1_hit_rate) : ''}</td><td class="num">${done ? pct(r.l2_hit_rate) : ''}</td>
        <td class="small">${done ? escapeHtml(topStall(r)) : ''}</td>
        <td>${p.run_id ? `<a href="${runUrl(p)}" data-open="${p.run_id}">open</a>` : ''}</td></tr>`;
    }).join('');
    for (const p of s.points) if (p.row.sim_cycles !== undefined) this.seen.add(p.key);
    this._compareState();
  }

  _pick(e) {
    const i = e.target.dataset.pick;
    if (i === undefined) return;
    const idx = Number(i);
    if (e.target.checked) {
      this.picked.add(idx);
      if (this.picked.size > 2) { const [oldest] = this.picked; this.picked.delete(oldest); this._table(); }
    } else this.picked.delete(idx);
    this._compareState();
  }

  _compareState() {
    this.root.querySelector('[data-act=compare]').disabled = this.picked.size !== 2;
  }

  compare() {
    const [a, b] = [...this.picked].map((i) => this.sweep.points.find((p) => p.index === i));
    if (!(a && b && a.run_id && b.run_id)) return;
    if (isWorkload(a) !== isWorkload(b)) { alert('a whole-model run compares with another whole-model run'); return; }
    window.location.href = `${runUrl(a)}&cmp=${encodeURIComponent(b.run_id)}`;
  }

  open(p) { if (p.run_id) window.location.href = runUrl(p); }

  _url() {
    const q = new URLSearchParams();
    if (this.id) q.set('sweep', this.id);
    if (this.x) q.set('x', this.x);
    if (this.metric !== 'speedup') q.set('metric', this.metric);
    history.replaceState(null, '', `${window.location.pathname}?${q}`);
  }
}

const page = new SweepPage(document.querySelector('main.sweep-page'));
window.__sweeps = page;                 // for tests (tests/e2e/test_sweep_page.py)
page.refreshList().then(() => { if (page.id) page.poll(); });
