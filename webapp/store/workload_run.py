"""A workload run's file: the launch table of one simulated bundle (no timeline of its own).

    w = WorkloadRunWriter(path, info, bundle_meta)      # status running, every launch row pending
    w.launch(i, row)                                    # after each launch (live progress: launch i of n)
    w.end(summary, outputs, status)                     # done | failed

The file is an ordinary run file (same SQLite meta table and format as webapp/store/writer.py, so the
catalogue lists it, syncs its status, downloads it and recovers it after a crash) with `kind` = "workload"
and no chunks. Its meta key `workload` holds {name, description, config, launches: [row...], summary,
outputs, hardware}. A row is replay.LaunchRun.as_json() plus `child` (the run id of the launch's recorded
timeline when the user chose full detail for it, else absent) and `compute_util`, `dram_util`, `bound`
(launch_metrics below). docs/explorer.md describes the design.
"""
from __future__ import annotations

import time
from pathlib import Path

from . import runfile
from .layout import FORMAT

# Nsight Compute's Speed-of-Light rule: a kernel whose compute and memory throughput are both below 60 % of
# peak "typically indicates latency issues"; above it, the larger of the two bounds the kernel.
SOL_LATENCY = 0.60


def launch_metrics(row: dict, cfg: dict) -> dict:
    """Throughput of one timed launch as fractions of the config's peaks, and what bounds it.

    compute_util: warp instructions issued / (cycles x SMs x schedulers per SM), the issue-slot share;
    dram_util: DRAM bytes / (cycles x the config's DRAM bytes per SM cycle). cfg is Config.to_dict()."""
    cyc = row.get("sim_cycles")
    if not cyc:
        return {}
    sms, sched = cfg["gpu"]["num_sms"], cfg["sm"]["subcores"]
    bytes_per_cycle = cfg["dram"]["bandwidth_gbps"] * 1e9 / (cfg["gpu"]["sm_clock_mhz"] * 1e6)
    comp = row["warp_insts"] / (cyc * sms * sched)
    mem = (row.get("dram_bytes") or 0) / (cyc * bytes_per_cycle)
    if max(comp, mem) < SOL_LATENCY:
        bound = "latency"
    else:
        bound = "compute" if comp >= mem else "memory"
    return {"compute_util": comp, "dram_util": mem, "bound": bound}


class WorkloadRunWriter:
    def __init__(self, path: str | Path, info: dict, workload: dict):
        self.path = Path(path)
        if self.path.exists():
            raise FileExistsError(f"run file {self.path} already exists")
        self.workload = workload
        self.n = len(workload["launches"])
        self.t0 = time.time()
        self.con = runfile.connect(self.path)
        runfile.set_meta(self.con, format=FORMAT, kind="workload", status="running", created=self.t0,
                         started=self.t0, info=info, workload=workload, end_cycle=0,
                         progress={"launch": 0, "launches": self.n, "cycle": 0, "warp_insts": 0})
        self.closed = False

    def launch(self, i: int, row: dict) -> None:
        self.workload["launches"][i] = row
        rows = self.workload["launches"]
        cyc = sum(r.get("sim_cycles") or 0 for r in rows)
        insts = sum(r.get("warp_insts") or 0 for r in rows)
        runfile.set_meta(self.con, workload=self.workload, end_cycle=cyc,
                         progress={"launch": i + 1, "launches": self.n, "cycle": cyc, "warp_insts": insts,
                                   "wall_s": round(time.time() - self.t0, 3)})

    def live(self, i: int, cycle: int, ctas_done: int, ctas_total: int) -> None:
        """Progress inside launch i (the simulator's progress callback, throttled by the caller)."""
        done = sum(r.get("sim_cycles") or 0 for r in self.workload["launches"][:i])
        runfile.set_meta(self.con, progress={"launch": i, "launches": self.n, "cycle": done + int(cycle),
                                             "launch_cycle": int(cycle), "ctas_done": int(ctas_done),
                                             "ctas_total": int(ctas_total),
                                             "wall_s": round(time.time() - self.t0, 3)})

    def end(self, summary: dict, outputs: list, status: str = "done", message: str = "") -> None:
        self.workload.update(summary=summary, outputs=outputs)
        cyc = summary.get("sim_cycles") or 0
        runfile.set_meta(self.con, workload=self.workload, status=status, message=message, finished=time.time(),
                         end_cycle=cyc, stats={"gpu_sim_cycle": cyc, "warp_insts": summary.get("warp_insts"),
                                               **summary},
                         progress={"launch": self.n, "launches": self.n, "cycle": cyc, "done": True,
                                   "warp_insts": summary.get("warp_insts")})
        self._close()

    def fail(self, message: str, status: str = "failed") -> None:
        if self.closed:
            return
        runfile.set_meta(self.con, status=status, message=message, finished=time.time())
        self._close()

    def _close(self) -> None:
        self.closed = True
        self.con.close()


def read_workload(path: str | Path) -> dict:
    """The meta of a workload run file: {status, message, progress, info, workload, ...}; ValueError when
    the file is not a workload run."""
    meta = runfile.read_meta(path)
    if meta.get("kind") != "workload":
        raise ValueError(f"{Path(path).name} is a single-kernel run, not a workload run")
    return meta
