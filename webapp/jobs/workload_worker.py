"""The worker process of a workload run: simulates every launch of a gpu-workload/1 bundle in the timing
model (cold caches per launch, as Nsight Compute measured) and writes

  - the workload run file (store/workload_run.py): the launch table, updated after each launch;
  - one ordinary run file per launch chosen for detail (the job's `children`), through the same RunWriter
    as a single-kernel run, so the explorer's per-cycle views open it unchanged.

Started by the manager as `python -m webapp.jobs.workload_worker` with the job as JSON on stdin (see
worker.py for why a fresh interpreter); dies with the server and holds the run's lock as worker.py does."""
from __future__ import annotations

import json
import sys
import traceback


def run_job(job: dict) -> None:
    from engine.workload.bundle import open_bundle
    from engine.workload.replay import run_workload
    from webapp.jobs.worker import _caps, _die_with_parent, _limit_memory, failure, job_folders, load_factory
    from webapp.store.background import BackgroundSink
    from webapp.store.catalogue import hold_lock
    from webapp.store.workload_run import WorkloadRunWriter, launch_metrics
    from webapp.store.writer import RunWriter

    _die_with_parent(job["parent_pid"])
    lock = hold_lock(job["lock"])              # noqa: F841 - held until the process exits
    children = {int(k): v for k, v in (job.get("children") or {}).items()}
    limits = job.get("limits") or {}
    writer = None
    try:
        _limit_memory(limits.get("mem_bytes"))
        with open_bundle(job["bundle"]) as b:
            from webapp.bundles import summarize
            pending = [{"index": L.index, "name": L.name, "kernel": L.kernel, "label": L.label, "op": L.op,
                        "grid": list(L.grid), "block": list(L.block), "hw_cycles": L.hw_cycles_mean,
                        "pending": True, **({"child": children[L.index]["id"]} if L.index in children else {}),
                        **({"gap_ns": L.gap_ns} if L.gap_ns is not None else {}),
                        **({"opaque": True} if L.opaque else {})}
                       for L in b.launches]
            summ = summarize(b)
            writer = WorkloadRunWriter(job["path"], job["info"], {
                "name": b.name, "description": b.description, "config": job["config"],
                "overrides": job["overrides"], "launches": pending, "hardware": summ["hardware"],
                "detail": sorted(children)})
            sim = load_factory(job["factory"])(job)
            cfg = sim.config.to_dict()
            sim = _LiveSim(sim, writer, lambda i: sinks.get(i))
            sinks: dict[int, BackgroundSink] = {}

            def child_info(run, c):
                return {"id": c["id"], "name": c["name"], "workload": job["info"]["workload"],
                        "config": job["config"], "overrides": job["overrides"],
                        "parent": job["run_id"], "launch": run.launch.index, "label": run.launch.label}

            def sink_for(run):
                c = children.get(run.launch.index)
                if c is None:
                    return None
                sinks[run.launch.index] = BackgroundSink(RunWriter(c["path"], child_info(run, c)))
                return sinks[run.launch.index]

            def progress(i, n, run):
                row = run.as_json()
                row.update(launch_metrics(row, cfg))
                if i in children:
                    row["child"] = children[i]["id"]
                    s = sinks.pop(i, None)
                    if s is None:                        # never launched (it did not load, or is opaque)
                        why = run.error or (row.get("note") if run.launch.opaque else "it was not simulated")
                        RunWriter(children[i]["path"], child_info(run, children[i])).fail(
                            f"no timeline was recorded for this launch: {why}")
                    elif not s.closed:                   # the launch raised before its recording ended
                        s.fail(run.error or "the launch ended without finishing its recording")
                writer.launch(i, row)

            # the run's caps (RUN_MAX_CYCLES / RUN_MAX_WARP_INSTS) cover all its launches together: the launch
            # that passes one ends the run as failed with the reason (LimitExceeded, below)
            res = run_workload(b, sim=sim, timed=set(range(len(b.launches))), progress=progress, sink_for=sink_for,
                               **_caps(run_workload, limits))
            d = res.as_json()
            status = "done"
            writer.end(d["summary"], d["outputs"], status,
                       "" if d["outputs_pass"] else "outputs differ from the bundle's or a launch failed")
    except BaseException as e:                 # noqa: BLE001 - any failure is reported in the run file
        traceback.print_exc(file=sys.stderr)
        if writer is not None:
            writer.fail(failure(e, job_folders(job)))
        else:
            from webapp.store.workload_run import WorkloadRunWriter
            try:
                WorkloadRunWriter(job["path"], job["info"], {"name": "?", "launches": []}).fail(
                    failure(e, job_folders(job)))
            except Exception:                  # noqa: BLE001 - the manager's post-mortem marks it failed
                pass


class _LiveSim:
    """The TimingSim, with progress inside each launch: the workload run's progress (cycle, CTAs of the
    launch being simulated, at most every 0.5 s) and the detailed launch's own run file (its live view)."""

    def __init__(self, sim, writer, sink_of):
        self._sim, self._writer, self._sink_of, self._last = sim, writer, sink_of, 0.0

    def __getattr__(self, name):
        return getattr(self._sim, name)

    def launch(self, *args, meta=None, **kw):
        import time
        i = ((meta or {}).get("workload") or {}).get("launch")
        sink = self._sink_of(i)

        def progress(cycle, warp_insts, ctas_done, ctas_total):
            if sink is not None:
                sink.progress(cycle, warp_insts, ctas_done, ctas_total)
            now = time.monotonic()
            if i is not None and now - self._last >= 0.5:
                self._last = now
                self._writer.live(i, cycle, ctas_done, ctas_total)
        return self._sim.launch(*args, meta=meta, progress=progress, **kw)


def main() -> None:
    run_job(json.load(sys.stdin))


if __name__ == "__main__":
    main()
