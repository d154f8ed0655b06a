// One run's data on the client: its metadata frame and the latest window frame (groups by track).
// ensure(view, opts) fetches a new window when the view left the loaded one, the resolution changed, or
// the options (heatmap SM, chosen PCs) changed; the old data stays on screen until the new arrives.
// invalidate() (a live run grew) makes the next ensure() fetch again even while a request for the same
// window is in flight: that request's answer was cut before the run grew, so it is shown but never counts
// as the loaded window (a generation number tells them apart). `version` counts the frames taken in.
import { fetchWindow } from '../net/fetch-window.js';

export class RunSource {
  constructor(channel, runId, slot, tracks) {
    this.ch = channel; this.run = runId; this.slot = slot; this.tracks = tracks;
    this.meta = null; this.groups = {}; this.loaded = null; this.inflight = false;
    this.onData = null; this.error = null; this.fetches = 0; this.gen = 0; this.version = 0;
  }
  async loadMeta() {
    const f = await this.ch.request('meta', { run: this.run }, `meta:${this.slot}`);
    if (f) this.meta = f;
    return this.meta;
  }
  get end() { return this.meta ? Math.max(1, this.meta.end_cycle || 1) : 1; }
  kernelName(k) {
    const ks = (this.meta && this.meta.kernels) || [];
    return ks[k] ? ks[k].name : `kernel ${k}`;
  }
  pcText(pc, kernel = 0) {
    const ks = (this.meta && this.meta.kernels) || [];
    const t = ks[kernel] && ks[kernel].pc_text;
    return t && pc < t.length ? t[pc] : '';
  }
  invalidate() { this.loaded = null; this.want = null; this.gen++; }

  ensure(view, opts = {}) {
    if (!this.meta) return;
    const key = JSON.stringify([opts.heatSm, opts.pcs || []]);
    const loaded = this.loaded && this.loaded.key === key ? this.loaded : null;
    const w = fetchWindow(view, loaded, this.end);
    if (!w || (this.want && this.want.a === w.a && this.want.b === w.b && this.want.res === w.res && this.want.key === key)) return;
    this.want = { ...w, key };
    const gen = this.gen;
    const req = { run: this.run, a: w.a, b: w.b, res: w.res, tracks: this.tracks };
    if (opts.heatSm !== undefined && opts.heatSm !== null) req.heat_sm = opts.heatSm;
    if (opts.pcs && opts.pcs.length) req.pcs = opts.pcs;
    this.fetches++;
    this.ch.request('window', req, `window:${this.slot}`).then((f) => {
      if (!f) return;                                  // superseded by a newer request
      this.groups = f.groups; this.version++;
      this.loaded = gen === this.gen ? { a: f.a, b: f.b, res: f.res, key } : null;   // stale if invalidated since
      this.meta.end_cycle = Math.max(this.meta.end_cycle || 0, f.end_cycle || 0);
      this.meta.status = f.status;
      this.error = null; this.want = null;
      if (this.onData) this.onData(this);
    }).catch((e) => { this.error = e.message; this.want = null; if (this.onData) this.onData(this); });
  }
}
