"""What a run file holds: the SQLite schema, the stored tables and their level-of-detail (LOD) levels.

A run file is one SQLite database (WAL mode while it is written):

  meta(key, value)            JSON values: format, status, progress, the recorder's meta (config,
                              workload, kernels with PTX), stats, end cycle, the sealed frontier.
  chunks(tbl, level, key,     compressed arrays (codec.py). `lo`/`hi` bound the cycles the chunk covers
         lo, hi, n, data,     ([lo, hi), hi exclusive), `n` is its row count, `extra` an optional
         extra)               side blob (the warp-state carry-in).

Stored tables (tbl), all derived from the recorder's tables (engine/recording.py), which are kept too:

  raw:<table>   level 0, key 0: the recorder's rows exactly as received (sm_counters, mem_counters,
                events, mem_samples, pc_stats); warp_states are kept per SM instead:
  ws            level 0, key = SM: warp-state rows of one segment of SEG cycles, with the state of every
                slot at the segment's start in `extra` (so a window reads only its own segments).
  slot          level L, key = SM: the dominant state of every warp slot per bucket of 2^L cycles,
                uint8 (buckets, slots); L in SLOT_LEVELS. Below them, queries read `ws`.
  strip         level L, key 0: per recorded SM and bucket of 2^L cycles, the dominant state among
                resident warps (`dom`, uint8) and the resident fraction (`act`, uint8 of 255).
  ctr_gpu       level k: the SM counters summed over SMs, per bucket of interval * 2^k cycles.
  ctr_mem       level k: the memory-partition counters summed over partitions, same buckets.
  ctr_sm        level k: per SM and bucket (from the counters, so for every SM): dom, act, issued.
  cta           level 0: CTA spans (sm, lane, cta, kernel, start, end), ordered by start.
  kernel        level 0: kernel spans.
"""
from __future__ import annotations

import numpy as np

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib.resources import files

from engine import recording
from engine.recording import (EVENT_DT, MEM_COUNTER_DT, MEM_SAMPLE_DT, NSTATES, PC_STATS_DT, SM_COUNTER_DT,
                              WARP_STATE_DT)

# /3: the recording meta carries its own row layouts and enum names (`schema`, engine.recording.schema()), so a
# change of the recorder's rows needs no new format: the file says how to read it. /2 files (warp states with the
# active mask, before the schema) are read with the layouts they were all written with (run2_schema.json).
FORMAT = "simtscope-run/3"
READABLE = ("simtscope-run/2", FORMAT)

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS chunks(id INTEGER PRIMARY KEY, tbl TEXT NOT NULL, level INTEGER NOT NULL,
    key INTEGER NOT NULL, lo INTEGER NOT NULL, hi INTEGER NOT NULL, n INTEGER NOT NULL,
    data BLOB NOT NULL, extra BLOB);
