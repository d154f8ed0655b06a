"""The recorded timeline of a timing run: column layouts shared by the engine (producer), the run store
and the server (consumers). This module is the single definition of those layouts.

A recording is a set of tables, each a stream of chunks of numpy structured arrays (little-endian):

  warp_states   one row per change of a warp slot's state (run-length encoded): from `cycle` until the
                next row for the same (sm, slot), the slot is in `state` at `pc`.
  sm_counters   per SM and per interval of `interval` cycles (cycle0 = start of the interval).
  mem_counters  per memory partition (L2 slice + DRAM channel) and per interval.
  events        kernel and CTA start/end.
  mem_samples   sampled memory requests with the cycle they reached each level (0 = did not go there).
  pc_stats      final per-PC issue and stall counts (one row per kernel pc).

Warp states use Nsight Compute's stall-reason names (smsp__pcsamp_warps_issue_stalled_*), plus
`selected` (issued this cycle), `idle` (no warp in the slot) and `done`.
"""
from __future__ import annotations

import numpy as np

# Order matters: the value stored in `state` is the index in this list (engine/csrc/timing.h keeps
# the same order: GS_WS_*).
WARP_STATES = [
    "idle",                 # no warp resident in the slot
    "selected",             # issued an instruction this cycle
    "not_selected",         # eligible, another warp was picked
    "long_scoreboard",      # waiting on a global/local memory (L1TEX) result
    "short_scoreboard",     # waiting on shared memory / MIO result (shared loads, SFU, shuffles)
    "wait",                 # fixed-latency dependency (ALU result not ready yet)
    "math_pipe_throttle",   # the functional unit is busy (initiation interval)
    "mio_throttle",         # MIO (shared memory / special) instruction queue full
    "lg_throttle",          # local/global memory instruction queue full
    "barrier",              # waiting at bar.sync
    "membar",               # waiting on a memory fence
    "branch_resolving",     # waiting for a branch target / divergence to resolve
    "no_instruction",       # instruction buffer empty (fetch / i-cache miss)
    "dispatch_stall",       # dispatch conflict
    "drain",                # finished, waiting for outstanding stores to drain
    "sleeping",             # nanosleep
    "tex_throttle",         # texture / tensor memory queue full
    "misc",                 # anything else
    "done",                 # warp finished (slot free until the next CTA)
]
STATE_INDEX = {s: i for i, s in enumerate(WARP_STATES)}
NSTATES = len(WARP_STATES)

WARP_STATE_DT = np.dtype([("cycle", "<u8"), ("sm", "<u2"), ("slot", "<u2"), ("state", "u1"),
                          ("pad", "u1"), ("cta", "<u4"), ("pc", "<u4")])

SM_COUNTER_DT = np.dtype([("cycle0", "<u8"), ("sm", "<u2"), ("warps_active", "<u2"),
                          ("issued", "<u4"), ("thread_insts", "<u4"),
                          ("state_hist", "<u4", (NSTATES,)),      # warp-cycles per state in the interval
                          ("l1_accesses", "<u4"), ("l1_hits", "<u4"), ("l1_misses", "<u4"),
                          ("shared_accesses", "<u4"), ("bank_conflicts", "<u4"),
                          ("mshr_used", "<u2"), ("ldst_queue", "<u2"), ("ctas_active", "<u2"), ("pad", "<u2")])

MEM_COUNTER_DT = np.dtype([("cycle0", "<u8"), ("part", "<u2"), ("pad", "<u2"),
                           ("l2_accesses", "<u4"), ("l2_hits", "<u4"), ("l2_misses", "<u4"),
                           ("dram_read_bytes", "<u4"), ("dram_write_bytes", "<u4"),
                           ("l2_queue", "<u2"), ("dram_queue", "<u2"), ("icnt_queue", "<u2"), ("pad2", "<u2")])

EVENT_KINDS = ["kernel_start", "kernel_end", "cta_start", "cta_end"]
EVENT_DT = np.dtype([("cycle", "<u8"), ("kind", "u1"), ("pad", "u1"), ("sm", "<u2"), ("cta", "<u4"),
                     ("kernel", "<u4"), ("pad2", "<u4")])

MEM_LEVELS = ["issue", "l1", "icnt", "l2", "dram", "return"]
MEM_SAMPLE_DT = np.dtype([("t_issue", "<u8"), ("t_l1", "<u8"), ("t_icnt", "<u8"), ("t_l2", "<u8"),
                          ("t_dram", "<u8"), ("t_return", "<u8"), ("addr", "<u8"),
                          ("sm", "<u2"), ("slot", "<u2"), ("pc", "<u4"), ("size", "<u2"),
                          ("write", "u1"), ("hit_level", "u1")])   # hit_level: 1 L1, 2 L2, 3 DRAM

PC_STATS_DT = np.dtype([("pc", "<u4"), ("issued", "<u8"), ("stalls", "<u8", (NSTATES,))])

TABLES = {"warp_states": WARP_STATE_DT, "sm_counters": SM_COUNTER_DT, "mem_counters": MEM_COUNTER_DT,
          "events": EVENT_DT, "mem_samples": MEM_SAMPLE_DT, "pc_stats": PC_STATS_DT}

LEVELS = ("off", "summary", "full")
"""off: nothing recorded; summary: counters, events, pc_stats; full: also warp_states and mem_samples."""
