// The palette legend: a swatch and the Nsight Compute name of every warp state, those seen in the run
// first. Clicking an entry hides that state in the warp tracks (click again to show it); the ⓘ opens
// the state's glossary entry (any [data-gloss] element does, see main.js).
import { STATE_COLOURS, hiddenStates } from '../lib/colours.js';
import { definition } from '../lib/glossary.js';
import { escapeHtml } from '../lib/format.js';

export function renderLegend(root, states, present = null) {
  const seen = present ? states.filter((s) => present.has(s)) : states;
  const rest = present ? states.filter((s) => !present.has(s)) : [];
  const item = (s, dim) => `<span class="legend-item${dim ? ' dim' : ''}${hiddenStates.has(s) ? ' off' : ''}" data-state="${s}">` +
    `<button class="legend-toggle" data-toggle="${s}" title="${escapeHtml(definition(s))}\n(click: hide/show ${s} in the warp tracks)">` +
    `<span class="swatch" style="background:${STATE_COLOURS[s]}"></span>${s}</button>` +
    `<a href="#" class="gloss-link info" data-gloss="${s}" title="what ${s} means">?</a></span>`;
  root.innerHTML = seen.map((s) => item(s, false)).join('') + rest.map((s) => item(s, true)).join('') +
    (hiddenStates.size ? '<button class="legend-toggle show-all" data-toggle="*">show all</button>' : '');
}

// wire the legend's toggles once; onChange() redraws the tracks
export function attachLegend(root, onChange) {
  root.addEventListener('click', (e) => {
    const b = e.target.closest('[data-toggle]');
    if (!b) return;
    const s = b.dataset.toggle;
    if (s === '*') hiddenStates.clear();
    else if (hiddenStates.has(s)) hiddenStates.delete(s); else hiddenStates.add(s);
    onChange();
  });
}
