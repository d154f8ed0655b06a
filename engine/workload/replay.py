"""Simulating a gpu-workload/1 bundle: every launch in order on one simulated device.

    with open_bundle(path) as b:
        res = run_workload(b, sim=TimingSim("h200"), timed=parse_launches("3,7-9", len(b.launches)))
        print(format_table(res)); json.dump(res.as_json(), ...)

Launches in `timed` run in the timing model, each with cold caches (as Nsight Compute's --cache-control all
measured them); the others run in the functional core only (fast-forward). Without a TimingSim every launch
is functional. The buffers are made first; each launch is prepared (module, kernel, argument counts) as the
run comes to it, its module lowered ahead on another thread when the simulator has several (WorkloadRunner):
a launch that cannot even be prepared (its PTX does not load, its arguments do not match its entry) is
reported with its error and skipped; the others still run. Outputs are checked after the last launch.
"""
from __future__ import annotations

import os
import re
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .. import errors
from ..caps import RunCaps
from ..device import Device, Kernel
from ..measured import comparison
from ..ptx import load as ptx_load
from .bundle import DTYPES, Bundle, BundleError, Launch, Output, bf16_bits_to_f32

# GIL switch interval while a WorkloadRunner lowers modules on its own thread (seconds)
SWITCH_S = 2e-4

# a launch's dominant stall excludes these (they are not stalls)
_NOT_STALLS = {"idle", "done", "selected"}


@dataclass
class LaunchRun:
    launch: Launch
    timed: bool
    warp_insts: int = 0
    sim_cycles: int | None = None
    stats: dict | None = None
    wall_s: float = 0.0
    error: str | None = None

    @property
    def hw_cycles(self) -> float | None:
        return self.launch.hw_cycles_mean

    @property
    def err(self) -> float | None:
        if self.sim_cycles is None or not self.hw_cycles:
            return None
        return (self.sim_cycles - self.hw_cycles) / self.hw_cycles

    @property
    def dominant_stall(self) -> str | None:
        if not self.stats:
            return None
        cand = {k: v for k, v in self.stats["stall_cycles"].items() if k not in _NOT_STALLS and v > 0}
        return max(cand, key=cand.get) if cand else None

    def as_json(self) -> dict:
        L = self.launch
        d = {"index": L.index, "name": L.name, "kernel": L.kernel, "label": L.label, "op": L.op,
             "grid": list(L.grid), "block": list(L.block), "shared_bytes": L.shared_bytes,
             "timed": self.timed, "sim_cycles": self.sim_cycles, "hw_cycles": self.hw_cycles,
             "warp_insts": self.warp_insts, "wall_s": round(self.wall_s, 6)}
        if self.err is not None:
            d["err"] = self.err
        if self.stats:
            st = self.stats
            d.update(ipc=st["warp_ipc"], dram_bytes=st["dram_read_bytes"] + st["dram_write_bytes"],
                     l2_hit_rate=st["L2_hit_rate"], l1_hit_rate=st["L1D_hit_rate"],
                     dominant_stall=self.dominant_stall, time_us=st["gpu_tot_sim_time_us"],
                     occupancy_warps_per_sm=st["occupancy_warps_per_sm"],
                     stalls_per_issue=st["stalls_per_issue"], timing_mode=st.get("timing_mode"))
            if st.get("timing_mode_reason"):
                d["timing_mode_reason"] = st["timing_mode_reason"]
            if st.get("sass_warp_insts") is not None:
                d["sim_sass_warp_insts"] = st["sass_warp_insts"]
        if hw_sass(L) is not None:
            d["hw_sass_warp_insts"] = hw_sass(L)
        if L.gap_ns is not None:
            d["gap_ns"] = L.gap_ns
        if L.opaque:
            d["opaque"] = True
            if L.measured.get("ns"):
                d["opaque_ns"] = L.measured["ns"]
            d["note"] = opaque_note(L)
        if self.error:
            d["error"] = self.error
        return d


def opaque_note(L: Launch) -> str:
    """What an opaque launch is, for the table and the JSON."""
    m = L.measured
    t = ""
    if m.get("ns"):
        t = f"; measured {m['ns'] / 1000:.2f} µs"
        if m.get("cycles"):
            t += f" = {m['cycles']:,.0f} cycles at {m.get('clock_mhz', 0):.0f} MHz"
    elif L.hw_cycles_mean:
        t = f"; measured {L.hw_cycles_mean:,.0f} cycles"
    return f"opaque launch (no PTX: {L.name[:100]}): not simulated, its measured time counts in the totals{t}"


