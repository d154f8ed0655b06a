// The palette legend: a swatch and the Nsight Compute name of every warp state, those seen in the run first.
import { STATE_COLOURS } from '../lib/colours.js';

export function renderLegend(root, states, present = null) {
  const seen = present ? states.filter((s) => present.has(s)) : states;
  const rest = present ? states.filter((s) => !present.has(s)) : [];
  const item = (s, dim) => `<span class="legend-item${dim ? ' dim' : ''}" data-state="${s}"><span class="swatch" style="background:${STATE_COLOURS[s]}"></span>${s}</span>`;
  root.innerHTML = seen.map((s) => item(s, false)).join('') + rest.map((s) => item(s, true)).join('');
}
