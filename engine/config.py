"""GPU configurations: TOML presets in configs/, validated against one schema, flattened for the engine.

Every parameter is declared once here (section, key, type, default, unit, bounds, meaning). A preset in
configs/NAME.toml sets values (each with its unit in the key name and its source in a comment); unknown
keys and impossible values are errors naming the key and file. Overrides use dotted keys:
`--set l2.size_kib=30720`. `Config.to_c()` fills the engine's gs_tconfig, whose field names are the
dotted keys with dots replaced by underscores (tests/test_config_roundtrip.py checks the two stay in step), and
`Config.to_toml()` writes the effective configuration back, so every run can be reproduced.
"""
from __future__ import annotations

import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import enums
from .errors import show
from .resources import data_path

CONFIG_DIR = data_path("configs")

UNITS = enums.names("gs_unit", "GS_U_")            # functional-unit pipes, in the header's order
# choice-valued settings: the names of the header's enums, in value order (the value stored in gs_tconfig)
SCHEDULERS = enums.names("gs_sched_policy", "GS_SCHED_")
ICACHE = enums.names("gs_icache_model", "GS_ICACHE_")
L2_HASH = enums.names("gs_l2_hash", "GS_L2_HASH_")
DRAM_POLICY = enums.names("gs_dram_policy", "GS_DRAM_")
SASS_MODES = enums.names("gs_sass_mode", "GS_SASS_")


class ConfigError(ValueError):
    """A configuration that cannot be used: names the file and key."""


@dataclass(frozen=True)
class P:
    key: str                      # dotted: section.name
    type: type | str              # int, float, str (enum via choices), "list[int]"
    default: Any
    unit: str
    lo: float | None = None
    hi: float | None = None
    choices: tuple | None = None
    doc: str = ""


