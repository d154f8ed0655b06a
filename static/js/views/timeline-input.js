// Input on the timeline: the wheel zooms around the pointer (shift+wheel scrolls the tracks, a sideways
// wheel pans); dragging the tracks pans, Shift+drag selects a range (totals in the Range tab); a click
// sets the cursor and selects the SM under it, on a warp row pins that warp; a click on a track's name
// collapses or expands it; on the ruler, a press or drag scrubs the cursor; arrow keys step the cursor
// by 1 cycle, with Shift by 10, with Ctrl/Alt by 100; +/- zoom around the cursor; space plays and
// pauses; Escape clears the range and the pinned warp.
import { GUTTER } from './layout.js';

export function attachInput(tl) {
  const tracksXY = (e) => {
    const r = tl.main.getBoundingClientRect();
    return [e.clientX - r.left, e.clientY - r.top];
  };

  tl.scroll.addEventListener('wheel', (e) => {
    if (!tl.src) return;
    if (e.shiftKey) {                                        // shift+wheel scrolls the tracks (Chrome would
      e.preventDefault();                                    // turn it into a sideways scroll: do it here)
      const unit = e.deltaMode === 1 ? 40 : (e.deltaMode === 2 ? tl.scroll.clientHeight : 1);
      tl.scroll.scrollTop += (e.deltaY || e.deltaX) * unit;
      return;
    }
    const [x] = tracksXY(e);
    if (x < GUTTER) return;                                  // over the labels: native scroll
    e.preventDefault();
    const view = tl.view();
    if (Math.abs(e.deltaX) > Math.abs(e.deltaY)) { tl.panBy(e.deltaX / view.pxPerCycle); return; }
    const unit = e.deltaMode === 1 ? 40 : (e.deltaMode === 2 ? 400 : 1);
    tl.zoomAt(view.toCycle(x), Math.pow(1.0018, e.deltaY * unit));
  }, { passive: false });

  let drag = null;
  tl.overlay.addEventListener('pointerdown', (e) => {
    if (!tl.src || e.button !== 0) return;
    const [x, y] = tracksXY(e);
    drag = { x0: x, y0: y, a: tl.state.get().a, b: tl.state.get().b, moved: false, id: e.pointerId, range: e.shiftKey && x >= GUTTER };
    tl.overlay.setPointerCapture(e.pointerId);
  });
  tl.overlay.addEventListener('pointermove', (e) => {
    if (!tl.src) return;
    const [x, y] = tracksXY(e);
    if (drag) {
      if (Math.abs(x - drag.x0) > 3) drag.moved = true;
      if (drag.moved && drag.range) {                      // Shift+drag: a range, not a pan
        const v = tl.view(), c0 = v.toCycle(Math.max(GUTTER, drag.x0)), c1 = v.toCycle(Math.max(GUTTER, x));
        tl.selecting = [Math.max(0, Math.round(Math.min(c0, c1))), Math.round(Math.max(c0, c1))];
        tl._markOverlay();
        return;
      }
      if (drag.moved) {
        const cpp = (drag.b - drag.a) / tl.view().width;
        const [a, b] = [drag.a - (x - drag.x0) * cpp, drag.b - (x - drag.x0) * cpp];
        tl.setWindow(Math.max(0, a), Math.max(0, a) + (b - a));
      }
      return;
    }
    tl.hover = x >= GUTTER ? { x, y } : null;
    tl.showTip(x, y, tl.hitAt(x, y));
    tl._markOverlay();
  });
  tl.overlay.addEventListener('pointerleave', () => { tl.hover = null; tl.tip.hidden = true; tl._markOverlay(); });
  tl.overlay.addEventListener('pointerup', (e) => {
    if (!drag) return;
    const d = drag; drag = null;
    tl.overlay.releasePointerCapture(e.pointerId);
    if (d.moved && d.range && tl.selecting) {
      const [ra, rb] = tl.selecting;
      tl.selecting = null;
      if (rb > ra) tl.state.set({ ra, rb, tab: 'range' });
      return;
    }
    if (d.moved) return;
    const [x, y] = tracksXY(e);
    if (x < GUTTER) { tl.toggleCollapse(y); return; }
    tl.setCursor(Math.floor(tl.view().toCycle(x)), false);
    const hit = tl.hitAt(x, y);
    if (hit && hit.sm !== undefined && (hit.track === 'strips' || hit.track === 'ctas')) tl.state.set({ sm: hit.sm });
    if (hit && hit.track === 'heat' && hit.slot !== undefined) {
      tl.state.set({ pin: tl.state.get().pin === hit.slot ? null : hit.slot });
    }
  });

  let scrub = false;
  const scrubTo = (e) => {
    const r = tl.ruler.getBoundingClientRect();
    const x = e.clientX - r.left;
    if (x >= GUTTER) tl.setCursor(Math.floor(tl.view().toCycle(x)), false);
  };
  tl.ruler.addEventListener('pointerdown', (e) => { if (!tl.src) return; scrub = true; tl.ruler.setPointerCapture(e.pointerId); scrubTo(e); });
  tl.ruler.addEventListener('pointermove', (e) => { if (scrub) scrubTo(e); });
  tl.ruler.addEventListener('pointerup', (e) => { scrub = false; tl.ruler.releasePointerCapture(e.pointerId); });

  document.addEventListener('keydown', (e) => {
    if (!tl.src || tl.root.offsetParent === null) return;
    const tag = (e.target && e.target.tagName) || '';
    if (['INPUT', 'TEXTAREA', 'SELECT'].includes(tag)) return;
    const n = e.ctrlKey || e.altKey || e.metaKey ? 100 : (e.shiftKey ? 10 : 1);
    if (e.key === 'ArrowRight') { tl.step(n); e.preventDefault(); }
    else if (e.key === 'ArrowLeft') { tl.step(-n); e.preventDefault(); }
    else if (e.key === '+' || e.key === '=') { tl.zoomAt(tl.state.get().cursor || 0, 0.5); e.preventDefault(); }
    else if (e.key === '-' || e.key === '_') { tl.zoomAt(tl.state.get().cursor || 0, 2); e.preventDefault(); }
    else if (e.key === ' ' && tl.onPlayKey) { tl.onPlayKey(); e.preventDefault(); }
    else if (e.key === 'Escape') tl.state.set({ ra: null, rb: null, pin: null });
  });
}
