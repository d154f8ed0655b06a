// How the explorer names a hardware measurement and the gap to it. The server says (engine/measured.py)
// whether the run simulates the measured device unchanged: then the gap is the model's error; otherwise
// (another GPU's preset, or a changed configuration) it is a difference, and the page says why.

// 'NVIDIA H200' -> 'H200'; no name -> 'measured'
export function deviceShort(name) {
  return name ? String(name).replace(/^NVIDIA\s+/i, '') : 'measured';
}

// m: {device, sim_gpu, comparable, why} or null -> {dev, gap, comparable, why}
export function measuredLabels(m) {
  const known = !!m && typeof m === 'object';
  const comparable = known ? m.comparable === true : true;
  return { dev: deviceShort(known ? m.device : null), gap: comparable ? 'error' : 'difference', comparable,
    why: known && !comparable ? String(m.why || '') : '' };
}
