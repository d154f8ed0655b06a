"""Opaque launches: the GPU kernels of the recorded pass that did not go through Triton's launcher.

A model compiled with `--allow-opaque` may call library kernels that have no PTX in the bundle (cuBLAS,
cuDNN, flash attention through `extern_kernels.*`, aten fallbacks, a `zero_()` before an atomic reduction).
The recorded pass then runs under torch.profiler (CUPTI's kernel activity, `profile_pass`, the only part
that needs a GPU). Its trace lists every kernel the GPU ran, in start order; the Triton launches that
hooks.py recorded are found in it by name and order (`merge`), and every other kernel becomes an opaque
launch in its place (`opaque_entry`): its CUDA kernel name, grid and block, the aten op that launched it,
the extern call and module path of its call site in Inductor's code where one is found (labels.extern_sites),
and its measured duration in ns and in SM cycles at the measured clock (new launch keys `opaque` and
`measured`, docs/workloads.md). A simulator does not run it; its measured time stands in for it.

Everything but `profile_pass` and `sm_clock_mhz` is pure data processing, tested with recorded traces.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass

TOOL = "torch.profiler (CUPTI kernel activity) during the recorded pass"


class OpaqueError(RuntimeError):
    """The profiler's kernels cannot be lined up with the recorded Triton launches."""


@dataclass
class Kernel:
    """One kernel of the profiler's trace."""
    name: str
    start_ns: int
    dur_ns: int
    grid: list[int]
    block: list[int]
    shared_bytes: int
    stream: int | None
    op: str | None                # the innermost aten op (CPU side) that launched it, e.g. aten::mm


# ---------------------------------------------------------------------- GPU side (small on purpose)
def profile_pass(fn):
    """Run fn() (one forward pass) under torch.profiler with CPU and CUDA activities; returns
    (fn's result, the Chrome trace as a dict). Needs torch and a GPU."""
    import os
    import tempfile

    import torch
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        out = fn()
        torch.cuda.synchronize()
    fd, path = tempfile.mkstemp(suffix=".json", prefix="simtscope-trace-")
    os.close(fd)
    try:
        prof.export_chrome_trace(path)
        with open(path) as f:
            trace = json.load(f)
    finally:
        os.unlink(path)
    return out, trace


def sm_clock_mhz() -> tuple[float | None, str]:
    """The GPU's SM clock right after the recorded pass: (MHz, how it was read). Cycles of opaque launches
    are their measured ns at this clock."""
    try:
        import torch
        mhz = torch.cuda.clock_rate()                     # NVML's current SM clock (needs pynvml)
        if mhz:
            return float(mhz), "NVML current SM clock after the pass (torch.cuda.clock_rate)"
    except Exception:                                     # noqa: BLE001 - no NVML: try nvidia-smi
        pass
    try:
        import subprocess
        out = subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm", "--format=csv,noheader,nounits", "-i", "0"],
                             capture_output=True, text=True, timeout=20).stdout.strip()
        return float(out.splitlines()[0]), "nvidia-smi clocks.sm after the pass"
    except Exception:                                     # noqa: BLE001 - nothing to read it with
        return None, "unknown (no NVML, no nvidia-smi): cycles not recorded"


# ---------------------------------------------------------------------- the trace
def kernels_from_trace(trace) -> list[Kernel]:
    """The GPU kernels of a Chrome trace (torch.profiler / Kineto), in start order, each with the aten op
    that launched it (the CPU op with the same `External id`)."""
    events = trace.get("traceEvents", []) if isinstance(trace, dict) else list(trace or [])
    ops: dict = {}
    for e in events:
        if isinstance(e, dict) and e.get("cat") == "cpu_op" and isinstance(e.get("args"), dict):
            ext = e["args"].get("External id")
            if ext is not None:
                ops[ext] = e.get("name")
    out = []
    for k, e in enumerate(events):
        if not isinstance(e, dict) or str(e.get("cat", "")).lower() != "kernel" or e.get("ph", "X") != "X":
            continue
        a = e.get("args") if isinstance(e.get("args"), dict) else {}
        try:
            start, dur = float(e["ts"]), float(e.get("dur", 0))
        except (KeyError, TypeError, ValueError):
            raise OpaqueError(f"trace event {k} ({e.get('name')!r}): a kernel without a numeric ts/dur") from None
        out.append(Kernel(name=str(e.get("name", "")), start_ns=round(start * 1000), dur_ns=max(0, round(dur * 1000)),
                          grid=_dim3(a.get("grid")), block=_dim3(a.get("block")),
                          shared_bytes=int(a.get("shared memory", 0) or 0), stream=a.get("stream"),
                          op=ops.get(a.get("External id"))))
    out.sort(key=lambda x: x.start_ns)                    # (a stable sort: equal starts keep trace order)
    return out


