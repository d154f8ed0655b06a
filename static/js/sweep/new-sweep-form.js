// The new-sweep form: workloads (several: validation cases and model bundles, in two groups), a GPU config, one
// swept key per line (key=v1,v2,...), the number of local worker processes. POST /api/sweeps with the cases by
// name and the bundles by workload id; the server refuses more than its page limit.
import { api } from '../net/api.js';
import { escapeHtml } from '../lib/format.js';

const picked = (select, kind) => [...select.selectedOptions].filter((o) => o.parentElement.dataset.kind === kind).map((o) => o.value);

export class NewSweepForm {
  constructor(root, maxWorkers, onStarted) {
    this.root = root; this.onStarted = onStarted;
    root.innerHTML = `
      <form class="new-sweep" data-testid="new-sweep">
        <label>workloads (ctrl-click for several) <select name="cases" multiple data-testid="sweep-cases"></select></label>
        <label>GPU config <select name="config" data-testid="sweep-config"></select></label>
        <label>swept values, one key per line <textarea name="sets" data-testid="sweep-sets" placeholder="l2.size_kib=30720,61440&#10;gpu.num_sms=66,132"></textarea></label>
        <label>workers <input name="workers" type="number" min="1" max="${maxWorkers}" value="${Math.min(2, maxWorkers)}" size="3"></label>
        <label>name <input name="name" placeholder="(automatic)" size="18"></label>
        <button type="submit" data-testid="start-sweep">Start sweep</button>
        <div class="form-msg" data-testid="new-sweep-msg"></div>
      </form>`;
    root.querySelector('form').addEventListener('submit', (e) => this._submit(e));
  }

  async load() {
    const [workloads, configs] = await Promise.all([api('/api/workloads'), api('/api/configs')]);
    const opts = (list, value) => list.map((w) => `<option value="${escapeHtml(value(w))}">${escapeHtml(w.name)}</option>`).join('');
    const bundles = workloads.filter((w) => w.kind === 'bundle');
    this.root.querySelector('[name=cases]').innerHTML =
      `<optgroup label="validation cases" data-kind="case">${opts(workloads.filter((w) => w.kind === 'builtin'), (w) => w.name)}</optgroup>` +
      (bundles.length ? `<optgroup label="model bundles (every launch timed)" data-kind="bundle">${opts(bundles, (w) => w.id)}</optgroup>` : '');
    const csel = this.root.querySelector('[name=config]');
    csel.innerHTML = configs.map((c) => `<option>${escapeHtml(c.name)}</option>`).join('');
    if (configs.some((c) => c.name === 'h200')) csel.value = 'h200';
  }

  async _submit(e) {
    e.preventDefault();
    const f = e.target, msg = f.querySelector('.form-msg');
    const body = {
      cases: picked(f.cases, 'case'), bundles: picked(f.cases, 'bundle'), config: f.config.value,
      sets: f.sets.value.split('\n').map((s) => s.trim()).filter(Boolean),
      workers: Number(f.workers.value) || 1, name: f.name.value.trim() || undefined,
    };
    msg.className = 'form-msg'; msg.textContent = 'starting…';
    try {
      const r = await api('/api/sweeps', { json: body });
      msg.className = 'form-msg ok'; msg.textContent = `started ${r.name} (${r.points} points)`;
      this.onStarted(r.id);
    } catch (err) {
      msg.className = 'form-msg error'; msg.textContent = err.message;
    }
  }
}
