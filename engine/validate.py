"""`simtscope validate`: simulate every case in timing mode and set it beside the hardware.

Per case: output check, simulated vs measured cycles (gpc__cycles_elapsed.max), executed warp
instructions (ours are PTX instructions; smsp__inst_executed.sum counts SASS; with SASS timing, the
SASS warp instructions our PTX ones stand for, docs/sass.md), DRAM bytes, L2 and L1 hit
rates and the stall breakdown. Summary: mean absolute relative error and Pearson correlation of cycles,
the same for DRAM bytes and L2 hit rate; the log-log correlation scatter that Accel-Sim's papers use.
"""
from __future__ import annotations

import json
import math
import time
from pathlib import Path

import numpy as np

from .cases import load_suite
from .measured import DEFAULT_HW, comparison, hw_row
from .timing import TimingSim


# our stall names -> Nsight Compute's metric names
NCU_STALL = "smsp__average_warps_issue_stalled_{}_per_issue_active.ratio"


def mae(sim: list[float], hw: list[float]) -> float:
    pairs = [(s, h) for s, h in zip(sim, hw) if h]
    return float(np.mean([abs(s - h) / h for s, h in pairs])) if pairs else float("nan")


def pearson(a: list[float], b: list[float]) -> float:
    if len(a) < 2:
        return float("nan")
    x, y = np.asarray(a, float), np.asarray(b, float)
    if x.std() == 0 or y.std() == 0:
        return float("nan")
    return float(np.corrcoef(x, y)[0, 1])


_SIM = {}


def _simulate(args) -> tuple[dict, str]:
    """Run one case in timing mode (in a worker process when --jobs > 1); returns (row, printed line)."""
    config, overrides, cases_path, name, hw_case = args
    key = (config, tuple(overrides or ()))
    if key not in _SIM:
        _SIM[key] = TimingSim(config, overrides=list(overrides or ()))
    sim = _SIM[key]
    c = load_suite(cases_path)[name]
    t0 = time.perf_counter()
    try:
        run = sim.run_case(c)
    except Exception as e:  # one broken case must not stop the others
        return ({"name": name, "passed": False, "error": str(e), "sim_cycles": None, "hw_cycles": None,
                 "warp_insts": 0, "wall_s": time.perf_counter() - t0}, f"{name:32s} ERROR {type(e).__name__}: {e}")
    wall = time.perf_counter() - t0
    if run.fault or run.timing is None:
        return ({"name": name, "passed": False, "error": run.fault, "sim_cycles": None, "hw_cycles": None,
                 "warp_insts": 0, "wall_s": wall}, f"{name:32s} FAULT {run.fault}")
    st = run.timing.stats
    h = hw_row(hw_case) if hw_case else {}
    sim_dram = st["dram_read_bytes"] + st["dram_write_bytes"]
    row = {"name": name, "passed": run.passed, "sim_cycles": st["gpu_sim_cycle"],
           "hw_cycles": h.get("cycles"), "warp_insts": st["warp_insts"],
           "hw_sass_warp_insts": h.get("sass_warp_insts"), "sim_sass_warp_insts": st.get("sass_warp_insts"),
           "timing_mode": st.get("timing_mode"), "timing_mode_reason": st.get("timing_mode_reason", ""),
           "sim_dram_bytes": sim_dram, "hw_dram_bytes": h.get("dram_bytes"),
           "sim_l2_hit_rate": st["L2_hit_rate"], "hw_l2_hit_rate": h.get("l2_hit_rate"),
           "sim_l1_hit_rate": st["L1D_hit_rate"], "hw_l1_hit_rate": h.get("l1_hit_rate"),
           "sim_stalls": st["stalls_per_issue"], "hw_stalls": h.get("stalls"),
           "occupancy_warps_per_sm": st["occupancy_warps_per_sm"], "wall_s": round(wall, 3),
           "sim_rate_warp_insts_per_s": st["warp_insts"] / max(1e-9, st["wall_s"])}
    err = (st["gpu_sim_cycle"] - h["cycles"]) / h["cycles"] if h.get("cycles") else float("nan")
    ok = {True: "pass", False: "FAIL", None: "unchk"}[run.passed]
    line = (f"{name:32s} {ok:5s} {st['gpu_sim_cycle']:11,d} {h.get('cycles') or 0:10,d} {100 * err:+6.1f}% "
            f"{st['warp_insts']:11,d} {round(st.get('sass_warp_insts') or 0):11,d} {h.get('sass_warp_insts') or 0:11,d} "
            f"{sim_dram / 1e6:7.1f}/{(h.get('dram_bytes') or 0) / 1e6:<7.1f} "
            f"{st['L2_hit_rate']:6.2f}/{h.get('l2_hit_rate') or 0:<6.2f} "
            f"{st['L1D_hit_rate']:6.2f}/{h.get('l1_hit_rate') or 0:<6.2f} "
            f"{row['sim_rate_warp_insts_per_s'] / 1e6:6.2f}")
    return row, line


