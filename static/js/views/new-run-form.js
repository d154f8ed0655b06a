// The new-run form: a workload (demos first; whole-model bundles in their own group, with the launches to
// record in full), a GPU config with overrides, the recording level and SMs, the counter interval.
// Submitting creates the run; the run list shows its progress. The form starts from the settings of the
// last run started here (localStorage), so trying one more override is one edit.
import { api } from '../net/api.js';
import { escapeHtml } from '../lib/format.js';
import { bundleOptions } from './workload/bundle-options.js';

const LAST = 'simtscope.last-run';
function lastUsed() { try { return JSON.parse(localStorage.getItem(LAST) || 'null'); } catch (e) { return null; } }

export class NewRunForm {
  constructor(root, onCreated) {
    this.root = root; this.onCreated = onCreated;
    root.innerHTML = `
      <form class="new-run" data-testid="new-run">
        <label>workload <select name="workload" data-testid="workload"></select></label>
        <label class="launches" style="display:none">launches with full detail <input name="launches" size="12" data-testid="launches"
          title="the launches whose per-cycle timeline is recorded (all launches are simulated for the layer table): none, all, or 0,3-5"></label>
        <label>GPU config <select name="config" data-testid="config"></select></label>
        <label>recording <select name="level"><option value="full">full (warp states)</option><option value="summary">summary (counters)</option><option value="off">off</option></select></label>
        <label>SMs with warp states <input name="record_sms" placeholder="all, or 0-7,12" size="10"></label>
        <label>counter interval <input name="interval" type="number" min="16" value="256" size="6"> cycles</label>
        <label class="wide">config overrides <input name="overrides" placeholder="l2.size_kib=30720, sm.scheduler=lrr" size="40"></label>
        <label>name <input name="name" placeholder="(automatic)" size="20"></label>
        <button type="submit" data-testid="start-run">Start run</button>
        <div class="form-msg" data-testid="new-run-msg"></div>
      </form>`;
    root.querySelector('form').addEventListener('submit', (e) => this._submit(e));
    root.querySelector('[name=workload]').addEventListener('change', () => { this._bundleChanged(); this._suggestConfig(); });
    root.querySelector('[name=config]').addEventListener('change', () => { this._cfgTouched = true; });
  }

  _bundleChanged() {                       // a whole-model bundle: choose the launches recorded in full
    const w = this.bundles && this.bundles.get(this.root.querySelector('[name=workload]').value);
    const box = this.root.querySelector('label.launches');
    box.style.display = w ? '' : 'none';                 // (form labels are display:flex, which beats [hidden])
    if (w) box.querySelector('input').placeholder = w.launches <= 8 ? 'all (small workload)' : 'none (summary only)';
  }

  async load() {
    // a later load wins: the page's first load (slow while the server lists every bundle) may answer after
    // the one an upload started, and must not put back the list without the uploaded workload
    const seq = (this._seq = (this._seq || 0) + 1);
    const [workloads, configs] = await Promise.all([api('/api/workloads'), api('/api/configs')]);
    if (seq !== this._seq) return;
    const kernels = workloads.filter((w) => w.kind !== 'bundle');
    kernels.sort((a, b) => (b.demo - a.demo) || (a.kind === b.kind ? 0 : (a.kind === 'upload' ? -1 : 1)));
    const opt = (w) => `<option value="${escapeHtml(w.id)}">${escapeHtml(w.name)}${w.kind === 'upload' ? ' (uploaded)' : ''}${w.demo ? ' ★' : ''} · ${escapeHtml(w.kernel)} grid ${w.grid.join('×')}</option>`;
    const wsel = this.root.querySelector('[name=workload]');
    const keep = wsel.value;
    this.bundles = new Map(workloads.filter((w) => w.kind === 'bundle').map((w) => [w.id, w]));
    wsel.innerHTML = `<optgroup label="single kernels (validation cases)">${kernels.map(opt).join('')}</optgroup>${bundleOptions(this.bundles)}`;
    const csel = this.root.querySelector('[name=config]'), keepCfg = csel.value;
    csel.innerHTML = configs.map((c) => `<option>${escapeHtml(c.name)}</option>`).join('');
    this.workloads = new Map(workloads.map((w) => [w.id, w]));
    if (!keepCfg && configs.some((c) => c.name === 'h200')) csel.value = 'h200';   // the calibrated preset
    const last = lastUsed();
    if (keep) { wsel.value = keep; if (keepCfg) csel.value = keepCfg; }               // the user's own choice stays
    else if (last) {
      const f = this.root.querySelector('form');
      if (workloads.some((w) => w.id === last.workload)) wsel.value = last.workload;
      if (configs.some((c) => c.name === last.config)) csel.value = last.config;
      f.level.value = last.level || 'full';
      f.record_sms.value = last.record_sms || '';
      if (last.interval) f.interval.value = last.interval;
      f.overrides.value = (last.overrides || []).join(', ');
      if (last.launches) f.launches.value = last.launches;
    }
    this._bundleChanged();
  }

  _suggestConfig() {                       // a trace starts on its own GPU generation's preset, until the user picks one
    const w = this.workloads && this.workloads.get(this.root.querySelector('[name=workload]').value);
    const csel = this.root.querySelector('[name=config]');
    if (w && w.config && !this._cfgTouched && [...csel.options].some((o) => o.value === w.config)) csel.value = w.config;
  }

  async _submit(e) {
    e.preventDefault();
    const f = e.target, msg = f.querySelector('.form-msg');
    const body = {
      workload: f.workload.value, config: f.config.value, level: f.level.value,
      record_sms: f.record_sms.value.trim() || null, interval: Number(f.interval.value) || undefined,
      overrides: f.overrides.value.split(',').map((s) => s.trim()).filter(Boolean), name: f.name.value.trim() || undefined,
    };
    if (this.bundles && this.bundles.has(body.workload) && f.launches.value.trim()) body.launches = f.launches.value.trim();
    msg.textContent = ''; msg.className = 'form-msg';
    try {
      const run = await api('/api/runs', { json: body });
      msg.textContent = `started ${run.name}`;
      localStorage.setItem(LAST, JSON.stringify({ ...body, name: undefined }));
      if (this.onCreated) this.onCreated(run);
    } catch (err) { msg.textContent = err.message; msg.className = 'form-msg error'; }
  }
}
