"""One point of a sweep, as a Dask worker runs it: a timing run recorded at summary level.

The run file is written in the worker's scratch folder and its bytes come back with the results row;
the driver (the only writer of the run store) adds it to the catalogue. So a worker needs no access to
the run store, and a worker killed mid-point leaves nothing half-written in it: Dask runs the point
again elsewhere and only a finished run file ever reaches the store.
"""
from __future__ import annotations

import shutil
import tempfile
import time
import traceback
from pathlib import Path

from engine.recording import WARP_STATES

NOT_STALLS = ("idle", "done", "selected")
STALLS = [s for s in WARP_STATES if s not in NOT_STALLS]
METRICS = ["sim_cycles", "time_us", "ipc", "warp_ipc", "warp_insts", "dram_read_bytes", "dram_write_bytes",
           "dram_bytes", "l1_hit_rate", "l2_hit_rate", "occupancy"]


def row_from_stats(st: dict) -> dict:
    """The results-table columns of one timing run (GPGPU-Sim-named stats -> short names). stall_<state>
    is that state's share of the warp-cycles spent stalled (Nsight Compute's warp-state mix)."""
    stalls = st.get("stall_cycles") or {}
    total = sum(int(stalls.get(s, 0)) for s in STALLS)
    row = {"sim_cycles": int(st["gpu_sim_cycle"]), "time_us": float(st["gpu_tot_sim_time_us"]),
           "ipc": float(st["gpu_ipc"]), "warp_ipc": float(st["warp_ipc"]), "warp_insts": int(st["warp_insts"]),
           "dram_read_bytes": int(st["dram_read_bytes"]), "dram_write_bytes": int(st["dram_write_bytes"]),
           "dram_bytes": int(st["dram_read_bytes"]) + int(st["dram_write_bytes"]),
           "l1_hit_rate": float(st["L1D_hit_rate"]), "l2_hit_rate": float(st["L2_hit_rate"]),
           "occupancy": float(st.get("gpu_occupancy", 0.0))}
    row.update({f"stall_{s}": (int(stalls.get(s, 0)) / total if total else 0.0) for s in STALLS})
    return row


def _scratch_root() -> str | None:
    try:
        from distributed import get_worker
        return get_worker().local_directory          # cleaned by Dask with the worker's folder
    except (ImportError, ValueError):
        return None                                  # not on a Dask worker: the system's temp folder


def run_point(task: dict) -> dict:
    """task: key, kind, payload, config (resolved engine.config.Config), info (the run's catalogue info).
    Returns {key, status, message, row, wall_s, runs: [bytes of each run file]}: one kernel run for a case,
    one per kernel for a trace, one workload run (the launch table) for a bundle."""
    from engine.timing import TimingSim
    from webapp.store.writer import RunWriter

    from .sources import RUNNERS

    scratch = Path(tempfile.mkdtemp(prefix="simtscope-point-", dir=_scratch_root()))
    t0 = time.perf_counter()
    out = {"key": task["key"], "status": "failed", "message": "", "row": {}, "runs": []}
    writers: list[tuple[Path, RunWriter]] = []

    def new_sink(suffix: str = "") -> RunWriter:
        path = scratch / f"run{len(writers)}.simtrun"
        info = dict(task["info"])
        if suffix:
            info["name"] = f"{info.get('name', '')} · {suffix}"
        w = RunWriter(path, info)
        writers.append((path, w))
        return w

    try:
        try:
            sim = TimingSim(task["config"], record="summary", threads=1)   # one process per core already
            res = RUNNERS[task["kind"]](task["payload"], sim, new_sink, scratch, task["info"])
        except Exception as e:                       # noqa: BLE001 - one bad point must not stop a sweep
            traceback.print_exc()
            out["message"] = f"{type(e).__name__}: {e}"
        else:
            if res.fault:
                out.update(status="faulted", message=res.fault)
            elif res.stats is not None:
                out.update(status="done", row=row_from_stats(res.stats), passed=res.passed)
        for path, w in writers:
            if not w.closed:
                w.fail(out["message"] or "the simulator returned without ending its recording")
            out["runs"].append(path.read_bytes())
        own = {path for path, _ in writers}           # then run files a source wrote itself (a workload run)
        out["runs"] += [q.read_bytes() for q in sorted(scratch.glob("*.simtrun")) if q not in own]
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    out["wall_s"] = time.perf_counter() - t0
    return out
