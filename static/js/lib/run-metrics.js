// The run's headline numbers from the statistics its run file keeps (meta.stats, GPGPU-Sim / Nsight
// names) and its effective config: one definition for the summary view and the compare table.
// Each metric: {key, group, label, value, fmt, unit, better ('lower' | 'higher' | null), help}.
import { exact, num, pct } from './format.js';

const cfg = (meta, section, key) => (meta.config && meta.config[section] ? meta.config[section][key] : undefined);

export function clockMhz(meta) { return Number(cfg(meta, 'gpu', 'sm_clock_mhz')) || null; }

// cycles -> µs at the run's SM clock (null when unknown)
export function cyclesToUs(meta, c) {
  const mhz = clockMhz(meta);
  return mhz ? c / mhz : null;
}

export function fmtUs(us) {
  if (us === null || us === undefined || Number.isNaN(us)) return '–';
  if (us >= 1000) return `${(us / 1000).toPrecision(4)} ms`;
  if (us >= 1) return `${us.toPrecision(4)} µs`;
  return `${(us * 1000).toPrecision(3)} ns`;
}

export function fmtBytes(b) {
  if (b === null || b === undefined) return '–';
  const u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0, v = b;
  while (v >= 1024 && i < u.length - 1) { v /= 1024; i++; }
  return `${i ? v.toFixed(v >= 100 ? 0 : 2) : v} ${u[i]}`;
}

