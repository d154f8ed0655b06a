// Per-PTX-line statistics of a finished run from its per-PC table (meta.groups.pc_stats): warp
// instructions issued and stall cycles by state, summed over the PCs of each source line.
import { toNumbers } from '../net/wire.js';

export function lineStats(meta, kernel = 0) {
  const k = (meta.kernels || [])[kernel];
  const issued = new Map(), stalls = new Map();
  const g = meta.groups && meta.groups.pc_stats;
  const nst = meta.states.length;
  if (!k || !g) return { k, issued, stalls, total: new Map() };
  const pcLine = k.pc_line || [];
  const iss = toNumbers(g.cols.issued), st = toNumbers(g.cols.stalls);
  const sel = meta.states.indexOf('selected');
  for (let i = 0; i < g.n; i++) {
    const line = pcLine[g.cols.pc[i]];
    if (line === undefined) continue;
    issued.set(line, (issued.get(line) || 0) + iss[i]);
    const v = stalls.get(line) || new Float64Array(nst);
    for (let s = 0; s < nst; s++) if (s !== sel) v[s] += st[i * nst + s];    // issue cycles are not stalls
    stalls.set(line, v);
  }
  const total = new Map([...stalls].map(([l, v]) => [l, v.reduce((a, b) => a + b, 0)]));
  return { k, issued, stalls, total };
}
