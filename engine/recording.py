"""The recorded timeline of a timing run: column layouts shared by the engine (producer), the run store
and the server (consumers). The definitions are the C header's (engine/include/simtscope.h); this module
reads them (engine/enums.py) and is the one place Python code takes them from.

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

A run file carries `schema()` (layouts and enum names) in its meta, so the store reads it with the file's own
layouts, not with this module's (webapp/store/layout.py).
"""
from __future__ import annotations

import numpy as np

from . import enums

# Every enum and row layout below is read from the C header (engine/enums.py parses its text), so this module
# needs no compiled extension: a run file opens where the engine is not built.
WARP_STATES = enums.names("gs_wstate_kind", "GS_WS_")
"""Nsight Compute stall-reason names, plus `selected` (issued this cycle), `idle` (no warp in the slot) and
`done` (warp finished, slot free until the next CTA); the value stored in `state` is the index here. Meanings:
STATE_DOC."""
STATE_INDEX = {s: i for i, s in enumerate(WARP_STATES)}
NSTATES = len(WARP_STATES)
STATE_DOC = {
    "idle": "no warp resident in the slot",
    "selected": "issued an instruction this cycle",
    "not_selected": "eligible, another warp was picked (also the cycles a warp waiting for a busy pipe or queue "
    "lost to another warp, charged before its throttle)",
    "long_scoreboard": "waiting on a global/local memory (L1TEX) result",
    "short_scoreboard": "waiting on shared memory / MIO result (shared loads, SFU, shuffles, special-register reads)",
    "wait": "fixed-latency dependency (ALU result not ready yet), or its own last instruction's pipe interval",
    "math_pipe_throttle": "the functional unit is busy with other warps' instructions (initiation interval)",
    "mio_throttle": "MIO (shared memory / special) instruction queue full, or the SFU busy with other warps' MUFU",
    "lg_throttle": "local/global memory instruction queue full",
    "barrier": "waiting at bar.sync",
    "membar": "waiting on a memory fence",
    "branch_resolving": "waiting for a branch target / divergence to resolve",
    "no_instruction": "instruction buffer empty (fetch / i-cache miss, or a new warp before its first instruction)",
    "dispatch_stall": "dispatch conflict",
    "drain": "finished, waiting for its stores to leave the SM",
    "sleeping": "nanosleep",
    "tex_throttle": "texture / tensor memory queue full",
    "misc": "anything else",
    "done": "warp finished (slot free until the next CTA)",
}

TABLE_ORDER = enums.names("gs_rec_table", "GS_REC_")      # the table argument of gs_tsim_drain
_C_ROWS = {"warp_states": "gs_rec_wstate", "sm_counters": "gs_rec_smc", "mem_counters": "gs_rec_memc",
           "events": "gs_rec_event", "mem_samples": "gs_rec_msample", "pc_stats": "gs_rec_pcstat"}
EVENT_KINDS = enums.names("gs_event_kind", "GS_EV_")
MEM_LEVELS = ["issue", "l1", "icnt", "l2", "dram", "return"]
"""mem_samples.hit_level: 1 L1, 2 L2, 3 DRAM."""


def table_dtypes() -> dict[str, np.dtype]:
    """The numpy dtype of each recorded table's rows, from the header's row structs (one source of truth)."""
    return {name: enums.row_dtype(c) for name, c in _C_ROWS.items()}


_DT = table_dtypes()
WARP_STATE_DT = _DT["warp_states"]
SM_COUNTER_DT = _DT["sm_counters"]
MEM_COUNTER_DT = _DT["mem_counters"]
EVENT_DT = _DT["events"]
MEM_SAMPLE_DT = _DT["mem_samples"]
PC_STATS_DT = _DT["pc_stats"]
TABLES = dict(_DT)


def dtype_to_json(dt: np.dtype) -> dict:
    """A row layout as JSON (names, formats as numpy type strings with shapes, offsets, itemsize)."""
    fields = [(n, dt.fields[n][0], dt.fields[n][1]) for n in dt.names]
    return {"names": [f[0] for f in fields],
            "formats": [[f[1].base.str, list(f[1].shape)] for f in fields],
            "offsets": [f[2] for f in fields], "itemsize": dt.itemsize}


def dtype_from_json(d: dict) -> np.dtype:
    return np.dtype({"names": d["names"], "offsets": d["offsets"], "itemsize": d["itemsize"],
                     "formats": [(np.dtype(f), tuple(shape)) if shape else np.dtype(f) for f, shape in d["formats"]]})


def schema() -> dict:
    """What a run file needs to be read without this code's constants: row layouts and enum names."""
    return {"tables": {t: dtype_to_json(dt) for t, dt in TABLES.items()}, "table_order": list(TABLE_ORDER),
            "warp_states": list(WARP_STATES), "event_kinds": list(EVENT_KINDS), "mem_levels": list(MEM_LEVELS)}


LEVELS = ("off", "summary", "full")
"""off: nothing recorded; summary: counters, events, pc_stats; full: also warp_states and mem_samples."""
