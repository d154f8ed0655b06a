"""The timing model from Python: simulate a launch cycle by cycle on a GPU configuration.

    sim = TimingSim(load_config("h200"), record="summary")
    res = sim.launch(kernel, grid, block, args, sink=store_writer, progress=cb)
    print(format_stats(res.stats))

Results are exact (the functional core executes at issue). Statistics use GPGPU-Sim's names where one
exists. A `sink` (begin/append/end) receives the recorded timeline in chunks (engine/recording.py).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Protocol

import numpy as np

from . import enums, errors, ircache, recording, sass
from ._ffi import OP_NAMES, E, ffi, lib
from .config import UNITS, Config, load_config
from .device import U64_MAX, Device, Kernel, _dim3, check_int, check_launch
from .ptx import load as ptx_load

LIMITERS = enums.names("gs_occupancy_limiter", "GS_LIM_")


class RecordSink(Protocol):
    def begin(self, meta: dict) -> None: ...
    def append(self, table: str, chunk: np.ndarray) -> None: ...
    def end(self, stats: dict, status: str) -> None: ...


@dataclass
class TimingResult:
    kernel: str
    stats: dict
    wall_s: float
    pc_stats: np.ndarray | None = None

    @property
    def cycles(self) -> int:
        return self.stats["gpu_sim_cycle"]

    @property
    def warp_insts(self) -> int:
        return self.stats["warp_insts"]


def engine_build() -> str:
    """how the loaded C engine was compiled, e.g. "profile-guided, -march=native, -O3" (engine/build_ffi.py):
    the benchmarks print it, since the profile-guided build that scripts/setup.sh makes is ~9 % faster"""
    return ffi.string(lib.gs_build_desc()).decode()


def stats_dict(st, clock_mhz: float, warp_slots: int = 0) -> dict:
    """GPGPU-Sim-style statistics from a gs_tstats. warp_slots: SMs x warps per SM (for gpu_occupancy)."""
    cyc = int(st.cycles)
    d = {
        "gpu_sim_cycle": cyc,
        "gpu_sim_insn": int(st.thread_insts),
        "gpu_ipc": (int(st.thread_insts) / cyc) if cyc else 0.0,
        "warp_insts": int(st.warp_insts),
        "warp_ipc": (int(st.warp_insts) / cyc) if cyc else 0.0,
        "gpu_tot_sim_time_us": cyc / clock_mhz,
        "ctas": int(st.ctas),
        "issue_active_cycles": int(st.issue_cycles),
        "occupancy_ctas_per_sm": int(st.ctas_per_sm),
        "occupancy_warps_per_sm": int(st.warps_per_sm),
        "occupancy_limiter": LIMITERS[int(st.occupancy_limiter)] if st.occupancy_limiter < len(LIMITERS) else "?",
        "regs_per_thread": int(st.regs_per_thread),
        "shared_per_cta": int(st.shared_per_cta),
        "shared_carveout_kib": int(st.carveout_kib),
        "L1D_total_requests": int(st.l1_requests),
        "L1D_total_sectors": int(st.l1_sectors),
        "L1D_total_hits": int(st.l1_hits),
        "L1D_total_misses": int(st.l1_misses),
        "L1D_mshr_merges": int(st.l1_mshr_merges),
        "L1D_store_sectors": int(st.l1_store_sectors),
        "shared_insts": int(st.shared_insts),
        "shared_wavefronts": int(st.shared_wavefronts),
        "shared_bank_conflicts": int(st.bank_conflicts),
        "L2_total_accesses": int(st.l2_sectors),
        "L2_total_hits": int(st.l2_hits),
        "L2_total_misses": int(st.l2_misses),
        "L2_read_sectors": int(st.l2_read_sectors),
        "L2_write_sectors": int(st.l2_write_sectors),
        "L2_atomic_ops": int(st.l2_atomic_ops),
        "dram_read_bytes": int(st.dram_read_bytes),
        "dram_write_bytes": int(st.dram_write_bytes),
        "dram_row_hits": int(st.dram_row_hits),
        "dram_row_misses": int(st.dram_row_misses),
        "dram_refresh_waits": int(st.dram_refresh_waits),
        "dram_write_drains": int(st.dram_write_drains),
        "L2_coalesced_reads": int(st.l2_coalesced),
        "icache_misses": int(st.icache_misses),
    }
    d["L1D_miss_rate"] = d["L1D_total_misses"] / max(1, d["L1D_total_hits"] + d["L1D_total_misses"])
    d["L1D_hit_rate"] = 1.0 - d["L1D_miss_rate"] if (d["L1D_total_hits"] + d["L1D_total_misses"]) else 0.0
    d["L2_miss_rate"] = d["L2_total_misses"] / max(1, d["L2_total_accesses"])
    d["L2_hit_rate"] = d["L2_total_hits"] / max(1, d["L2_total_accesses"])
    d["gpu_occupancy"] = (int(st.warp_cycles) / (cyc * warp_slots)) if cyc and warp_slots else 0.0
    d["stall_cycles"] = {s: int(st.state_cycles[i]) for i, s in enumerate(recording.WARP_STATES)}
    issue = max(1, int(st.issue_cycles))
    d["stalls_per_issue"] = {s: int(st.state_cycles[i]) / issue for i, s in enumerate(recording.WARP_STATES)
                             if s not in ("idle", "done")}
    d["timing_mode"] = "sass" if st.sass_used else "ptx"
    d["regs_source"] = "ptxas" if st.sass_regs_used else "estimate"
    d["sass_warp_insts"] = int(st.sass_insts16) / 16 if st.sass_used else None
    d["unit_insts"] = {u: int(st.unit_insts[i]) for i, u in enumerate(UNITS)}
    d["op_counts"] = {OP_NAMES[i]: int(st.op_counts[i]) for i in range(lib.GS_OP__COUNT) if st.op_counts[i]}
    return d


def _mode_line(d: dict) -> str:
    """How the launch was timed (docs/sass.md)."""
    mode = d.get("timing_mode")
    if mode == "sass":       # (a reason in SASS mode: the order, timing.sass_order)
        how = f"; {d['timing_mode_reason']}" if d.get("timing_mode_reason") else ""
        return f"timing_mode = sass  (SASS warp instructions = {d['sass_warp_insts']:.0f}{how})"
    if mode == "trace":
        return "timing_mode = trace  (the trace's SASS instructions)"
    if mode == "ptx":
        reason = d.get("timing_mode_reason")
        return "timing_mode = ptx" + (f"  ({reason})" if reason else "")
    return ""


def format_stats(d: dict, kernel: str = "") -> str:
    """The familiar GPGPU-Sim summary block."""
    lines = [f"kernel_name = {kernel}" if kernel else "",
             f"gpu_sim_cycle = {d['gpu_sim_cycle']}",
             f"gpu_sim_insn = {d['gpu_sim_insn']}",
             f"gpu_ipc = {d['gpu_ipc']:12.4f}",
             f"gpu_tot_sim_time = {d['gpu_tot_sim_time_us']:.3f} us",
             f"gpu_occupancy = {100 * d['gpu_occupancy']:.4f}%",
             f"warp_insts = {d['warp_insts']}  (warp_ipc = {d['warp_ipc']:.4f})",
             _mode_line(d),
             f"occupancy: {d['occupancy_ctas_per_sm']} CTAs / {d['occupancy_warps_per_sm']} warps per SM "
             f"(limited by {d['occupancy_limiter']}; {d['regs_per_thread']} regs/thread, "
             f"{d['shared_per_cta']} B shared/CTA, carveout {d['shared_carveout_kib']} KiB)",
             f"L1D_total_cache_accesses = {d['L1D_total_sectors']}",
             f"L1D_total_cache_misses = {d['L1D_total_misses']}",
             f"L1D_total_cache_miss_rate = {d['L1D_miss_rate']:.4f}",
             f"L2_total_cache_accesses = {d['L2_total_accesses']}",
             f"L2_total_cache_misses = {d['L2_total_misses']}",
             f"L2_total_cache_miss_rate = {d['L2_miss_rate']:.4f}",
             f"dram_read_bytes = {d['dram_read_bytes']}",
             f"dram_write_bytes = {d['dram_write_bytes']}",
             f"shared_bank_conflicts = {d['shared_bank_conflicts']}",
             "warp stall breakdown (warp-cycles per issue):"]
    top = sorted(d["stalls_per_issue"].items(), key=lambda kv: -kv[1])
    lines += [f"  {k:20s} {v:8.2f}" for k, v in top if v > 0]
    return "\n".join(x for x in lines if x != "")


def _check_record_sms(record_sms, num_sms: int) -> list[int] | None:
    """None (all SMs) or a list of SM indices, each in [0, num_sms) (and the recorder's 1024-SM mask)."""
    if record_sms is None:
        return None
    if isinstance(record_sms, (str, bytes)) or not hasattr(record_sms, "__iter__"):
        raise errors.LaunchError(f"record_sms must be a list of SM indices or None, got {type(record_sms).__name__}")
    hi = min(num_sms, 1024) - 1
    return [check_int("record_sms[]", s, 0, hi) for s in record_sms]


class TimingSim:
    """A GPU of a given configuration. Caches persist across launches until flush() (run_case flushes,
    as Nsight Compute's --cache-control all does)."""

    def __init__(self, config: Config | str = "h200", overrides: list[str] | None = None,
                 record: str = "off", record_sms: list[int] | None = None, device: Device | None = None,
                 threads: int | None = None):
        """threads: simulation threads (overrides the config's sim.threads; 0 = the cores available).
        Results are identical for any number of threads."""
        if threads is not None:
            if isinstance(threads, bool) or not isinstance(threads, int) or threads < 0:
                raise ValueError(f"threads must be a whole number >= 0 (0: the cores available), not {threads!r}")
            overrides = [*(overrides or []), f"sim.threads={threads}"]
        self.config = load_config(config, overrides) if isinstance(config, str) else (
            config.with_overrides(overrides) if overrides else config)
        if record not in recording.LEVELS:
            raise ValueError(f"record must be one of {recording.LEVELS}, not {record!r}")
        self.record = record
        self.record_sms = _check_record_sms(record_sms, self.config["gpu.num_sms"])
        self.device = device or Device(num_sms=self.config["gpu.num_sms"])
        self._cfg = self.config.to_c(ffi)
        err = ffi.new("char[256]")
        p = lib.gs_tsim_create(self._cfg, err, 256)
        if p == ffi.NULL:
            raise errors.SimError(f"configuration {self.config.name}: {ffi.string(err).decode()}")
        self._ptr = ffi.gc(p, lib.gs_tsim_destroy)
        self._dtypes = recording.table_dtypes()
        self._warp_slots = self.config["gpu.num_sms"] * self.config["sm.max_warps"]
        self._kernel_id = 0

    @property
    def threads(self) -> int:
        """The threads the simulation runs on (sim.threads resolved; at most one per SM)."""
        return int(lib.gs_tsim_threads(self._ptr))

    def flush(self) -> None:
        lib.gs_tsim_flush(self._ptr)

    def _drain(self, sink, final: bool) -> None:
        for t, name in enumerate(recording.TABLE_ORDER):
            while True:
                n = lib.gs_tsim_pending(self._ptr, t)
                if n == 0:
                    break
                arr = np.empty(n, self._dtypes[name])   # all pending rows at once: each drain call sorts the buffer
                got = lib.gs_tsim_drain(self._ptr, t, ffi.from_buffer(arr, require_writable=True), len(arr))
                if got == 0:
                    break
                if sink is not None:
                    sink.append(name, arr[:got])

    def record_opts(self, sink) -> object:
        """The engine's recording options for the next launch: this simulator's level and SMs (level off
        without a sink)."""
        rec = ffi.new("gs_record_opts *")
        rec.level = recording.LEVELS.index(self.record) if sink is not None else 0
        rec.kernel_id = self._kernel_id
        if self.record_sms:
            for s in self.record_sms:
                rec.sm_mask[s // 64] |= 1 << (s % 64)
        return rec

    def launch(self, kernel: Kernel, grid, block, args=(), shared: int = 0, sink: RecordSink | None = None,
               progress: Callable | None = None, max_cycles: int = 0, max_warp_insts: int = 0,
               chunk_cycles: int = 4096, meta: dict | None = None) -> TimingResult:
        g, b = _dim3(grid, "grid"), _dim3(block, "block")
        shared, max_warp_insts = check_launch(kernel, shared, max_warp_insts, progress)
        max_cycles = check_int("max_cycles", max_cycles, 0, U64_MAX)
        chunk_cycles = check_int("chunk_cycles", chunk_cycles, 1, U64_MAX)
        params = self.device.pack_params(kernel, args)
        mode = self.sass_mode(kernel.module, kernel.name)
        desc = ffi.new("gs_launch_desc *")
        desc.func = kernel.index
        desc.grid = list(g)
        desc.block = list(b)
        desc.dyn_shared_bytes = shared
        desc.max_cycles = max_cycles
        desc.max_warp_insts = max_warp_insts
        desc.num_sms = self.config["gpu.num_sms"]
        rec = self.record_opts(sink)
        fault = ffi.new("gs_fault *")
        pbuf = ffi.from_buffer(params) if params else ffi.NULL
        if sink is not None:
            prog = kernel.module.program
            info = kernel.info
            sink.begin({
                "config": self.config.to_dict(), "config_name": self.config.name,
                "kernels": [{"name": kernel.name, "grid": list(g), "block": list(b), "shared": int(shared),
                             "entry_pc": info.entry_pc, "end_pc": info.end_pc,
                             "pc_text": prog.pc_text, "pc_line": [int(v) for v in prog.insts["line"]],
                             "source": prog.source, "filename": prog.filename}],
                "num_sms": self.config["gpu.num_sms"], "warp_slots_per_sm": self.config["sm.max_warps"],
                "interval": self.config["record.interval_cycles"], "states": recording.WARP_STATES,
                "level": self.record, "record_sms": self.record_sms, "timing_mode": mode, **(meta or {})})
        st = lib.gs_tsim_launch(self._ptr, self.device._ptr, kernel.module._ptr, desc, pbuf, len(params), rec, fault)
        if st == lib.GS_FAULTED:
            msg = ffi.string(fault.message).decode()
            if sink is not None:
                sink.end({"fault": msg}, "faulted")
            raise errors.LaunchError(f"{kernel.name}: {msg}")
        return self._simulate(kernel.name, sink, progress, chunk_cycles,
                              lambda fault: Device.fault_exception(kernel.module, kernel.name, fault), mode)

    def sass_mode(self, module, kernel: str | None = None) -> dict:
        """How launches of this module (of `kernel`, when given) are timed: {"mode": "sass" | "ptx", "reason":
        why not SASS, "unrolled": the kernel's loops laid out as ptxas's}. With timing.sass = auto or regs,
        the first call compiles the module with ptxas (or finds it in the disk cache) and attaches the SASS
        costs to it (engine/sass, docs/sass.md); with timing.sass_unroll, first unrolls (engine/sass/unroll.py)."""
        cfg = self.config["timing.sass"]
        order = ORDERS[self.config["timing.sass_order"]] if cfg != "off" else "latency"
        if module.order.startswith("sass") and order != module.order:   # (an earlier simulator's order)
            module.reschedule(None)
            module.sass_state = None                     # (the fresh program has no SASS costs yet)
        if cfg == "off":
            return {"mode": "ptx", "reason": "timing.sass = off"}
        state = getattr(module, "sass_state", None)
        unroll = int(self.config["timing.sass_unroll"]) if cfg != "off" else 0
        if state is not None and state.get("unroll", 0) != unroll and module.scheduled:
            module.reschedule(None)                      # (an earlier simulator's loops: lower it afresh)
            state = None
        if state is None or (order != "latency" and state["mode"] == "sass" and module.scheduled
                             and module.order != order):
            state = module.sass_state = _sass_state_of(module, order, unroll)
        how = f"; {ORDER_WORDS[module.order]}" if module.order in ORDER_WORDS else ""
        loops = [text for name, text in state.get("unrolled", []) if kernel is None or name == kernel]
        if loops:
            how += "; " + _unroll_note(loops)
        if cfg == "regs" and state["mode"] == "sass":   # PTX issue costs, ptxas's registers for occupancy
            if self.config["timing.sass_div"] and _has_int_div(module.program, kernel):
                how += "; " + DIV_NOTE
            return {"mode": "ptx", "reason": f"timing.sass = regs (ptxas's registers per thread{how})",
                    "unrolled": loops}
        if how and state["mode"] == "sass":
            return {**state, "reason": how[2:], "unrolled": loops}
        return {**state, "unrolled": loops}

    def prepare_ptx(self, source: str, filename: str):
        """A module's PTX lowered as this simulator's launches time it (the order, the unrolled loops and the
        SASS costs that sass_mode would give it on its first launch), without a device: any thread may run
        it while another simulates. adopt() binds the result; a Program (timing.sass = off) binds as it is."""
        off = self.config["timing.sass"] == "off"
        order, unroll = ORDERS[self.config["timing.sass_order"]], int(self.config["timing.sass_unroll"])
        if not ircache.enabled():
            return ptx_load(source, filename) if off else _lower_for_sass(source, filename, order, unroll)
        return _lowered_cached(source, filename, off, order, unroll)

    def adopt(self, device: Device, prepared):
        """The Module of a prepare_ptx() result, bound on `device` (its globals allocated now), as sass_mode
        leaves a module after its first launch."""
        if not isinstance(prepared, SassLowered):
            return device.add_module(prepared)
        module = device.add_module(prepared.program)
        module.sass_state = _adopt(module, prepared)
        return module

    def _simulate(self, name: str, sink, progress, chunk_cycles: int, fault_exception,
                  mode: dict | None = None) -> TimingResult:
        """Run the launched kernel to its end (draining recorded rows into sink); raises fault_exception(fault)."""
        fault = ffi.new("gs_fault *")
        t0 = time.perf_counter()
        tstats = ffi.new("gs_tstats *")
        # the engine runs chunk_cycles at a time (the GIL is released meanwhile), then recorded rows are drained:
        # a sink that works on its own thread (BackgroundSink) stores one chunk while the next is simulated.
        # With neither a sink nor a progress callback the launch runs in one call (the quanta are the same
        # for any chunking: each starts where the last ended), so that a Python thread preparing the next
        # launches (run_workload) keeps the GIL without the simulation waiting for it between chunks
        budget = chunk_cycles if sink is not None or progress else 1 << 62
        while True:
            st = lib.gs_tsim_run(self._ptr, budget, fault)
            if sink is not None:
                self._drain(sink, final=st != lib.GS_RUNNING)
            if st == lib.GS_DONE:
                break
            if st == lib.GS_FAULTED:
                exc = fault_exception(fault)
                if sink is not None:
                    lib.gs_tsim_get_stats(self._ptr, tstats)
                    d = stats_dict(tstats, self.config["gpu.sm_clock_mhz"], self._warp_slots)
                    d["fault"] = str(exc)
                    # a run cap (max_cycles / max_warp_insts) is not the kernel's fault: the run failed
                    sink.end(d, "failed" if isinstance(exc, errors.LimitExceeded) else "faulted")
                raise exc
            if progress:
                lib.gs_tsim_get_stats(self._ptr, tstats)
                progress(int(lib.gs_tsim_cycle(self._ptr)), int(tstats.warp_insts), int(tstats.ctas_done),
                         int(tstats.ctas))
        wall = time.perf_counter() - t0
        lib.gs_tsim_get_stats(self._ptr, tstats)
        d = stats_dict(tstats, self.config["gpu.sm_clock_mhz"], self._warp_slots)
        d["wall_s"] = wall
        if mode is not None and mode.get("mode") == "trace":
            d["timing_mode"] = "trace"                  # the trace's own SASS instructions
        if mode is not None and mode.get("reason"):
            d["timing_mode_reason"] = mode["reason"]
        if mode is not None and mode.get("unrolled"):
            d["sass_unrolled_loops"] = list(mode["unrolled"])
        self._kernel_id += 1
        if sink is not None:
            sink.end(d, "done")
        return TimingResult(name, d, wall)

    def run_case(self, case, sink: RecordSink | None = None, progress: Callable | None = None, flush: bool = True,
                 **kw):
        """Run a validation case in timing mode (cold caches, as ncu measured); returns a runner.CaseRun."""
        from .runner import run_case
        if flush:
            self.flush()

        def launcher(kernel, c, args):
            res = self.launch(kernel, c.grid, c.block, args, shared=c.shared, sink=sink, progress=progress,
                              meta={"workload": {"case": c.name, "kernel": c.kernel}}, **kw)
            return None, res
        return run_case(case, self.device, launcher=launcher)


# timing.sass_order: how each basic block's PTX is ordered when the SASS is known (docs/sass.md, "SASS order")
ORDERS = ("latency", "sass loads", "sass")
ORDER_WORDS = {"sass loads": "global loads where ptxas put them", "sass": "blocks in ptxas's order"}


DIV_NOTE = "integer division as ptxas's SASS (timing.sass_div)"


def _has_int_div(program, kernel: str | None) -> bool:
    """Whether the kernel (any function of the program when None) has an integer div or rem, which
    timing.sass_div times as its SASS (engine/csrc/timing.h gs_is_int_div: div/rem outside the float types)."""
    ins = program.insts
    ops = ins["op"]
    div = (ops == E.op["div"]) | (ops == E.op["rem"])
    div &= ~np.isin(ins["type"], [E.type[t] for t in ("f16", "bf16", "tf32", "f32", "f64", "f16x2", "bf16x2")])
    if kernel is None:
        return bool(div.any())
    # its own body or a called function (.func)
    return any(div[f.entry_pc:f.end_pc].any() for f in program.functions if f.name == kernel or not f.is_entry)


def _unroll_note(loops: list[str]) -> str:
    return "loops unrolled as ptxas's SASS (timing.sass_unroll): " + ", ".join(loops)


@dataclass
class SassLowered:
    """A module's program as a simulator times it (lowered in its order, loops unrolled) with its SASS costs
    and the state TimingSim.sass_mode keeps: made without a device or an engine program, so any thread may
    make it (_lower_for_sass); _adopt gives it to a Module."""
    program: object                 # engine.ptx.lower.Program
    order: str                      # Module.order of that program
    state: dict                     # the module's sass_state
    costs: object | None = None     # sass.SassCosts to attach (None: PTX mode)


def _lower_for_sass(source: str, filename: str, order: str = "latency", unroll: int = 0, program=None,
                    current: str = "latency", scheduled: bool = True) -> SassLowered:
    """Compile the PTX with ptxas (or find it in the disk cache) and make the program its SASS costs go with:
    `program` (the module's, in order `current`; None: lowered here from `source`), lowered again with its
    global loads where ptxas put them or every instruction in ptxas's order (order "sass loads" / "sass",
    timing.sass_order 1 / 2) when it is not in that order yet; with `unroll`, timing.sass_unroll, its loops
    whose loads ptxas batches then laid out as the SASS's (engine/sass/unroll.py). When the tools are missing
    or refuse the module: the program as it was, in PTX mode with the reason."""
    def base():
        return program if program is not None else ptx_load(source, filename)
    prog, done = program, (current if program is not None else "latency")
    try:
        funcs = sass.analyse(source)
        if order != "latency" and scheduled and done != order:
            try:
                prog = ptx_load(source, filename, schedule=True, sass_keys=sass.line_order(funcs),
                                sass_all=order == "sass")
            except errors.PTXError:
                if program is None:
                    base()              # (the error as loading the PTX reports it)
                raise
            done = order
        elif prog is None:
            prog = base()
        costs = sass.program_costs(prog, funcs)
    except sass.SassUnavailable as e:
        return SassLowered(prog if prog is not None else base(), done, {"mode": "ptx", "reason": str(e), "unroll": unroll})
    except sass.SassError as e:
        return SassLowered(prog if prog is not None else base(), done,
                           {"mode": "ptx", "reason": f"{filename}: {e}", "unroll": unroll})
    unrolled = []
    if unroll and scheduled:     # (a module kept in nvcc's order is not laid out either)
        res = sass.unroll.unroll(prog, funcs, reorder=unroll >= 2)
        if res.loops:
            prog = res.program
            costs = sass.unroll.remap_costs(costs, res.origin)
            unrolled = [(prog.functions[pl.func].name,
                         f"{prog.functions[pl.func].name} line {pl.line} "
                         + (f"x{pl.factor}" if pl.factor > 1 else "in order")) for pl in res.loops]
    return SassLowered(prog, done, {"mode": "sass", "reason": "", "unrolled": unrolled, "unroll": unroll}, costs)


def _adopt(module, low: SassLowered) -> dict:
    """Give `module` the program of `low` (binding it to the engine when it is another one) and its SASS
    costs; the mode that results (pure PTX, with the reason, when the engine refuses the costs)."""
    if low.program is not module.program:
        module.replace_program(low.program)
    module.order = low.order
    if low.costs is None:
        return low.state
    regs = np.array(low.costs.regs, np.uint32)
    if lib.gs_program_set_sass(module._ptr, ffi.from_buffer("gs_sass_cost[]", low.costs.costs), len(low.costs.costs),
                               ffi.from_buffer("uint32_t[]", regs), len(regs)) != 0:
        return {"mode": "ptx", "reason": f"{module.filename}: the engine refused the SASS costs",
                "unroll": low.state["unroll"]}
    module.sass = low.costs
    return low.state


def _lowered_cached(source: str, filename: str, off: bool, order: str, unroll: int):
    """The module's PTX lowered with timing.sass off (a Program) or not (SassLowered, in `order`, with `unroll`),
    from the disk cache of lowered modules when it holds it, else lowered now and stored there. Its key covers the
    SASS tools found now (engine/ircache.py)."""
    tools = sass.find_tools() if not off else None
    key = ircache.key_of(source, filename, (off, order, unroll, tools.key if tools else None))
    lowered = ircache.load(key)
    if lowered is None:
        lowered = ptx_load(source, filename) if off else _lower_for_sass(source, filename, order, unroll)
        ircache.store(key, lowered)
    return lowered


def _sass_state_of(module, order: str, unroll: int) -> dict:
    """_attach_sass, from the disk cache of lowered modules (engine/ircache.py) when the module is as its PTX was
    loaded (nvcc's order, to be scheduled): the cache holds what prepare_ptx lowers from the same PTX, under the
    same key, so a case's launch loads what a bundle's would (a lowering is 30-100 ms a module; loading ~1 ms)."""
    if not (ircache.enabled() and module.scheduled and module.order == "latency" and order != "latency"):
        return _attach_sass(module, order, unroll)
    return _adopt(module, _lowered_cached(module.program.source, module.filename, False, order, unroll))


def _attach_sass(module, order: str = "latency", unroll: int = 0) -> dict:
    """Compile the module's PTX with ptxas and give the engine's program its SASS costs, lowering it again in
    `order` and unrolling its loops first when asked (_lower_for_sass); the mode that results."""
    return _adopt(module, _lower_for_sass(module.program.source, module.filename, order, unroll, module.program,
                                          module.order, module.scheduled))
