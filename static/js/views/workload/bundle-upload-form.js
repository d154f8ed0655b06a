// Upload a whole-model bundle (gpu-workload/1 as .zip or .tar.xz, e.g. from `simtscope capture`). The
// server's limits are shown before anything is sent and checked here first; the server checks everything
// (manifest, files, argument counts against the PTX, pointer offsets) and answers with an error naming the
// field or launch, shown here. Nothing is stored unless the whole bundle is good.
import { api } from '../../net/api.js';
import { escapeHtml } from '../../lib/format.js';

const mib = (b) => `${+(b / 2 ** 20).toFixed(1)} MiB`;

export class BundleUploadForm {
  constructor(root, onUploaded) {
    this.root = root; this.onUploaded = onUploaded; this.limits = null;
    root.innerHTML = `
      <form class="upload bundle-upload" data-testid="bundle-form" style="margin-top:12px; padding-top:8px; border-top:1px solid #e5e7eb">
        <label>whole model: gpu-workload bundle (.zip or .tar.xz)
          <input type="file" name="bundle" accept=".zip,.xz,.tar.xz" data-testid="bundle-file"></label>
        <button type="submit" data-testid="bundle-submit">Upload bundle</button>
        <div class="muted small" data-testid="bundle-limits">limits: …</div>
        <div class="form-msg" data-testid="bundle-msg"></div>
      </form>`;
    root.querySelector('form').addEventListener('submit', (e) => this._submit(e));
    api('/api/bundles/limits').then((l) => {
      this.limits = l;
      root.querySelector('[data-testid=bundle-limits]').textContent = `limits: ${mib(l.max_upload_bytes)} per archive, `
        + `${mib(l.max_unpacked_bytes)} unpacked, ${l.max_members} files, ${l.max_launches} launches; formats ${l.formats.join(', ')}`;
    }).catch(() => {});
  }

  async _submit(e) {
    e.preventDefault();
    const f = e.target, msg = f.querySelector('.form-msg');
    const file = f.bundle.files[0];
    msg.className = 'form-msg error';
    if (!file) { msg.textContent = 'choose a bundle file first'; return; }
    const low = file.name.toLowerCase();
    if (this.limits && !this.limits.formats.some((s) => low.endsWith(s))) {
      msg.textContent = `${file.name}: unknown archive format: upload a bundle as ${this.limits.formats.join(' or ')}`; return;
    }
    if (this.limits && file.size > this.limits.max_upload_bytes) {
      msg.textContent = `${file.name}: ${mib(file.size)} is larger than the upload limit of ${mib(this.limits.max_upload_bytes)}`; return;
    }
    const data = new FormData();
    data.append('bundle', file);
    msg.textContent = 'checking…'; msg.className = 'form-msg';
    try {
      const r = await api('/api/bundles', { method: 'POST', body: data });
      const w = r.workloads[0];
      msg.innerHTML = `uploaded ${escapeHtml(w.name)}: ${w.launches} launches`
        + (r.warnings.length ? `<div class="error">${r.warnings.length} launch(es) will not run: ${escapeHtml(r.warnings.join('\n'))}</div>` : '');
      msg.className = 'form-msg ok';
      f.reset();
      if (this.onUploaded) this.onUploaded(r);
    } catch (err) { msg.textContent = err.message; msg.className = 'form-msg error'; }
  }
}
