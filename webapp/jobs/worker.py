"""The worker process: simulates one run and writes its run file. Started by the manager as
`python -m webapp.jobs.worker` with the job as JSON on stdin: a fresh interpreter (the C engine is not
fork-safe, and nothing of the server's state or __main__ is inherited).

The worker dies with the server (PR_SET_PDEATHSIG), holds the run's lock while it lives (so a restarted
server can tell a live run from an interrupted one) and records any failure in the run file."""
from __future__ import annotations

import ctypes
import importlib
import os
import signal
import sys
import traceback

PR_SET_PDEATHSIG = 1


def _die_with_parent(parent_pid: int) -> None:
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except OSError:
        pass                                   # not Linux: the progress check below still stops us
    if os.getppid() != parent_pid:             # the parent died before prctl took effect
        os._exit(3)


def load_factory(spec: str):
    """'package.module:function' -> the function."""
    mod, _, fn = spec.partition(":")
    return getattr(importlib.import_module(mod), fn)


def run_job(job: dict) -> None:
    _die_with_parent(job["parent_pid"])
    from engine.cases import load_suite
    from webapp.store.catalogue import hold_lock
    from webapp.store.background import BackgroundSink
    from webapp.store.writer import RunWriter

    lock = hold_lock(job["lock"])              # noqa: F841 - held until the process exits
    writer = BackgroundSink(RunWriter(job["path"], job["info"]))    # the store's work overlaps the simulation
    parent = job["parent_pid"]

    def progress(cycle, warp_insts, ctas_done, ctas_total):
        if os.getppid() != parent:             # orphaned: stop rather than write for nobody
            os._exit(3)
        writer.progress(cycle, warp_insts, ctas_done, ctas_total)

    try:
        limits = job.get("limits") or {}
        _limit_memory(limits.get("mem_bytes"))
        if job["case"] == "@trace":                # an Accel-Sim trace directory (webapp/workloads.py)
            from engine.traces.run import run_trace
            overrides = list(job.get("overrides") or [])
            if job.get("interval"):
                overrides.append(f"record.interval_cycles={int(job['interval'])}")
            run_trace(job["cases"], job["config"], overrides, sink=writer, progress=progress, record=job["level"],
                      record_sms=job.get("record_sms"), **_caps(run_trace, limits))
            if not writer.closed:
                writer.fail("the simulator returned without ending its recording")
            return
        case = load_suite(job["cases"])[job["case"]]
        sim = load_factory(job["factory"])(job)
        result = sim.run_case(case, sink=writer, progress=progress, **_caps(sim, limits))
        _record_check(job["path"], result)
        if not writer.closed:
            writer.fail("the simulator returned without ending its recording")
    except BaseException as e:                 # noqa: BLE001 - any failure is reported in the run file
        traceback.print_exc(file=sys.stderr)
        if not writer.closed:
            writer.fail(failure(e, job_folders(job)))


def failure(e: BaseException, folders=()) -> str:
    """A run's failure message: the error's class and text (a KernelFault's text already starts with it),
    with any path under the server's folders or `folders` cut to its last component: the message is stored
    in the run file, which a client can download as it is."""
    from webapp.redact import scrub
    text = str(e)
    return scrub(text if text.startswith(type(e).__name__) else f"{type(e).__name__}: {text}", folders)


def job_folders(job: dict) -> tuple[str, ...]:
    """The server's folders a job names: the run store (the run file's folder and the one above it), the
    cases file's and the bundle's folders."""
    from pathlib import Path
    out = []
    for key in ("path", "cases", "bundle"):
        v = job.get(key)
        if isinstance(v, str) and os.path.isabs(v):
            p = Path(v).parent
            out += [str(p), str(p.parent)] if key == "path" else [str(p)]
    return tuple(out)


def _limit_memory(nbytes) -> None:
    """Bound the worker's address space (RLIMIT_AS): past it an allocation fails and the run ends as
    failed with a MemoryError (DeviceOutOfMemory) instead of the machine swapping."""
    if nbytes:
        import resource
        _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        n = int(nbytes) if hard == resource.RLIM_INFINITY else min(int(nbytes), hard)
        resource.setrlimit(resource.RLIMIT_AS, (n, hard))


def _caps(fn, limits: dict) -> dict:
    """The cycle and instruction caps for `fn` (a simulator, whose run_case is called, or a function such
    as run_trace / run_workload), if it takes them (the engine's do: a run past a cap stops with
    LimitExceeded and ends as failed with that reason)."""
    import inspect
    caps = {k: int(limits[k]) for k in ("max_cycles", "max_warp_insts") if limits.get(k)}
    params = inspect.signature(getattr(fn, "run_case", fn)).parameters
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return caps
    return {k: v for k, v in caps.items() if k in params}


def _record_check(path: str, result) -> None:
    """Store whether the simulated outputs matched the case's reference (runner.CaseRun), if known."""
    passed = getattr(result, "passed", None)
    if result is None or not hasattr(result, "passed"):
        return
    from webapp.store import runfile
    con = runfile.connect(path)
    try:
        runfile.set_meta(con, check={"passed": passed, "errors": {k: float(v) for k, v in (result.errors or {}).items()},
                                     "fault": getattr(result, "fault", None)})
    finally:
        con.close()


def main() -> None:
    import json
    run_job(json.load(sys.stdin))


if __name__ == "__main__":
    main()