STALL_COLUMNS = ["long_scoreboard", "short_scoreboard", "wait", "barrier", "mio_throttle", "lg_throttle",
                 "math_pipe_throttle", "not_selected", "no_instruction", "drain"]


def stall_table(rows, out) -> None:
    """Warp-cycles per issued instruction by stall reason, simulated / measured (ncu's names)."""
    out("")
    out("stall reasons, warp-cycles per issue (sim/hw): " + ", ".join(STALL_COLUMNS))
    for r in rows:
        if not r.get("sim_stalls") or not r.get("hw_stalls"):
            continue
        cells = [f"{r['sim_stalls'].get(k, 0):5.1f}/{r['hw_stalls'].get(k, 0) or 0:<5.1f}" for k in STALL_COLUMNS]
        out(f"{r['name']:32s} " + " ".join(cells))


def validate(cases_path=None, hw_path=None, config="h200", overrides=None, only=None, out=print,
             json_path=None, plot_path=None, jobs: int = 1) -> dict:
    suite = load_suite(cases_path)
    hw_file = Path(hw_path) if hw_path else DEFAULT_HW
    hw_doc = json.loads(hw_file.read_text()) if hw_file.is_file() else {}
    hw_all = hw_doc.get("cases", {})
    sim = TimingSim(config, overrides=overrides or [])    # a bad configuration fails here, once
    cases = suite.select(only)
    against = comparison(sim.config, (hw_doc.get("header") or {}).get("gpu")) if hw_all else None
    out(f"timing:   {timing_mode_line(sim)}")
    if against and not against["comparable"]:
        out(f"note:     the differences below are not the model's error: {against['why']}")
    out(f"{'case':32s} {'out':5s} {'sim cycles':>11s} {'hw cycles':>10s} {'err':>7s} {'PTX winst':>11s} "
        f"{'SASS sim':>11s} {'SASS hw':>11s} {'DRAM MB sim/hw':>15s} {'L2 hit sim/hw':>13s} {'L1 hit sim/hw':>13s} "
        f"{'Mi/s':>6s}")
    t_all = time.perf_counter()
    wover = tuple(overrides or ())
    if jobs > 1 and not any(o.startswith("sim.threads") for o in wover):
        wover += ("sim.threads=1",)       # one process per core already: no threads on top
    work = [(config, wover, str(suite.path), c.name, hw_all.get(c.name)) for c in cases]
    results: dict[str, dict] = {}
    if jobs > 1:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor, as_completed
        # big cases first, so the pool does not end on one long case
        order = sorted(work, key=lambda w: -((w[4] or {}).get("ncu", {}).get("smsp__inst_executed.sum") or 0))
        with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
            futs = [pool.submit(_simulate, w) for w in order]
            for f in as_completed(futs):
                row, line = f.result()
                results[row["name"]] = row
                out(line)
    else:
        for w in work:
            row, line = _simulate(w)
            results[row["name"]] = row
            out(line)
    rows = [results[c.name] for c in cases]
    good = [r for r in rows if r.get("sim_cycles") and r.get("hw_cycles")]
    summary = {
        "cases": len(rows),
        "passed": sum(1 for r in rows if r["passed"] is True),
        "failed": sum(1 for r in rows if r["passed"] is False),
        "compared": len(good),
        "mae_cycles": mae([r["sim_cycles"] for r in good], [r["hw_cycles"] for r in good]),
        "pearson_cycles": pearson([r["sim_cycles"] for r in good], [r["hw_cycles"] for r in good]),
        "pearson_log_cycles": pearson([math.log(r["sim_cycles"]) for r in good], [math.log(r["hw_cycles"]) for r in good]),
        "mae_dram_bytes": mae([r["sim_dram_bytes"] for r in good], [r["hw_dram_bytes"] for r in good]),
        "pearson_dram_bytes": pearson([r["sim_dram_bytes"] for r in good], [r["hw_dram_bytes"] for r in good]),
        "mae_l2_hit_rate": float(np.mean([abs(r["sim_l2_hit_rate"] - r["hw_l2_hit_rate"]) for r in good])) if good else float("nan"),
        "pearson_l2_hit_rate": pearson([r["sim_l2_hit_rate"] for r in good], [r["hw_l2_hit_rate"] for r in good]),
        "timing_modes": {m: sum(1 for r in rows if r.get("timing_mode") == m) for m in ("sass", "ptx")},
        "mae_sass_warp_insts": mae([r["sim_sass_warp_insts"] for r in good if r.get("sim_sass_warp_insts")],
                                   [r["hw_sass_warp_insts"] for r in good if r.get("sim_sass_warp_insts")]),
        "wall_s": round(time.perf_counter() - t_all, 1),
        "config": sim.config.name, "overrides": overrides or [],
        "measured": against,
    }
    stall_table(rows, out)
    out("")
    if against and not against["comparable"]:
        out(f"note:     these are differences, not the model's error: {against['why']}")
    out(f"cycles:   MAE {100 * summary['mae_cycles']:.1f}%   Pearson {summary['pearson_cycles']:.3f} "
        f"(log {summary['pearson_log_cycles']:.3f})   over {summary['compared']} cases")
    out(f"DRAM:     MAE {100 * summary['mae_dram_bytes']:.1f}%   Pearson {summary['pearson_dram_bytes']:.3f}")
    out(f"L2 hit:   mean |error| {summary['mae_l2_hit_rate']:.3f}   Pearson {summary['pearson_l2_hit_rate']:.3f}")
    out(f"outputs:  {summary['passed']}/{summary['cases']} passed in {summary['wall_s']} s")
    modes = summary["timing_modes"]
    out(f"timing:   {modes['sass']} case(s) with SASS costs, {modes['ptx']} as PTX"
        + (f"; SASS warp instructions: MAE {100 * summary['mae_sass_warp_insts']:.1f}% against ncu"
           if modes["sass"] else ""))
    for r in rows:
        if r.get("timing_mode") == "ptx" and r.get("timing_mode_reason") and sim.config["timing.sass"] != "off":
            out(f"          {r['name']}: PTX timing ({r['timing_mode_reason']})")
    result = {"mode": "timing", "cases": rows, "summary": summary}
    if json_path:
        Path(json_path).write_text(json.dumps(result, indent=1, default=float))
    if plot_path:
        plot(rows, summary, plot_path)
    return result


