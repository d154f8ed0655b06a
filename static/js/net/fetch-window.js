// Which window to fetch for a view (Perfetto's BufferedBounds): the visible range padded by one viewport
// on each side and quantised to a grid, at the view's resolution (cycles per pixel, a power of two).
// While the loaded window still covers the view at the same resolution, nothing is fetched; stale data
// stays on screen until the new window arrives.

export function fetchWindow(view, loaded, end) {
  const res = view.resolution();
  const span = view.b - view.a;
  if (loaded && loaded.res === res && loaded.a <= Math.max(0, view.a) && loaded.b >= Math.min(end, view.b)) return null;
  const q = res * 128;
  const a = Math.max(0, Math.floor((view.a - span) / q) * q);
  const b = Math.max(a + q, Math.ceil((view.b + span) / q) * q);
  return { a, b, res };
}
