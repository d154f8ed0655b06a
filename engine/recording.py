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

TABLE_ORDER = ["warp_states", "sm_counters", "mem_counters", "events", "mem_samples", "pc_stats"]
_C_ROWS = {"warp_states": "gs_rec_wstate", "sm_counters": "gs_rec_smc", "mem_counters": "gs_rec_memc",
           "events": "gs_rec_event", "mem_samples": "gs_rec_msample", "pc_stats": "gs_rec_pcstat"}
EVENT_KINDS = ["kernel_start", "kernel_end", "cta_start", "cta_end"]
MEM_LEVELS = ["issue", "l1", "icnt", "l2", "dram", "return"]
"""mem_samples.hit_level: 1 L1, 2 L2, 3 DRAM."""


def _dtype_of(cname: str) -> np.dtype:
    """The numpy dtype of a C row struct, field by field, from the compiled header (one source of truth)."""
    from ._ffi import ffi
    names, formats, offsets = [], [], []
    for fname, f in ffi.typeof(cname).fields:
        t = f.type
        if t.kind == "array":
            base, shape = t.item, (t.length,)
        else:
            base, shape = t, ()
        code = {"uint8_t": "u1", "uint16_t": "<u2", "uint32_t": "<u4", "uint64_t": "<u8",
                "int32_t": "<i4", "int64_t": "<i8", "double": "<f8"}[base.cname]
        names.append(fname)
        formats.append((code, shape) if shape else code)
        offsets.append(f.offset)
    return np.dtype({"names": names, "formats": formats, "offsets": offsets, "itemsize": ffi.sizeof(cname)})


def table_dtypes() -> dict[str, np.dtype]:
    return {name: _dtype_of(c) for name, c in _C_ROWS.items()}


_DT = table_dtypes()
WARP_STATE_DT = _DT["warp_states"]
SM_COUNTER_DT = _DT["sm_counters"]
MEM_COUNTER_DT = _DT["mem_counters"]
EVENT_DT = _DT["events"]
MEM_SAMPLE_DT = _DT["mem_samples"]
PC_STATS_DT = _DT["pc_stats"]
TABLES = dict(_DT)

LEVELS = ("off", "summary", "full")
"""off: nothing recorded; summary: counters, events, pc_stats; full: also warp_states and mem_samples."""
