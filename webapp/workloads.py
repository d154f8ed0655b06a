"""Workloads a run can simulate: the built-in validation cases and uploaded ones (uploads.py); whole-model
bundles are listed by bundles.py.

A workload id is `case:<name>` for a case of the project's validation suite, or `<upload id>:<name>` for a
case of an uploaded cases.json. `resolve(id)` gives (cases.json path, case name) for the worker.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from engine.cases import DEFAULT_CASES, load_suite

DEMOS = ("sgemm_tiled16_256", "softmax_4096x128")
# the whole-model demo: a bundle of the project's zoo and the launches recorded cycle by cycle (its stem
# convolution and the batch norm after it); the other 37 layers get their summary row
DEMO_BUNDLES = (("resnet18_b1_224_fp16", "0,1"),)
TRACE = "trace"                 # the case name of an uploaded trace directory: resolve() gives (folder, "@trace")


@lru_cache(maxsize=1)
def _builtin():
    return load_suite(DEFAULT_CASES)


def describe(case, wid: str, kind: str) -> dict:
    d = case.data
    return {"id": wid, "name": case.name, "kind": kind, "kernel": d.get("kernel"), "grid": d.get("grid"),
            "block": d.get("block"), "tags": d.get("tags", []), "ptx": Path(d.get("ptx", "")).name}


# the preset of the GPU generation a trace was recorded on (its SASS binary version); others: the default
_TRACE_CONFIGS = {60: "gtx1080", 61: "gtx1080", 62: "gtx1080", 70: "v100", 80: "a100", 90: "h200"}
DEFAULT_CONFIG = "h200"                # the calibrated preset (docs/calibration.md)


def suggested_config(binary_version) -> str:
    """The config a new run of this workload starts with in the page: the trace's own GPU generation."""
    return _TRACE_CONFIGS.get(binary_version, DEFAULT_CONFIG) if isinstance(binary_version, int) else DEFAULT_CONFIG


def list_workloads(cat) -> list[dict]:
    out = [describe(c, f"case:{c.name}", "builtin") for c in _builtin().cases]
    for w in cat.list_workloads():
        if w["kind"] == "bundle":                     # whole-model bundles: webapp/bundles.py
            continue
        if w["kind"] == "trace":                      # an uploaded Accel-Sim trace directory (engine/traces)
            info = w.get("info") or {}
            out.append({"id": f"{w['id']}:{TRACE}", "name": w["name"], "kind": "trace", "upload": w["id"],
                        "upload_name": w["name"], "tags": ["trace"], "kernel": info.get("kernel", "?"),
                        "grid": info.get("grid", [1]), "block": info.get("block", [1]), "ptx": "",
                        "config": suggested_config(info.get("binary_version"))})
            continue
        try:
            suite = load_suite(Path(w["folder"]) / "cases.json")
        except (OSError, ValueError):
            continue
        out += [{**describe(c, f"{w['id']}:{c.name}", "upload"), "upload": w["id"], "upload_name": w["name"]}
                for c in suite.cases]
    return out


def resolve(cat, wid: str) -> tuple[Path, str]:
    src, _, name = wid.partition(":")
    if not name:
        raise ValueError(f"workload id {wid!r} is not of the form source:case")
    if src == "case":
        suite = _builtin()
    else:
        w = cat.get_workload(src)
        if w is None:
            raise KeyError(f"no uploaded workload {src!r}")
        if name == TRACE and (Path(w["folder"]) / "kernelslist.g").is_file():
            return Path(w["folder"]), "@trace"
        suite = load_suite(Path(w["folder"]) / "cases.json")
    if name not in suite.names():       # named by the id the client sent, not by the server's path
        raise KeyError(f"no case {name!r} in " + ("the validation suite" if src == "case" else f"workload {src!r}"))
    return suite.path, name
