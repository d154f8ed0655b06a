"""A sweep: workloads x the cross product of configuration values, and the hash that identifies a point.

    axes = parse_sets(["l2.size_kib=30720,61440", "gpu.num_sms=66,132"])
    spec = SweepSpec(workloads, "h200", axes)
    for p in spec.points(): p.key, p.overrides, p.config (resolved)

A point's key hashes what determines its result: the workload's bytes (sources.py says which), the fully
resolved configuration (every value after the preset and the overrides) and the simtscope build (package
version plus a digest of the engine library and sources: engine/buildinfo.py). Two
sweeps that share a point share its run; a sweep started again skips every point already in the index.
"""
from __future__ import annotations

import hashlib
import itertools
import json
import re
from dataclasses import dataclass, field
from engine.buildinfo import build_id
from engine.config import BY_KEY, Config, ConfigError, load_config
from engine.errors import show

MAX_POINTS = 100_000            # a sweep resolves every point before it runs: more is a mistake, not a sweep
_SET = re.compile(r"^\s*([A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)+)\s*=(.+)$")


def simtscope_version() -> str:
    """The build that simulates the points: a changed engine (C or Python) gives every point a new key."""
    return build_id()


class SweepError(ValueError):
    """A sweep that cannot run as asked (bad --set, no workloads, unknown source): the message says why."""


def parse_sets(sets: list[str]) -> dict[str, list[str]]:
    """--set KEY=V1,V2,... (repeatable) -> {key: [raw values]} in the order given. A key given twice is
    an error; so is an unknown key (named with the valid sections) and an empty value."""
    axes: dict[str, list[str]] = {}
    for s in sets:
        m = _SET.match(s)
        if not m:
            raise SweepError(f"--set {show(s)}: expected section.key=V1,V2,... e.g. l2.size_kib=30720,61440")
        key, raw = m.group(1), m.group(2)
        if key not in BY_KEY:
            sections = sorted({k.split(".")[0] for k in BY_KEY})
            raise SweepError(f"--set {show(s)}: unknown configuration key {show(key)} (sections: {', '.join(sections)})")
        if key in axes:
            raise SweepError(f"--set {show(s)}: {key} is already swept; give all its values in one --set")
        vals = [v.strip() for v in raw.split(",")]
        if any(v == "" for v in vals):
            raise SweepError(f"--set {show(s)}: empty value in the list")
        if len(set(vals)) != len(vals):
            raise SweepError(f"--set {show(s)}: a value is listed twice")
        axes[key] = vals
    return axes


@dataclass(frozen=True)
class Workload:
    """One workload of a sweep. `payload` is everything a worker needs to run it (shipped with the task,
    so workers need no shared filesystem); `digest` hashes the bytes that determine its result."""
    id: str                 # as the run store names workloads: case:<name>, bundle:<name>, trace:<name>
    name: str
    kind: str               # case | bundle | trace
    digest: str
    payload: dict = field(compare=False, hash=False, repr=False)


@dataclass(frozen=True)
class Point:
    index: int
    workload: Workload
    values: dict            # {key: raw value string} for every swept key
    config: Config          # resolved: preset + the point's overrides
    key: str

    @property
    def overrides(self) -> list[str]:
        return [f"{k}={v}" for k, v in self.values.items()]

    @property
    def label(self) -> str:
        return f"{self.workload.name} " + " ".join(self.overrides) if self.values else self.workload.name


def point_key(workload_digest: str, config: Config, version: str) -> str:
    # sim.threads changes no result (the engine is deterministic for any thread count): not part of the key
    values = {k: v for k, v in config.values.items() if k != "sim.threads"}
    blob = json.dumps({"workload": workload_digest, "config": values, "version": version},
                      sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


@dataclass
class SweepSpec:
    workloads: list[Workload]
    config: str = "h200"
    axes: dict[str, list[str]] = field(default_factory=dict)
    name: str = ""
    version: str = field(default_factory=simtscope_version)

    def __post_init__(self):
        if not self.workloads:
            raise SweepError("the sweep has no workloads (give --cases with --only, --workload or --trace)")
        ids = [w.id for w in self.workloads]
        if len(set(ids)) != len(ids):
            raise SweepError(f"a workload is listed twice: {sorted({i for i in ids if ids.count(i) > 1})}")
        if not isinstance(self.config, str):
            raise SweepError(f"--config must be a preset name or a file, got {show(self.config)}")
        try:
            self.base = load_config(self.config)
        except ConfigError as e:
            raise SweepError(f"--config: {e}") from None
        if not self.name:
            self.name = f"{len(self.workloads)} workload(s) x " + (
                " x ".join(f"{k}[{len(v)}]" for k, v in self.axes.items()) or "1 configuration")

    def configurations(self) -> list[dict]:
        """Every combination of the axes' values, in the order given (the last key varies fastest)."""
        keys = list(self.axes)
        return [dict(zip(keys, combo)) for combo in itertools.product(*(self.axes[k] for k in keys))]

    def count(self) -> int:
        """How many points the sweep has (workloads x every combination of the axes), without making them."""
        n = len(self.workloads)
        for v in self.axes.values():
            n *= len(v)
        return n

    def points(self) -> list[Point]:
        """Resolved and validated: an impossible value (outside its range, an L2 size that does not divide
        into sets) raises SweepError naming the value before anything runs. More than MAX_POINTS points
        (a product of axes grows fast) is a SweepError before any is made."""
        if self.count() > MAX_POINTS:
            raise SweepError(f"{self.count()} points (workloads x the product of the --set lists): a sweep may have "
                             f"at most {MAX_POINTS}")
        resolved = []
        for values in self.configurations():
            ov = [f"{k}={v}" for k, v in values.items()]
            try:
                resolved.append((values, self.base.with_overrides(ov)))
            except ConfigError as e:
                raise SweepError(f"configuration {show(' '.join(ov), 200, quote=False)}: {e}") from None
        out = []
        for w in self.workloads:
            for values, cfg in resolved:
                out.append(Point(len(out), w, values, cfg, point_key(w.digest, cfg, self.version)))
        return out

    @property
    def id(self) -> str:
        """Same workloads, config and axes -> the same sweep (started again, it resumes)."""
        blob = json.dumps({"w": [w.digest for w in self.workloads], "c": self.base.values, "a": self.axes,
                           "v": self.version}, sort_keys=True, default=str)
        return "s" + hashlib.sha256(blob.encode()).hexdigest()[:12]

    def describe(self) -> dict:
        return {"id": self.id, "name": self.name, "config": self.config, "axes": self.axes,
                "workloads": [{"id": w.id, "name": w.name, "kind": w.kind} for w in self.workloads],
                "version": self.version}