@dataclass
class OutputCheck:
    output: Output
    passed: bool
    error: float
    message: str = ""


@dataclass
class WorkloadResult:
    name: str
    launches: list[LaunchRun]
    outputs: list[OutputCheck] = field(default_factory=list)
    wall_s: float = 0.0
    config: str | None = None
    measured: dict | None = None       # engine/measured.comparison: whether err is the model's error

    @property
    def outputs_pass(self) -> bool:
        return all(o.passed for o in self.outputs) and not any(r.error for r in self.launches)

    def summary(self) -> dict:
        """Totals. An opaque launch is not simulated: its measured cycles count in both sim_cycles and
        hw_cycles (opaque_cycles says how many), never in err_total or mae_launch."""
        timed = [r for r in self.launches if r.sim_cycles is not None]
        both = [r for r in timed if r.hw_cycles]
        opaque = [r for r in self.launches if r.launch.opaque]
        opaque_cycles = sum(r.hw_cycles or 0 for r in opaque)
        sim = sum(r.sim_cycles for r in timed) + round(opaque_cycles) if timed else None
        hw_all = [r.hw_cycles for r in self.launches if r.hw_cycles]
        s_both, h_both = sum(r.sim_cycles for r in both), sum(r.hw_cycles for r in both)
        gaps = [r.launch.gap_ns for r in self.launches if r.launch.gap_ns is not None]
        return {"launches": len(self.launches), "timed": len(timed),
                "errors": sum(1 for r in self.launches if r.error),
                "opaque": len(opaque), "opaque_cycles": opaque_cycles if opaque else None,
                "gaps_ns": sum(gaps) if gaps else None,
                "sim_cycles": sim, "hw_cycles": sum(hw_all) if hw_all else None,
                "err_total": (s_both - h_both) / h_both if both else None,
                "mae_launch": float(np.mean([abs(r.err) for r in both])) if both else None,
                "warp_insts": sum(r.warp_insts for r in self.launches),
                "timing_modes": timing_modes(self.launches),
                "mae_sass_warp_insts": _mae_sass(both),
                "measured": self.measured,
                "outputs_pass": self.outputs_pass}

    def as_json(self) -> dict:
        return {"workload": self.name, "config": self.config,
                "launches": [r.as_json() for r in self.launches],
                "outputs_pass": self.outputs_pass,
                "outputs": [{"buffer": o.output.buffer, "dtype": o.output.dtype, "shape": list(o.output.shape),
                             "passed": o.passed, "error": o.error, **({"message": o.message} if o.message else {})}
                            for o in self.outputs],
                "summary": self.summary(), "wall_s": round(self.wall_s, 6)}


def hw_sass(L: Launch) -> float | None:
    """ncu's SASS warp instructions of the launch (the bundle's hardware.launches[i].sass_warp_insts), if a
    positive number."""
    v = L.hw.get("sass_warp_insts")
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 else None


def timing_modes(runs: list[LaunchRun]) -> dict[str, int]:
    """How many timed launches were timed with SASS costs and how many as PTX (docs/sass.md)."""
    modes = [r.stats.get("timing_mode") for r in runs if r.stats]
    return {m: modes.count(m) for m in ("sass", "ptx")}


def _mae_sass(runs: list[LaunchRun]) -> float | None:
    """Mean |error| of the SASS warp instructions the simulated PTX stands for against ncu's count."""
    errs = [abs(r.stats["sass_warp_insts"] - hw_sass(r.launch)) / hw_sass(r.launch)
            for r in runs if r.stats and r.stats.get("sass_warp_insts") and hw_sass(r.launch) is not None]
    return float(np.mean(errs)) if errs else None


_SPEC_RE = re.compile(r"^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$")


