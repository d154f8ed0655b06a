"""`simtscope run --trace DIR` and `simtscope validate --traces DIR...` (docs/traces.md)."""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from .. import errors
from ..config import ConfigError
from .opcodes import TraceFormatError
from .run import run_trace

ACCELSIM_LOG = "accelsim_log.txt"


def accelsim_reference(d: Path) -> dict | None:
    """gpu_sim_cycle and warp instructions from an Accel-Sim log in the trace directory, if there is one
    (the last kernel's totals: gpu_tot_sim_cycle, gpgpu_n_tot_w_icount)."""
    p = d / ACCELSIM_LOG
    if not p.is_file():
        return None
    text = p.read_text(errors="replace")
    cyc = re.findall(r"^gpu_tot_sim_cycle\s*=\s*(\d+)", text, re.M)
    wi = re.findall(r"^gpgpu_n_tot_w_icount\s*=\s*(\d+)", text, re.M)
    if not cyc:
        return None
    return {"sim_cycles": int(cyc[-1]), "warp_insts": int(wi[-1]) if wi else None}


def _run(d, a):
    return run_trace(d, a.config, a.set, allow_unknown=getattr(a, "allow_unknown_opcodes", False),
                     max_cycles=getattr(a, "max_cycles", 0) or 0, max_warp_insts=getattr(a, "max_insts", 0) or 0)


def cmd_run_trace(a) -> int:
    try:
        r = _run(Path(a.trace), a)
    except (TraceFormatError, ConfigError, errors.SimError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    for k in r.kernels:
        print(f"{k.kernel:40s} cycles {k.cycles:>12,}  warp insts {k.warp_insts:>14,}")
    print(f"total       cycles {r.sim_cycles:,}   warp insts {r.warp_insts:,}   wall {r.wall_s:.3f} s "
          f"({r.warp_insts / max(r.wall_s, 1e-9) / 1e6:.2f} M warp insts/s)")
    if r.unknown_insts:
        print(f"unknown opcodes timed as generic ALU ops: {r.unknown_insts:,} warp instructions "
              f"({', '.join(r.unknown_opcodes)})")
    if a.json:
        doc = r.as_json()
        doc["config"] = a.config
        doc["stats"] = [k.stats for k in r.kernels]
        Path(a.json).write_text(json.dumps(doc, indent=1, default=float))
    return 0


def _trace_dirs(paths: list[str]) -> list[Path]:
    out = []
    for p in map(Path, paths):
        if (p / "kernelslist.g").is_file():
            out.append(p)
        elif p.is_dir():
            out += sorted(q for q in p.iterdir() if (q / "kernelslist.g").is_file())
        else:
            out.append(p)                        # reported as an error below
    return out


def cmd_validate_traces(a) -> int:
    dirs = _trace_dirs(a.traces)
    if not dirs:
        print("error: no trace directories (folders with a kernelslist.g) given", file=sys.stderr)
        return 2
    rows, failed = [], 0
    print(f"{'trace':34s} {'warp insts':>11s} {'cycles':>10s} {'accel-sim':>10s} {'error':>8s} {'wall s':>7s}")
    for d in dirs:
        try:
            r = _run(d, a)
        except (TraceFormatError, errors.SimError, OSError) as e:
            failed += 1
            print(f"{d.name:34s} ERROR {e}")
            rows.append({"trace": str(d), "error": str(e)})
            continue
        ref = accelsim_reference(d)
        row = r.as_json()
        err = ""
        if ref:
            row["accelsim"] = ref
            row["cycle_error"] = (r.sim_cycles - ref["sim_cycles"]) / ref["sim_cycles"]
            err = f"{100 * row['cycle_error']:+.1f}%"
            if ref["warp_insts"] is not None and ref["warp_insts"] != r.warp_insts:
                failed += 1
                err += " INSTS DIFFER"
        rows.append(row)
        print(f"{d.name:34s} {r.warp_insts:11,d} {r.sim_cycles:10,d} {ref['sim_cycles'] if ref else '-':>10} "
              f"{err:>8s} {r.wall_s:7.3f}")
    if a.json:
        Path(a.json).write_text(json.dumps({"mode": "traces", "config": a.config, "traces": rows}, indent=1, default=float))
    return 0 if failed == 0 else 1