def _dim3(v) -> list[int]:
    if isinstance(v, (list, tuple)) and 1 <= len(v) <= 3 and all(isinstance(x, int) and x >= 1 for x in v):
        return list(v) + [1] * (3 - len(v))
    return [1, 1, 1]


def merge(triton: list[str], kernels: list[Kernel]) -> list[tuple[str, object]]:
    """The pass in GPU order: ("triton", i) for the i-th recorded Triton launch, ("opaque", Kernel) for
    every other kernel. The Triton launches must appear in the trace by name, in the recorded order."""
    out: list[tuple[str, object]] = []
    names = set(triton)
    j = 0
    for k in kernels:
        if j < len(triton) and k.name == triton[j]:
            out.append(("triton", j))
            j += 1
        elif k.name in names:
            want = triton[j] if j < len(triton) else "(none: all were seen)"
            raise OpaqueError(f"the profiler saw Triton kernel {k.name} where launch {j} ({want}) was recorded: "
                              f"the trace and the recorded launches are not in the same order")
        else:
            out.append(("opaque", k))
    if j != len(triton):
        raise OpaqueError(f"the profiler saw {j} of the {len(triton)} recorded Triton launches (first missing: "
                          f"launch {j}, {triton[j]}): cannot place the opaque launches")
    return out


_TEMPLATE = re.compile(r"<[^<>]*>")


def short_name(kernel: str) -> str:
    """`void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<c10::Half>, ...>(int, ...)`
    -> `at::native::vectorized_elementwise_kernel`; cuBLAS's flat names stay as they are (up to 120 chars)."""
    s = kernel.strip()
    s = re.sub(r"^void\s+", "", s)
    while _TEMPLATE.search(s):
        s = _TEMPLATE.sub("", s)
    s = s.split("(", 1)[0].strip()
    return (s or kernel)[:120]


def opaque_entry(k: Kernel, clock_mhz: float | None, site: dict | None) -> dict:
    """The manifest entry of one opaque launch (the format's launch keys plus `opaque` and `measured`)."""
    measured = {"ns": k.dur_ns, "tool": TOOL}
    if clock_mhz:
        measured.update(cycles=max(1, round(k.dur_ns * clock_mhz / 1000.0)), clock_mhz=clock_mhz)
    aten = k.op.removeprefix("aten::") if k.op else None
    d = {"kernel": k.name or "unnamed_kernel", "opaque": True, "grid": k.grid, "block": k.block,
         "shared_bytes": k.shared_bytes, "args": [], "name": short_name(k.name), "measured": measured}
    if site:
        d["extern_call"] = site["call"]
        if site.get("module"):
            d["module"] = site["module"]
        if site.get("op") or aten:
            d["op"] = site.get("op") or aten
        if site.get("nodes"):
            d["source_nodes"] = site["nodes"]
    elif aten:
        d["op"] = aten
    return d


def _call_op(call: str) -> str:
    """extern_kernels.mm -> mm; torch.ops.aten._scaled_dot_product_flash_attention.default -> the op."""
    parts = call.split(".")
    return parts[-2] if len(parts) > 1 and parts[-1] == "default" else parts[-1]


def _site_for(k: Kernel, gap: list[dict], position: int, seen: dict[str, int]) -> dict | None:
    """The call site of an opaque kernel among its gap's extern sites: the n-th site whose op is the aten
    op that launched the kernel (n: how many kernels of that op came before in this gap), else the site at
    the kernel's position in the gap (the last one for extra kernels)."""
    if not gap:
        return None
    aten = (k.op or "").removeprefix("aten::")
    same = [s for s in gap if aten and _call_op(s["call"]) == aten]
    if same:
        seen[aten] = seen.get(aten, 0) + 1
        return same[min(seen[aten] - 1, len(same) - 1)]
    return gap[min(position, len(gap) - 1)]


def place_opaque(launches: list[dict], order: list[tuple[str, object]], sites: list[dict],
                 clock_mhz: float | None) -> tuple[list[dict], int]:
    """The manifest's launch list with the opaque launches inserted where the GPU ran them.

    launches: the recorded Triton launches (manifest dicts, in order); order: merge()'s result; sites:
    labels.extern_sites() (each extern call with the number of Triton calls before it). The opaque kernels
    between the t-th and (t+1)-th Triton launch take, in order, the extern sites that come after t Triton
    calls (a site that launched several kernels labels them all). Returns (launches, opaque count)."""
    by_gap: dict[int, list[dict]] = {}
    for s in sites:
        by_gap.setdefault(int(s["after"]), []).append(s)
    out, t, n, in_gap, seen = [], 0, 0, 0, {}
    for kind, x in order:
        if kind == "triton":
            out.append(launches[x])
            t, in_gap, seen = x + 1, 0, {}
            continue
        site = _site_for(x, by_gap.get(t, []), in_gap, seen)
        out.append(opaque_entry(x, clock_mhz, site))
        in_gap += 1
        n += 1
    return out, n