def parse_launches(spec: str | None, n: int) -> set[int]:
    """`3,7-9` -> {3, 7, 8, 9}; None or 'all' -> every launch. Indices outside 0..n-1 are an error."""
    if spec is None or spec.strip() in ("", "all"):
        return set(range(n))
    if spec.strip() == "none":
        return set()
    out: set[int] = set()
    for part in spec.split(","):
        m = _SPEC_RE.match(part)
        if not m:
            raise ValueError(f"--launches: {part.strip()!r} is not an index or a range like 7-9")
        a = int(m.group(1))
        b = int(m.group(2)) if m.group(2) is not None else a
        if b < a or b >= n:
            raise ValueError(f"--launches: {part.strip()} is outside 0..{n - 1} (the bundle has {n} launches)")
        out.update(range(a, b + 1))
    return out


@dataclass
class _Prepared:
    kernel: Kernel | None
    args: list
    error: str | None = None


_switch_lock = threading.Lock()
_switch_users = [0, 0.0]       # runners lowering on a thread now, the interval before the first


def _short_switch(d: int) -> None:
    """The GIL switch interval is SWITCH_S while any runner of the process lowers modules on its thread."""
    with _switch_lock:
        if d > 0 and _switch_users[0] == 0:
            _switch_users[1] = sys.getswitchinterval()
            sys.setswitchinterval(min(_switch_users[1], SWITCH_S))
        _switch_users[0] += d
        if d < 0 and _switch_users[0] == 0:
            sys.setswitchinterval(_switch_users[1])


