"""Trace-driven runs: every command of a trace directory on one simulated GPU, in order.

Host-to-device copies leave their data in the L2 (GPGPU-Sim's -gpgpu_perf_sim_memcpy, on in Accel-Sim's
configurations) at their addresses kept to l2.memcpy_addr_bits low bits (GPGPU-Sim keeps 32); kernels run in the timing model with their instructions, masks and addresses from the
trace (engine/csrc/trace_src.c). Caches carry over from one kernel to the next, as in Accel-Sim.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from .. import errors, recording
from .._ffi import ffi, lib
from ..caps import RunCaps, limit_error
from ..timing import TimingResult, TimingSim
from .reader import KernelTrace, read_kernelslist


@dataclass
class TraceRun:
    directory: str
    kernels: list[TimingResult] = field(default_factory=list)
    wall_s: float = 0.0
    unknown_insts: int = 0
    unknown_opcodes: list[str] = field(default_factory=list)

    @property
    def sim_cycles(self) -> int:
        return sum(k.cycles for k in self.kernels)

    @property
    def warp_insts(self) -> int:
        return sum(k.warp_insts for k in self.kernels)

    def as_json(self) -> dict:
        return {"trace": self.directory, "sim_cycles": self.sim_cycles, "warp_insts": self.warp_insts,
                "thread_insts": sum(k.stats.get("gpu_sim_insn", 0) for k in self.kernels),
                "wall_s": round(self.wall_s, 6), "unknown_insts": self.unknown_insts,
                "unknown_opcodes": self.unknown_opcodes,
                "kernels": [{"name": k.kernel, "sim_cycles": k.cycles, "warp_insts": k.warp_insts,
                             "wall_s": round(k.wall_s, 6)} for k in self.kernels]}


def memcpy_ranges(addr: int, nbytes: int, bits: int) -> list[tuple[int, int]]:
    """The L2 ranges a host-to-device copy fills: [addr, addr + nbytes) with every address kept to its low
    `bits` bits (l2.memcpy_addr_bits; GPGPU-Sim's perf_memcpy_to_gpu keeps 32, so a copy wraps at 4 GiB)."""
    if bits >= 64:
        return [(addr, nbytes)]
    size = 1 << bits
    if nbytes > size:              # it wraps onto itself: its last 2^bits bytes are what stays
        addr, nbytes = addr + nbytes - size, size
    a, out = addr % size, []
    while nbytes > 0:
        n = min(nbytes, size - a)
        out.append((a, n))
        nbytes -= n
        a = 0
    return out


def sass_listing(pcs: list[tuple[int, str]]) -> tuple[str, list[int]]:
    """The kernel's SASS as text sorted by PC (`/*0008*/ MOV R1 ;`) and, per program index, its line."""
    order = sorted(range(len(pcs)), key=lambda i: pcs[i][0])
    lines, pc_line = [], [0] * len(pcs)
    for n, i in enumerate(order, 1):
        pc, text = pcs[i]
        lines.append(f"/*{pc:04x}*/  {text} ;")
        pc_line[i] = n
    return "\n".join(lines), pc_line


def launch_trace(ts: TimingSim, kt: KernelTrace, sink=None, progress=None, chunk_cycles: int = 4096,
                 meta: dict | None = None, pcs: list[tuple[int, str]] | None = None, max_cycles: int = 0,
                 max_warp_insts: int = 0) -> TimingResult:
    """Run one kernel trace on ts. With a sink, `pcs` (the trace's PC table from a first pass,
    KernelTrace.pc_table after count()) labels the recording's SASS view. max_cycles / max_warp_insts:
    caps as for a PTX launch (LimitExceeded past one; 0: none)."""
    h = kt.header
    rec = ts.record_opts(sink)
    if sink is not None:
        source, pc_line = sass_listing(pcs or [])
        sink.begin({
            "config": ts.config.to_dict(), "config_name": ts.config.name,
            "kernels": [{"name": h["kernel_name"], "grid": list(h["grid"]), "block": list(h["block"]),
                         "shared": h["shmem"], "entry_pc": 0, "end_pc": len(pcs or []),
                         "pc_text": [t for _, t in (pcs or [])], "pc_line": pc_line, "source": source,
                         "filename": kt.path.name, "isa": "sass"}],
            "num_sms": ts.config["gpu.num_sms"], "warp_slots_per_sm": ts.config["sm.max_warps"],
            "interval": ts.config["record.interval_cycles"], "states": recording.WARP_STATES,
            "level": ts.record, "record_sms": ts.record_sms, **(meta or {})})
    fault = ffi.new("gs_fault *")
    st = lib.gs_tsim_launch_trace(ts._ptr, ts.device._ptr, kt._ptr, rec, fault)
    if st == lib.GS_FAULTED:
        msg = ffi.string(fault.message).decode(errors="replace")
        if sink is not None:
            sink.end({"fault": msg}, "faulted")
        raise errors.LaunchError(f"{kt.name}: {msg}")
    lib.gs_tsim_set_caps(ts._ptr, max_cycles, max_warp_insts)

    def fault_exception(f):
        detail = kt.error() or ffi.string(f.message).decode(errors="replace")
        if f.kind == lib.GS_FAULT_LIMIT:                # a cap: the run failed, the kernel did not fault
            return limit_error(kt.name, detail, kt.path.name, int(f.cycle))
        return errors.SimError(f"{kt.name}: {detail}")
    return ts._simulate(kt.name, sink, progress, chunk_cycles, fault_exception, {"mode": "trace", "reason": ""})


def run_trace(directory: str | Path, config="gtx1080", overrides: list[str] | None = None,
              allow_unknown: bool = False, sink=None, progress=None, record: str = "off",
              sink_for=None, record_sms: list[int] | None = None, max_cycles: int = 0,
              max_warp_insts: int = 0, sim: TimingSim | None = None) -> TraceRun:
    """Simulate every command of a trace directory (cold caches at the start). With a sink, the
    directory must hold one kernel (a run file records one kernel); sink_for(command) instead gives
    each kernel its own sink (or None), e.g. one run file per kernel. max_cycles / max_warp_insts cap
    the whole run (engine/caps.py; 0: none): past one, LimitExceeded naming the cap and the kernel.
    sim: a TimingSim to run on (flushed first) instead of one built from config, overrides and record."""
    caps = RunCaps(max_cycles, max_warp_insts)
    cmds = read_kernelslist(directory)
    kernels = [c for c in cmds if c.kind == "kernel"]
    if sink is not None and len(kernels) != 1:
        raise errors.SimError(f"{directory}: recording a trace run needs exactly one kernel, it has {len(kernels)}")
    if sink is not None and sink_for is not None:
        raise ValueError("give sink or sink_for, not both")
    if sink is not None:
        sink_for = lambda c: sink                    # noqa: E731
    ts = sim or TimingSim(config, overrides, record=record if sink_for is not None else "off", record_sms=record_sms)
    ts.flush()
    run = TraceRun(str(directory))
    tname = Path(directory).resolve().name           # the recording's workload: trace:<directory>
    t0 = time.perf_counter()
    for c in cmds:
        if c.kind == "memcpy":
            for a, n in memcpy_ranges(c.addr, c.nbytes, ts.config["l2.memcpy_addr_bits"]):
                lib.gs_tsim_fill_l2(ts._ptr, a, n)
            continue
        pcs = None
        ksink = sink_for(c) if sink_for is not None else None
        if ksink is not None:                 # first pass: the PC table the recording's SASS view needs
            with KernelTrace(c.path, allow_unknown) as pre:
                pre.count()
                pcs = pre.pc_table()
        with KernelTrace(c.path, allow_unknown) as kt:
            where = f"kernel {len(run.kernels)} ({kt.name})"
            caps.before(where)
            try:
                res = launch_trace(ts, kt, sink=ksink, progress=progress, pcs=pcs,
                                   meta={"workload": {"name": f"trace:{tname}", "trace": tname,
                                                      "kernel": kt.name}},
                                   **caps.left())
            except errors.LimitExceeded as e:
                raise caps.exceeded(e, where) from None
            caps.spend(res.cycles, res.warp_insts)
            n, names = kt.unknown()
        run.kernels.append(res)
        run.unknown_insts += n
        run.unknown_opcodes += [x for x in names if x not in run.unknown_opcodes]
    run.wall_s = time.perf_counter() - t0
    return run
