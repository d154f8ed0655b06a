// Colour-blind-safe palette for warp states, built from Okabe & Ito's eight colours and Paul Tol's
// muted/light schemes; states that mean "waiting on memory" are warm, "waiting on compute" cool,
// issuing green, no warp grey. Every colour is shown with its name in the legend (views/legend.js).

export const STATE_COLOURS = {
  idle: '#f2f2f2',
  selected: '#009e73',            // Okabe-Ito bluish green
  not_selected: '#8fd4b9',
  long_scoreboard: '#d55e00',     // Okabe-Ito vermillion
  short_scoreboard: '#e69f00',    // Okabe-Ito orange
  wait: '#56b4e9',                // Okabe-Ito sky blue
  math_pipe_throttle: '#0072b2',  // Okabe-Ito blue
  mio_throttle: '#cc79a7',        // Okabe-Ito reddish purple
  lg_throttle: '#882255',         // Tol wine
  barrier: '#f0e442',             // Okabe-Ito yellow
  membar: '#999933',              // Tol olive
  branch_resolving: '#44aa99',    // Tol teal
  no_instruction: '#777777',
  dispatch_stall: '#332288',      // Tol indigo
  drain: '#ddcc77',               // Tol sand
  sleeping: '#bbccee',            // Tol light blue
  tex_throttle: '#cc6677',        // Tol rose
  misc: '#444444',
  done: '#d9dde3',
};
export const NO_DATA = 255;

// States the user hid with the legend: drawn as HIDDEN_COLOUR in the warp tracks, left out of stacks.
export const hiddenStates = new Set();
export const HIDDEN_COLOUR = '#ffffff';

export function hexToRgb(hex) {
  const v = parseInt(hex.slice(1), 16);
  return [(v >> 16) & 255, (v >> 8) & 255, v & 255];
}

// Uint32 RGBA (little-endian ABGR) per state index, for writing ImageData through a Uint32Array view.
export function statePixels(states) {
  const out = new Uint32Array(256);                 // index 255 (no data) stays transparent
  states.forEach((name, i) => {
    const [r, g, b] = hexToRgb(hiddenStates.has(name) ? HIDDEN_COLOUR : (STATE_COLOURS[name] || '#ff00ff'));
    out[i] = (255 << 24) | (b << 16) | (g << 8) | r;
  });
  return out;
}

export function stateColour(states, i) {
  if (i === NO_DATA) return 'transparent';
  return hiddenStates.has(states[i]) ? HIDDEN_COLOUR : (STATE_COLOURS[states[i]] || '#ff00ff');
}

// Kernels cycle through Okabe-Ito hues; CTAs of one kernel alternate two lightnesses.
const KERNEL_HUES = ['#0072b2', '#e69f00', '#009e73', '#cc79a7', '#56b4e9', '#d55e00', '#f0e442'];
export function kernelColour(k, alt = false) {
  const [r, g, b] = hexToRgb(KERNEL_HUES[k % KERNEL_HUES.length]);
  const m = alt ? 0.72 : 1.0;
  const mix = (c) => Math.round(c * m + 255 * (1 - m));
  return `rgb(${mix(r)},${mix(g)},${mix(b)})`;
}

export const INK = '#1b1f24';
export const MUTED = '#6b7280';
export const GRID = '#e5e7eb';
export const CURSOR = '#c01ebc';
export const HIGHLIGHT = '#000000';