def _yielding() -> None:
    """The lowering thread gives way to the simulation threads for the processor (Linux: a thread's own nice
    value). With as many simulation threads as cores, a third runnable thread takes a core from one of them
    at times, and the others then wait for it at the end of every quantum; at the lowest priority it runs
    while they wait for the run's thread (between launches) or when the run needs its module now (the run's
    thread then waits for it, so it has a core). Only speed depends on it."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
    except (AttributeError, OSError):
        pass


class WorkloadRunner:
    """Holds one bundle on one device: buffers allocated and filled, then each launch prepared (its module
    loaded on first use, its kernel found, its arguments packed) when run_workload comes to it (prepare) or
    all at once (prepared).

    With a TimingSim `sim`, a module whose first launch is in `timed` is lowered as that simulator times it
    (TimingSim.prepare_ptx: its order, unrolled loops and SASS costs, once) rather than in the latency order
    and again at its first launch. With `background`, the modules are lowered in order of first use on
    another thread (pure Python, no device: it runs while the engine simulates the launches before, with the
    GIL released) and bound when their first launch comes. Device memory is allocated in the same order
    either way (buffers, then each launch's module globals and scratch, launch by launch), and the programs
    are the same, so results do not depend on it."""

    def __init__(self, bundle: Bundle, device: Device, sim=None, timed: set[int] | None = None,
                 background: bool = False):
        self.bundle, self.device, self.sim = bundle, device, sim
        self.addr: dict[str, int] = {}
        self.scratch: list[int] = []
        self.modules: dict[str, object] = {}
        self.module_errors: dict[str, str] = {}
        self._done: dict[int, _Prepared] = {}
        # each module's first launch decides how it is lowered (as sass_mode would leave it after that launch)
        timed = timed or set()
        self._for_sim: dict[str, bool] = {}
        for L in bundle.launches:
            if not L.opaque and L.ptx not in self._for_sim:
                self._for_sim[L.ptx] = sim is not None and L.index in timed
        self._pool = self._jobs = self._switch = None
        for bid, buf in bundle.buffers.items():
            a = device.malloc(max(buf.bytes, 1))
            data = bundle.buffer_bytes(bid)
            if data is not None and len(data):
                device.write(a, np.frombuffer(data, np.uint8))
            self.addr[bid] = a
        # the lowering thread starts once the buffers are filled: before, it shared the GIL with the filling, which
        # took resnet18_b1's 0.12 s to 1 s, so that no launch began before nearly every module was lowered
        if background and self._for_sim:
            # the run's thread takes the GIL back within this when it returns from the engine (Python's
            # default, 5 ms, would hold up each return while the lowering thread runs)
            _short_switch(+1)
            self._switch = True
            self._pool = ThreadPoolExecutor(1, thread_name_prefix="simtscope-lower", initializer=_yielding)
            self._jobs = {rel: self._pool.submit(self._lower, rel) for rel in self._for_sim}

    def _lower(self, rel: str):
        """The module's program (pure Python: any thread)."""
        text = self.bundle.ptx_text(rel)
        return self.sim.prepare_ptx(text, rel) if self._for_sim[rel] else ptx_load(text, rel)

    def _module(self, rel: str):
        if rel not in self.modules and rel not in self.module_errors:
            try:
                job = self._jobs.pop(rel, None) if self._jobs is not None else None
                prog = job.result() if job is not None else self._lower(rel)
                self.modules[rel] = (self.sim.adopt(self.device, prog) if self._for_sim[rel]
                                     else self.device.add_module(prog))
            except (errors.PTXError, errors.SimError) as e:
                self.module_errors[rel] = str(e)
        return self.modules.get(rel)

    def prepare(self, i: int) -> _Prepared:
        """Launch i made ready to run: every launch before it must have been prepared."""
        if i not in self._done:
            self._done[i] = self._prepare(self.bundle.launches[i])
        return self._done[i]

    @property
    def prepared(self) -> list[_Prepared]:
        """Every launch prepared (in order)."""
        return [self.prepare(i) for i in range(len(self.bundle.launches))]

    def close(self) -> None:
        """Stops the lowering thread (a module it is lowering is finished first)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        if self._switch:
            self._switch = None
            _short_switch(-1)

    def _prepare(self, L: Launch) -> _Prepared:
        where = f"launch {L.index} ({L.kernel})"
        if L.opaque:
            return _Prepared(None, [])                   # not simulated (run_workload skips it)
        mod = self._module(L.ptx)
        if mod is None:
            return _Prepared(None, [], f"{where}: {self.module_errors[L.ptx]}")
        try:
            kernel = mod.kernel(L.kernel)
        except KeyError as e:
            return _Prepared(None, [], f"{where}: {e.args[0]}")
        if len(kernel.params) != len(L.args):
            return _Prepared(None, [], f"{where}: the bundle gives {len(L.args)} argument(s), entry {L.kernel} in "
                                       f"{L.ptx} takes {len(kernel.params)}")
        args = []
        for j, (a, p) in enumerate(zip(L.args, kernel.params)):
            if a.kind == "buffer":
                args.append(self.addr[a.buffer] + a.offset)
            elif a.kind == "value":
                args.append(a.value)
            elif a.scratch_bytes_per_cta:
                s = self.device.malloc(a.scratch_bytes_per_cta * L.ctas)
                self.scratch.append(s)
                args.append(s)
            else:
                args.append(0)
            if p.size != 8 and a.kind in ("buffer", "scratch"):
                return _Prepared(None, [], f"{where}: argument {j} is a pointer but parameter {p.name} is "
                                           f"{p.size} bytes")
        try:
            self.device.pack_params(kernel, args)
        except errors.LaunchError as e:
            return _Prepared(None, [], f"{where}: {e}")
        return _Prepared(kernel, args)

    def check_outputs(self) -> list[OutputCheck]:
        return [check_output(self.bundle, self.device, self.addr[o.buffer], o) for o in self.bundle.outputs]


def _as_float(raw: np.ndarray, dtype: str) -> np.ndarray:
    if dtype == "bf16":
        return bf16_bits_to_f32(raw.view(np.uint16)).astype(np.float64)
    return raw.astype(np.float64)


def check_output(bundle: Bundle, device: Device, base: int, o: Output) -> OutputCheck:
    """The format's rule: ||got - exp||2 / ||exp||2 over finite expected values; tol 0 is exact."""
    dt = np.dtype(DTYPES[o.dtype])
    got_bytes = device.read(base + o.offset, o.extent_bytes)
    exp_bytes = bundle.expect_bytes(o)
    if o.extent_bytes == 0:
        return OutputCheck(o, True, 0.0)
    shape, strides = o.shape, tuple(s * dt.itemsize for s in o.stride)
    got = np.lib.stride_tricks.as_strided(np.frombuffer(got_bytes, dt), shape, strides)
    exp = np.lib.stride_tricks.as_strided(np.frombuffer(exp_bytes, dt), shape, strides)
    if o.tol == 0 or o.dtype in ("i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "bool"):
        bad = int(np.count_nonzero(got != exp))
        return OutputCheck(o, bad == 0, float(bad), f"{bad} element(s) differ" if bad else "")
    g, e = _as_float(got, o.dtype), _as_float(exp, o.dtype)
    fin = np.isfinite(e)
    if not np.all(np.isfinite(g[fin])):
        return OutputCheck(o, False, float("inf"), "non-finite values where finite ones were expected")
    den = float(np.linalg.norm(e[fin]))
    err = float(np.linalg.norm(g[fin] - e[fin]) / (den if den > 0 else 1.0))
    return OutputCheck(o, err <= o.tol, err)


def run_workload(bundle: Bundle, sim=None, timed: set[int] | None = None, device: Device | None = None,
                 progress: Callable[[int, int, LaunchRun], None] | None = None,
                 sink_for: Callable[[LaunchRun], object] | None = None,
                 max_warp_insts: int = 0, max_cycles: int = 0) -> WorkloadResult:
    """Run every launch in order. sim: a engine.timing.TimingSim (None: functional only); timed: launch
    indices simulated cycle by cycle (default all when sim is given); sink_for(run) may return a recorder
    sink for a timed launch; progress(i, n, run) is called after each launch. max_warp_insts / max_cycles
    cap the whole run (engine/caps.py; 0: no cap): the launch that passes one ends the run with
    LimitExceeded naming the cap and the launch (progress has seen that launch, with its error)."""
    caps = RunCaps(max_cycles, max_warp_insts)
    t0 = time.perf_counter()
    dev = sim.device if sim is not None else (device or Device())
    n = len(bundle.launches)
    timed = set(range(n)) if timed is None and sim is not None else (timed or set())
    if sim is None and timed:
        raise ValueError("timed launches need a TimingSim")
    background = sim is not None and sim.threads > 1     # (one thread: everything on it, in order)
    runner = WorkloadRunner(bundle, dev, sim, timed, background)
    runs: list[LaunchRun] = []
    try:
        for L in bundle.launches:
            prep = runner.prepare(L.index)
            run = LaunchRun(L, L.index in timed and not L.opaque)
            runs.append(run)
            if L.opaque:
                pass                                     # measured time only: nothing to simulate
            elif prep.error:
                run.error = prep.error
            else:
                try:
                    _run_one(run, prep, dev, sim, sink_for, caps)
                except errors.LimitExceeded as e:
                    run.error = str(e)
                    if progress:
                        progress(L.index, n, run)
                    raise
            if progress:
                progress(L.index, n, run)
        outputs = runner.check_outputs()
        if any(L.opaque for L in bundle.launches):
            for o in outputs:
                if not o.passed:
                    o.message = "; ".join(x for x in (o.message, "the bundle has opaque launches (not simulated): "
                                                      "what they wrote after a buffer's first use is missing") if x)
    finally:
        runner.close()
        for a in list(runner.addr.values()) + runner.scratch:
            dev.free(a)
    against = None
    if sim is not None and any(r.hw_cycles for r in runs):
        against = comparison(sim.config, bundle.hardware.get("device"))
    return WorkloadResult(bundle.name, runs, outputs, time.perf_counter() - t0,
                          sim.config.name if sim is not None else None, against)


def _run_one(run: LaunchRun, prep: _Prepared, dev: Device, sim, sink_for, caps: RunCaps) -> None:
    """One launch; its error is recorded in run.error, except a run cap passed (raised: the run ends)."""
    L = run.launch
    t = time.perf_counter()
    where = f"launch {L.index} ({L.kernel})"
    caps.before(where, run.timed)
    try:
        if run.timed:
            sim.flush()                                  # cold caches, as ncu --cache-control all
            sink = sink_for(run) if sink_for else None
            res = sim.launch(prep.kernel, L.grid, L.block, prep.args, shared=L.shared_bytes, sink=sink,
                             meta={"workload": {"launch": L.index, "kernel": L.kernel, "label": L.label}},
                             **caps.left())
            run.stats, run.sim_cycles, run.warp_insts = res.stats, res.cycles, res.warp_insts
        else:
            res = dev.launch(prep.kernel, L.grid, L.block, prep.args, shared=L.shared_bytes,
                             **caps.left(timed=False))
            run.warp_insts = res.warp_insts
        caps.spend(run.sim_cycles, run.warp_insts)
    except errors.LimitExceeded as e:
        run.wall_s = time.perf_counter() - t
        raise caps.exceeded(e, where) from None
    except (errors.SimError, errors.PTXError) as e:
        run.error = f"{where}: {e}"
    run.wall_s = time.perf_counter() - t


def format_table(res: WorkloadResult) -> str:
    """Per-launch table and totals, as `simtscope run --workload` prints it."""
    head = (f"{'#':>3s} {'label':38s} {'grid':>12s} {'warp insts':>11s} {'sim cyc':>9s} {'hw cyc':>9s} "
            f"{'err':>7s} {'IPC':>6s} {'DRAM MB':>8s} {'L2 hit':>6s}  top stall")
    lines = [f"workload {res.name}" + (f" on {res.config}" if res.config else " (functional)"), head]
    for r in res.launches:
        L = r.launch
        grid = "x".join(str(g) for g in L.grid if g > 1) or "1"
        label = (L.label if len(L.label) <= 38 else L.label[:35] + "...")
        sim = f"{r.sim_cycles:9,d}" if r.sim_cycles is not None else f"{'opaque' if L.opaque else '-':>9s}"
        hw = f"{r.hw_cycles:9,.0f}" if r.hw_cycles else f"{'-':>9s}"
        err = f"{100 * r.err:+6.1f}%" if r.err is not None else f"{'':>7s}"
        if r.stats:
            st = r.stats
            extra = (f"{st['warp_ipc']:6.2f} {(st['dram_read_bytes'] + st['dram_write_bytes']) / 1e6:8.2f} "
                     f"{st['L2_hit_rate']:6.2f}  {r.dominant_stall or '-'}")
        else:
            extra = f"{'':6s} {'':8s} {'':6s}"
        lines.append(f"{L.index:3d} {label:38s} {grid:>12s} {r.warp_insts:11,d} {sim} {hw} {err} {extra}")
        if L.opaque:
            lines.append(f"    {opaque_note(L)}")
        if r.error:
            lines.append(f"    error: {r.error}")
    s = res.summary()
    tot = (f"total: {s['launches']} launches, {s['timed']} timed, {s['warp_insts']:,d} warp insts")
    if s["sim_cycles"] is not None:
        tot += f", sim {s['sim_cycles']:,.0f} cycles"
        if s["opaque"]:
            tot += f" (incl. {s['opaque']} opaque launch(es): {s['opaque_cycles'] or 0:,.0f} measured cycles)"
    elif s["opaque"]:
        tot += f", {s['opaque']} opaque launch(es) not simulated"
    if s["hw_cycles"]:
        tot += f", hw {s['hw_cycles']:,.0f} cycles"
    if s["err_total"] is not None:
        tot += f", error {100 * s['err_total']:+.1f}% total, MAE {100 * s['mae_launch']:.1f}% per launch"
        if s["measured"] and not s["measured"]["comparable"]:
            tot += f" (not the model's error: {s['measured']['why']})"
    if s["gaps_ns"] is not None:
        tot += f", measured gaps between launches {s['gaps_ns'] / 1000:,.1f} µs"
    lines.append(tot)
    if s["timed"]:
        lines.append(mode_line(res.launches, s))
    for o in res.outputs:
        lines.append(f"output {o.output.buffer} {o.output.dtype}{list(o.output.shape)}: "
                     f"{'PASS' if o.passed else 'FAIL'} (error {o.error:.3g}{'; ' + o.message if o.message else ''})")
    lines.append(f"outputs {'PASS' if res.outputs_pass else 'FAIL'}   wall {res.wall_s:.2f} s")
    return "\n".join(lines)


def mode_line(runs: list[LaunchRun], s: dict) -> str:
    """`timing: ...`: how the timed launches were timed (SASS costs or PTX, and why not SASS)."""
    m = s["timing_modes"]
    line = f"timing: {m['sass']} launch(es) with SASS costs, {m['ptx']} as PTX"
    if s.get("mae_sass_warp_insts") is not None:
        line += f"; SASS warp instructions: MAE {100 * s['mae_sass_warp_insts']:.1f}% against ncu"
    reasons = sorted({r.stats.get("timing_mode_reason") for r in runs
                      if r.stats and r.stats.get("timing_mode") == "ptx" and r.stats.get("timing_mode_reason")})
    if reasons:
        line += " (PTX: " + "; ".join(reasons) + ")"
    return line
