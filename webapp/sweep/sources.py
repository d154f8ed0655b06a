"""Workload sources of a sweep. Each source is two small functions:

    describe (driver side): arguments -> [Workload], with a payload that carries the workload (its bytes,
                            or for a bundle folder its path) and a digest of the bytes that matter
    run (worker side):      (payload, sim, new_sink, scratch, info) -> Outcome; new_sink(suffix) gives a
                            run-file writer for each kernel it records (one for a case, one per kernel of a
                            trace); a bundle writes one workload run file (its launch table) in scratch

Sources: validation cases (a cases.json and its PTX), gpu-workload/1 bundles (engine/workload) and
Accel-Sim trace directories (engine/traces).
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path

from engine.cases import Case, SuiteError, load_suite

from .spec import SweepError, Workload


def _digest(*parts: bytes) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(len(p).to_bytes(8, "little"))
        h.update(p)
    return h.hexdigest()


# ------------------------------------------------------------------ validation cases
def case_workloads(cases_file: str | Path | None, only: str | None = None) -> list[Workload]:
    """The cases of a cases.json (all, or those named by --only: comma-separated names, * wildcards)."""
    try:
        cases = load_suite(cases_file).select(only, label=str(cases_file) if cases_file else "the validation suite")
    except SuiteError as e:                 # the file unreadable, or a pattern that matches no case: it says which
        raise SweepError(str(e)) from None
    except (OSError, ValueError) as e:                # a malformed case in it
        raise SweepError(f"--cases {cases_file}: {e}") from None
    out = []
    for c in cases:
        try:
            ptx = c.ptx_path.read_bytes()
        except OSError as e:
            raise SweepError(f"case {c.name}: cannot read its PTX: {e}") from None
        entry = json.dumps({k: v for k, v in c.data.items() if k != "ptx"}, sort_keys=True).encode()
        out.append(Workload(id=f"case:{c.name}", name=c.name, kind="case", digest=_digest(b"case", entry, ptx),
                            payload={"case": c.data, "ptx": ptx.decode()}))
    return out


@dataclass
class Outcome:
    """What a source's run function returns: the point's statistics (GPGPU-Sim names, summed over
    launches for a bundle) or the fault that stopped it, and whether the outputs matched."""
    stats: dict | None
    fault: str | None = None
    passed: bool | None = None


def run_case(payload: dict, sim, new_sink, scratch: Path, info: dict) -> Outcome:
    from webapp.store import runfile
    data = dict(payload["case"])
    ptx = scratch / "kernel.ptx"
    ptx.write_text(payload["ptx"])
    data["ptx"] = ptx.name
    sink = new_sink()
    res = sim.run_case(Case(data, scratch), sink=sink)
    con = runfile.connect(sink.path)
    try:
        errs = {k: float(v) for k, v in (res.errors or {}).items()}
        runfile.set_meta(con, check={"passed": res.passed, "errors": errs, "fault": res.fault})
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")     # the file's bytes are the whole run
    finally:
        con.close()
    return Outcome(res.timing.stats if res.timing is not None else None, res.fault, res.passed)


# ------------------------------------------------------------------ gpu-workload/1 bundles
def bundle_workloads(paths: list[str]) -> list[Workload]:
    """Bundles named (folders or archives, or folders of them). An archive travels with the task as bytes
    (the examples are a few hundred kB); a folder travels as its path, which every worker must read
    (a shared filesystem: docs/scaling.md)."""
    try:
        from engine.workload.bundle import BundleError, open_bundle
        from engine.workload.commands import find_bundles
    except ImportError:
        raise SweepError("--workload: gpu-workload/1 bundles are not available in this build") from None
    out = []
    try:
        found = find_bundles(paths)
    except BundleError as e:
        raise SweepError(f"--workload: {e}") from None
    for p in found:
        try:
            with open_bundle(p) as b:
                name, n = b.name, len(b.launches)
        except BundleError as e:
            raise SweepError(f"--workload: {e}") from None
        if p.is_dir():
            files = sorted(q for q in p.rglob("*") if q.is_file())
            digest = _digest(b"bundle", *(part for q in files for part in
                                          (str(q.relative_to(p)).encode(), q.read_bytes())))
            payload = {"path": str(p.resolve()), "launches": n}
        else:
            blob = p.read_bytes()
            digest = _digest(b"bundle", blob)
            payload = {"archive": blob, "suffix": "".join(p.suffixes[-2:]), "launches": n}
        out.append(Workload(id=f"bundle:{name}", name=name, kind="bundle", digest=digest, payload=payload))
    return out


def aggregate(stats: list[dict], clock_mhz: float) -> dict:
    """One launch's statistics from several launches run one after another (each with cold caches, as
    `simtscope run --workload` times them): counts add up, rates are recomputed from the sums."""
    s = lambda k: sum(int(x[k]) for x in stats)                  # noqa: E731
    cyc = s("gpu_sim_cycle")
    out = {"gpu_sim_cycle": cyc, "gpu_sim_insn": s("gpu_sim_insn"), "warp_insts": s("warp_insts"),
           "gpu_tot_sim_time_us": cyc / clock_mhz, "dram_read_bytes": s("dram_read_bytes"),
           "dram_write_bytes": s("dram_write_bytes")}
    out["gpu_ipc"] = out["gpu_sim_insn"] / cyc if cyc else 0.0
    out["warp_ipc"] = out["warp_insts"] / cyc if cyc else 0.0
    l1 = s("L1D_total_hits") + s("L1D_total_misses")
    out["L1D_hit_rate"] = s("L1D_total_hits") / l1 if l1 else 0.0
    l2 = s("L2_total_accesses")
    out["L2_hit_rate"] = s("L2_total_hits") / l2 if l2 else 0.0
    out["gpu_occupancy"] = (sum(x["gpu_occupancy"] * x["gpu_sim_cycle"] for x in stats) / cyc) if cyc else 0.0
    out["stall_cycles"] = {k: sum(int(x["stall_cycles"].get(k, 0)) for x in stats) for k in stats[0]["stall_cycles"]}
    return out


def run_bundle(payload: dict, sim, new_sink, scratch: Path, info: dict) -> Outcome:
    """Every launch timed (cold caches each), into one workload run file (webapp/store/workload_run.py:
    the launch table the explorer's /workload page shows and compares), as the explorer's own workload
    runs are written (webapp/jobs/workload_worker.py), without per-launch timelines."""
    from engine.workload.bundle import open_bundle
    from engine.workload.replay import run_workload
    from webapp.bundles import summarize
    from webapp.store.workload_run import WorkloadRunWriter, launch_metrics
    if "archive" in payload:
        src = scratch / ("bundle" + payload["suffix"])
        src.write_bytes(payload["archive"])
    else:
        src = Path(payload["path"])
    cfg = sim.config.to_dict()
    with open_bundle(src) as b:
        rows = [{"index": L.index, "name": L.name, "kernel": L.kernel, "label": L.label, "op": L.op,
                 "grid": list(L.grid), "block": list(L.block), "hw_cycles": L.hw_cycles_mean, "pending": True}
                for L in b.launches]
        w = WorkloadRunWriter(scratch / "workload.simtrun", info, {
            "name": b.name, "description": b.description, "config": info.get("config"),
            "overrides": info.get("overrides", []), "launches": rows, "hardware": summarize(b)["hardware"],
            "detail": []})

        def progress(i, n, run):
            row = run.as_json()
            row.update(launch_metrics(row, cfg))
            w.launch(i, row)
        try:
            res = run_workload(b, sim=sim, timed=set(range(len(b.launches))), progress=progress)
        except BaseException as e:
            w.fail(f"{type(e).__name__}: {e}")
            raise
    d = res.as_json()
    w.end(d["summary"], d["outputs"], "done",
          "" if d["outputs_pass"] else "outputs differ from the bundle's or a launch failed")
    bad = [r.error for r in res.launches if r.error]
    if bad:
        return Outcome(None, "; ".join(bad)[:2000], False)
    timed = [r.stats for r in res.launches if r.stats]
    return Outcome(aggregate(timed, sim.config["gpu.sm_clock_mhz"]) if timed else None, None, res.outputs_pass)


# ------------------------------------------------------------------ Accel-Sim trace directories
SHIP_LIMIT = 8 << 20        # a trace directory up to this size travels with the task; larger ones by path


def trace_workloads(paths: list[str]) -> list[Workload]:
    """Trace directories (with kernelslist.g), or folders of them. The digest hashes every file's name
    and bytes; small directories travel as bytes, large ones as their path (a shared filesystem)."""
    try:
        from engine.errors import SimError
        from engine.traces.commands import _trace_dirs
        from engine.traces.reader import read_kernelslist
    except ImportError:
        raise SweepError("--trace: Accel-Sim trace directories are not available in this build") from None
    for p in paths:
        if not _trace_dirs([p]):
            raise SweepError(f"--trace {p}: no trace directory here (a folder with kernelslist.g, or folders of them)")
    out = []
    for d in _trace_dirs(paths):
        try:
            kernels = [c for c in read_kernelslist(d) if c.kind == "kernel"]
        except (OSError, ValueError, SimError) as e:           # TraceFormatError is a SimError
            raise SweepError(f"--trace {d}: {e}") from None
        files = sorted(q for q in d.iterdir() if q.is_file())
        blobs = {q.name: q.read_bytes() for q in files}
        digest = _digest(b"trace", *(part for n, b in blobs.items() for part in (n.encode(), b)))
        size = sum(len(b) for b in blobs.values())
        payload = {"files": blobs} if size <= SHIP_LIMIT else {"path": str(d.resolve())}
        payload["kernels"] = len(kernels)
        out.append(Workload(id=f"trace:{d.name}", name=d.name, kind="trace", digest=digest, payload=payload))
    return out


def run_trace_dir(payload: dict, sim, new_sink, scratch: Path, info: dict) -> Outcome:
    from engine.traces.run import run_trace
    if "files" in payload:
        d = scratch / "trace"
        d.mkdir()
        for name, blob in payload["files"].items():
            (d / Path(name).name).write_bytes(blob)
    else:
        d = Path(payload["path"])
    one_thread = sim.config.with_overrides(["sim.threads=1"])           # one process per core already
    res = run_trace(d, one_thread, record="summary", sink_for=lambda c: new_sink(f"kernel {c.path.name}"))
    stats = [k.stats for k in res.kernels]
    return Outcome(aggregate(stats, sim.config["gpu.sm_clock_mhz"]) if stats else None, None, None)


RUNNERS = {"case": run_case, "bundle": run_bundle, "trace": run_trace_dir}
