"""Validation cases in the `gpu-validation-suite/1` format (cases.json): inputs, launches, references.

`load_suite(path)` reads a cases.json (paths relative to its folder); `Case.inputs()` reproduces every
argument with the suite's splitmix64 generator; `Case.check(outputs)` compares with our numpy
reference named by `check` (None when the project does not know that reference: the case is then
reported unchecked, not failed). By default the suite is the project's own copy in validation/.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from .errors import show
from .resources import data_path

DEFAULT_CASES = data_path("validation") / "cases.json"

NP_DTYPES = {"f32": np.float32, "f16": np.float16, "i32": np.int32, "u32": np.uint32, "u64": np.uint64,
             "f64": np.float64, "i64": np.int64, "u8": np.uint8, "i8": np.int8, "u16": np.uint16,
             "i16": np.int16, "bf16": None}

_GOLDEN, _MIX1, _MIX2 = 0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB


def splitmix64(seed: int, count: int) -> np.ndarray:
    """z_i = the (i+1)-th output of splitmix64 started at `seed`, for i < count (uint64, mod 2^64)."""
    with np.errstate(over="ignore"):
        x = np.uint64(seed & (2**64 - 1)) + np.arange(1, count + 1, dtype=np.uint64) * np.uint64(_GOLDEN)
        x = (x ^ (x >> np.uint64(30))) * np.uint64(_MIX1)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(_MIX2)
        return x ^ (x >> np.uint64(31))


def make_buffer(arg: dict) -> np.ndarray:
    """The contents of a buffer argument before the launch, exactly as the suite defines them."""
    kind = arg["dtype"]
    if kind not in NP_DTYPES or NP_DTYPES[kind] is None:
        raise ValueError(f"buffer {arg.get('name')}: unsupported dtype {kind!r}")
    dt = np.dtype(NP_DTYPES[kind])
    n = int(arg["count"])
    init = arg.get("init", "zeros")
    if init == "zeros":
        return np.zeros(n, dt)
    if init == "const":
        return np.full(n, arg["value"], dtype=dt)
    if init == "iota":
        return np.arange(n, dtype=np.int64).astype(dt)
    z = splitmix64(int(arg["seed"]), n)
    if init == "random_uniform":
        u = (z >> np.uint64(40)).astype(np.float64) * 2.0**-24
        v = (float(arg["lo"]) + (float(arg["hi"]) - float(arg["lo"])) * u).astype(np.float32)
        if kind in ("f32", "f16"):
            return v.astype(dt)
        raise ValueError(f"random_uniform needs f32 or f16, not {kind}")
    if init == "random_int":
        lo, hi = int(arg["lo"]), int(arg["hi"])
        return ((z % np.uint64(hi - lo)).astype(np.int64) + lo).astype(dt)
    raise ValueError(f"buffer {arg.get('name')}: unknown init {init!r}")


# ---------------------------------------------------------------- references (float64 numpy)
def _f(a):
    return np.asarray(a, dtype=np.float64)


def _gemm(p, d):
    a = _f(d["A"]).reshape(p["M"], p["K"])
    b = _f(d["B"]).reshape(p["K"], p["N"])
    return {"C": (a @ b).ravel()}


def _reduce_blocks(p, d):
    x = _f(d["in"])
    if p["layout"] == "contiguous":
        return {"partial": x.reshape(-1, p["chunk"]).sum(axis=1)}
    return {"partial": x.reshape(-1, p["grid"], p["block"]).sum(axis=(0, 2))}


def _conv2d(p, d):
    n, c, h, w, k = p["N"], p["C"], p["H"], p["W"], p["K"]
    x = np.pad(_f(d["in"]).reshape(n, c, h, w), ((0, 0), (0, 0), (1, 1), (1, 1)))
    wt = _f(d["weight"]).reshape(k, c, 3, 3)
    out = np.zeros((n, k, h, w))
    for r in range(3):
        for s in range(3):
            out += np.einsum("kc,nchw->nkhw", wt[:, :, r, s], x[:, :, r:r + h, s:s + w], optimize=True)
    return {"out": out.ravel()}


def _im2col(p, d):
    n, c, h, w = p["N"], p["C"], p["H"], p["W"]
    x = np.pad(np.asarray(d["in"], np.float32).reshape(n, c, h, w), ((0, 0), (0, 0), (1, 1), (1, 1)))
    col = np.empty((c, 9, n, h, w), np.float32)
    for r in range(3):
        for s in range(3):
            col[:, 3 * r + s] = x[:, :, r:r + h, s:s + w].transpose(1, 0, 2, 3)
    return {"col": col.ravel()}


def _softmax(p, d):
    x = _f(d["in"]).reshape(p["rows"], p["cols"])
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return {"out": (e / e.sum(axis=1, keepdims=True)).ravel()}


def _layernorm(p, d):
    x = _f(d["in"]).reshape(p["rows"], p["cols"])
    mu = x.mean(axis=1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=1, keepdims=True)
    return {"out": ((x - mu) / np.sqrt(var + p["eps"]) * _f(d["gamma"]) + _f(d["beta"])).ravel()}


def _maxpool(p, d):
    x = np.asarray(d["in"]).reshape(p["NC"], p["H"] // 2, 2, p["W"] // 2, 2)
    return {"out": x.max(axis=(2, 4)).ravel()}


def _histogram(p, d):
    v = np.asarray(d["data"]).astype(np.int64) % p["nbins"]
    return {"hist": np.bincount(v, minlength=p["nbins"]).astype(np.int64) + np.asarray(d["hist"], np.int64)}


def _attn(p, d):
    h, s, dim = p["H"], p["seq"], p["dim"]
    q = _f(d["Q"]).reshape(h, s, dim)
    k = _f(d["K"]).reshape(h, s, dim)
    return {"S": (p["scale"] * q @ k.transpose(0, 2, 1)).ravel()}


REFERENCES: dict[str, Callable] = {
    "saxpy": lambda p, d: {"y": p["a"] * _f(d["x"]) + _f(d["y"])},
    "vector_add": lambda p, d: {"c": _f(d["a"]) + _f(d["b"])},
    "relu": lambda p, d: {"y": np.maximum(_f(d["x"]), 0.0)},
    "gelu_tanh": lambda p, d: {"y": 0.5 * _f(d["x"]) * (1.0 + np.tanh(
        0.7978845608028654 * (_f(d["x"]) + 0.044715 * _f(d["x"]) ** 3)))},
    "reduce_blocks": _reduce_blocks,
    "gemm": _gemm,
    "conv2d_3x3": _conv2d,
    "im2col_3x3": _im2col,
    "softmax": _softmax,
    "layernorm": _layernorm,
    "copy2d": lambda p, d: {"out": np.asarray(d["in"])},
    "transpose": lambda p, d: {"out": np.ascontiguousarray(np.asarray(d["in"]).reshape(p["rows"], p["cols"]).T).ravel()},
    "maxpool2x2": _maxpool,
    "embedding": lambda p, d: {"out": np.asarray(d["table"]).reshape(p["V"], p["D"])[
        np.asarray(d["idx"]).astype(np.int64)].ravel()},
    "histogram": _histogram,
    "attn_scores": _attn,
}


def compare(out: np.ndarray, ref: np.ndarray, tol: float) -> tuple[bool, float]:
    """The suite's rule: exact for integers or tol == 0 (error = mismatches), else relative L2 error."""
    out = np.asarray(out)
    if np.issubdtype(out.dtype, np.integer) or tol == 0:
        bad = int(np.count_nonzero(out != np.asarray(ref).astype(out.dtype)))
        return bad == 0, float(bad)
    o = out.astype(np.float64)
    if not np.all(np.isfinite(o)):
        return False, float("inf")
    r = np.asarray(ref, dtype=np.float64)
    den = float(np.linalg.norm(r))
    err = float(np.linalg.norm(o - r) / (den if den > 0 else 1.0))
    return err <= tol, err


