// Vertical layout of the timeline: which tracks, in which order, at which y; section headers between
// groups. Pure: recomputed whenever the set of tracks or their heights change.
export const GUTTER = 168;
export const RULER_H = 30;
export const HEADER_H = 18;
export const COLLAPSED_H = 16;

export function layoutTracks(sections) {
  let y = 0;
  const rows = [];
  for (const sec of sections) {
    if (sec.header) { rows.push({ header: sec.header, y, h: HEADER_H }); y += HEADER_H; }
    for (const t of sec.tracks) {
      const h = t.collapsed ? COLLAPSED_H : t.height();
      if (h <= 0) continue;
      rows.push({ track: t, y, h, collapsed: !!t.collapsed });
      y += h + 6;
    }
  }
  return { rows, height: y + 4 };
}

export function rowAt(layout, y) {
  return layout.rows.find((r) => r.track && y >= r.y && y < r.y + r.h) || null;
}
