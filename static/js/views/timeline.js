// The timeline: every track on one cycle axis, a cursor across all of them, zoom/pan/scrub/play.
// Data: one RunSource per run shown (the run, and optionally a second run to compare on the same axis).
// Drawing: main canvas (gutter + tracks, redrawn when data or the view change), overlay canvas (cursor
// and hover, redrawn when they move), ruler canvas; all through the rAF scheduler.
import { CycleTransform, zoomRange, shiftRange, clamp } from '../lib/transform.js';
import { schedule } from '../render/scheduler.js';
import { sizeCanvas } from '../render/hidpi.js';
import { RunSource } from './run-source.js';
import { GUTTER, RULER_H, layoutTracks, rowAt } from './layout.js';
import { drawRuler, drawTracks, drawCursor } from './timeline-draw.js';
import { KernelTrack, CtaTrack } from '../tracks/cta-track.js';
import { StripTrack } from '../tracks/strip-track.js';
import { HeatTrack } from '../tracks/heat-track.js';
import { CounterTrack, StatesTrack } from '../tracks/counter-track.js';
import { attachInput } from './timeline-input.js';
import { interleave } from './compare-tracks.js';
import { escapeHtml } from '../lib/format.js';
import { clockMhz } from '../lib/run-metrics.js';

const MAIN_TRACKS = ['ctr', 'strip', 'strip_c', 'heat', 'cta', 'kernel', 'issues'];
const CMP_TRACKS = ['ctr', 'kernel', 'heat'];

export class Timeline {
  constructor(root, state, channel) {
    this.root = root; this.state = state; this.ch = channel;
    root.innerHTML = `
      <canvas class="ruler" data-testid="ruler"></canvas>
      <div class="tracks-scroll"><div class="tracks-inner">
        <canvas class="main" data-testid="tracks"></canvas><canvas class="overlay"></canvas>
      </div></div>
      <div class="tooltip" hidden></div>`;
    this.ruler = root.querySelector('canvas.ruler');
    this.scroll = root.querySelector('.tracks-scroll');
    this.inner = root.querySelector('.tracks-inner');
    this.main = root.querySelector('canvas.main');
    this.overlay = root.querySelector('canvas.overlay');
    this.tip = root.querySelector('.tooltip');
    this.src = null; this.cmp = null; this.hover = null; this.layout = { rows: [], height: 0 };
    this.width = 800; this.collapsed = new Set(); this.selecting = null;
    new ResizeObserver(() => this.resize()).observe(root);
    attachInput(this);
    state.subscribe((s, changed) => this._onState(s, changed));
  }

  // ------------------------------------------------------------------ runs and tracks
  async open(runId) {
    this.src = new RunSource(this.ch, runId, 'main', MAIN_TRACKS);
    this.src.onData = () => { this._rebuildCaches(this.src); };
    await this.src.loadMeta();
    const s = this.state.get();
    const end = this.src.end;
    const patch = {};
    if (!(s.b > s.a)) { patch.a = 0; patch.b = end; }
    if (s.sm === undefined || s.sm === null) patch.sm = (this.src.meta.record_sms || [0])[0] || 0;
    if (s.cursor === undefined || s.cursor === null) patch.cursor = 0;
    this.state.set(patch);
    this._buildTracks();
    if (s.cmp) await this.compare(s.cmp);
    this.refresh();
    return this.src.meta;
  }

  async compare(runId) {
    if (!runId) { this.cmp = null; this._buildTracks(); this.refresh(); if (this.onCompare) this.onCompare(null); return; }
    this.cmp = new RunSource(this.ch, runId, 'compare', CMP_TRACKS);
    this.cmp.onData = () => this._rebuildCaches(this.cmp);
    try { await this.cmp.loadMeta(); } catch (e) { this.cmp = null; throw e; }
    if (this.onCompare) this.onCompare(this.cmp.meta);
    this._buildTracks();
    this.refresh();
  }