@dataclass
class Case:
    data: dict
    root: Path

    @property
    def name(self) -> str:
        return self.data["name"]

    @property
    def kernel(self) -> str:
        return self.data["kernel"]

    @property
    def ptx_path(self) -> Path:
        return self.root / self.data["ptx"]

    @property
    def grid(self) -> tuple:
        return tuple(self.data["grid"])

    @property
    def block(self) -> tuple:
        return tuple(self.data["block"])

    @property
    def shared(self) -> int:
        return int(self.data.get("dynamic_smem_bytes", 0))

    @property
    def args(self) -> list[dict]:
        return self.data["args"]

    def inputs(self) -> dict:
        """Every argument's value before the launch: numpy arrays for buffers, numbers for scalars."""
        out = {}
        for a in self.args:
            if a["kind"] == "buffer":
                out[a["name"]] = make_buffer(a)
            elif a["kind"] == "scalar":
                out[a["name"]] = a["value"]
            else:
                raise ValueError(f"case {self.name}: unknown argument kind {a['kind']!r}")
        return out

    @property
    def outputs(self) -> list[str]:
        return [a["name"] for a in self.args if a["kind"] == "buffer" and a.get("output")]

    @property
    def known_reference(self) -> bool:
        return self.data.get("check") in REFERENCES

    def check(self, inputs: dict, outputs: dict) -> tuple[bool | None, dict]:
        """(passed, {buffer: error}); passed is None when the reference is unknown to the project."""
        ref_fn = REFERENCES.get(self.data.get("check"))
        if ref_fn is None:
            return None, {}
        refs = ref_fn(self.data.get("params", {}), inputs)
        ok, errs = True, {}
        tol = float(self.data.get("tol", 0))
        for name, ref in refs.items():
            good, err = compare(outputs[name], ref, tol)
            errs[name] = err
            ok = ok and good
        return ok, errs


