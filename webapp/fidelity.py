"""The fidelity page's data: how close the calibrated preset comes to the hardware, from the runs in this store.

Every validation case measured on the H200 (validation/h200_results.json) and every bundle with measured
cycles is a row; its simulated side is the newest finished run of the preset as shipped (the app's
DEFAULT_CONFIG, no overrides) whose gap to the measurement is the model's error (engine/measured.py). A row
without such a run can be simulated from the page (`queue_missing`): summary-level runs, so they cost
only their simulation. Nothing here is tuned or stored: the page shows what this build simulates.
"""
from __future__ import annotations

import threading
from statistics import median

from engine.measured import case_measurement

from .api.workload_runs import create_workload_run
from .bundles import list_bundles
from .measured import list_gap
from .store.catalogue import LIVE
from .workloads import list_workloads

KINDS = ("cases", "bundles")
_QUEUEING = threading.Lock()        # two clicks at once queue each missing row once


def _targets(cat) -> dict[str, list[dict]]:
    """The measured workloads: {cases: [{workload, name, hw_cycles}], bundles: [... launches]}."""
    cases = []
    for w in list_workloads(cat):
        if w["kind"] != "builtin":
            continue
        m = case_measurement(w["name"])
        if m is not None:
            cases.append({"workload": w["id"], "name": w["name"], "hw_cycles": m["cycles"]})
    bundles = [{"workload": b["id"], "name": b["name"], "launches": b["launches"],
                "hw_cycles": sum(c for c in b["hw_cycles"] if c)}
               for b in list_bundles(cat) if any(b.get("hw_cycles") or ())]
    return {"cases": cases, "bundles": bundles}


def _preset_runs(cat, config: str) -> list[dict]:
    """Runs of the preset as shipped, newest first (children of workload runs left out)."""
    return [r for r in cat.list_runs() if not r.get("parent") and r["config"] == config and not r.get("overrides")]


def fidelity(cat, config: str) -> dict:
    """{config, device, cases: [row], bundles: [row], summary: {cases: {compared, of, mae}, bundles: ...},
    stalls: the suite's stall mix (_stall_mix)};
    a row: {workload, name, hw_cycles, run, sim_cycles, gap, live} (run: the newest comparable finished run's
    id or None; live: a run of it is queued or simulating)."""
    runs: dict[str, list[dict]] = {}
    for r in _preset_runs(cat, config):
        runs.setdefault(r["workload"], []).append(r)
    out = {"config": config, "device": None, "summary": {}}
    for kind, rows in _targets(cat).items():
        for row in rows:
            row.update(run=None, sim_cycles=None, gap=None, live=False)
            for r in runs.get(row["workload"], ()):
                row["live"] = row["live"] or r["status"] in LIVE
                g = list_gap(cat, r) if row["run"] is None else None
                if g and g.get("comparable"):
                    st = r.get("stats") or {}
                    row.update(run=r["id"], gap=g["gap"], sim_cycles=st.get("gpu_sim_cycle") or r.get("cycles"))
                    out["device"] = out["device"] or g.get("device")
        done = [x["gap"] for x in rows if x["gap"] is not None]
        if kind == "cases":
            out["stalls"] = _stall_mix(rows, runs)
        out[kind] = rows
        out["summary"][kind] = {"compared": len(done), "of": len(rows),
                                "mae": sum(abs(x) for x in done) / len(done) if done else None}
    return out


def _stall_mix(rows: list[dict], runs: dict[str, list[dict]]) -> list[dict]:
    """Warp-cycles per issued instruction by reason, simulated and measured: the median over the cases that have
    a run (a median: the atomics' hundreds of long_scoreboard cycles per issue would swamp a mean), as
    [{reason, sim, hw, cases}], the largest measured first. Where the model's stall mix differs from the
    hardware's even when the cycles agree."""
    by_id = {r["id"]: r for rs in runs.values() for r in rs}
    pairs: dict[str, tuple[list[float], list[float]]] = {}
    for row in rows:
        if row["run"] is None:
            continue
        sim = (by_id[row["run"]].get("stats") or {}).get("stalls_per_issue") or {}
        hw = (case_measurement(row["name"]) or {}).get("stalls") or {}
        for k in set(sim) & set(hw):
            if isinstance(sim[k], (int, float)) and isinstance(hw[k], (int, float)):
                a, b = pairs.setdefault(k, ([], []))
                a.append(sim[k])
                b.append(hw[k])
    mix = [{"reason": k, "sim": median(a), "hw": median(b), "cases": len(a)} for k, (a, b) in pairs.items()]
    mix = [x for x in mix if x["sim"] or x["hw"]]
    return sorted(mix, key=lambda x: (-x["hw"], x["reason"]))


def queue_missing(svc, kind: str, config: str, level: str, interval: int) -> list[str]:
    """Queue a summary-level run of the preset for every row of `kind` that has neither a comparable finished
    run nor a live one; the new runs' ids."""
    with _QUEUEING:
        return _queue(svc, kind, config, level, interval)


def _queue(svc, kind: str, config: str, level: str, interval: int) -> list[str]:
    page = fidelity(svc.cat, config)
    made = []
    for row in page[kind]:
        if row["run"] or row["live"]:
            continue
        name = f"{row['name']} on {config} (fidelity)"
        if kind == "cases":
            run = svc.cat.create_run(name, row["workload"], config, [], level, None, interval)
            svc.jobs.submit(run["id"])
        else:
            run = create_workload_run(svc, row["workload"], {"launches": "none", "name": name}, config, [], level,
                                      None, interval)
        made.append(run["id"])
    return made
