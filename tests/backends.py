"""Run a test module's kernels on the simulator (default) or on a real GPU through CuPy.

    from tests.backends import dev, sim_only   # noqa: F401  (the fixture overrides conftest's)

With SIMTSCOPE_TEST_BACKEND=timing the kernels run in the timing model instead of the functional
core (same results expected). With SIMTSCOPE_TEST_BACKEND=cupy the `dev` fixture is a `CupyDevice`: the same small API as
engine.device.Device (load_ptx, to_device, alloc, from_device, launch), backed by CuPy on the machine's
GPU. The same tests then check the numpy references against the hardware, which is how the references
for undocumented corners (shfl clamps, fragment layouts, descriptor swizzles) were confirmed on an H200.
Tests of simulator-only behaviour (faults, choices where PTX is undefined) carry `@sim_only`.
The engine is imported lazily so that the CuPy backend runs where the C engine is not built.
"""
from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

BACKEND = os.environ.get("SIMTSCOPE_TEST_BACKEND", "sim")
KERNELS = Path(__file__).resolve().parent / "kernels"

sim_only = pytest.mark.skipif(BACKEND == "cupy", reason="simulator behaviour (undefined or faulting on hardware)")

_SCALAR = {"u8": np.uint8, "s8": np.int8, "b8": np.uint8, "u16": np.uint16, "s16": np.int16, "b16": np.uint16,
           "u32": np.uint32, "s32": np.int32, "b32": np.uint32, "f32": np.float32, "u64": np.uint64,
           "s64": np.int64, "b64": np.uint64, "f64": np.float64}


@dataclass
class _Buf:
    arr: object          # a cupy array
    dtype: np.dtype
    shape: tuple


@dataclass
class _Kernel:
    fn: object
    name: str
    params: list         # PTX parameter types


class _Module:
    def __init__(self, cp, text: str):
        with tempfile.NamedTemporaryFile("w", suffix=".ptx", delete=False) as f:
            f.write(text)
            path = f.name
        self._mod = cp.RawModule(path=path)   # CuPy reads the file when a function is first asked for:
        self._path = path                      # keep it until the module goes
        self._params = {}
        for m in re.finditer(r"\.entry\s+(\w+)\s*\((.*?)\)", text, re.S):
            self._params[m.group(1)] = re.findall(r"\.param\s+\.(\w+)", m.group(2))

    def __del__(self):
        try:
            os.unlink(self._path)
        except OSError:
            pass

    def kernel(self, name: str) -> _Kernel:
        return _Kernel(self._mod.get_function(name), name, self._params[name])


class CupyDevice:
    """The subset of engine.device.Device the tests use, on a real GPU."""

    def __init__(self):
        import cupy
        self.cp = cupy

    def load_ptx(self, source, filename=None) -> _Module:
        text = source.read_text() if isinstance(source, Path) else source
        return _Module(self.cp, text)

    def to_device(self, arr) -> _Buf:
        a = np.ascontiguousarray(arr)
        return _Buf(self.cp.asarray(a), a.dtype, a.shape)

    def alloc(self, shape, dtype=np.float32) -> _Buf:
        dt = np.dtype(dtype)
        return _Buf(self.cp.zeros(shape, dt), dt, (shape,) if isinstance(shape, int) else tuple(shape))

    def write(self, buf: _Buf, arr) -> None:
        buf.arr[...] = self.cp.asarray(np.ascontiguousarray(arr).reshape(buf.arr.shape))

    def from_device(self, buf: _Buf, dtype=None, shape=None) -> np.ndarray:
        out = self.cp.asnumpy(buf.arr)
        if dtype is not None:
            out = out.view(dtype).reshape(-1)
        return out.reshape(shape) if shape is not None else out

    def launch(self, kernel: _Kernel, grid, block, args=(), shared: int = 0, **_):
        conv = []
        for p, a in zip(kernel.params, args):
            conv.append(a.arr if isinstance(a, _Buf) else _SCALAR[p](a))
        dim = lambda v: (v, 1, 1) if isinstance(v, (int, np.integer)) else tuple(v) + (1,) * (3 - len(v))
        if shared > 48 * 1024:
            kernel.fn.max_dynamic_shared_size_bytes = shared
        kernel.fn(dim(grid), dim(block), tuple(conv), shared_mem=shared)
        self.cp.cuda.runtime.deviceSynchronize()


class TimingDevice:
    """engine.device.Device whose launches run in the timing model (engine.timing.TimingSim, H200)."""

    def __init__(self):
        from engine.timing import TimingSim
        self.sim = TimingSim("h200")
        self.device = self.sim.device

    def __getattr__(self, name):
        return getattr(self.device, name)

    def launch(self, kernel, grid, block, args=(), shared: int = 0, **_):
        return self.sim.launch(kernel, grid, block, args, shared=shared, max_cycles=100_000_000)


@pytest.fixture
def dev():
    if BACKEND == "cupy":
        return CupyDevice()
    if BACKEND == "timing":
        return TimingDevice()
    from engine.device import Device
    return Device()


_PROGRAMS: dict = {}


def load_kernels(dev, name: str):
    """tests/kernels/NAME.ptx as a module of dev. The simulator's parsed program is kept for the
    session (parsing a large PTX file takes about a second; binding it to a device takes ms)."""
    path = KERNELS / f"{name}.ptx"
    if BACKEND == "cupy":
        return dev.load_ptx(path)
    from engine.device import Module
    from engine.ptx import load
    if path not in _PROGRAMS:
        _PROGRAMS[path] = load(path)
    module = Module(getattr(dev, "device", dev), _PROGRAMS[path])
    return module
