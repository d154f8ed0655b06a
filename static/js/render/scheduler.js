// One requestAnimationFrame loop per page (STYLE.md guideline 10): jobs are registered by key in a
// phase (input, then canvas, then dom); many marks before a frame cause one run of each job.
const PHASES = ['input', 'canvas', 'overlay', 'dom'];
const jobs = new Map(PHASES.map((p) => [p, new Map()]));
let scheduled = false;
export const frameStats = { frames: 0, lastMs: 0, samples: [], byKey: {} };

export function schedule(phase, key, fn) {
  jobs.get(phase).set(key, fn);
  if (!scheduled) { scheduled = true; requestAnimationFrame(run); }
}

function run() {
  scheduled = false;
  const t0 = performance.now();
  for (const p of PHASES) {
    const batch = [...jobs.get(p).entries()];
    jobs.get(p).clear();
    for (const [key, fn] of batch) {
      const t = performance.now();
      try { fn(); } catch (e) { console.error(e); }
      const k = frameStats.byKey[key] || (frameStats.byKey[key] = []);
      if (k.length < 2000) k.push(performance.now() - t);
    }
  }
  frameStats.frames++;
  frameStats.lastMs = performance.now() - t0;
  if (frameStats.samples.length < 10000) frameStats.samples.push(frameStats.lastMs);
}