export function runMetrics(meta) {
  const st = meta.stats || {};
  const cycles = Number(st.gpu_sim_cycle ?? st.cycles ?? meta.end_cycle ?? 0);
  const us = st.gpu_tot_sim_time_us ?? cyclesToUs(meta, cycles);
  const nsm = meta.num_sms || 1;
  const maxWarps = cfg(meta, 'sm', 'max_warps');
  const dramBytes = (st.dram_read_bytes || 0) + (st.dram_write_bytes || 0);
  const gbps = us ? dramBytes / us / 1e3 : null;         // bytes/µs = MB/s; /1e3 = GB/s
  const peak = Number(cfg(meta, 'dram', 'bandwidth_gbps')) || null;
  const rowTot = (st.dram_row_hits || 0) + (st.dram_row_misses || 0);
  const out = [
    { key: 'cycles', group: 'Time', label: 'Cycles', value: cycles, fmt: exact, unit: 'SM cycles', better: 'lower', help: 'from the first kernel launch to the end of the last kernel' },
    { key: 'us', group: 'Time', label: 'Time', value: us, fmt: fmtUs, better: 'lower', note: `at ${clockMhz(meta) || '?'} MHz`, help: `cycles at the SM clock (${clockMhz(meta) || '?'} MHz)` },
    { key: 'warp_insts', group: 'Throughput', label: 'Warp instructions', value: st.warp_insts, fmt: exact, better: null, help: 'warp instructions issued, all SMs' },
    { key: 'ipc', group: 'Throughput', label: 'IPC (GPU)', value: st.warp_ipc, fmt: (v) => num(v, 4), unit: 'warp inst/cycle', better: 'higher', help: 'warp instructions issued per cycle, summed over SMs' },
    { key: 'ipc_sm', group: 'Throughput', label: 'IPC per SM', value: st.warp_ipc !== undefined ? st.warp_ipc / nsm : undefined, fmt: (v) => num(v, 3), unit: `warp inst/cycle (of ${cfg(meta, 'sm', 'subcores') || 4} max)`, better: 'higher', help: `GPU IPC / ${nsm} SMs` },
    { key: 'thread_ipc', group: 'Throughput', label: 'Thread IPC', value: st.gpu_ipc, fmt: (v) => num(v, 4), unit: 'thread inst/cycle', better: 'higher', help: 'GPGPU-Sim\'s gpu_ipc: thread instructions (the active lanes of each warp instruction) per cycle' },
    { key: 'occupancy', group: 'Occupancy', label: 'Achieved occupancy', value: st.gpu_occupancy, fmt: pct, better: 'higher', help: 'resident warps / warp slots, averaged over the run and all SMs' },
    { key: 'theoretical', group: 'Occupancy', label: 'Theoretical occupancy', value: maxWarps && st.occupancy_warps_per_sm !== undefined ? st.occupancy_warps_per_sm / maxWarps : undefined, fmt: pct, better: 'higher',
      note: `${st.occupancy_warps_per_sm ?? '?'}/${maxWarps ?? '?'} warps, ${st.occupancy_ctas_per_sm ?? '?'} CTAs per SM`,
      help: `${st.occupancy_warps_per_sm ?? '?'} of ${maxWarps ?? '?'} warps per SM (${st.occupancy_ctas_per_sm ?? '?'} CTAs per SM)` },
    { key: 'limiter', group: 'Occupancy', label: 'Occupancy limited by', value: st.occupancy_limiter, fmt: String, better: null,
      note: `${st.regs_per_thread ?? '?'} regs/thread, ${fmtBytes(st.shared_per_cta)} smem/CTA`,
      help: `${st.regs_per_thread ?? '?'} registers per thread, ${fmtBytes(st.shared_per_cta)} shared memory per CTA` },
    { key: 'l1_hit', group: 'Memory', label: 'L1 hit rate', value: st.L1D_hit_rate, fmt: pct, better: 'higher', help: `${exact(st.L1D_total_hits || 0)} hits of ${exact((st.L1D_total_hits || 0) + (st.L1D_total_misses || 0))} sector lookups` },
    { key: 'l2_hit', group: 'Memory', label: 'L2 hit rate', value: st.L2_hit_rate, fmt: pct, better: 'higher', help: `${exact(st.L2_total_hits || 0)} hits of ${exact(st.L2_total_accesses || 0)} accesses` },
    { key: 'dram_bytes', group: 'Memory', label: 'DRAM traffic', value: st.dram_read_bytes !== undefined ? dramBytes : undefined, fmt: fmtBytes, better: 'lower',
      note: `${fmtBytes(st.dram_read_bytes)} read, ${fmtBytes(st.dram_write_bytes)} written`,
      help: `${fmtBytes(st.dram_read_bytes)} read, ${fmtBytes(st.dram_write_bytes)} written` },
    { key: 'dram_bw', group: 'Memory', label: 'DRAM bandwidth', value: st.dram_read_bytes !== undefined ? gbps : undefined, fmt: (v) => `${num(v, 4)} GB/s`, better: 'higher',
      note: peak ? `${pct(gbps / peak)} of peak ${num(peak, 4)} GB/s` : '',
      help: peak ? `${pct(gbps / peak)} of the configured peak ${num(peak, 4)} GB/s, averaged over the whole run` : 'averaged over the whole run' },
    { key: 'row_hit', group: 'Memory', label: 'DRAM row-buffer hit rate', value: rowTot ? st.dram_row_hits / rowTot : undefined, fmt: pct, better: 'higher', help: `${exact(st.dram_row_hits || 0)} row hits, ${exact(st.dram_row_misses || 0)} misses` },
  ];
  if (st.shared_insts) out.push({ key: 'bank_conflicts', group: 'Memory', label: 'Shared bank conflicts', value: st.shared_bank_conflicts, fmt: exact, better: 'lower', help: `${exact(st.shared_wavefronts || 0)} wavefronts for ${exact(st.shared_insts)} shared instructions` });
  return out.filter((m) => m.value !== undefined && m.value !== null);
}

// Warp-state totals: [{state, cycles, share (of warp-cycles with a resident warp), perIssue}], largest first
export function stallTotals(meta) {
  const st = meta.stats || {}, sc = st.stall_cycles || {};
  const rows = Object.entries(sc).filter(([s]) => s !== 'idle' && s !== 'done');
  const tot = rows.reduce((a, [, c]) => a + c, 0);
  const issued = st.warp_insts || 0;
  return rows.map(([state, cycles]) => ({ state, cycles, share: tot ? cycles / tot : 0, perIssue: issued ? cycles / issued : null }))
    .sort((a, b) => b.cycles - a.cycles);
}
