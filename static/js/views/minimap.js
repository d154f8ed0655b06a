// The minimap above the timeline: IPC over the whole run (uPlot), with the visible window as a band.
// Drag across it to zoom the timeline to that range; click to centre the view there.
import { CycleTransform } from '../lib/transform.js';
import { RunSource } from './run-source.js';
import { CURSOR } from '../lib/colours.js';
import { schedule } from '../render/scheduler.js';

export class Minimap {
  constructor(root, state, channel) {
    this.root = root; this.state = state; this.ch = channel; this.plot = null;
    // the window band and cursor are redrawn in the page's one frame loop, once per frame however often they move
    state.subscribe((s, changed) => {
      if (this.plot && changed.some((k) => ['a', 'b', 'cursor'].includes(k))) schedule('overlay', 'minimap', () => this.plot.redraw(false));
    });
    new ResizeObserver(() => { if (this.plot && root.clientWidth > 0) this.plot.setSize({ width: root.clientWidth, height: 64 }); }).observe(root);
  }
  open(runId) {
    this.src = new RunSource(this.ch, runId, 'minimap', ['ctr']);
    this.src.onData = () => this._draw();
    return this.src.loadMeta().then(() => this.reload());
  }
  reload() {
    if (!this.src || !this.src.meta) return;
    this.src.invalidate();
    const w = Math.max(200, this.root.clientWidth);
    this.src.ensure(new CycleTransform(0, this.src.end, 0, w / 2), {});
  }
  _draw() {
    const g = this.src.groups.ctr;
    if (!g) return;
    const end = this.src.end;
    const n = Math.max(1, Math.min(g.n, Math.ceil((end - g.cycle0) / g.step)));
    const xs = [], ys = [];
    for (let i = 0; i < n; i++) { xs.push(g.cycle0 + i * g.step); ys.push(Number.isNaN(g.cols.ipc[i]) ? null : g.cols.ipc[i]); }
    xs.push(end); ys.push(ys[ys.length - 1]);                 // the last step reaches the end of the run
    const data = [xs, ys];
    const width = Math.max(200, this.root.clientWidth);
    if (this.plot) { this.plot.setData(data); this.plot.setSize({ width, height: 64 }); return; }
    const self = this;
    this.plot = new globalThis.uPlot({
      width, height: 64, legend: { show: false }, padding: [4, 10, 0, 168],
      scales: { x: { time: false, range: () => [0, self.src.end] }, y: { range: (u, lo, hi) => [0, Math.max(hi || 1, 1e-9) * 1.1] } },
      axes: [{ show: false }, { show: false }],
      series: [{}, { stroke: '#0072b2', fill: 'rgba(0,114,178,0.15)', width: 1, points: { show: false }, paths: globalThis.uPlot.paths.stepped({ align: 1 }) }],
      cursor: { drag: { x: true, y: false, setScale: false }, points: { show: false } },
      hooks: {
        setSelect: [(u) => {
          if (u.select.width < 3) return;
          const a = u.posToVal(u.select.left, 'x'), b = u.posToVal(u.select.left + u.select.width, 'x');
          self.state.set({ a: Math.max(0, Math.round(a)), b: Math.round(b) });
          u.setSelect({ left: 0, width: 0, top: 0, height: 0 }, false);
        }],
        draw: [(u) => {
          const s = self.state.get(), ctx = u.ctx, dpr = devicePixelRatio || 1;
          const x0 = u.valToPos(s.a, 'x', true), x1 = u.valToPos(s.b, 'x', true);
          ctx.save(); ctx.fillStyle = 'rgba(0,0,0,0.10)'; ctx.strokeStyle = '#374151'; ctx.lineWidth = dpr;
          ctx.fillRect(x0, u.bbox.top, Math.max(2 * dpr, x1 - x0), u.bbox.height);
          ctx.strokeRect(x0, u.bbox.top, Math.max(2 * dpr, x1 - x0), u.bbox.height);
          if (s.cursor !== undefined) { ctx.fillStyle = CURSOR; ctx.fillRect(u.valToPos(s.cursor, 'x', true), u.bbox.top, dpr, u.bbox.height); }
          ctx.restore();
        }],
      },
    }, data, this.root);
    this.plot.over.addEventListener('click', (e) => {
      if (this.plot.select.width > 3) return;
      const c = this.plot.posToVal(e.offsetX, 'x'), s = this.state.get(), span = s.b - s.a;
      this.state.set({ a: Math.max(0, Math.round(c - span / 2)), b: Math.max(0, Math.round(c - span / 2)) + span });
    });
  }
}
