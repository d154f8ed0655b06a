// The run list: every run with its status and a progress bar while it simulates, and a finished run's gap to
// the hardware measurement of the same work; open, download, cancel, delete; import a run file from another
// machine. Polls GET /api/runs (every second while a run is live).
import { api } from '../net/api.js';
import { escapeHtml, exact } from '../lib/format.js';
import { gapSpan, measuredLabels } from '../lib/measured.js';
import { runHref } from '../lib/links.js';

export class RunList {
  constructor(root, onOpen) {
    this.root = root; this.onOpen = onOpen; this.runs = []; this.timer = null;
    root.innerHTML = `
      <table class="runs" data-testid="run-table"><thead><tr><th>run</th><th>workload</th><th>config</th><th>recording</th>
        <th>status</th><th>progress</th><th class="num">cycles</th><th class="num" title="simulated against the hardware measurement of the same work (a validation case, a bundle's launches): the model's error when the run simulates the measured GPU unchanged, else a difference (grey)">vs measured</th><th class="num">warp insts</th><th></th></tr></thead><tbody></tbody></table>
      <p class="empty muted" hidden>No runs yet: start one below.</p>
      <form class="import" data-testid="import-form"><label>Import a run file (.simtrun) <input type="file" name="run" accept=".simtrun,application/vnd.sqlite3"></label>
        <button type="submit">Import</button> <span class="limits muted small" data-testid="import-limits"></span> <span class="form-msg"></span></form>`;
    api('/api/limits').then((l) => { root.querySelector('.limits').textContent = `run files up to ${Math.round(l.request_bytes / 2 ** 20)} MiB; the run keeps its name with "(imported)"`; }).catch(() => {});
    root.addEventListener('click', (e) => this._click(e));
    root.querySelector('form.import').addEventListener('submit', (e) => this._import(e));
  }

  async refresh() {
    clearTimeout(this.timer);
    try { this.runs = await api('/api/runs'); this._render(); } catch (e) { console.error(e); }
    const live = this.runs.some((r) => r.status === 'queued' || r.status === 'running');
    this.timer = setTimeout(() => this.refresh(), live ? 700 : 4000);
  }
  stop() { clearTimeout(this.timer); }

  _progress(r) {
    if (r.status === 'done') return '<progress value="1" max="1"></progress>';
    const p = r.progress;
    if (r.status === 'running' && p && p.launches) {        // a workload run: launch by launch
      return `<progress value="${p.launch}" max="${p.launches}"></progress> <span class="muted">launch ${Math.min(p.launch + 1, p.launches)}/${p.launches} · cycle ${exact(p.cycle)}</span>`;
    }
    if (r.status === 'running' && p && p.ctas_total) {
      return `<progress value="${p.ctas_done}" max="${p.ctas_total}"></progress> <span class="muted">${p.ctas_done}/${p.ctas_total} CTAs · cycle ${exact(p.cycle)}</span>`;
    }
    if (r.status === 'running' || r.status === 'queued') return '<progress></progress>';
    return '';
  }

  // the run's gap to its hardware measurement, its tooltip naming the device (and why it is not an error)
  _gap(v) {
    if (!v || typeof v !== 'object' || typeof v.gap !== 'number') return '';
    const ml = measuredLabels(v);
    const title = `${ml.gap} against ${v.device || 'the measurement'}${ml.why ? `; not the model's error: ${ml.why}` : ''}`;
    const other = ml.comparable ? '' : ` <span class="small muted">vs ${escapeHtml(ml.dev)}</span>`;   // a difference
    return `<span title="${escapeHtml(title)}">${gapSpan(v.gap, ml.comparable)}${other}</span>`;
  }

  _render() {
    const body = this.root.querySelector('tbody');
    this.root.querySelector('.empty').hidden = this.runs.length > 0;
    body.innerHTML = this.runs.map((r) => `
      <tr data-run="${r.id}" data-status="${r.status}">
        <td>${r.kind === 'workload' ? `<a href="${runHref(r.id, true)}" data-testid="open-workload">${escapeHtml(r.name)}</a> <span class="muted small">whole model</span>`
          : `<a href="?run=${encodeURIComponent(r.id)}" data-open="${r.id}">${escapeHtml(r.name)}</a>`}<div class="muted small">${r.id}</div></td>
        <td>${escapeHtml(r.workload)}</td><td>${escapeHtml(r.config)}${r.overrides.length ? ` <span class="muted">${escapeHtml(r.overrides.join(' '))}</span>` : ''}</td>
        <td>${r.level}${r.record_sms ? ` <span class="muted">SMs ${r.record_sms.length}</span>` : ''}</td>
        <td><span class="status status-${r.status}" data-testid="status">${r.status}</span>${r.message ? `<div class="msg small">${escapeHtml(r.message)}</div>` : ''}</td>
        <td class="progress">${this._progress(r)}</td>
        <td class="num">${r.cycles ? exact(r.cycles) : ''}</td><td class="num" data-testid="vs-measured">${this._gap(r.vs_measured)}</td>
        <td class="num">${r.warp_insts ? exact(r.warp_insts) : ''}</td>
        <td class="actions">
          ${r.status === 'queued' || r.status === 'running' ? `<button data-cancel="${r.id}">cancel</button>` : ''}
          <a href="/api/runs/${r.id}/download" download>download</a>
          <button data-delete="${r.id}">delete</button></td>
      </tr>`).join('');
  }

  async _click(e) {
    const t = e.target;
    if (t.dataset.open) { e.preventDefault(); this.onOpen(t.dataset.open); return; }
    try {
      if (t.dataset.cancel) await api(`/api/runs/${t.dataset.cancel}/cancel`, { method: 'POST' });
      if (t.dataset.delete && confirm('Delete this run and its file?')) await api(`/api/runs/${t.dataset.delete}`, { method: 'DELETE' });
    } catch (err) { alert(err.message); }
    if (t.dataset.cancel || t.dataset.delete) this.refresh();
  }

  async _import(e) {
    e.preventDefault();
    const form = e.target, msg = form.querySelector('.form-msg');
    msg.textContent = ''; msg.className = 'form-msg';
    try {
      const r = await api('/api/runs/import', { method: 'POST', body: new FormData(form) });
      msg.textContent = `imported as ${r.name} (${r.id})`; form.reset(); this.refresh();
    } catch (err) { msg.textContent = err.message; msg.className = 'form-msg error'; }
  }
}