CREATE INDEX IF NOT EXISTS chunks_q ON chunks(tbl, level, key, lo);
"""

SEG_SHIFT = 12                         # warp states are processed and stored in segments of 4096 cycles
SEG = 1 << SEG_SHIFT
STRIP_LEVELS = range(4, 25)            # per-SM strips: buckets of 16 cycles .. 16 M cycles
SLOT_LEVELS = range(6, 25)             # per-slot heatmap: buckets of 64 cycles .. 16 M cycles
CTR_LEVELS = range(0, 17)              # counters: buckets of interval * 2^k cycles

RAW_TABLES = {"sm_counters": SM_COUNTER_DT, "mem_counters": MEM_COUNTER_DT, "events": EVENT_DT,
              "mem_samples": MEM_SAMPLE_DT, "pc_stats": PC_STATS_DT}
DELTA = {"sm_counters": ("cycle0",), "mem_counters": ("cycle0",), "events": ("cycle",),
         "mem_samples": ("t_issue",), "pc_stats": ("pc",), "ws": ("cycle",), "cta": ("start",),
         "ctr_gpu": ("cycle0",), "ctr_mem": ("cycle0",)}

# warp-state rows of one SM, stored without the sm column and padding (any other field the recorder
# adds, e.g. an active mask, is kept)
def ws_dtype(warp_state_dt: np.dtype) -> np.dtype:
    keep = ("cycle", "slot", "state", "cta", "pc")
    return np.dtype([(n, warp_state_dt.fields[n][0]) for n in keep] +
                    [(n, warp_state_dt.fields[n][0]) for n in warp_state_dt.names
                     if n not in keep + ("sm",) and not n.startswith("pad")])


WS_DT = ws_dtype(WARP_STATE_DT)
CARRY_DT = np.dtype([("state", "u1"), ("cta", "<u4"), ("pc", "<u4"), ("since", "<u8"), ("active", "<u4")])

CTR_GPU_FIELDS = ("issued", "thread_insts", "warps_active", "ctas_active", "l1_accesses", "l1_hits",
                  "l1_misses", "shared_accesses", "bank_conflicts", "mshr_used", "ldst_queue")
def ctr_gpu_dtype(nstates: int) -> np.dtype:
    return np.dtype([("cycle0", "<u8"), ("units", "<u4")] + [(f, "<u8") for f in CTR_GPU_FIELDS]
                    + [("state_hist", "<u8", (nstates,))])


CTR_GPU_DT = ctr_gpu_dtype(NSTATES)
CTR_MEM_FIELDS = ("l2_accesses", "l2_hits", "l2_misses", "dram_read_bytes", "dram_write_bytes",
                  "l2_queue", "dram_queue", "icnt_queue")
CTR_MEM_DT = np.dtype([("cycle0", "<u8"), ("units", "<u4")] + [(f, "<u8") for f in CTR_MEM_FIELDS])

CTA_DT = np.dtype([("start", "<u8"), ("end", "<u8"), ("cta", "<u4"), ("kernel", "<u4"), ("sm", "<u2"),
                   ("lane", "<u2")])
KERNEL_DT = np.dtype([("start", "<u8"), ("end", "<u8"), ("kernel", "<u4")])

NOT_RESIDENT = ("idle", "done")        # states that do not count as a resident, working warp


@dataclass(frozen=True)
class RunSchema:
    """How to read one run file: the recorder's row layouts and enum names as the file states them."""
    raw: dict                 # recorded table -> numpy dtype
    states: list
    event_kinds: list
    mem_levels: list
    ws: np.dtype              # the stored `ws` rows
    ctr_gpu: np.dtype

    @property
    def state_index(self) -> dict:
        return {s: i for i, s in enumerate(self.states)}


@lru_cache(maxsize=32)
def _schema_from_json(text: str) -> RunSchema:
    d = json.loads(text)
    raw = {t: recording.dtype_from_json(v) for t, v in d["tables"].items()}
    return RunSchema(raw=raw, states=list(d["warp_states"]), event_kinds=list(d["event_kinds"]),
                     mem_levels=list(d["mem_levels"]), ws=ws_dtype(raw["warp_states"]),
                     ctr_gpu=ctr_gpu_dtype(len(d["warp_states"])))


@lru_cache(maxsize=1)
def _run2_schema() -> str:
    return files("webapp.store").joinpath("run2_schema.json").read_text()


def schema_of(rec: dict | None) -> RunSchema:
    """The schema a run's recording meta carries, or (a /2 file, which carried none) the /2 layouts."""
    sch = (rec or {}).get("schema")
    return _schema_from_json(json.dumps(sch, sort_keys=True) if sch else _run2_schema())


def chunk_spec(tbl: str, rec: dict) -> tuple[np.dtype, tuple]:
    """(dtype, row shape) of the chunks of `tbl` in a run recorded with meta `rec` (its own schema)."""
    from .ctr_builder import ctr_sm_dtype
    if tbl.startswith("raw:"):
        return schema_of(rec).raw[tbl[4:]], ()
    if tbl == "slot":
        return np.dtype("u1"), (int(rec["warp_slots_per_sm"]),)
    if tbl == "strip":
        return np.dtype("u1"), (2, len(rec["record_sms"]))
    if tbl in ("ws", "ctr_gpu"):
        sch = schema_of(rec)
        return (sch.ws if tbl == "ws" else sch.ctr_gpu), ()
    fixed = {"ctr_mem": CTR_MEM_DT, "cta": CTA_DT, "kernel": KERNEL_DT}
    if tbl in fixed:
        return fixed[tbl], ()
    if tbl == "ctr_sm":
        return ctr_sm_dtype(int(rec["num_sms"])), ()
    raise KeyError(f"unknown stored table {tbl!r}")