SCHEMA: list[P] = [
    P("gpu.name", str, "generic", "", doc="marketing name"),
    P("gpu.num_sms", int, 132, "SMs", 1, 1024),
    P("gpu.gpcs", int, 1, "GPCs", 1, 1024,
      doc="GPCs, in CTA dispatch order: SM k belongs to the GPC whose block of consecutive SMs holds k; GPCs hold "
          "whole TPCs of 2 SMs, the TPCs left over go one each to the last GPCs (the H200: 8 GPCs of "
          "16/16/16/16/16/16/18/18 SMs in the order the first wave's CTAs reach them)"),
    P("gpu.sm_clock_mhz", float, 1980.0, "MHz", 100, 5000, doc="SM clock: cycles are SM cycles"),
    P("gpu.kernel_launch_cycles", int, 0, "cycles", 0, 10**7, doc="from launch until the first CTA starts"),
    P("gpu.kernel_end_cycles", int, 0, "cycles", 0, 10**7, doc="from the last warp's end until the kernel ends"),
    P("gpu.cta_launch_cycles", int, 0, "cycles", 0, 10**6, doc="from a CTA's dispatch until its first warp can issue"),
    P("gpu.cta_dispatch_per_cycle", float, 1.0, "CTAs/cycle", 0.001, 1024, doc="GPU-wide CTA launch rate"),
    P("gpu.cta_dispatch_first_cycles", float, 0.0, "cycles", 0, 10**4,
      doc="dispatcher time of a launch's first CTA on each SM (0: as any CTA, 1 / gpu.cta_dispatch_per_cycle)"),
    P("gpu.cta_accept_after_start", int, 0, "", 0, 1,
      doc="1: an SM takes its next CTA only once its previous CTA's warps have started"),
    P("gpu.cta_release_cycles", int, 0, "cycles", 0, 10**6,
      doc="from a CTA's last warp leaving until its SM can take another CTA in its place"),
    P("gpu.warp_launch_cycles", int, 0, "cycles", 0, 10**4, doc="between the starts of consecutive warps of a CTA"),
    P("gpu.sm_cold_fetch_cycles", int, 0, "cycles", 0, 10**5,
      doc="a launch's first instruction fetch on each SM (cold instruction cache; with sm.icache = ideal)"),

    P("sm.subcores", int, 4, "", 1, 8, doc="sub-cores (warp schedulers) per SM"),
    P("sm.max_warps", int, 64, "warps", 1, 256),
    P("sm.max_ctas", int, 32, "CTAs", 1, 256),
    P("sm.max_threads", int, 2048, "threads", 32, 8192),
    P("sm.registers", int, 65536, "32-bit registers", 1024, 1 << 20),
    P("sm.reg_alloc_unit", int, 256, "registers per warp", 1, 4096, doc="register allocation granularity per warp"),
    P("sm.max_regs_per_thread", int, 255, "registers", 16, 1024),
    P("sm.default_regs_per_thread", int, 32, "registers", 16, 255,
      doc="used when the front end gives no estimate"),
    P("sm.l1_shared_kib", int, 256, "KiB", 16, 4096, doc="unified L1 data cache + shared memory per SM"),
    P("sm.shared_max_kib", int, 228, "KiB", 0, 4096, doc="largest shared-memory carveout per SM"),
    P("sm.shared_alloc_unit_bytes", int, 128, "bytes", 1, 65536),
    P("sm.shared_cta_reserved_bytes", int, 1024, "bytes", 0, 65536, doc="shared memory the system reserves per CTA"),
    P("sm.scheduler", str, "gto", "", choices=tuple(SCHEDULERS)),
    P("sm.two_level_active", int, 4, "warps", 1, 64, doc="active-set size per scheduler (two_level)"),
    P("sm.subcore_rotate", int, 0, "", 0, 1,
      doc="1: the sub-cores' schedulers take turns at going first each cycle (round robin for what they share: "
          "the SM's LSU and MIO queue slots); 0: sub-core 0 always first (its warps win every contested slot)"),
    P("sm.icache", str, "ideal", "", choices=tuple(ICACHE)),
    P("sm.icache_kib", int, 128, "KiB", 1, 4096),
    P("sm.icache_line_bytes", int, 128, "bytes", 16, 4096),
    P("sm.icache_assoc", int, 8, "ways", 1, 64),
    P("sm.icache_miss_cycles", int, 200, "cycles", 0, 100000),
    P("sm.inst_bytes", int, 16, "bytes", 4, 64, doc="bytes per instruction for fetch (SASS is 16 B)"),
    P("sm.barrier_latency_cycles", int, 12, "cycles", 0, 10000, doc="from the last arrival until waiters issue"),
    P("sm.barrier_per_warp_cycles", int, 2, "cycles/warp", 0, 1000, doc="added per warp of the CTA"),
    P("sm.dispatch_latency_cycles", int, 1, "cycles", 0, 100, doc="minimum cycles between two issues of one warp"),
    P("sm.pred_use_latency_cycles", int, 0, "cycles", 0, 100,
      doc="a predicate an arithmetic instruction (setp, predicate logic) writes is ready this long after it issues for "
          "an instruction that writes no predicate (a guard, selp's operand); predicate logic reading it waits the "
          "pipe's latency only (0: the pipe's latency for all; calibration.md 5m: ptxas's control codes)"),
    P("sm.imad_hi_latency_cycles", int, 0, "cycles", 0, 100,
      doc="SASS costs (timing.sass = auto, or integer division with timing.sass_div): an IMAD.HI on a PTX instruction's "
          "dependence chain takes this long instead of the fp32 pipe's latency (0: the pipe's; calibration.md 5q)"),
    P("sm.sass_pred_guard_cycles", int, 0, "cycles", 0, 100,
      doc="SASS costs: on a PTX instruction's dependence chain, a compare's predicate read by a guarded instruction "
          "(or one that writes no predicate) is ready this long after the compare (0: the compare's pipe latency; "
          "calibration.md 5q)"),
    P("sm.sreg_latency_cycles", int, 0, "cycles", 0, 200,
      doc="a special-register read (S2R: a mov from %tid, %laneid, %warpid, %smid, %lanemask) takes this long, in "
          "PTX timing and on a PTX instruction's SASS dependence chain alike, and a reader waits for it as "
          "short_scoreboard (0: the misc pipe's latency, charged as wait; calibration.md 5w)"),
    P("sm.fetch_insts", int, 0, "instructions", 0, 16,
      doc="0: instruction supply unlimited; N: a warp fetches its next N instructions once its buffer is empty, "
          "the SM fetches for one warp per cycle, and they issue from 2 cycles later (GPGPU-Sim's fetch/decode)"),
    P("sm.cp_async_wait", int, 0, "", 0, 1,
      doc="1: cp.async.wait_group N (wait_all) waits until the data of all but the newest N committed cp.async "
          "groups (all of them) has arrived in the SM, as the PTX ISA says; 0: it waits for nothing (the copies "
          "cost only their issue)"),
    P("sm.cp_async_latency_cycles", int, 0, "cycles", 0, 10000,
      doc="with sm.cp_async_wait: a cp.async's data counts for its group this many cycles after a load of the same "
          "bytes would be back (the copy's write into shared memory and its group bookkeeping)"),
    P("sm.frag_requests", int, 0, "", 0, 1,
      doc="1: a wmma.load from global memory issues as the JIT's loads (l1.h gs_fragment_lookups: one 32-bit LDG "
          "per 8 rows x 16 bytes of the tile as stored), each its own LSU instruction with its own issue slot, so "
          "the requests of warps on different sub-cores interleave at the LSU as the SASS's do; 0: one LSU "
          "instruction for the whole fragment"),
    P("sm.movm_latency_cycles", int, 0, "cycles", 0, 10000,
      doc="a wmma.load of 16-bit A (col) or B (row) fragments from global/generic memory: the JIT loads the rows "
          "as stored and transposes each 8x8 matrix in registers (MOVM.16.MT88, one per 64 elements), so the "
          "fragment is ready this much after its loads, plus sm.movm_interval_cycles per further MOVM (0: no MOVM)"),
    P("sm.movm_interval_cycles", float, 1.0, "cycles", 0.0, 1000.0,
      doc="cycles between the MOVMs of one warp (see sm.movm_latency_cycles)"),
    P("sm.wgmma_chain_in_pipe", int, 0, "", 0, 1,
      doc="1: a wgmma accumulating into registers an earlier wgmma writes issues when the tensor pipe is free "
          "(the SASS issues such HGMMAs back to back); 0: it waits for the earlier result"),
    P("sm.wgmma_issue_cycles", int, 16, "cycles", 1, 10000,
      doc="wgmma pipe model (with sm.wgmma_chain_in_pipe): cycles from a warp's wgmma to its next issue"),
    P("sm.wgmma_latency_cycles", int, 41, "cycles", 1, 100000,
      doc="wgmma from its start in the tensor pipe to its group's completion with A in registers, "
          "plus N x sm.wgmma_cycles_per_n"),
    P("sm.wgmma_smem_a_cycles", int, 13, "cycles", 0, 10000,
      doc="added to a wgmma's latency when A comes from a shared-memory descriptor"),
    P("sm.wgmma_queue", int, 6, "instructions", 1, 1024,
      doc="wgmma a sub-core's tensor pipe accepts beyond the one it runs; a warp whose wgmma would exceed it waits"),
    P("sm.wgmma_reads_block_loads", int, 0, "", 0, 1,
      doc="1: a wgmma's shared-memory operand reads (operand bytes / l1.bytes_per_cycle) take the SM's LSU in "
          "issue order, so global loads issued after it wait for them"),
    P("sm.wgmma_cycles_per_n", float, 0.5, "cycles", 0.001, 1000,
      doc="tensor-pipe cycles of one wgmma per column of N (any input type: K scales inversely with the element "
          "size); a wgmma takes at least its operands' shared-memory bytes over l1.bytes_per_cycle"),
]
for u in UNITS:
    SCHEMA.append(P(f"pipes.{u}.latency_cycles", int, 4, "cycles", 1, 100000))
    SCHEMA.append(P(f"pipes.{u}.interval_cycles", int, 1, "cycles", 1, 100000,
                    doc="cycles between two warp instructions on this pipe of one sub-core"))
