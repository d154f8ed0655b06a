// The glossary tab: every warp state with its colour, Nsight Compute name and meaning. Any element with
// data-gloss="STATE" (legend entries, stall colours in the summary, PTX and compare views) opens it at
// that entry (see Inspector).
import { STATE_COLOURS } from '../lib/colours.js';
import { GLOSSARY } from '../lib/glossary.js';
import { escapeHtml } from '../lib/format.js';

export function renderGlossary(root, states) {
  const order = ['selected', 'not_selected'].concat(states.filter((s) => GLOSSARY[s] && GLOSSARY[s].kind === 'stall' && s !== 'not_selected'),
    states.filter((s) => GLOSSARY[s] && GLOSSARY[s].kind === 'none'), states.filter((s) => !GLOSSARY[s]));
  root.innerHTML = `<div class="glossary" data-testid="glossary"><p class="muted">Each cycle every warp slot is in exactly one of these
    states (Nsight Compute's warp stall reasons). Stall cycles are charged to the PTX instruction the warp waits to issue;
    issue cycles (<i>selected</i>) to the instruction issued.</p><dl>${[...new Set(order)].map((s) => `
    <div class="gloss-entry" id="gloss-${s}" data-state="${s}"><dt><span class="swatch" style="background:${STATE_COLOURS[s] || '#f0f'}"></span>
      <code>${s}</code> — ${escapeHtml(GLOSSARY[s] ? GLOSSARY[s].title : s)}</dt>
      <dd>${escapeHtml(GLOSSARY[s] ? GLOSSARY[s].text : 'No description.')}</dd></div>`).join('')}</dl></div>`;
}

export function focusGlossary(root, state) {
  root.querySelectorAll('.gloss-entry').forEach((e) => e.classList.toggle('focus', e.dataset.state === state));
  const el = root.querySelector(`#gloss-${CSS.escape(state)}`);
  if (el) el.scrollIntoView({ block: 'nearest' });
}