  _buildTracks() {
    const src = this.src, m = src.meta, s = this.state.get();
    const counters = (m.metrics || []).map(([k, label, unit, desc]) => new CounterTrack(src, k, label, unit, '', desc));
    const recorded = m.level === 'full' && (m.record_sms || []).includes(s.sm);
    this.heat = recorded ? new HeatTrack(src, s.sm) : null;
    // order: what one zooms into first (the chosen SM's warps), then the GPU-wide view, then every SM,
    // then the memory system
    const byKey = Object.fromEntries(counters.map((c) => [c.key, c]));
    const pick = (...keys) => keys.map((k) => byKey[k]).filter(Boolean);
    const sections = [
      { header: null, tracks: [new KernelTrack(src)].concat(this.heat ? [this.heat] : []) },
      { header: 'GPU', tracks: [new StatesTrack(src)].concat(pick('ipc', 'occupancy')) },
      { header: 'SMs', tracks: [new StripTrack(src), new CtaTrack(src)] },
      { header: 'Memory', tracks: pick('l1_hit', 'l2_hit', 'dram_bw', 'mshr', 'ldst_queue', 'l2_queue', 'dram_queue', 'icnt_queue') },
    ];
    const both = this.cmp && this.cmp.meta ? interleave(sections, this.cmp, s.sm) : sections;
    this.sections = both;
    this.tracks = both.flatMap((x) => x.tracks);
    for (const t of this.tracks) t.collapsed = this.collapsed.has(t.id);
    for (const t of this.tracks) if (t.src.groups && Object.keys(t.src.groups).length) t.setData();
    this._relayout();
  }

  _rebuildCaches(src) {
    for (const t of this.tracks || []) if (t.src === src) t.setData();
    this._relayout();
    this.refresh(false);
    if (this.onData) this.onData(src);
  }

  // a click on a track's name (the first line of its gutter) collapses or expands it
  toggleCollapse(y) {
    const r = this.layout.rows.find((x) => x.track && y >= x.y && y < x.y + Math.min(x.h, 16));
    if (!r) return false;
    r.track.collapsed = !r.track.collapsed;
    if (r.track.collapsed) this.collapsed.add(r.track.id); else this.collapsed.delete(r.track.id);
    this._relayout();
    return true;
  }

  // colours changed (states hidden or shown in the legend): rebuild the bitmaps and redraw
  restyle() {
    this.styleSeq = (this.styleSeq || 0) + 1;
    for (const t of this.tracks || []) if (t.src.groups && Object.keys(t.src.groups).length) t.setData();
    this.refresh(false);
  }

  _relayout() {
    this.layout = layoutTracks(this.sections || []);
    this.resize();
  }

  // ------------------------------------------------------------------ geometry
  view() {
    const s = this.state.get();
    return new CycleTransform(s.a, s.b, GUTTER, this.width - GUTTER - 10);
  }
  resize() {
    this.width = Math.max(400, this.root.clientWidth);
    const h = Math.max(10, this.layout.height);
    for (const [c, hh] of [[this.main, h], [this.overlay, h], [this.ruler, RULER_H]]) sizeCanvas(c, this.width, hh);
    this.inner.style.height = `${h}px`;
    this.refresh();
  }

  // ------------------------------------------------------------------ state changes
  _onState(s, changed) {
    if (!this.src) return;
    if (changed.includes('sm')) { this._buildTracks(); if (s.pin !== null && s.pin !== undefined) this.state.set({ pin: null }); }
    if (changed.includes('cmp')) { this.compare(s.cmp).catch((e) => this._error(e)); }
    if (changed.some((k) => ['a', 'b', 'sm', 'line', 'pcs'].includes(k))) this.refresh();
    else if (changed.some((k) => ['cursor', 'pin', 'ra', 'rb'].includes(k))) this._markOverlay();
  }
  _error(e) { if (this.onError) this.onError(e); }

  refresh(fetch = true) {
    if (!this.src || !this.src.meta) return;
    if (fetch) {
      const view = this.view(), s = this.state.get();
      this.src.ensure(view, { heatSm: this.heat ? s.sm : null, pcs: s.pcs || [] });
      if (this.cmp && this.cmp.meta) this.cmp.ensure(view, { heatSm: s.sm });
    }
    schedule('canvas', 'timeline', () => this.draw());
    this._markOverlay();
  }
  _markOverlay() { schedule('overlay', 'timeline-overlay', () => this.drawOverlay()); }

  draw() {
    const dpr = window.devicePixelRatio || 1, view = this.view(), s = this.state.get();
    const ctx = this.main.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    drawTracks(ctx, view, this.layout, this.width, { sm: s.sm });
    // what the canvas now shows (tests wait for it rather than for time to pass: settled() below)
    this.drawn = { seq: (this.drawn ? this.drawn.seq : 0) + 1, version: this.src.version, a: s.a, b: s.b, sm: s.sm,
      width: this.width, height: this.layout.height, style: this.styleSeq || 0 };
  }

  // the canvas shows the latest data for the current view and no window is being fetched
  settled() {
    const d = this.drawn, s = this.state.get();
    return !!(d && this.src && !this.src.want && this.src.loaded && d.version === this.src.version && d.a === s.a
      && d.b === s.b && d.sm === s.sm && d.width === this.width && d.height === this.layout.height
      && d.style === (this.styleSeq || 0));
  }                                       // the ruler is drawn with the overlay (it carries the cursor)

