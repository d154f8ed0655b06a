// Zoom and pan on a workload's launch timeline (a model of 169 launches is a barcode at full width): the wheel
// zooms around the pointer and a sideways wheel pans, as on the per-cycle timeline; dragging pans; the
// "whole run" button (shown while zoomed) or a double-click on the axis shows every launch again.
// tl: a LaunchTimeline (its view {a, b} in cycles, total, x0, plotW, setView, draw).
export function attachZoom(tl) {
  const plotX = (e) => e.clientX - tl.canvas.getBoundingClientRect().left - tl.x0;
  tl.canvas.addEventListener('wheel', (e) => {
    const x = plotX(e);
    if (!tl.total || x < 0 || x > tl.plotW) return;           // over the lane names: the page scrolls
    e.preventDefault();
    const { a, b } = tl.view, perPx = (b - a) / tl.plotW;
    if (Math.abs(e.deltaX) > Math.abs(e.deltaY)) { tl.setView(a + e.deltaX * perPx, b + e.deltaX * perPx); return; }
    const unit = e.deltaMode === 1 ? 40 : (e.deltaMode === 2 ? 400 : 1);
    const f = Math.pow(1.0018, e.deltaY * unit), c = a + x * perPx;
    tl.setView(c - (c - a) * f, c + (b - c) * f);
  }, { passive: false });
  let drag = null;
  tl.canvas.addEventListener('mousedown', (e) => {
    if (e.button === 0 && plotX(e) >= 0) drag = { x: e.clientX, a: tl.view.a, b: tl.view.b, moved: false };
  });
  window.addEventListener('mousemove', (e) => {
    if (!drag) return;
    const dx = e.clientX - drag.x;
    if (Math.abs(dx) > 3) drag.moved = true;
    if (!drag.moved) return;
    const d = (-dx * (drag.b - drag.a)) / tl.plotW;
    tl.setView(drag.a + d, drag.b + d);
  });
  window.addEventListener('mouseup', () => {
    if (drag && drag.moved) tl.dragged = true;                 // the click that ends a drag picks nothing
    drag = null;
  });
  tl.canvas.addEventListener('dblclick', (e) => {
    const y = e.clientY - tl.canvas.getBoundingClientRect().top;
    if (y < tl.axisH) tl.setView(0, tl.total);
  });
  tl.whole.addEventListener('click', () => tl.setView(0, tl.total));
}