class SuiteError(ValueError):
    """A cases file that cannot be read, a case it does not have, or a name pattern that matches none of its cases."""

    def __str__(self) -> str:                  # (UnknownCase is a KeyError too, whose str() would quote the message)
        return str(self.args[0]) if self.args else ""


class UnknownCase(SuiteError, KeyError):
    """suite[name] for a name the suite does not have (a KeyError as well, as a mapping's lookup is)."""


@dataclass
class Suite:
    path: Path
    data: dict
    cases: list[Case] = field(default_factory=list)

    def __getitem__(self, name: str) -> Case:
        for c in self.cases:
            if c.name == name:
                return c
        raise UnknownCase(f"no case named {show(name)} in {self.path}")

    def names(self) -> list[str]:
        return [c.name for c in self.cases]

    def select(self, only: str | None, label: str | None = None) -> list[Case]:
        """The cases named by `only` (comma-separated names, `*` matching any run of characters), in the suite's
        order; all of them when `only` is empty. A pattern that matches no case is a SuiteError naming it and the
        suite (`label`, default its path): a mistyped name must not select nothing and pass."""
        pats = [p.strip() for p in (only or "").split(",") if p.strip()]
        if not pats:
            return list(self.cases)
        rxs = [re.compile(re.escape(p).replace(r"\*", ".*")) for p in pats]
        for p, rx in zip(pats, rxs):
            if not any(rx.fullmatch(c.name) for c in self.cases):
                raise SuiteError(f"--only {show(p)}: no case of {label or self.path} matches")
        return [c for c in self.cases if any(rx.fullmatch(c.name) for rx in rxs)]


def load_suite(path: str | Path | None = None) -> Suite:
    p = Path(path) if path else DEFAULT_CASES
    if p.is_dir():
        p = p / "cases.json"
    try:
        data = json.loads(p.read_text())
    except OSError as e:
        raise SuiteError(f"cases file {p}: cannot read it ({e.strerror or e})") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise SuiteError(f"cases file {p}: not JSON ({e})") from None
    fmt = data.get("format", "") if isinstance(data, dict) else ""
    if not str(fmt).startswith("gpu-validation-suite/"):
        raise SuiteError(f"{p}: not a gpu-validation-suite file (format {show(fmt)})")
    if not isinstance(data.get("cases"), list):
        raise SuiteError(f"{p}: its \"cases\" is not a list")
    root = (p.parent / data.get("paths_relative_to", ".")).resolve()
    return Suite(p, data, [Case(c, root) for c in data["cases"]])
