"""Relabel a captured bundle's launches from its model's call sites (labels per call, in call order).

    python -m engine.workload.capture.relabel sites --model FILE.py:FN --out sites.json   # on the GPU machine
    python -m engine.workload.capture.relabel apply sites.json BUNDLE                     # anywhere

`sites` compiles the model as capture does and writes Inductor's kernel calls in order with their labels;
`apply` gives them to the bundle's launches only if the sequence of kernel names is exactly the bundle's
(the same graph, the same kernels), and rewrites its manifest in place.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from ..bundle import open_bundle
from .labels import label_launches
from .measure import rewrite_manifest


def _stem(kernel: str) -> str:
    return re.sub(r"_\d+$", "", kernel)


def apply(sites: list[dict], bundle: str) -> int:
    with open_bundle(bundle) as b:
        kernels = [L["kernel"] for L in b.manifest["launches"]]
    names = [s["kernel"] for s in sites]
    if names != kernels:
        # another compile may number Inductor's kernels differently; the same fused kernels in the same
        # order (names equal but for the trailing number) are the same graph: label by position
        if len(names) != len(kernels) or any(_stem(a) != _stem(k) for a, k in zip(names, kernels)):
            raise SystemExit(f"{bundle}: the call sites' kernels ({len(sites)}) are not the bundle's launches "
                             f"({len(kernels)}) in order: not relabelled")
        sites = [{**site, "kernel": k} for site, k in zip(sites, kernels)]
    count = {}

    def update(m):
        count["n"] = label_launches(m["launches"], sites)
        return m
    rewrite_manifest(Path(bundle), update)
    return count["n"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("sites")
    s.add_argument("--model", required=True)
    s.add_argument("--out", required=True)
    a_ = sub.add_parser("apply")
    a_.add_argument("sites")
    a_.add_argument("bundles", nargs="+")
    a = ap.parse_args(argv)
    if a.cmd == "sites":
        from .cli import load_builder
        from .torch_capture import capture
        res = capture(load_builder(a.model), "-", a.model.rpartition(":")[2], labels_only=True)
        Path(a.out).write_text(json.dumps(res["call_sites"], indent=0))
        print(f"{a.out}: {len(res['call_sites'])} call sites")
        return 0
    sites = json.loads(Path(a.sites).read_text())
    for b in a.bundles:
        print(f"{b}: {apply(sites, b)} launches relabelled")
    return 0


if __name__ == "__main__":
    sys.exit(main())
