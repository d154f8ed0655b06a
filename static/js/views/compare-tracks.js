// Compare as a diff on the timeline: every track of run A that run B also has is followed by B's track
// (kernels, the chosen SM's warps, GPU warp states, every counter including the memory ones), labelled
// "A ·" / "B ·", the pair sharing one value scale. Both runs are aligned at cycle 0 on A's cycle axis.
import { KernelTrack } from '../tracks/cta-track.js';
import { HeatTrack } from '../tracks/heat-track.js';
import { CounterTrack, StatesTrack } from '../tracks/counter-track.js';

function counterpart(t, b, sm) {
  const m = b.meta;
  if (t instanceof KernelTrack) return new KernelTrack(b, 'B · ');
  if (t instanceof StatesTrack) return new StatesTrack(b, 'B · ');
  if (t instanceof HeatTrack) {
    const rec = m.level === 'full' && (m.record_sms || []).includes(sm);
    return rec ? new HeatTrack(b, sm, 'B · ') : null;
  }
  if (t instanceof CounterTrack) {
    const d = (m.metrics || []).find((x) => x[0] === t.key);
    if (!d) return null;
    const c = new CounterTrack(b, d[0], d[1], d[2], 'B · ', d[3]);
    c.peer = t; t.peer = c;
    return c;
  }
  return null;                        // per-SM strips and CTAs: A only (B's would double the height)
}

export function interleave(sections, b, sm) {
  return sections.map((sec) => {
    const tracks = [];
    for (const t of sec.tracks) {
      const bt = counterpart(t, b, sm);
      if (bt) { t.label = `A · ${t.label}`; tracks.push(t, bt); } else tracks.push(t);
    }
    return { ...sec, tracks };
  });
}
