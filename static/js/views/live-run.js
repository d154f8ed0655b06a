// A run that is still queued or simulating, in the main view: opening it waits (saying so) until the
// worker has created its run file, then the view grows with the run. While the view shows the run up to
// its end it follows the end (the window widens as cycles are sealed, and a/b stay out of the URL, so a
// shared address never pins a stale window); zooming in stops following, "fit" starts again. When the run
// finishes, its metadata is read again: header, summary and PTX statistics update.
import { api } from '../net/api.js';
import { exact } from '../lib/format.js';

const LIVE = ['queued', 'running', 'created'];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export class LiveRun {
  constructor({ state, timeline, minimap, inspector, toolbar, status }) {
    Object.assign(this, { state, timeline, minimap, inspector, toolbar, statusEl: status });
    this.id = null; this.follow = false; this.timer = null; this.end = 0; this.isLive = false;
  }

  following() { return this.isLive && this.follow; }

  async open(id, run) {
    this.close();
    this.id = id;
    const token = this.token = {};
    while (LIVE.includes(run.status) && !run.progress && !run.cycles) {        // no run file yet
      this.statusEl.textContent = run.status === 'queued' ? 'queued: waiting for a free worker…' : 'starting the simulation…';
      await sleep(400);
      if (this.token !== token) return null;
      run = await api(`/api/runs/${encodeURIComponent(id)}`);
    }
    let meta = null;
    for (let tries = 0; ; tries++) {
      try {
        meta = await this.timeline.open(id);
        if (meta.num_sms || !LIVE.includes(meta.status) || tries > 200) break;
        this.statusEl.textContent = 'starting the simulation…';            // file created, recording not begun
      } catch (e) {
        if (!/not started yet/.test(e.message) || tries > 200) throw e;     // created, not yet written: retry
        await sleep(300);
        if (this.token !== token) return null;
      }
    }
    this.isLive = LIVE.includes(meta.status);
    this.status = meta.status;
    const s = this.state.get();
    this.end = this.timeline.src.end;
    this.follow = this.isLive && !(s.b < this.end);                         // a fresh view shows everything
    if (this.isLive) {
      this.statusEl.textContent = 'simulating…';
      this.state.set({ a: this.follow ? 0 : s.a, b: this.follow ? Math.max(16, this.end) : s.b });
      this.unsub = this.state.subscribe((st, changed) => {
        if (!this._setting && (changed.includes('a') || changed.includes('b'))) this.follow = st.b >= this.end && st.a <= 0;
      });
    }
    return meta;
  }

  close() { this.token = null; this.isLive = false; if (this.unsub) this.unsub(); this.unsub = null; clearTimeout(this.timer); this.timer = null; }

  progress(f) {
    const tl = this.timeline;
    if (!tl.src || f.run !== tl.src.run || !this.isLive) return;
    const p = f.progress;
    if (f.status !== this.status) { this.status = f.status; this.toolbar.setStatus(f.status); }
    this.statusEl.textContent = f.status === 'running' && p
      ? `simulating… cycle ${exact(p.cycle)}, ${p.ctas_done}/${p.ctas_total} CTAs` : '';
    const pending = document.querySelector('[data-testid=summary-pending]');     // the summary tab, until the end
    if (pending && p) pending.textContent = `Simulating: cycle ${exact(p.cycle)}, ${p.ctas_done}/${p.ctas_total} CTAs. The summary appears when the run has finished.`;
    const sealed = Math.max(f.sealed_cycle || 0, f.ctr_cycle || 0, f.end_cycle || 0);
    const final = !LIVE.includes(f.status);
    if (final) { clearTimeout(this.timer); this.timer = null; }          // the end is never dropped
    else if (sealed === this.end || this.timer) return;
    this.timer = setTimeout(() => this._grow(sealed, final), final ? 0 : 400);   // pull again, at most ~2/s
  }

  async _grow(sealed, final) {
    this.timer = null;
    const tl = this.timeline;
    if (!tl.src) return;
    this.end = Math.max(this.end, sealed);
    tl.src.meta.end_cycle = Math.max(tl.src.meta.end_cycle || 0, sealed);
    if (this.minimap.src && this.minimap.src.meta) this.minimap.src.meta.end_cycle = tl.src.meta.end_cycle;
    if (final) {
      this.isLive = false;
      const meta = await tl.src.loadMeta();
      this.end = tl.src.end;
      const runs = await api('/api/runs?children=1');
      this.toolbar.setRun(meta, runs);
      this.inspector.setRun(meta);
      this.statusEl.textContent = meta.status === 'done' ? '' : `run ${meta.status}: ${meta.message || ''}`;
    }
    if (this.follow) {
      this._setting = true;
      this.state.set({ a: 0, b: Math.max(16, tl.src.end) });
      this._setting = false;
      if (final) this.follow = false;
    }
    tl.src.invalidate(); tl.refresh(); this.minimap.reload();
  }
}