SCHEMA += [
    P("l1.line_bytes", int, 128, "bytes", 32, 1024),
    P("l1.sector_bytes", int, 32, "bytes", 4, 1024),
    P("l1.assoc", int, 4, "ways", 1, 256),
    P("l1.hit_latency_cycles", int, 33, "cycles", 1, 10000),
    P("l1.wavefront_latency_cycles", int, 0, "cycles", 0, 1000,
      doc="an L1 hit of a request that needs several data wavefronts (lines at one bank offset) completes this "
          "many cycles later per wavefront after its first"),
    P("l1.mshrs", int, 256, "entries", 1, 65536, doc="outstanding missing sectors per SM"),
    P("l1.lookups_per_cycle", int, 1, "lines/cycle", 1, 64, doc="tag lookups (t-requests) per cycle"),
    P("l1.bytes_per_cycle", int, 128, "bytes/cycle", 1, 4096, doc="data bandwidth of L1/shared per SM"),
    P("l1.write_allocate", int, 0, "bool", 0, 1),
    P("l1.cache_global_loads", int, 1, "bool", 0, 1, doc="plain ld.global allocates in L1"),
    P("l1.lsu_queue", int, 16, "warp instructions", 1, 4096,
      doc="memory instructions waiting for L1 per SM, per queue (shared/MIO and global/local); the next one "
          "waits to issue while its queue is full (mio_throttle / lg_throttle)"),
    P("l1.carveouts_kib", "list[int]", [0, 8, 16, 32, 64, 100, 132, 164, 196, 228], "KiB",
      doc="shared-memory carveouts the driver may choose (smallest that fits the occupancy)"),

    P("shared.banks", int, 32, "banks", 1, 128),
    P("shared.bank_bytes", int, 4, "bytes", 1, 64),
    P("shared.latency_cycles", int, 23, "cycles", 1, 10000),
    P("shared.atomic_cycles", int, 1, "cycles", 1, 1000, doc="extra cycles per serialised shared atomic"),
    P("shared.conflict_latency_cycles", int, 2, "cycles", 0, 1000, doc="extra latency per extra wavefront"),

    P("const.latency_cycles", int, 28, "cycles", 1, 10000, doc="ld.const hit (LDC)"),
    P("const.param_latency_cycles", int, 4, "cycles", 1, 10000, doc="ld.param (a constant-bank operand in SASS)"),
    P("const.param_cold_cycles", int, 0, "cycles", 0, 100000,
      doc="a launch's first ld.param on each SM: the parameter bank is not yet in its constant cache"),
    P("const.miss_latency_cycles", int, 200, "cycles", 1, 100000),

    P("icnt.latency_cycles", int, 100, "cycles", 0, 100000, doc="SM to L2 slice, one way"),
    P("icnt.sm_bytes_per_cycle", int, 64, "bytes/cycle", 1, 4096, doc="per SM port, each direction"),

    P("l2.size_kib", int, 61440, "KiB", 64, 1 << 22),
    P("l2.slices", int, 64, "slices", 1, 1024),
    P("l2.line_bytes", int, 128, "bytes", 32, 1024),
    P("l2.sector_bytes", int, 32, "bytes", 4, 1024),
    P("l2.assoc", int, 16, "ways", 1, 256),
    P("l2.hit_latency_cycles", int, 100, "cycles", 1, 100000, doc="inside the slice, on top of the interconnect"),
    P("l2.bytes_per_cycle", int, 64, "bytes/cycle", 1, 4096, doc="per slice"),
    P("l2.hash", str, "xor", "", choices=tuple(L2_HASH),
      doc="slice and set selection: granules of l2.interleave_bytes go to slices in order (linear) or hashed "
          "(xor: a slice's set from the line number above l2.slices; xor_line: from a hash of the line); "
          "balanced: every run of l2.slices granules covers each slice once and fills the sets evenly"),
    P("l2.partitions", int, 1, "partitions", 1, 16, doc="L2 halves; far data is copied into the near one"),
    P("l2.far_latency_cycles", int, 0, "cycles", 0, 100000, doc="extra round trip to the far partition"),
    P("l2.interleave_bytes", int, 128, "bytes", 32, 1 << 20,
      doc="consecutive bytes mapped to one slice before the hash moves on"),
    P("l2.atomic_packet_cycles", float, 1.5, "cycles", 0.01, 10000,
      doc="slice atomic unit time per packet (the lanes of one request on one sector, distinct addresses)"),
    P("l2.atomic_latency_cycles", int, 30, "cycles", 1, 100000),
    P("l2.partial_write_cycles", float, 1.0, "cycles", 0.01, 10000,
      doc="slice time of a write covering part of a sector (merged into the sector, ECC)"),
    P("l2.dram_fetch_bytes", int, 32, "bytes", 4, 1024,
      doc="a read miss fetches this aligned block from DRAM (the missing sectors of it fill too)"),
    P("l2.write_miss_dram", int, 0, "bool", 0, 1,
      doc="1: a write to a sector the L2 does not hold goes on to DRAM (accepted when DRAM took it) and "
          "fetches the l2.dram_fetch_bytes block around it (GPGPU-Sim's write-allocate L2 without byte masks); "
          "0: it is written into the L2 (byte masks)"),
    P("l2.coalesce_reads", int, 0, "reads", 0, 1024,
      doc="N >= 2: a read of a sector that an earlier read is still waiting for at the same slice (arrived, answer "
          "not yet out) merges with it, up to N reads per slice lookup: no slice port time, the same answer "
          "(request coalescing in front of the L2); 0 or 1: every read takes the slice's port"),
    P("l2.coalesce_gpc", int, 0, "bool", 0, 1,
      doc="1: only reads from SMs of the same GPC (gpu.gpcs) merge, in one table per GPC; 0: reads reaching the "
          "same slice merge, whichever SM sent them"),
    P("l2.coalesce_until_lookup", int, 0, "bool", 0, 1,
      doc="1: a read merges with an earlier one only until that read's tag lookup at the slice it reaches first "
          "(it waits in the slice's queue); 0: until its answer is out"),
    P("l2.store_ack", int, 0, "bool", 0, 1,
      doc="1: a store is complete (its warp may end) when the L2's acknowledgement is back in the SM "
          "(GPGPU-Sim); 0: when the L2 accepted it"),
    P("l2.memcpy_addr_bits", int, 64, "bits", 32, 64,
      doc="a traced host-to-device copy fills the L2 at its address kept to this many low bits (GPGPU-Sim "
          "keeps 32: copies to addresses above 4 GiB then fill lines no kernel reads)"),

    P("dram.channels", int, 32, "channels", 1, 1024),
    P("dram.bandwidth_gbps", float, 4800.0, "GB/s", 1, 100000, doc="peak, all channels"),
    P("dram.efficiency", float, 0.9, "fraction", 0.05, 1.0, doc="sustained fraction of peak, reads"),
    P("dram.write_efficiency", float, 0.9, "fraction", 0.05, 1.0, doc="sustained fraction of peak, writes"),
    P("dram.latency_ns", float, 400.0, "ns", 1, 100000, doc="from the slice to data back at the slice"),
    P("dram.policy", str, "open_row", "", choices=tuple(DRAM_POLICY),
      doc="fcfs: fixed latency; open_row: arrival order, a request to another row than the bank's open one "
          "pays row_miss_ns; fr_fcfs: as open_row, but a request to a row that a still-queued request of the "
          "same bank uses is served with it (first-ready: a row hit)"),
    P("dram.banks", int, 16, "banks/channel", 1, 1024),
    P("dram.row_bytes", int, 1024, "bytes", 64, 65536),
    P("dram.row_miss_ns", float, 30.0, "ns", 0, 10000, doc="extra latency of a row-buffer miss"),
    P("dram.refresh_ns", float, 0.0, "ns", 0, 100000,
      doc="per-bank refresh: every dram.refresh_interval_ns each bank is busy this long (phases staggered "
          "over banks and channels by a hash); a request reaching a busy bank waits for the end; 0: no refresh"),
    P("dram.queue_ns", float, 0.0, "ns", 0, 100000,
      doc="load-dependent read latency: a read waits max(bus backlog, queue_ns x u / (1 - u)), u being the reads' "
          "booked share of the DRAM's sustained read bandwidth, averaged over windows of 1024 cycles (weight 1/4 "
          "each; at most 0.9); 0: off (the bus backlog only)"),
    P("dram.write_drain_ns", float, 0.0, "ns", 0, 100000,
      doc="write drains: a channel queues its writes and puts them on the bus in one block once they fill this "
          "long a stretch of bus time; reads arriving meanwhile wait for the end of the block; 0: writes take the bus at once"),
    P("dram.refresh_interval_ns", float, 0.0, "ns", 0, 1e7,
      doc="per-bank refresh period (0: no refresh); must exceed dram.refresh_ns"),

    P("record.interval_cycles", int, 256, "cycles", 1, 1 << 20, doc="counter sampling interval"),
    P("sim.quantum_cycles", int, 32, "cycles", 1, 4096,
      doc="simulator: each SM runs this far ahead before the next one (memory locality of the host); "
          "1 = all SMs in lock-step. CTA placement waits at most this long; shared resources are calendars"),
    P("record.mem_sample_period", int, 64, "requests", 1, 1 << 20, doc="record 1 in N memory requests"),
    P("sim.threads", int, 0, "threads", 0, 1024,
      doc="simulator: threads that simulate SMs (results are identical for any count); 0 = the cores available"),
    P("timing.sass", str, "off", "", choices=tuple(SASS_MODES),
      doc="auto: issue each PTX instruction as the SASS ptxas makes of it and take ptxas's register count, "
          "when ptxas and nvdisasm are installed (docs/sass.md); off: time the PTX as written (the default "
          "until both the suite and the bundles gain from it: docs/sass.md, Measured); regs: time the PTX as "
          "written, with ptxas's register count for occupancy (the JIT's, as ncu's launch__registers_per_thread; "
          "the h200 preset's setting)"),
    P("timing.sass_order", int, 0, "", 0, 2,
      doc="with timing.sass = auto or regs and the SASS tools found: 1: loads from global memory stay where ptxas "
          "put them (where ptxas keeps a load late to save registers, the warp waits for it late too); 2: every "
          "instruction in ptxas's order; 0: the front end's latency-first list schedule (docs/sass.md, 'SASS order')"),
    P("timing.sass_unroll", int, 0, "", 0, 2,
      doc="with timing.sass = regs or auto and ptxas found: 1: a PTX loop whose loads ptxas copies F times into "
          "one SASS loop body is run unrolled F times and issued in the SASS's order (engine/sass/unroll.py, "
          "docs/sass.md); 2: also every other single-block loop with memory instructions is issued in the "
          "SASS's order; values still from executing the PTX; 0: the PTX loops as written"),
    P("timing.sass_div", int, 0, "", 0, 1,
      doc="with timing.sass = regs and ptxas found: 1: integer division and remainder (div/rem on integer types, "
          "which ptxas expands into ~20 SASS instructions: conversions, a reciprocal, multiply-adds and compares) "
          "take their SASS's issue slots, pipe and dependence chain as with timing.sass = auto; every other "
          "instruction keeps its PTX cost; 0: they cost one PTX instruction (docs/sass.md, 'Integer division')"),
]
BY_KEY = {p.key: p for p in SCHEMA}


