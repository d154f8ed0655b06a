// How the explorer names a hardware measurement and the gap to it. The server says (engine/measured.py)
// whether the run simulates the measured device unchanged: then the gap is the model's error; otherwise
// (another GPU's preset, or a changed configuration) it is a difference, and the page says why.
import { signedPct } from './workload-rows.js';

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

// a gap (simulated − measured) / measured as a signed percentage: amber past 15 %, red past 30 % when it is
// the model's error; grey when it is a difference between GPUs
export function gapSpan(e, comparable) {
  if (e === null || e === undefined || Number.isNaN(e)) return '–';
  const cls = !comparable ? 'muted' : (Math.abs(e) > 0.3 ? 'bad' : (Math.abs(e) > 0.15 ? 'warn' : ''));
  return `<span class="${cls}">${signedPct(e)}</span>`;
}
