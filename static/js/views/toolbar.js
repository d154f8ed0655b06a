// The run view's toolbar: run and config, zoom, play/pause at a chosen speed, stepping, the SM shown in
// the heatmap, a second run to compare, exports. Playback advances the cursor in the rAF scheduler.
import { schedule } from '../render/scheduler.js';
import { exportPng, exportSvg, exportCsv, exportTrace } from '../render/export.js';
import { escapeHtml } from '../lib/format.js';

const SPEEDS = [10, 100, 1000, 10000, 100000, 1000000];

export class Toolbar {
  constructor(root, state, tl) {
    this.root = root; this.state = state; this.tl = tl; this.playing = false; this.acc = 0;
    root.innerHTML = `
      <a href="/" class="back" data-testid="back">◀ Runs</a>
      <span class="run-title" data-testid="run-title"></span>
      <span class="group">
        <button data-act="zoom-in" title="zoom in (+)">+</button><button data-act="zoom-out" title="zoom out (-)">-</button>
        <button data-act="fit" title="whole run">fit</button>
      </span>
      <span class="group">
        <button data-act="step-back" title="back 1 cycle (←; Shift 10, Ctrl 100)">◀</button>
        <button data-act="play" data-testid="play" title="play / pause (space)">play</button>
        <button data-act="step" title="forward 1 cycle (→; Shift 10, Ctrl 100)">▶|</button>
        <label title="playback speed">speed <select data-act="speed" data-testid="speed">${SPEEDS.map((s) => `<option value="${s}">${s.toLocaleString('en-US')} cyc/s</option>`).join('')}</select></label>
      </span>
      <span class="group"><label title="the SM whose warps the heatmap shows">SM <select data-act="sm" data-testid="sm-select"></select></label></span>
      <span class="group"><label title="a second run to compare (B)">compare <select data-act="cmp" data-testid="compare"><option value="">—</option></select></label></span>
      <details class="group exports" data-testid="export-menu"><summary title="PNG, SVG, CSV of this view; the whole run for Perfetto">export ▾</summary><div class="menu">
        <button data-act="png2" data-testid="export-png2">PNG 2×</button><button data-act="png4" data-testid="export-png4">PNG 4×</button>
        <button data-act="svg" data-testid="export-svg">SVG</button><button data-act="csv" data-testid="export-csv">CSV (counters)</button>
        <button data-act="trace" data-testid="export-trace" title="the run as a Chrome JSON trace: open it in ui.perfetto.dev (warp states of the shown SM)">Perfetto trace (.json)</button>
      </div></details>`;
    root.addEventListener('click', (e) => this._click(e));
    root.addEventListener('change', (e) => this._change(e));
    tl.onPlayKey = () => this.toggle();
    state.subscribe((s, changed) => {
      if (changed.includes('speed')) root.querySelector('[data-act=speed]').value = String(s.speed);
      if (changed.includes('sm')) root.querySelector('[data-act=sm]').value = String(s.sm);
    });
  }

  setRun(meta, runs) {
    const s = this.state.get();
    const cfg = meta.config && meta.config.name ? meta.config.name : (meta.run ? meta.run.config : '');
    this.root.querySelector('.run-title').innerHTML =
      `<b>${escapeHtml(meta.run ? meta.run.name : '')}</b> <span class="muted" title="${escapeHtml(meta.level || '')} recording">${escapeHtml(cfg)} · <span class="run-status">${escapeHtml(meta.status)}</span></span>`;
    const smSel = this.root.querySelector('[data-act=sm]');
    const rec = meta.level === 'full' ? (meta.record_sms || []) : [];
    smSel.innerHTML = Array.from({ length: meta.num_sms || 0 }, (_, i) =>
      `<option value="${i}"${rec.includes(i) ? '' : ' class="muted"'}>SM ${i}${rec.includes(i) ? '' : ' (counters only)'}</option>`).join('');
    smSel.value = String(s.sm || 0);
    const cmp = this.root.querySelector('[data-act=cmp]');
    cmp.innerHTML = '<option value="">—</option>' + runs.filter((r) => r.id !== meta.run.id && r.status === 'done' && r.kind !== 'workload')
      .map((r) => `<option value="${r.id}">${escapeHtml(r.name)} (${escapeHtml(r.config)})</option>`).join('');
    cmp.value = s.cmp || '';
    this.root.querySelector('[data-act=speed]').value = String(s.speed || 1000);
  }

  setStatus(status) {
    const el = this.root.querySelector('.run-status');
    if (el) el.textContent = status;
  }

  _click(e) {
    const b = e.target.closest('button[data-act]');
    if (!b) return;
    const tl = this.tl, s = this.state.get();
    const act = b.dataset.act;
    if (act === 'zoom-in') tl.zoomAt(s.cursor ?? (s.a + s.b) / 2, 0.5);
    else if (act === 'zoom-out') tl.zoomAt(s.cursor ?? (s.a + s.b) / 2, 2);
    else if (act === 'fit') tl.setWindow(0, tl.src.end);
    else if (act === 'step') tl.step(1);
    else if (act === 'step-back') tl.step(-1);
    else if (act === 'play') this.toggle();
    else if (act === 'png2') exportPng(tl, 2);
    else if (act === 'png4') exportPng(tl, 4);
    else if (act === 'svg') exportSvg(tl);
    else if (act === 'csv') exportCsv(tl);
    else if (act === 'trace') exportTrace(tl);
  }

  _change(e) {
    const act = e.target.dataset.act;
    if (act === 'speed') this.state.set({ speed: Number(e.target.value) });
    else if (act === 'sm') this.state.set({ sm: Number(e.target.value) });
    else if (act === 'cmp') this.state.set({ cmp: e.target.value || null });
  }

  toggle() {
    this.playing = !this.playing;
    this.root.querySelector('[data-act=play]').textContent = this.playing ? 'pause' : 'play';
    this.last = performance.now(); this.acc = 0;
    if (this.playing) this._tick();
  }

  _tick() {
    if (!this.playing) return;
    schedule('input', 'play', () => {
      if (!this.playing) return;
      const now = performance.now(), s = this.state.get();
      this.acc += (now - this.last) / 1000 * (s.speed || 1000);
      this.last = now;
      const whole = Math.floor(this.acc);
      if (whole >= 1) {
        this.acc -= whole;
        if ((s.cursor || 0) + whole >= this.tl.src.end - 1) { this.tl.setCursor(this.tl.src.end - 1); this.toggle(); return; }
        this.tl.setCursor((s.cursor || 0) + whole);
      }
      this._tick();
    });
  }
}