def _c_name(key: str) -> str:
    return key.replace(".", "_")


def _flatten(d: dict, prefix: str = "") -> dict[str, Any]:
    out = {}
    for k, v in d.items():
        key = f"{prefix}.{k}" if prefix else k
        if isinstance(v, dict):
            out.update(_flatten(v, key))
        else:
            out[key] = v
    return out


def _check(p: P, v: Any, where: str) -> Any:
    if p.type == "list[int]":
        if not isinstance(v, list) or not all(isinstance(x, int) and x >= 0 for x in v) or not v or len(v) > 16:
            raise ConfigError(f"{where}: {p.key} must be a list of 1 to 16 non-negative integers ({p.unit})")
        return sorted(v)
    if p.type is str:
        if not isinstance(v, str):
            raise ConfigError(f"{where}: {p.key} must be a string")
        if p.choices and v not in p.choices:
            raise ConfigError(f"{where}: {p.key} = {show(v)} is not one of {', '.join(p.choices)}")
        return v
    if p.type is int:
        if isinstance(v, bool) or not isinstance(v, int):
            if isinstance(v, float) and v.is_integer():
                v = int(v)
            else:
                raise ConfigError(f"{where}: {p.key} must be an integer ({p.unit}), got {show(v)}")
    elif p.type is float:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ConfigError(f"{where}: {p.key} must be a number ({p.unit}), got {show(v)}")
        v = float(v)
        if not math.isfinite(v):           # nan passes every range test below
            raise ConfigError(f"{where}: {p.key} must be a finite number ({p.unit}), got {v}")
    if p.lo is not None and v < p.lo or p.hi is not None and v > p.hi:
        raise ConfigError(f"{where}: {p.key} = {show(v)} {p.unit} is outside [{p.lo}, {p.hi}]")
    return v


