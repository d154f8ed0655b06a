// Upload a workload: PTX (or CUDA source, compiled by the server's nvcc, or a zip of them with a
// cases.json) and a launch description in the cases.json format. The server checks everything and
// answers with a clear error, shown here; nothing is stored unless all is well.
import { api } from '../net/api.js';
import { escapeHtml } from '../lib/format.js';

const EXAMPLE = `{"name": "my_saxpy", "kernel": "saxpy", "grid": [64], "block": [256],
 "args": [{"kind": "scalar", "dtype": "i32", "value": 16384},
          {"kind": "scalar", "dtype": "f32", "value": 2.0},
          {"kind": "buffer", "dtype": "f32", "count": 16384, "init": "random_uniform", "lo": -1, "hi": 1, "seed": 1},
          {"kind": "buffer", "dtype": "f32", "count": 16384, "init": "zeros", "output": true}]}`;

const MiB = (b) => `${Math.round(b / 2 ** 20)} MiB`;
export function limitsText(l) {
  return `Limits: each file up to ${MiB(l.file_bytes)}, one upload up to ${MiB(l.request_bytes)}, a .zip up to ${MiB(l.unpacked_bytes)} unpacked; ` +
    `launches up to ${l.max_ctas.toLocaleString('en-US')} CTAs. Everything is checked before anything is stored.`;
}

export class UploadForm {
  constructor(root, onUploaded) {
    this.root = root; this.onUploaded = onUploaded;
    root.innerHTML = `
      <form class="upload" data-testid="upload-form">
        <label>PTX, CUDA (.cu), or a .zip (of those, or an Accel-Sim trace folder) <input type="file" name="file" data-testid="upload-file" accept=".ptx,.cu,.zip"></label>
        <label>name <input name="name" size="16"></label>
        <label class="wide">launch description (cases.json format: one case, a list, or a whole file)
          <textarea name="launch" rows="5" data-testid="upload-launch" placeholder='${escapeHtml(EXAMPLE)}'></textarea></label>
        <button type="submit" data-testid="upload-submit">Upload</button>
        <div class="limits muted small" data-testid="upload-limits"></div>
        <div class="form-msg" data-testid="upload-msg"></div>
      </form>`;
    root.querySelector('form').addEventListener('submit', (e) => this._submit(e));
    api('/api/limits').then((l) => { this.limits = l; root.querySelector('.limits').textContent = limitsText(l); }).catch(() => {});
  }

  async _submit(e) {
    e.preventDefault();
    const f = e.target, msg = f.querySelector('.form-msg');
    const data = new FormData();
    const file = f.file.files[0];
    if (file && this.limits && file.size > (file.name.toLowerCase().endsWith('.zip') ? this.limits.request_bytes : this.limits.file_bytes)) {
      msg.textContent = `${file.name}: ${MiB(file.size)} is over the limit (${limitsText(this.limits)})`; msg.className = 'form-msg error';
      return;
    }
    if (file) {
      const ext = file.name.toLowerCase().split('.').pop();
      data.append(ext === 'zip' ? 'archive' : (ext === 'cu' ? 'cu' : 'ptx'), file);
    }
    if (f.launch.value.trim()) data.append('launch', f.launch.value);
    if (f.name.value.trim()) data.append('name', f.name.value.trim());
    msg.textContent = 'checking…'; msg.className = 'form-msg';
    try {
      const r = await api('/api/uploads', { method: 'POST', body: data });
      msg.textContent = `uploaded: ${r.workloads.map((w) => w.name).join(', ')}`; msg.className = 'form-msg ok';
      if (this.onUploaded) this.onUploaded(r);
    } catch (err) { msg.textContent = err.message; msg.className = 'form-msg error'; }
  }
}