def timing_mode_line(sim: TimingSim) -> str:
    """What timing.sass asks for and whether the tools are there (each case's row says what it got)."""
    from . import sass
    if sim.config["timing.sass"] == "off":
        return "PTX instructions as written (timing.sass = off)"
    tools = sass.find_tools()
    if tools is None:
        return f"PTX instructions as written: {sass.why_missing()}"
    ver = f"{tools.ptxas_version.split(' Build')[0]}, -arch={sass.ARCH}"
    if sim.config["timing.sass"] == "regs":
        return f"PTX instructions as written, ptxas's registers for occupancy (timing.sass = regs; {ver})"
    return f"SASS-aware (timing.sass = auto; {ver})"


def plot(rows, summary, path) -> None:
    """Log-log scatter of simulated against measured cycles, with the y = x line and +-20% bands."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    good = [r for r in rows if r.get("sim_cycles") and r.get("hw_cycles")]
    fig, ax = plt.subplots(figsize=(5.5, 5), dpi=150)
    hw = np.array([r["hw_cycles"] for r in good], float)
    sm = np.array([r["sim_cycles"] for r in good], float)
    lo, hi = min(hw.min(), sm.min()) / 1.5, max(hw.max(), sm.max()) * 1.5
    xs = np.geomspace(lo, hi, 50)
    ax.plot(xs, xs, color="#555555", lw=1, label="y = x")
    ax.fill_between(xs, xs / 1.2, xs * 1.2, color="#bbbbbb", alpha=0.35, lw=0, label="±20%")
    ax.scatter(hw, sm, s=18, color="#0072B2", edgecolor="white", lw=0.5, zorder=3)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_xlabel("H200 cycles (Nsight Compute gpc__cycles_elapsed.max)")
    ax.set_ylabel("simtscope cycles")
    ax.set_title(f"{summary['config']}: MAE {100 * summary['mae_cycles']:.1f}%, "
                 f"r = {summary['pearson_cycles']:.3f}, n = {summary['compared']}", fontsize=10)
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
