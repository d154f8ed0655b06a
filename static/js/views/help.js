// The `?` overlay: every key and gesture of the run view. `?` or the header's button opens it; Escape,
// `?` again or a click outside closes it.
const KEYS = [
  ['Timeline', [
    ['wheel', 'zoom around the pointer'], ['Shift + wheel', 'scroll the tracks up and down'],
    ['sideways wheel / drag', 'pan'], ['click', 'set the cursor; on a warp row: pin that warp (its history in Warps); on an SM row: show that SM\'s warps'],
    ['Shift + drag', 'select a range: totals over it (Range tab)'], ['click a track\'s name', 'collapse or expand the track'],
    ['drag the ruler', 'scrub the cursor'],
  ]],
  ['Keys', [
    ['← / →', 'step the cursor 1 cycle (Shift: 10, Ctrl: 100)'], ['+ / −', 'zoom in / out at the cursor'], ['space', 'play / pause'],
    ['?', 'this help'], ['Escape', 'clear the range and the pinned warp; close this help'],
  ]],
  ['Panes and legend', [
    ['drag the bar between the panes', 'resize the timeline and the details (double-click: reset; ↑/↓ when focused)'],
    ['click a legend entry', 'hide / show that warp state'], ['? next to a state, or any state colour', 'what the state means (glossary)'],
    ['minimap: drag', 'zoom to that range'], ['minimap: click', 'centre the view there'],
  ]],
];

export class HelpOverlay {
  constructor(root, button) {
    this.root = root;
    root.innerHTML = `<div class="overlay-box" role="dialog" aria-label="Keys and gestures"><button class="close" title="close (Escape)">×</button>
      <h3>Keys and gestures</h3>${KEYS.map(([h, rows]) => `<h4>${h}</h4><table class="keys">${rows.map(([k, v]) =>
        `<tr><td><kbd>${k}</kbd></td><td>${v}</td></tr>`).join('')}</table>`).join('')}</div>`;
    button.addEventListener('click', () => this.toggle());
    root.addEventListener('click', (e) => { if (e.target === root || e.target.closest('.close')) this.toggle(false); });
    document.addEventListener('keydown', (e) => {
      const tag = (e.target && e.target.tagName) || '';
      if (['INPUT', 'TEXTAREA', 'SELECT'].includes(tag)) return;
      if (e.key === '?') { this.toggle(); e.preventDefault(); } else if (e.key === 'Escape' && !root.hidden) { this.toggle(false); e.stopImmediatePropagation(); }
    });
  }
  toggle(show = this.root.hidden) { this.root.hidden = !show; }
}
