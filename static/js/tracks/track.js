// The track interface (Perfetto-like, STYLE.md guideline 10):
//   id              unique key
//   label           text in the gutter
//   height()        CSS pixels
//   groups          wire groups the track reads (the timeline asks for all visible tracks' groups in
//                   one window request per run, instead of one request per track)
//   setData(src)    called when a new window frame arrived for the track's source; builds caches
//   render(ctx, view, y)   draws only data already fetched, synchronously, in [y, y + height())
//   rowLabels()     optional [{y, text}] for multi-row tracks
//   hitTest(x, dy, view)   -> {title, lines[]} for the tooltip, or null; dy is relative to the track top
// `src` is a RunSource (views/run-source.js): its meta (run metadata frame) and groups (latest window).

export function bucketAt(g, cycle) {
  if (!g || !g.step) return -1;
  const i = Math.floor((cycle - g.cycle0) / g.step);
  return i >= 0 && i < g.n ? i : -1;
}

export function frac(v) { return v / 255; }
