"""Per-launch hardware measurements of a bundle, written into its `hardware` section.

    python -m engine.workload.capture.measure BUNDLE... [--ncu PATH] [--repeat 2] [--events 20]

CUDA-event time of each launch always (cuda_replay --events), and the idle gaps between launches from a
back-to-back replay with an event before each launch (gaps(); keys start_ns and gap_ns); Nsight Compute's gpc__cycles_elapsed.max and
friends when `ncu` is found, measured over a replay of the bundle itself (--clock-control none
--cache-control all --replay-mode kernel), so the numbers belong to exactly the bundle's bytes.
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

from ..bundle import open_bundle

METRICS = ["gpc__cycles_elapsed.max", "gpu__time_duration.sum", "smsp__inst_executed.sum",
           "dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_sector_hit_rate.pct"]
NCU_FLAGS = ["--clock-control", "none", "--cache-control", "all", "--replay-mode", "kernel"]


def parse_ncu_csv(text: str) -> list[dict]:
    """Rows of `ncu --csv --page raw` (header, optional units row, one row per profiled kernel)."""
    lines = [ln for ln in text.splitlines() if ln.startswith('"')]
    if not lines:
        return []
    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    head = rows[0]
    out = []
    for r in rows[1:]:
        if len(r) != len(head) or not r[0].strip().isdigit():
            continue
        d = dict(zip(head, r))
        rec = {"id": int(r[0]), "kernel": d.get("Kernel Name", "")}
        for m in METRICS:
            v = d.get(m, "").replace(",", "").strip()
            try:
                rec[m] = float(v)
            except ValueError:
                rec[m] = None
        out.append(rec)
    return sorted(out, key=lambda x: x["id"])


def ncu_measure(bundle: str, ncu: str, repeat: int) -> list[list[dict]]:
    """Per launch, the list of ncu rows over `repeat` replays."""
    with open_bundle(bundle) as b:
        n = len([L for L in b.launches if not L.opaque])
    cmd = [ncu, "--csv", "--page", "raw", "--metrics", ",".join(METRICS), *NCU_FLAGS,
           sys.executable, "-m", "engine.workload.capture.cuda_replay", bundle, "--repeat", str(repeat)]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=1800, env={**os.environ})
    rows = parse_ncu_csv(p.stdout)
    if len(rows) != n * repeat:
        raise RuntimeError(f"ncu profiled {len(rows)} kernels, expected {n} x {repeat}; rc {p.returncode}\n"
                           f"{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
    per = [[] for _ in range(n)]
    for i, r in enumerate(rows):
        per[i % n].append(r)
    return per


def gaps(event_ns: list, start_ns: list) -> list[dict]:
    """Per launch {"start_ns", "gap_ns"} from a back-to-back replay (cuda_replay.sequence_starts: the start
    of each launch after the first one's, and the end) and each launch's own event time: the gap before
    launch i is its start minus the end of launch i-1 (that launch's start + its own time), floored at 0.
    Launch 0 has gap 0. An opaque launch (not replayed) and the launch after it get no values."""
    n = len(event_ns)
    if len(start_ns) != n + 1:
        return [{} for _ in range(n)]
    out = []
    for i in range(n):
        d: dict = {}
        if start_ns[i] is not None and event_ns[i] is not None:
            d["start_ns"] = round(start_ns[i], 1)
            if i == 0:
                d["gap_ns"] = 0.0
            elif start_ns[i - 1] is not None and event_ns[i - 1] is not None:
                d["gap_ns"] = round(max(0.0, start_ns[i] - start_ns[i - 1] - event_ns[i - 1]), 1)
        out.append(d)
    return out


GAPS_TOOL = ("CUDA events before each launch of a back-to-back driver-API replay (ctypes host loop), median of "
             "repeats; gap = start - previous start - previous launch's own event time, floored at 0")


def hardware_section(device: str, ncu_rows, event_ns, ncu_version: str | None, opaque: list[bool] | None = None,
                     start_ns: list | None = None) -> dict:
    """The bundle's `hardware` section: one entry per launch. ncu_rows has one list per replayed (not
    opaque) launch, in order; an opaque launch's entry is {"opaque": true} (its time is its own `measured`)."""
    opaque = opaque or [False] * len(event_ns)
    gap = gaps(event_ns, start_ns) if start_ns else [{} for _ in event_ns]
    launches = []
    k = -1
    for i, ns in enumerate(event_ns):
        if opaque[i]:
            launches.append({"opaque": True})
            continue
        k += 1
        d: dict = {}
        if ncu_rows:
            rows = ncu_rows[k]
            d["cycles"] = [r["gpc__cycles_elapsed.max"] for r in rows if r["gpc__cycles_elapsed.max"]]
            first = rows[0]
            d["ns"] = first["gpu__time_duration.sum"]
            d["sass_warp_insts"] = first["smsp__inst_executed.sum"]
            d["dram_bytes"] = (first["dram__bytes_read.sum"] or 0) + (first["dram__bytes_write.sum"] or 0)
            hr = first["lts__t_sector_hit_rate.pct"]
            d["l2_hit_rate"] = hr / 100.0 if hr is not None else None
        if ns is not None:
            d["event_ns"] = ns
        d.update(gap[i])
        launches.append(d)
    tool = (f"Nsight Compute {ncu_version}, " + " ".join(NCU_FLAGS)) if ncu_rows else "CUDA events (median)"
    out = {"device": device, "tool": tool, "launches": launches}
    if any("gap_ns" in d for d in launches):
        out["gaps_tool"] = GAPS_TOOL
    return out


def rewrite_manifest(path: Path, update) -> None:
    """Apply `update(manifest) -> manifest` to a bundle folder or archive in place."""
    if path.is_dir():
        mp = path / "manifest.json"
        mp.write_text(json.dumps(update(json.loads(mp.read_text())), indent=1) + "\n")
        return
    with tempfile.TemporaryDirectory() as tmp:
        with open_bundle(path, cache=False) as b:                # (its own temporary folder: b._tmp)
            top = b.root.name if b.root.name != Path(b._tmp.name).name else b.name
            dest = Path(tmp) / top
            shutil.copytree(b.root, dest)
        rewrite_manifest(dest, update)
        out = path.with_name(path.name + ".new")
        if path.name.lower().endswith(".zip"):
            with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
                for f in sorted(dest.rglob("*")):
                    if f.is_file():
                        zf.write(f, f"{top}/{f.relative_to(dest).as_posix()}")
        else:
            with tarfile.open(out, "w:xz", preset=9) as tf:
                tf.add(dest, arcname=top)
        os.replace(out, path)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bundles", nargs="+")
    ap.add_argument("--ncu", default=shutil.which("ncu"))
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--events", type=int, default=20)
    ap.add_argument("--device-name", default=None)
    a = ap.parse_args(argv)
    from .cuda_replay import replay
    ver = None
    if a.ncu:
        v = subprocess.run([a.ncu, "--version"], capture_output=True, text=True)
        ver = (v.stdout.strip().splitlines() or ["?"])[-1].replace("Version ", "")
    for path in a.bundles:
        rep = replay(path, 1, a.events)
        bad = [c for c in rep["outputs"] if not c["bit_exact"]]
        print(f"{path}: replay outputs {'bit-exact' if not bad else bad}", flush=True)
        rows = ncu_measure(path, a.ncu, a.repeat) if a.ncu else None
        device = a.device_name or "NVIDIA GPU"
        with open_bundle(path) as b:
            opaque = [L.opaque for L in b.launches]
        hw = hardware_section(device, rows, rep["event_ns"], ver, opaque, rep.get("start_ns"))
        rewrite_manifest(Path(path), lambda m: {**m, "hardware": hw})
        print(f"{path}: {[L.get('cycles') for L in hw['launches']]}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
