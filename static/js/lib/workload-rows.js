// A workload run's launch rows (GET /api/workload-runs/<id>): derived columns, sorting, short labels and the
// colours of what bounds a launch. Dependency-free.

// compute / memory / latency (Nsight Compute's Speed-of-Light rule, webapp/store/workload_run.py)
export const BOUND_COLOURS = { compute: '#0072b2', memory: '#d55e00', latency: '#cc79a7', none: '#9ca3af' };   // Okabe-Ito
export const HW_COLOUR = '#4b5563';

// triton_tem_fused_addmm_t_tanh_0 -> "tem addmm_t_tanh #0"-like short names: the Inductor prefix says the
// kind of kernel (tem: template GEMM/conv, poi: pointwise, red: reduction, per: persistent reduction).
// Long aten names that Inductor puts in kernel names, shortened so that what tells kernels apart (the end of
// the fused list) stays visible; the full name is in the row's tooltip.
const ATEN_SHORT = [[/_native_batch_norm_legit_no_training/g, 'batch_norm'], [/_native_batch_norm_legit/g, 'batch_norm'],
  [/_unsafe_view/g, 'view'], [/_scaled_dot_product_\w+?_attention/g, 'sdpa'], [/_to_copy/g, 'to_copy']];

export function shortLabel(s) {
  const m = /^triton_(tem|poi|red|per)_fused_(.*)_(\d+)$/.exec(s || '');
  if (!m) return s || '';
  let ops = m[2];
  for (const [re, to] of ATEN_SHORT) ops = ops.replace(re, to);
  return `${m[1]} ${ops.replace(/^_+/, '').replace(/__+/g, '_')}`;
}

// A launch's cycles in the workload's total: simulated, or for an opaque launch (no PTX, not simulated) its
// measured time, as the server's summary counts it.
export function cyclesOf(r) {
  return r.sim_cycles || (r.opaque ? r.hw_cycles || null : null);
}

export function derive(rows) {
  const total = rows.reduce((t, r) => t + (cyclesOf(r) || 0), 0);
  const hwTotal = rows.reduce((t, r) => t + (r.hw_cycles || 0), 0);
  return rows.map((r) => ({
    ...r,
    share: total && cyclesOf(r) ? cyclesOf(r) / total : null,
    hw_share: hwTotal && r.hw_cycles ? r.hw_cycles / hwTotal : null,
    short: shortLabel(r.label),
  }));
}

const TEXT_KEYS = new Set(['label', 'bound', 'dominant_stall', 'op']);

export function sortRows(rows, key, dir) {
  const sign = dir === 'asc' ? 1 : -1;
  const val = (r) => (key === 'share' ? cyclesOf(r) : r[key]);
  return [...rows].sort((a, b) => {
    const x = val(a), y = val(b);
    const xn = x === null || x === undefined, yn = y === null || y === undefined;
    if (xn || yn) return xn === yn ? a.index - b.index : (xn ? 1 : -1);     // missing values last
    if (TEXT_KEYS.has(key)) return sign * String(x).localeCompare(String(y)) || a.index - b.index;
    return sign * (x - y) || a.index - b.index;
  });
}

export function gridText(g) {
  const dims = (g || []).filter((v, i) => i === 0 || v > 1);
  return dims.join('×');
}

export function bytesText(b) {
  if (b === null || b === undefined) return '–';
  if (b >= 1e9) return (b / 1e9).toFixed(2) + ' GB';
  if (b >= 1e6) return (b / 1e6).toFixed(2) + ' MB';
  if (b >= 1e3) return (b / 1e3).toFixed(1) + ' kB';
  return b + ' B';
}

export function signedPct(x) {
  if (x === null || x === undefined || Number.isNaN(x)) return '';
  return (x >= 0 ? '+' : '−') + Math.abs(100 * x).toFixed(1) + '%';
}

// Launches grouped by layer (their label: the module path a capture found, e.g. `layer1.0.conv1`, or the
// kernel name): sums of cycles, instructions and bytes; IPC, error, utilisations recomputed from the sums;
// bound and top stall of the group's longest launch. `launches` lists the group's launch indices.
export function groupByLayer(rows) {
  const groups = new Map();
  for (const r of rows) {
    const g = groups.get(r.label);
    if (g) g.members.push(r); else groups.set(r.label, { members: [r] });
  }
  const sum = (ms, k) => (ms.some((m) => m[k] !== null && m[k] !== undefined) ? ms.reduce((t, m) => t + (m[k] || 0), 0) : null);
  const out = [...groups.values()].map(({ members: ms }) => {
    const first = ms[0];
    const longest = ms.reduce((a, b) => ((b.sim_cycles || 0) > (a.sim_cycles || 0) ? b : a), first);
    const sim = sum(ms, 'sim_cycles'), hw = sum(ms, 'hw_cycles');
    const allHw = ms.every((m) => m.hw_cycles), allSim = ms.every((m) => m.sim_cycles);
    const withUtil = (k) => (allSim && ms.every((m) => m[k] !== undefined)
      ? ms.reduce((t, m) => t + m[k] * m.sim_cycles, 0) / sim : undefined);    // cycle-weighted
    return {
      index: first.index, label: first.label, kernel: ms.map((m) => m.kernel).join('\n'),
      op: ms.length > 1 ? `${ms.length} launches` : first.op, launches: ms.map((m) => m.index),
      grid: ms.length > 1 ? null : first.grid, block: first.block,
      sim_cycles: sim, hw_cycles: hw, time_us: sum(ms, 'time_us'), warp_insts: sum(ms, 'warp_insts'),
      err: allHw && allSim && hw ? (sim - hw) / hw : null,
      ipc: allSim && sim ? sum(ms, 'warp_insts') / sim : undefined,
      dram_bytes: sum(ms, 'dram_bytes') ?? undefined,
      l2_hit_rate: ms.length === 1 ? first.l2_hit_rate : undefined,      // (no access counts to weight by)
      compute_util: withUtil('compute_util'), dram_util: withUtil('dram_util'),
      bound: longest.bound, dominant_stall: longest.dominant_stall,
      error: ms.filter((m) => m.error).map((m) => m.error).join('\n') || null,
      opaque: ms.every((m) => m.opaque), pending: ms.some((m) => m.pending),
      child: (ms.find((m) => m.child && m.child_status === 'done') || ms.find((m) => m.child) || {}).child,
      child_status: (ms.find((m) => m.child && m.child_status === 'done') || ms.find((m) => m.child) || {}).child_status,
      b_cycles: sum(ms, 'b_cycles'),
    };
  });
  out.forEach((g) => { g.speedup = g.sim_cycles && g.b_cycles ? g.sim_cycles / g.b_cycles : null; });
  return derive(out);
}
