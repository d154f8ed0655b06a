// The resizable split of the run view (Perfetto's layout): the timeline pane above, the details pane
// below, a splitter between them. Drag it (or focus it and press ↑/↓) to give one pane more room;
// double-click resets. The details pane's share of the split is kept in localStorage, so it survives
// reloads; it is clamped so both panes stay usable at every window size.
const KEY = 'simtscope.details-fraction';
const DEFAULT = 0.42;
const MIN_TOP = 160, MIN_BOTTOM = 60;

export class Splitter {
  constructor(split, handle, bottom) {
    this.split = split; this.handle = handle; this.bottom = bottom;
    const stored = Number(localStorage.getItem(KEY));
    this.fraction = stored > 0 && stored < 1 ? stored : DEFAULT;
    let drag = null;
    handle.addEventListener('pointerdown', (e) => {
      if (e.button !== 0) return;
      drag = { y0: e.clientY, h0: this.bottom.getBoundingClientRect().height };
      handle.setPointerCapture(e.pointerId); handle.classList.add('dragging'); e.preventDefault();
    });
    handle.addEventListener('pointermove', (e) => { if (drag) this.setHeight(drag.h0 - (e.clientY - drag.y0)); });
    const end = (e) => {
      if (!drag) return;
      drag = null; handle.classList.remove('dragging');
      if (handle.hasPointerCapture(e.pointerId)) handle.releasePointerCapture(e.pointerId);
      localStorage.setItem(KEY, String(this.fraction));
    };
    handle.addEventListener('pointerup', end);
    handle.addEventListener('pointercancel', end);
    handle.addEventListener('dblclick', () => { this.fraction = DEFAULT; localStorage.removeItem(KEY); this.apply(); });
    handle.addEventListener('keydown', (e) => {
      const d = e.key === 'ArrowUp' ? 40 : (e.key === 'ArrowDown' ? -40 : 0);
      if (!d) return;
      e.preventDefault(); e.stopPropagation();
      this.setHeight(this.bottom.getBoundingClientRect().height + d);
      localStorage.setItem(KEY, String(this.fraction));
    });
    new ResizeObserver(() => this.apply()).observe(split);
  }

  // the space both panes share (the split minus the handle)
  _avail() { return Math.max(0, this.split.clientHeight - this.handle.offsetHeight); }

  setHeight(px) {
    const avail = this._avail();
    if (avail <= 0) return;
    const h = Math.max(MIN_BOTTOM, Math.min(avail - MIN_TOP, px));
    this.fraction = Math.max(0.05, Math.min(0.95, h / avail));
    this.apply();
  }

  apply() {
    const avail = this._avail();
    if (avail <= 0) return;
    const h = Math.round(Math.max(MIN_BOTTOM, Math.min(Math.max(MIN_BOTTOM, avail - MIN_TOP), this.fraction * avail)));
    this.bottom.style.flexBasis = `${h}px`;
    this.bottom.style.height = `${h}px`;
    this.handle.setAttribute('aria-valuenow', String(Math.round(100 * this.fraction)));
  }
}
