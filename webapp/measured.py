"""What a run is set beside in the explorer: the hardware measurement of the same work.

A validation case's run gets the case's Nsight Compute row (validation/h200_results.json); a workload run
and each of its launches' runs get the bundle's measured cycles and the device the bundle names. Whether the
difference is the model's error (the run simulates the measured device, unchanged) is decided by
engine/measured.py; the run list, the summary and the workload page label it an error only then.
"""
from __future__ import annotations

from functools import lru_cache

from engine.measured import case_measurement, named_comparison

from .bundles import find_bundle


@lru_cache(maxsize=256)
def _against(config: str, overrides: tuple, device: str | None) -> dict:
    return named_comparison(config, list(overrides), device)


def against(run: dict, device: str | None) -> dict:
    """engine/measured.comparison for a run of the catalogue (its config name and overrides)."""
    return dict(_against(str(run.get("config") or ""), tuple(run.get("overrides") or ()), device))


def bundle_of(cat, run: dict) -> dict | None:
    """The bundle description (bundles.describe) behind a workload run or one of its launches' runs."""
    wid = run.get("workload") or ""
    if wid.startswith("case:"):
        return None
    return find_bundle(cat, wid)


def workload_measured(cat, run: dict, recorded=None) -> dict | None:
    """For the workload page: {device, sim_gpu, comparable, why}, or None for a bundle without measurements.
    `recorded`: the comparison the run's summary kept, used when the bundle is not here (an imported run file)."""
    desc = bundle_of(cat, run)
    if desc is None or not any(desc.get("hw_cycles") or ()):
        return recorded if desc is None and isinstance(recorded, dict) else None
    return against(run, (desc.get("hardware") or {}).get("device"))


def run_measured(cat, run: dict) -> dict | None:
    """For a single-kernel run's summary: the measurement of the same launch ({device, tool, cycles, and for a
    validation case dram_bytes, l2_hit_rate, l1_hit_rate, sass_warp_insts, stalls: warp-cycles per issued
    instruction by reason}) with the comparison, or None."""
    wid = run.get("workload") or ""
    if wid.startswith("case:"):
        m = case_measurement(wid[len("case:"):])
        if m is None:
            return None
        return {**m, **against(run, m["device"]), "source": "validation suite"}
    launch = (run.get("options") or {}).get("launch")
    if not run.get("parent") or not isinstance(launch, int):
        return None
    desc = bundle_of(cat, run)
    cycles = (desc.get("hw_cycles") or []) if desc else []
    if not 0 <= launch < len(cycles) or not cycles[launch]:
        return None
    hw = desc.get("hardware") or {}
    return {"cycles": cycles[launch], "tool": hw.get("tool"), **against(run, hw.get("device")),
            "source": f"bundle {desc['name']}, launch {launch}"}


def list_gap(cat, run: dict) -> dict | None:
    """For the run list: {gap, device, comparable, why} of a finished run that has a measurement, gap =
    (simulated - measured) / measured over the whole run (a workload run: its summary's err_total), or None."""
    if run.get("status") != "done":
        return None
    st = run.get("stats") or {}
    if run.get("kind") == "workload":
        gap = st.get("err_total")
        if not isinstance(gap, (int, float)):
            return None
        return {"gap": gap, **(workload_measured(cat, run, st.get("measured")) or {})}
    sim = st.get("gpu_sim_cycle") or run.get("cycles")
    m = run_measured(cat, run) if sim else None
    if m is None:
        return None
    return {"gap": (sim - m["cycles"]) / m["cycles"], **{k: m[k] for k in ("device", "sim_gpu", "comparable", "why")}}
