// The new-run form: a workload (demos first), a GPU config with overrides, the recording level and SMs,
// the counter interval. Submitting creates the run; the run list shows its progress.
import { api } from '../net/api.js';
import { escapeHtml } from '../lib/format.js';

export class NewRunForm {
  constructor(root, onCreated) {
    this.root = root; this.onCreated = onCreated;
    root.innerHTML = `
      <form class="new-run" data-testid="new-run">
        <label>workload <select name="workload" data-testid="workload"></select></label>
        <label>GPU config <select name="config" data-testid="config"></select></label>
        <label>recording <select name="level"><option value="full">full (warp states)</option><option value="summary">summary (counters)</option><option value="off">off</option></select></label>
        <label>SMs with warp states <input name="record_sms" placeholder="all, or 0-7,12" size="10"></label>
        <label>counter interval <input name="interval" type="number" min="16" value="256" size="6"> cycles</label>
        <label class="wide">config overrides <input name="overrides" placeholder="l2.size_kib=30720, sm.warp_scheduler=lrr" size="40"></label>
        <label>name <input name="name" placeholder="(automatic)" size="20"></label>
        <button type="submit" data-testid="start-run">Start run</button>
        <div class="form-msg" data-testid="new-run-msg"></div>
      </form>`;
    root.querySelector('form').addEventListener('submit', (e) => this._submit(e));
  }

  async load() {
    const [workloads, configs] = await Promise.all([api('/api/workloads'), api('/api/configs')]);
    workloads.sort((a, b) => (b.demo - a.demo) || (a.kind === b.kind ? 0 : (a.kind === 'upload' ? -1 : 1)));
    const opt = (w) => `<option value="${escapeHtml(w.id)}">${escapeHtml(w.name)}${w.kind === 'upload' ? ' (uploaded)' : ''}${w.demo ? ' ★' : ''} · ${escapeHtml(w.kernel)} grid ${w.grid.join('×')}</option>`;
    const wsel = this.root.querySelector('[name=workload]');
    const keep = wsel.value;
    wsel.innerHTML = workloads.map(opt).join('');
    if (keep) wsel.value = keep;
    this.root.querySelector('[name=config]').innerHTML = configs.map((c) => `<option>${escapeHtml(c.name)}</option>`).join('');
  }

  async _submit(e) {
    e.preventDefault();
    const f = e.target, msg = f.querySelector('.form-msg');
    const body = {
      workload: f.workload.value, config: f.config.value, level: f.level.value,
      record_sms: f.record_sms.value.trim() || null, interval: Number(f.interval.value) || undefined,
      overrides: f.overrides.value.split(',').map((s) => s.trim()).filter(Boolean), name: f.name.value.trim() || undefined,
    };
    msg.textContent = ''; msg.className = 'form-msg';
    try {
      const run = await api('/api/runs', { json: body });
      msg.textContent = `started ${run.name}`;
      if (this.onCreated) this.onCreated(run);
    } catch (err) { msg.textContent = err.message; msg.className = 'form-msg error'; }
  }
}
