"""Replay a bundle on a real NVIDIA GPU through the CUDA driver API (ctypes; no torch needed).

    python -m engine.workload.capture.cuda_replay BUNDLE [--repeat R] [--events N] [--json OUT]

Loads each PTX module with cuModuleLoadDataEx (the driver JIT, as the H200 measurements did), allocates
and fills every buffer, runs the launches in order, and checks the outputs against the bundle's
expectation (bit for bit and by the bundle's tolerance). `--repeat R` runs the whole sequence R times
(what Nsight Compute profiles: measure.py); `--events N` times each launch with CUDA events N times after
one warm run and reports the median.
"""
from __future__ import annotations

import argparse
import ctypes
import json
import re
import struct
import sys

import numpy as np

from ..bundle import DTYPES, open_bundle

_PARAM_RE = re.compile(r"\.param\s+\.(?P<t>[usbf]\d+)(?:\s+\.ptr)?(?:\s+\.\w+)*(?:\s+\.align\s+\d+)?\s+(?P<n>[\w$]+)"
                       r"(?:\[(?P<len>\d+)\])?")
_FMT = {"u8": "B", "s8": "b", "b8": "B", "u16": "H", "s16": "h", "b16": "H", "f16": "e", "u32": "I", "s32": "i",
        "b32": "I", "f32": "f", "u64": "Q", "s64": "q", "b64": "Q", "f64": "d"}


def entry_params(ptx: str, name: str) -> list[tuple[str, int]]:
    """(PTX type, byte count) of each parameter of `.entry name`."""
    m = re.search(r"\.entry\s+" + re.escape(name) + r"\s*\((.*?)\)", ptx, re.S)
    if not m:
        raise ValueError(f"no .entry {name} in the PTX")
    out = []
    for p in _PARAM_RE.finditer(m.group(1)):
        t = p.group("t")
        size = struct.calcsize(_FMT.get(t, "B")) * (int(p.group("len")) if p.group("len") else 1)
        out.append((t, size))
    return out


