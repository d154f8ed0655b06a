"""Run a sweep on Dask distributed: one task per (workload, configuration) point.

    summary = run_sweep(spec, data_dir="instance", workers=2)            # a LocalCluster of 2 processes
    summary = run_sweep(spec, data_dir, scheduler="tcp://host:8786")     # an existing cluster

Why Dask: its scheduler already does what a sweep needs and would otherwise be hand-written: worker
processes on one machine or many behind one address, a task re-run elsewhere when its worker dies
(the nanny restarts the worker), data moved between workers, and futures completed in any order.

Each workload's payload is itself a tiny task (`_payload`), so it travels to the scheduler once, to each
worker at most once (from a peer that has it), and is recomputed from the graph if the worker holding it
dies (a scattered value would be lost with it). Points already done (same key, run still in the store)
are skipped; the others are submitted, and each finished point is stored as it arrives, so a sweep
stopped at any moment resumes where it was.

`python -m webapp.sweep.driver` runs a sweep described as JSON on stdin (the explorer starts small
sweeps this way, in a process of their own).
"""
from __future__ import annotations

import contextlib
import json
import logging
import os
import sys
import tempfile
from pathlib import Path

from webapp.store.catalogue import Catalogue

from .index import FINAL_POINT, SweepIndex
from .point import run_point
from .spec import SweepError, SweepSpec


def _payload(p):
    return p


@contextlib.contextmanager
def dask_client(workers: int | None = None, scheduler: str | None = None):
    """A Client on an existing scheduler, or on a LocalCluster of `workers` processes (one thread each:
    the engine is C and holds its own state; processes also isolate a crash to one point)."""
    from distributed import Client, LocalCluster
    if scheduler:
        try:
            client = Client(scheduler, timeout="20s")
        except OSError as e:
            raise SweepError(f"--scheduler {scheduler}: cannot connect ({e})") from None
        with client:
            yield client
        return
    n = workers or max(1, (os.cpu_count() or 2))
    with LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None,
                      silence_logs=logging.ERROR) as cluster, Client(cluster) as client:
        yield client


def default_out_dir(data_dir: str | Path, sweep_id: str) -> Path:
    return Path(data_dir) / "sweeps" / sweep_id