  drawOverlay() {
    const dpr = window.devicePixelRatio || 1, view = this.view(), s = this.state.get();
    const ctx = this.overlay.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, this.width, this.layout.height);
    const range = this.selecting || (s.ra !== undefined && s.ra !== null && s.rb > s.ra ? [s.ra, s.rb] : null);
    if (range) {                                             // the selected range (Shift+drag)
      const x0 = Math.max(view.x0, view.toPx(range[0])), x1 = Math.min(view.x0 + view.width, view.toPx(range[1]));
      if (x1 > x0) {
        ctx.fillStyle = 'rgba(0,114,178,0.12)'; ctx.fillRect(x0, 0, x1 - x0, this.layout.height);
        ctx.fillStyle = 'rgba(0,114,178,0.8)'; ctx.fillRect(x0, 0, 1, this.layout.height); ctx.fillRect(x1 - 1, 0, 1, this.layout.height);
      }
    }
    const heat = this.heat && this.layout.rows.find((r) => r.track === this.heat && !r.collapsed);
    if (heat && s.pin !== undefined && s.pin !== null && s.pin < this.heat.rows()) {   // the pinned warp's row
      const rh = this.heat.rowH();
      ctx.strokeStyle = '#111827'; ctx.lineWidth = 1.5;
      ctx.strokeRect(view.x0 - 2, heat.y + s.pin * rh - 1, view.width + 4, rh + 2);
    }
    drawCursor(ctx, view, s.cursor, this.layout.height);
    if (this.hover) {
      ctx.fillStyle = 'rgba(0,0,0,0.35)';
      ctx.fillRect(this.hover.x, 0, 1, this.layout.height);
    }
    const rc = this.ruler.getContext('2d');
    rc.setTransform(dpr, 0, 0, dpr, 0, 0);
    drawRuler(rc, view, this.width, s.cursor, this.src.meta.run ? this.src.meta.run.name : '', clockMhz(this.src.meta));
  }

  // ------------------------------------------------------------------ navigation (used by input and toolbar)
  zoomAt(cycle, factor) {
    const s = this.state.get();
    const [a, b] = zoomRange(s.a, s.b, cycle, factor, this.src.end);
    this.state.set({ a: Math.round(a), b: Math.max(Math.round(a) + 16, Math.round(b)) });
  }
  panBy(dc) {
    const s = this.state.get();
    const [a, b] = shiftRange(s.a, s.b, dc, this.src.end);
    this.state.set({ a: Math.round(a), b: Math.round(b) });
  }
  setWindow(a, b) { this.state.set({ a: Math.max(0, Math.round(a)), b: Math.max(Math.round(a) + 16, Math.round(b)) }); }
  setCursor(c, follow = true) {
    const s = this.state.get();
    const cur = clamp(Math.round(c), 0, Math.max(0, this.src.end - 1));
    const patch = { cursor: cur };
    if (follow && (cur < s.a || cur >= s.b)) {
      const span = s.b - s.a;
      patch.a = Math.max(0, Math.round(cur - span / 2)); patch.b = patch.a + span;
    }
    this.state.set(patch);
  }
  step(n) { this.setCursor((this.state.get().cursor || 0) + n); }

  // ------------------------------------------------------------------ hover and hit testing
  hitAt(x, y) {
    const r = rowAt(this.layout, y);
    if (!r || x < GUTTER) return null;
    const hit = r.track.hitTest(x, y - r.y, this.view());
    return hit ? { ...hit, track: r.track.id } : null;
  }
  showTip(x, y, hit) {
    if (!hit) { this.tip.hidden = true; return; }
    this.tip.innerHTML = `<b>${escapeHtml(hit.title)}</b>` + (hit.lines || []).map((l) => `<div>${escapeHtml(l)}</div>`).join('');
    this.tip.hidden = false;
    // placed without measuring it (no forced layout on every pointer move): right of the pointer, or left of it
    // in the right half of the view, where the tip (at most 420 px wide in CSS) could run off the edge
    const right = x > this.width / 2;
    this.tip.style.left = right ? 'auto' : `${x + 14}px`;
    this.tip.style.right = right ? `${this.width - x + 14}px` : 'auto';
    this.tip.style.top = `${y - this.scroll.scrollTop + RULER_H + 14}px`;
  }
  trackRect(id) {
    const r = this.layout.rows.find((x) => x.track && x.track.id === id);
    return r ? { y: r.y, h: r.h, x0: GUTTER, width: this.width - GUTTER - 10 } : null;
  }
}