class Driver:
    def __init__(self):
        self.cu = ctypes.CDLL("libcuda.so.1")
        self.check(self.cu.cuInit(0), "cuInit")
        dev = ctypes.c_int()
        self.check(self.cu.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
        self.ctx = ctypes.c_void_p()
        self.check(self.cu.cuDevicePrimaryCtxRetain(ctypes.byref(self.ctx), dev), "cuDevicePrimaryCtxRetain")
        self.check(self.cu.cuCtxSetCurrent(self.ctx), "cuCtxSetCurrent")

    def check(self, rc: int, what: str) -> None:
        if rc != 0:
            s = ctypes.c_char_p()
            self.cu.cuGetErrorString(rc, ctypes.byref(s))
            raise RuntimeError(f"{what} failed: {rc} {s.value.decode() if s.value else ''}")

    def malloc(self, n: int) -> int:
        p = ctypes.c_uint64()
        self.check(self.cu.cuMemAlloc_v2(ctypes.byref(p), ctypes.c_size_t(max(n, 256))), "cuMemAlloc")
        return p.value

    def htod(self, dst: int, data: bytes) -> None:
        self.check(self.cu.cuMemcpyHtoD_v2(ctypes.c_uint64(dst), data, ctypes.c_size_t(len(data))), "cuMemcpyHtoD")

    def dtoh(self, src: int, n: int) -> bytes:
        buf = ctypes.create_string_buffer(n)
        self.check(self.cu.cuMemcpyDtoH_v2(buf, ctypes.c_uint64(src), ctypes.c_size_t(n)), "cuMemcpyDtoH")
        return buf.raw

    def memset0(self, dst: int, n: int) -> None:
        self.check(self.cu.cuMemsetD8_v2(ctypes.c_uint64(dst), ctypes.c_ubyte(0), ctypes.c_size_t(n)), "cuMemsetD8")

    def load(self, ptx: str):
        mod = ctypes.c_void_p()
        self.check(self.cu.cuModuleLoadDataEx(ctypes.byref(mod), ctypes.c_char_p(ptx.encode() + b"\0"), 0, None,
                                              None), "cuModuleLoadDataEx")
        return mod

    def function(self, mod, name: str, shared: int):
        f = ctypes.c_void_p()
        self.check(self.cu.cuModuleGetFunction(ctypes.byref(f), mod, name.encode()), f"cuModuleGetFunction {name}")
        if shared > 48 * 1024:      # CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
            self.check(self.cu.cuFuncSetAttribute(f, 8, ctypes.c_int(shared)), "cuFuncSetAttribute")
        return f

    def launch(self, f, grid, block, shared: int, params: list[bytes]) -> None:
        holders = [ctypes.create_string_buffer(p, len(p)) for p in params]
        arr = (ctypes.c_void_p * len(holders))(*[ctypes.cast(h, ctypes.c_void_p) for h in holders])
        self.check(self.cu.cuLaunchKernel(f, *[ctypes.c_uint(x) for x in grid], *[ctypes.c_uint(x) for x in block],
                                          ctypes.c_uint(shared), None, arr, None), "cuLaunchKernel")

    def sync(self) -> None:
        self.check(self.cu.cuCtxSynchronize(), "cuCtxSynchronize")


def _pack(t: str, size: int, v) -> bytes:
    fmt = "<" + _FMT[t]
    if t.startswith("f"):
        return struct.pack(fmt, float(v))
    n = struct.calcsize(fmt)
    return (int(v) & ((1 << (8 * n)) - 1)).to_bytes(n, "little")


def replay(path: str, repeat: int = 1, events: int = 0) -> dict:
    drv = Driver()
    with open_bundle(path) as b:
        addr = {}
        for bid, buf in b.buffers.items():
            addr[bid] = drv.malloc(buf.bytes)
        mods, plan = {}, []
        for L in b.launches:
            if L.opaque:
                plan.append(None)
                continue
            if L.ptx not in mods:
                mods[L.ptx] = (drv.load(b.ptx_text(L.ptx)), b.ptx_text(L.ptx))
            mod, text = mods[L.ptx]
            f = drv.function(mod, L.kernel, L.shared_bytes)
            ps = entry_params(text, L.kernel)
            if len(ps) != len(L.args):
                raise ValueError(f"launch {L.index}: {len(L.args)} args for {len(ps)} params")
            params = []
            for (t, size), a in zip(ps, L.args):
                if a.kind == "buffer":
                    params.append(_pack("u64", 8, addr[a.buffer] + a.offset))
                elif a.kind == "scratch":
                    params.append(_pack("u64", 8, drv.malloc(a.scratch_bytes_per_cta * L.ctas)
                                        if a.scratch_bytes_per_cta else 0))
                else:
                    params.append(_pack(t, size, a.value))
            plan.append((f, L, params))

        def fill():
            for bid, buf in b.buffers.items():
                data = b.buffer_bytes(bid)
                if data is None or (buf.init or {}).get("fill") == "zeros":
                    drv.memset0(addr[bid], buf.bytes)
                else:
                    drv.htod(addr[bid], data)

        def run_all():
            for p in plan:
                if p is not None:
                    f, L, params = p
                    drv.launch(f, L.grid, L.block, L.shared_bytes, params)
            drv.sync()
        checks = []
        for r in range(repeat):
            fill()
            run_all()
            if r == 0:
                for o in b.outputs:
                    got = drv.dtoh(addr[o.buffer] + o.offset, o.extent_bytes)
                    exp = b.expect_bytes(o)
                    dt = np.dtype(DTYPES[o.dtype])
                    g = np.frombuffer(got, dt).astype(np.float64) if o.dtype != "bf16" else None
                    e = np.frombuffer(exp, dt).astype(np.float64) if o.dtype != "bf16" else None
                    rel = float(np.linalg.norm(g - e) / max(np.linalg.norm(e), 1e-30)) if g is not None else None
                    checks.append({"buffer": o.buffer, "bit_exact": got == exp, "rel_l2": rel})
        times = []
        if events:
            ev0, ev1 = ctypes.c_void_p(), ctypes.c_void_p()
            drv.check(drv.cu.cuEventCreate(ctypes.byref(ev0), 0), "cuEventCreate")
            drv.check(drv.cu.cuEventCreate(ctypes.byref(ev1), 0), "cuEventCreate")
            for p in plan:
                if p is None:
                    times.append(None)
                    continue
                f, L, params = p
                ms = []
                for _ in range(events):
                    drv.check(drv.cu.cuEventRecord(ev0, None), "cuEventRecord")
                    drv.launch(f, L.grid, L.block, L.shared_bytes, params)
                    drv.check(drv.cu.cuEventRecord(ev1, None), "cuEventRecord")
                    drv.check(drv.cu.cuEventSynchronize(ev1), "cuEventSynchronize")
                    t = ctypes.c_float()
                    drv.check(drv.cu.cuEventElapsedTime(ctypes.byref(t), ev0, ev1), "cuEventElapsedTime")
                    ms.append(t.value)
                times.append(float(np.median(ms)) * 1e6)
        starts = []
        if events:
            starts = sequence_starts(drv, plan, max(3, min(events, 10)))
        return {"bundle": b.name, "launches": len(b.launches), "outputs": checks, "event_ns": times,
                "start_ns": starts}


def sequence_starts(drv: Driver, plan: list, repeats: int) -> list[float | None]:
    """The launches back to back as a stream runs them, a CUDA event recorded before each and after the
    last: per launch, the median time of its event after the first launch's (None for an opaque launch,
    which this replay cannot run), plus one last entry for the end of the last launch. measure.gaps()
    turns these and the launches' own event times into the idle gaps between launches."""
    n = len(plan)
    evs = []
    for _ in range(n + 1):
        e = ctypes.c_void_p()
        drv.check(drv.cu.cuEventCreate(ctypes.byref(e), 0), "cuEventCreate")
        evs.append(e)
    runs = []
    for _ in range(repeats):
        drv.sync()
        for i, p in enumerate(plan):
            if p is None:
                continue
            drv.check(drv.cu.cuEventRecord(evs[i], None), "cuEventRecord")
            f, L, params = p
            drv.launch(f, L.grid, L.block, L.shared_bytes, params)
        drv.check(drv.cu.cuEventRecord(evs[n], None), "cuEventRecord")
        drv.check(drv.cu.cuEventSynchronize(evs[n]), "cuEventSynchronize")
        first = next((i for i, p in enumerate(plan) if p is not None), n)
        row = []
        for i in range(n + 1):
            if i < n and plan[i] is None:
                row.append(None)
                continue
            t = ctypes.c_float()
            drv.check(drv.cu.cuEventElapsedTime(ctypes.byref(t), evs[first], evs[i]), "cuEventElapsedTime")
            row.append(t.value * 1e6)
        runs.append(row)
    return [None if runs[0][i] is None else float(np.median([r[i] for r in runs])) for i in range(n + 1)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bundle")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--events", type=int, default=0)
    ap.add_argument("--json")
    a = ap.parse_args(argv)
    res = replay(a.bundle, a.repeat, a.events)
    print(json.dumps(res))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