def _store_run(cat: Catalogue, blob: bytes) -> str:
    fd, tmp = tempfile.mkstemp(suffix=".simtrun", dir=cat.runs_dir, prefix=".incoming-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(blob)
        return cat.import_run(tmp)["id"]                 # named as the worker named it (info)
    finally:
        os.unlink(tmp)


class _Progress:
    """points done / total with an ETA on the terminal (tqdm), or nothing."""

    def __init__(self, total: int, initial: int, show: bool):
        self.bar = None
        if show:
            from tqdm import tqdm
            self.bar = tqdm(total=total, initial=initial, unit="pt", desc="sweep", file=sys.stderr,
                            dynamic_ncols=True, smoothing=0.1)

    def update(self, label: str) -> None:
        if self.bar is not None:
            self.bar.set_postfix_str(label[:40], refresh=False)
            self.bar.update(1)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def run_sweep(spec: SweepSpec, data_dir: str | Path, out_dir: str | Path | None = None, workers: int | None = None,
              scheduler: str | None = None, client=None, progress: bool = True, json_path: str | Path | None = None,
              write_files: bool = True) -> dict:
    """Run every point not yet done; returns {sweep, points, files, ran, reused}. `client`: an existing
    distributed.Client to use (tests pass their own LocalCluster's)."""
    from distributed import as_completed

    from .results import write_results

    points = spec.points()
    data_dir = Path(data_dir)
    out_dir = Path(out_dir) if out_dir else default_out_dir(data_dir, spec.id)
    cat = Catalogue(data_dir)
    index = SweepIndex(data_dir)
    index.begin(spec, points, out_dir)
    done = index.finished_keys([p.key for p in points], lambda rid: cat.get_run(rid) is not None)
    todo = list({p.key: p for p in points if p.key not in done}.values())
    reused = sum(1 for p in points if p.key in done)
    bar = _Progress(len(points), reused, progress)
    by_key = {}
    for p in points:
        by_key.setdefault(p.key, []).append(p)
    status, message = "done", ""
    try:
        if todo:
            with (contextlib.nullcontext(client) if client is not None else dask_client(workers, scheduler)) as c:
                wl = {w.id: c.submit(_payload, w.payload, key=f"simtscope-workload-{w.digest[:24]}", pure=False)
                      for w in spec.workloads}
                futs = {}
                for p in todo:
                    info = {"name": f"{p.label} · sweep {spec.id}", "workload": p.workload.id, "config": spec.config,
                            "overrides": p.overrides, "sweep": spec.id, "point_key": p.key}
                    task = {"key": p.key, "kind": p.workload.kind, "payload": wl[p.workload.id], "config": p.config,
                            "info": info}
                    futs[c.submit(run_point, task, key=f"simtscope-point-{p.key[:32]}", pure=False,
                                  priority=-p.index)] = p
                for fut in as_completed(list(futs)):
                    p0 = futs[fut]
                    try:
                        res = fut.result()
                    except Exception as e:             # noqa: BLE001 - e.g. KilledWorker: the point killed 3 workers
                        res = {"key": p0.key, "status": "failed", "message": f"{type(e).__name__}: {e}", "row": {},
                               "runs": []}
                    ids = [_store_run(cat, blob) for blob in res["runs"]]
                    row = {**res["row"], "runs": ids} if len(ids) > 1 else res["row"]
                    index.record(p0.key, ids[0] if ids else None, res["status"], res["message"], row,
                                 res.get("wall_s"))
                    index.touch(spec.id)
                    for _ in by_key[p0.key]:
                        bar.update(p0.label)
                    if res["status"] not in FINAL_POINT:
                        print(f"point {p0.label}: {res['status']}: {res['message']}", file=sys.stderr)
    except KeyboardInterrupt:
        status, message = "interrupted", "stopped by the user"
        raise
    except BaseException as e:
        status, message = "failed", f"{type(e).__name__}: {e}"
        raise
    finally:
        bar.close()
        sweep = index.get(spec.id)
        failed = [pt for pt in sweep["points"] if pt["status"] not in FINAL_POINT]
        if status == "done" and failed:
            status, message = "failed", f"{len(failed)} of {len(points)} points did not finish (see their runs)"
        index.finish(spec.id, status, message)
        index.close()
        cat.close()
    files = write_results(sweep, out_dir) if write_files else {}
    summary = {"sweep": spec.describe(), "status": status, "message": message, "ran": len(todo),
               "reused": reused, "out_dir": str(out_dir),
               "files": files, "points": [_flat(pt) for pt in sweep["points"]]}
    if json_path:
        Path(json_path).write_text(json.dumps(summary, indent=1))
    return summary


def _flat(pt: dict) -> dict:
    return {"index": pt["index"], "workload": pt["workload"], "values": pt["values"], "status": pt["status"],
            "message": pt["message"], "run_id": pt["run_id"], "key": pt["key"], "wall_s": pt["wall_s"], **pt["row"]}


# ------------------------------------------------------------------ `python -m webapp.sweep.driver`
def spec_from_request(body: dict) -> SweepSpec:
    """{cases?, only, bundles?: [paths], sets: [..], config, name?} -> SweepSpec (the explorer's form, and the
    CLI). `only` empty with bundles given: no validation cases (not all of them)."""
    from .sources import bundle_workloads, case_workloads
    from .spec import parse_sets
    bundles = body.get("bundles") or []
    workloads = case_workloads(body.get("cases"), body.get("only")) if body.get("only") or not bundles else []
    if bundles:
        workloads += bundle_workloads(bundles)
    return SweepSpec(workloads, body.get("config") or "h200", parse_sets(body.get("sets") or []),
                     name=body.get("name") or "")


def _die_with_parent(parent_pid: int | None) -> None:
    """A driver started by the explorer ends with it (SIGTERM: its LocalCluster's workers end too)."""
    if not parent_pid:
        return
    import ctypes
    import signal
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)     # PR_SET_PDEATHSIG
    except OSError:
        pass
    if os.getppid() != parent_pid:
        sys.exit(3)


def main() -> int:
    body = json.load(sys.stdin)
    _die_with_parent(body.get("parent_pid"))
    spec = spec_from_request(body)
    run_sweep(spec, body["data"], workers=int(body.get("workers") or 1), progress=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