def _parse_override(s: str) -> tuple[str, Any]:
    if "=" not in s:
        raise ConfigError(f"override {show(s)}: expected key=value, e.g. l2.size_kib=30720")
    key, raw = s.split("=", 1)
    key = key.strip()
    raw = raw.strip()
    try:
        val = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        val = raw                                    # a bare word: a string choice like gto
    except RecursionError:                           # tomllib has no nesting limit of its own
        raise ConfigError(f"override {show(s)}: the value is nested too deeply") from None
    return key, val


def _known_keys_hint(key: str) -> str:
    """The valid keys to offer for an unknown one: close matches, else the keys of its section, else the sections."""
    import difflib
    close = difflib.get_close_matches(key, list(BY_KEY), n=4, cutoff=0.6)
    if close:
        return "did you mean " + ", ".join(close) + "?"
    section = key.split(".", 1)[0]
    same = [k for k in BY_KEY if k.split(".", 1)[0] == section]
    if same:
        return f"keys of [{section}]: " + ", ".join(same)
    return "sections: " + ", ".join(dict.fromkeys(k.split(".", 1)[0] for k in BY_KEY))


@dataclass
class Config:
    name: str
    values: dict[str, Any]
    source: str = ""
    overrides: list[str] = field(default_factory=list)

    def __getitem__(self, key: str):
        return self.values[key]

    def get(self, key, default=None):
        return self.values.get(key, default)

    def with_overrides(self, overrides: list[str]) -> "Config":
        vals = dict(self.values)
        for s in overrides:
            key, val = _parse_override(s)
            if key not in BY_KEY:
                raise ConfigError(f"override {show(s)}: unknown key {show(key)}; {_known_keys_hint(key)}")
            vals[key] = _check(BY_KEY[key], val, "override")
        _check_consistency(vals, "override")
        return Config(self.name, vals, self.source, self.overrides + list(overrides))

    def to_dict(self) -> dict:
        """Nested dict, as in the TOML file."""
        out: dict = {}
        for p in SCHEMA:
            parts = p.key.split(".")
            d = out
            for k in parts[:-1]:
                d = d.setdefault(k, {})
            d[parts[-1]] = self.values[p.key]
        return out

    def to_toml(self) -> str:
        lines = [f"# effective configuration: {self.name}" + (f" + {self.overrides}" if self.overrides else "")]
        sections: dict[str, list[P]] = {}          # a TOML table may be declared once: group keys by section
        for p in SCHEMA:
            sections.setdefault(p.key.rsplit(".", 1)[0], []).append(p)
        for sec, params in sections.items():
            lines.append(f"\n[{sec}]")
            for p in params:
                lines.append(self._toml_line(p))
        return "\n".join(lines) + "\n"

    def _toml_line(self, p: P) -> str:
        key = p.key.rsplit(".", 1)[1]
        v = self.values[p.key]
        if isinstance(v, str):
            s = '"' + v.replace('"', '\\"') + '"'
        elif isinstance(v, list):
            s = "[" + ", ".join(str(x) for x in v) + "]"
        else:
            s = repr(v)
        return f"{key} = {s}" + (f"   # {p.unit}" if p.unit else "")

    def to_c(self, ffi):
        """A gs_tconfig filled from the values (enum choices become their index)."""
        c = ffi.new("gs_tconfig *")
        for p in SCHEMA:
            v = self.values[p.key]
            name = _c_name(p.key)
            if p.key == "gpu.name":
                continue
            if p.key.startswith("pipes."):
                _, unit, what = p.key.split(".")
                getattr(c, f"pipes_{what}")[UNITS.index(unit)] = v
                continue
            if p.type == "list[int]":
                arr = getattr(c, name)
                for i, x in enumerate(v):
                    arr[i] = x
                setattr(c, f"{name}_count", len(v))
                continue
            if p.choices:
                v = p.choices.index(v)
            setattr(c, name, v)
        return c


