"""What a simulation is compared with: the hardware measurement of the same work, and whether the comparison
measures the model's error.

A validation case was measured on the H200 (validation/h200_results.json, Nsight Compute); a gpu-workload/1
bundle names the device it was measured on (`hardware.device`). Simulated and measured cycles are the
model's error only when the simulation models that device: the configuration's `gpu.name` is the measured
device's name, and no override changes the modelled hardware (only simulator settings: `sim.*`, `record.*`,
and the timing model's choices, `timing.*`). Otherwise the comparison is a difference between two GPUs
(an A100 preset against an H200 measurement, an H200 with half its L2), and the command line and the
explorer say so instead of calling it an error.
"""
from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path

from .resources import data_path

DEFAULT_HW = data_path("validation") / "h200_results.json"
SIMULATOR_SECTIONS = ("sim.", "record.", "timing.")     # overrides that keep the modelled GPU


def _norm(name: str) -> str:
    """'NVIDIA A100-SXM4-40GB' and 'NVIDIA A100 SXM4 40GB' are one device."""
    return re.sub(r"[^0-9a-z]", "", str(name or "").lower())


def hardware_changes(config) -> list[str]:
    """The overrides of a Config that change the modelled GPU, as key=value: a key outside SIMULATOR_SECTIONS
    whose value differs from its preset's (an override that restates the preset changes nothing)."""
    base = None
    if config.source:
        from .config import load_config
        try:
            base = load_config(config.source).values
        except Exception:                  # noqa: BLE001 - the preset is gone: every override counts
            base = None
    changed: dict[str, str] = {}
    for o in config.overrides:
        key = str(o).split("=", 1)[0].strip()
        if key.startswith(SIMULATOR_SECTIONS):
            continue
        if base is None or key not in base or base[key] != config.values.get(key):
            changed[key] = "".join(str(o).split())          # as the user wrote it (the last one of a key)
        else:
            changed.pop(key, None)                           # (set back to the preset's value)
    return list(changed.values())


def comparison(config, device: str | None) -> dict:
    """{device, sim_gpu, comparable, why} for a simulation of `config` (an engine.config.Config, or None when it
    cannot be loaded) set beside a measurement on `device`: comparable when the simulation models the measured
    device; `why` says in a few words why not (empty when comparable), to follow "not the model's error: "."""
    sim_gpu = str(config["gpu.name"]) if config is not None else None
    changed = hardware_changes(config) if config is not None else []
    if not device:
        why = "the measurement does not name its device"
    elif config is None:
        why = "the simulated configuration cannot be read"
    elif _norm(sim_gpu) != _norm(device):
        why = f"simulated {sim_gpu}, measured on {device}"
    elif changed:
        why = (f"{', '.join(changed[:3])}{' …' if len(changed) > 3 else ''} "
               f"{'changes' if len(changed) == 1 else 'change'} the simulated {sim_gpu}")
    else:
        why = ""
    return {"device": device or None, "sim_gpu": sim_gpu, "comparable": not why, "why": why}


def named_comparison(config: str, overrides, device: str | None) -> dict:
    """comparison() for a configuration given by preset name and overrides (as a run records them)."""
    from .config import load_config
    try:
        cfg = load_config(config, list(overrides or ()))
    except Exception:                      # noqa: BLE001 - a deleted or broken config
        cfg = None
    return comparison(cfg, device)


@lru_cache(maxsize=8)
def _hw_file(path: str, size: int, mtime_ns: int) -> dict:
    return json.loads(Path(path).read_text())


def hw_row(hw: dict) -> dict:
    """One case's Nsight Compute metrics as the simulator's statistics name them."""
    n = hw.get("ncu", {})

    def g(k, default=None):
        v = n.get(k, default)
        return v if v is not None else default
    rd, wr = g("dram__bytes_read.sum", 0), g("dram__bytes_write.sum", 0)
    return {
        "cycles": g("gpc__cycles_elapsed.max"),
        "sass_warp_insts": g("smsp__inst_executed.sum"),
        "dram_bytes": (rd or 0) + (wr or 0),
        "dram_read_bytes": rd, "dram_write_bytes": wr,
        "l2_hit_rate": (g("lts__t_sector_hit_rate.pct") or 0) / 100.0,
        "l1_hit_rate": (g("l1tex__t_sector_hit_rate.pct") or 0) / 100.0,
        "stalls": {k[len("smsp__average_warps_issue_stalled_"):-len("_per_issue_active.ratio")]: v
                   for k, v in n.items() if k.startswith("smsp__average_warps_issue_stalled_")},
    }


def case_measurement(name: str, hw_path: str | Path | None = None) -> dict | None:
    """A validation case's hardware measurement: {device, tool, cycles, sass_warp_insts, dram_bytes, l2_hit_rate,
    l1_hit_rate, stalls}, or None when the results file has no such case (or cannot be read)."""
    p = Path(hw_path) if hw_path else DEFAULT_HW
    try:
        st = p.stat()
        data = _hw_file(str(p), st.st_size, st.st_mtime_ns)
        case = data["cases"].get(name)
    except (OSError, ValueError, KeyError, AttributeError):
        return None
    if not isinstance(case, dict) or not case.get("ncu"):
        return None
    head = data.get("header") or {}
    row = hw_row(case)
    if not row.get("cycles"):
        return None
    tool = f"Nsight Compute {head['ncu']}" if head.get("ncu") else "Nsight Compute"
    return {"device": head.get("gpu"), "tool": tool, **row}
