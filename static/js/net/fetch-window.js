// Which window to fetch for a view (Perfetto's BufferedBounds): the visible range padded by half a
// viewport on each side and quantised to a grid, at the view's resolution (cycles per pixel, a power of
// two). Half a viewport (not Perfetto's whole one) keeps frames 2x the visible data instead of 3x.
// While the loaded window still covers the view at the same resolution, nothing is fetched; stale data
// stays on screen until the new window arrives.

export function fetchWindow(view, loaded, end) {
  const res = view.resolution();
  const span = view.b - view.a;
  if (loaded && loaded.res === res && loaded.a <= Math.max(0, view.a) && loaded.b >= Math.min(end, view.b)) return null;
  const q = res * 128;
  const a = Math.max(0, Math.floor((view.a - span / 2) / q) * q);
  const b = Math.max(a + q, Math.ceil((view.b + span / 2) / q) * q);
  return { a, b, res };
}