def _check_consistency(v: dict, where: str) -> None:
    def need(cond, msg):
        if not cond:
            raise ConfigError(f"{where}: {msg}")
    need(v["dram.refresh_ns"] == 0 or v["dram.refresh_interval_ns"] > v["dram.refresh_ns"],
         "dram.refresh_interval_ns must exceed dram.refresh_ns (or set dram.refresh_ns = 0: no refresh)")
    need(v["l1.line_bytes"] % v["l1.sector_bytes"] == 0, "l1.line_bytes must be a multiple of l1.sector_bytes")
    need(v["l2.line_bytes"] % v["l2.sector_bytes"] == 0, "l2.line_bytes must be a multiple of l2.sector_bytes")
    fb = v["l2.dram_fetch_bytes"]
    need(fb % v["l2.sector_bytes"] == 0 and fb <= v["l2.line_bytes"] and fb & (fb - 1) == 0,
         "l2.dram_fetch_bytes must be a power-of-two multiple of l2.sector_bytes, at most l2.line_bytes")
    need(v["l1.line_bytes"] // v["l1.sector_bytes"] <= 8 and v["l2.line_bytes"] // v["l2.sector_bytes"] <= 8,
         "at most 8 sectors per line")
    need(v["shared.banks"] & (v["shared.banks"] - 1) == 0, "shared.banks must be a power of two")
    need(v["sm.shared_max_kib"] <= v["sm.l1_shared_kib"], "sm.shared_max_kib exceeds sm.l1_shared_kib")
    need(max(v["l1.carveouts_kib"]) <= v["sm.l1_shared_kib"], "a carveout exceeds sm.l1_shared_kib")
    need(v["sm.max_warps"] % v["sm.subcores"] == 0, "sm.max_warps must be a multiple of sm.subcores")
    need(v["sm.max_threads"] <= 32 * v["sm.max_warps"], "sm.max_threads exceeds 32 * sm.max_warps")
    lines = v["l2.size_kib"] * 1024 // v["l2.line_bytes"]
    need(lines % (v["l2.slices"] * v["l2.assoc"]) == 0, "l2.size_kib must divide into slices * assoc whole sets")
    need(v["l2.slices"] % v["l2.partitions"] == 0, "l2.slices must be a multiple of l2.partitions")
    need(v["l1.line_bytes"] & (v["l1.line_bytes"] - 1) == 0 and v["l2.line_bytes"] & (v["l2.line_bytes"] - 1) == 0,
         "line sizes must be powers of two")


def load_config(name_or_path: str | Path = "h200", overrides: list[str] | None = None) -> Config:
    """A preset by name (configs/NAME.toml) or a TOML path, validated, with overrides applied."""
    p = Path(name_or_path)
    if not p.suffix:
        p = CONFIG_DIR / f"{name_or_path}.toml"
    if not p.is_file():
        raise ConfigError(f"no configuration {name_or_path!r} (presets: {', '.join(list_configs())})")
    try:
        data = tomllib.loads(p.read_text())
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{p}: {e}") from None
    flat = _flatten(data)
    vals = {q.key: q.default for q in SCHEMA}
    for k, v in flat.items():
        if k not in BY_KEY:
            raise ConfigError(f"{p}: unknown key {k!r}")
        vals[k] = _check(BY_KEY[k], v, str(p))
    _check_consistency(vals, str(p))
    cfg = Config(p.stem, vals, str(p))
    return cfg.with_overrides(overrides) if overrides else cfg


def list_configs() -> list[str]:
    return sorted(q.stem for q in CONFIG_DIR.glob("*.toml"))
