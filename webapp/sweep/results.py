"""A sweep's results: one table row per point, and speed-up plots.

    files = write_results(index.get(sweep_id), out_dir)
      results.csv        workload, the swept keys, status, run_id, then the metrics (point.METRICS, stall mix)
      results.parquet    the same table, when pyarrow is installed
      speedup_<key>.png / .svg   per swept key: speed-up (cycles of the workload's baseline point / cycles)
                                 against the key's value, one line per workload (and per combination of the
                                 other keys' values)

The baseline point of a workload is the one with every key at its first listed value (the first --set
values), so the plots read "how much faster than where the sweep started".
"""
from __future__ import annotations

import csv
from pathlib import Path

from .point import METRICS, STALLS

FIXED = ["workload", "status", "run_id", "speedup"]


def table(sweep: dict) -> tuple[list[str], list[dict]]:
    """(columns, rows) of a sweep as the index returns it (points with values and row)."""
    axes = list(sweep["spec"]["axes"])
    base = {a: vals[0] for a, vals in sweep["spec"]["axes"].items()}
    base_cycles = {}
    for pt in sweep["points"]:
        if pt["values"] == base and pt["row"].get("sim_cycles"):
            base_cycles[pt["workload"]] = pt["row"]["sim_cycles"]
    cols = ["workload"] + axes + ["status", "run_id", "speedup"] + METRICS + [f"stall_{s}" for s in STALLS]
    rows = []
    for pt in sweep["points"]:
        r = {"workload": pt["workload"].split(":", 1)[-1], **pt["values"], "status": pt["status"],
             "run_id": pt["run_id"] or ""}
        cyc, b = pt["row"].get("sim_cycles"), base_cycles.get(pt["workload"])
        r["speedup"] = (b / cyc) if cyc and b else None
        r.update({k: pt["row"].get(k) for k in cols if k not in r})
        rows.append(r)
    return cols, rows


def _number(v: str):
    try:
        return float(v)
    except ValueError:
        return v


def write_results(sweep: dict, out_dir: str | Path) -> dict:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    cols, rows = table(sweep)
    files = {}
    with open(out / "results.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        for r in rows:
            w.writerow({k: ("" if r.get(k) is None else r.get(k)) for k in cols})
    files["csv"] = str(out / "results.csv")
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        pass
    else:
        pq.write_table(pa.Table.from_pylist([{k: (str(r[k]) if k in sweep["spec"]["axes"] else r.get(k))
                                              for k in cols} for r in rows]), out / "results.parquet")
        files["parquet"] = str(out / "results.parquet")
    files.update(plot(sweep, rows, out))
    return files


def plot(sweep: dict, rows: list[dict], out: Path) -> dict:
    """One figure per swept key (PNG and SVG); none when nothing was swept or nothing finished."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    axes = sweep["spec"]["axes"]
    files = {}
    for key, values in axes.items():
        others = [a for a in axes if a != key]
        numeric = all(isinstance(_number(v), float) for v in values)
        fig, ax = plt.subplots(figsize=(6.4, 4.0), dpi=120)
        lines = 0
        groups: dict[tuple, list[dict]] = {}
        for r in rows:
            if r.get("speedup") is not None:
                groups.setdefault((r["workload"],) + tuple(r[a] for a in others), []).append(r)
        for g, rs in groups.items():
            rs.sort(key=lambda r: values.index(r[key]))
            xs = [(_number(r[key]) if numeric else values.index(r[key])) for r in rs]
            label = g[0] + "".join(f", {a}={v}" for a, v in zip(others, g[1:]))
            ax.plot(xs, [r["speedup"] for r in rs], marker="o", label=label)
            lines += 1
        if not numeric:
            ax.set_xticks(range(len(values)), values)
        elif len(values) <= 8:
            ax.set_xticks([_number(v) for v in values], values)
        ax.axhline(1.0, color="#999", lw=0.8, ls="--")
        ax.set_xlabel(key)
        ax.set_ylabel("speed-up over the first value (cycles)")
        ax.set_title(f"{sweep['spec']['name']}: {key}", fontsize=10)
        ax.grid(alpha=0.3)
        if lines:
            ax.legend(fontsize=8)
        fig.tight_layout()
        stem = "speedup_" + key.replace(".", "_")
        for ext in ("png", "svg"):
            fig.savefig(out / f"{stem}.{ext}")
            files[f"{stem}.{ext}"] = str(out / f"{stem}.{ext}")
        plt.close(fig)
    return files
