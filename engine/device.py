"""The Pythonic face of the C engine: a simulated device with memory, loaded PTX modules and launches.

    dev = Device()
    x = dev.to_device(np.arange(1024, dtype=np.float32))
    mod = dev.load_ptx(Path("vector.ptx"))
    res = dev.launch(mod.kernel("saxpy"), grid=4, block=256, args=[1024, 2.0, x, y])
    y_host = dev.from_device(y)

C memory is owned through ffi.gc; faults raise engine.errors.KernelFault subclasses and leave the device
usable. engine._ffi's `lib` is used by this module, engine/timing.py, the trace reader and runner
(engine/traces) and the PTX front end (engine/ptx: the IR records' enum values); nothing outside engine/
imports it (docs/architecture.md, tests/test_layers.py).
"""
from __future__ import annotations

import struct
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Sequence

import numpy as np

from . import errors
from ._ffi import OP_NAMES, E, ffi, lib
from .ptx import load as ptx_load
from .ptx.lower import Program

_FAULT_CLASS = {
    E.fault["oob"]: errors.MemoryFault,
    E.fault["misaligned"]: errors.MisalignedAccess,
    E.fault["deadlock"]: errors.BarrierDeadlock,
    E.fault["trap"]: errors.TrapFault,
    E.fault["limit"]: errors.LimitExceeded,
    E.fault["unsupported"]: errors.UnsupportedAtRuntime,
    E.fault["invalid"]: errors.InvalidOperation,
    E.fault["interrupted"]: errors.Interrupted,
}

PARAM_FORMATS = {"u8": "<B", "s8": "<b", "b8": "<B", "u16": "<H", "s16": "<h", "b16": "<H", "f16": "<e",
                 "u32": "<I", "s32": "<i", "b32": "<I", "f32": "<f", "u64": "<Q", "s64": "<q",
                 "b64": "<Q", "f64": "<d"}


@dataclass(frozen=True)
class DeviceBuffer:
    """A device allocation: address, size in bytes, and the numpy dtype/shape it was made for."""
    addr: int
    nbytes: int
    dtype: np.dtype = np.dtype(np.uint8)
    shape: tuple = ()

    def __int__(self):
        return self.addr


@dataclass
class Kernel:
    module: "Module"
    name: str
    index: int
    params: list

    @property
    def info(self):
        return self.module.program.functions[self.index]


@dataclass
class LaunchResult:
    kernel: str
    grid: tuple
    block: tuple
    warp_insts: int
    thread_insts: int
    op_counts: dict
    wall_s: float
    ctas: int

    @property
    def warp_insts_per_s(self) -> float:
        return self.warp_insts / self.wall_s if self.wall_s > 0 else 0.0


def _s64(v: int) -> np.int64:
    v &= (1 << 64) - 1
    return np.int64(v - (1 << 64) if v >= 1 << 63 else v)


U32_MAX = (1 << 32) - 1
U64_MAX = (1 << 64) - 1
# CUDA's launch limits (the engine enforces the same in gs_func_launch / gs_tsim_launch)
DIM_LIMITS = {"grid": (0x7FFFFFFF, 65535, 65535), "block": (1024, 1024, 64)}
MAX_BLOCK_THREADS = 1024


def check_int(name: str, v, lo: int, hi: int) -> int:
    """v as an int in [lo, hi], else LaunchError naming the argument and its allowed range (bools, floats,
    None and strings are refused rather than truncated)."""
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        raise errors.LaunchError(f"{name} must be an integer from {lo} to {hi}, got {v!r} ({type(v).__name__})")
    v = int(v)
    if not lo <= v <= hi:
        raise errors.LaunchError(f"{name} = {v} is out of range: allowed {lo} to {hi}")
    return v


def _dim3(v, name: str = "grid") -> tuple[int, int, int]:
    """A launch dimension (an int or 1 to 3 ints) checked against CUDA's limits for grid or block."""
    if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
        t = (v,)
    elif isinstance(v, (tuple, list, np.ndarray)):
        t = tuple(v)
    else:
        raise errors.LaunchError(f"{name} must be an integer or a tuple of 1 to 3 integers, got {v!r} "
                                 f"({type(v).__name__})")
    if not 1 <= len(t) <= 3:
        raise errors.LaunchError(f"a launch dimension needs 1 to 3 values, got {v!r} for {name}")
    limits = DIM_LIMITS.get(name, (U32_MAX,) * 3)
    out = tuple(check_int(f"{name}.{'xyz'[i]}", x, 1, limits[i]) for i, x in enumerate(t)) + (1,) * (3 - len(t))
    if name == "block" and out[0] * out[1] * out[2] > MAX_BLOCK_THREADS:
        raise errors.LaunchError(f"block {out} has {out[0] * out[1] * out[2]} threads; allowed 1 to {MAX_BLOCK_THREADS}")
    return out


def check_launch(kernel, shared, max_warp_insts, progress) -> tuple[int, int]:
    """The arguments every launch shares; returns (shared, max_warp_insts) as ints."""
    if not isinstance(kernel, Kernel):
        raise errors.LaunchError(f"kernel must be a Kernel (module.kernel(name)), got {type(kernel).__name__}")
    if progress is not None and not callable(progress):
        raise errors.LaunchError(f"progress must be callable or None, got {type(progress).__name__}")
    return (check_int("shared", shared, 0, U32_MAX),
            check_int("max_warp_insts", max_warp_insts, 0, U64_MAX))


class Module:
    """A PTX module lowered and bound to the engine's handlers (gs_program)."""

    def __init__(self, device: "Device", program: Program, scheduled: bool = True):
        self.device = device
        self.filename = program.filename
        self._global_addrs: dict[str, int] = {}
        for g in program.globals:
            addr = device.malloc(g.size)
            if g.init:
                device._htod(addr, g.init)
            self._global_addrs[g.name] = addr
        self.scheduled = scheduled  # False: nvcc's order kept (Device.load_ptx(schedule=False)), never reordered
        self.order = "latency" if scheduled else "as written"   # or "sass loads" / "sass": reschedule
        self._retired: list = []    # earlier engine programs of this module (a simulator may still point at one)
        self._bind(program)

    def _bind(self, program: Program) -> None:
        """Create the engine's program (gs_program) for `program`, at this module's global addresses."""
        self.program = program
        opnds = program.opnds.copy()
        for idx, name, addend in program.relocs:
            opnds[idx]["imm"] = _s64(self._global_addrs[name] + addend)   # wraps as the address adder does
        self._opnds = opnds
        err = ffi.new("char[512]")
        insts = program.insts
        cb = program.const_bank
        self._keep = (insts, opnds, program.funcs, cb)
        p = lib.gs_program_create(
            ffi.from_buffer("gs_ir_inst[]", insts), len(insts),
            ffi.from_buffer("gs_ir_opnd[]", opnds), len(opnds),
            ffi.from_buffer("gs_ir_func[]", program.funcs), len(program.funcs),
            ffi.from_buffer("uint8_t[]", cb) if cb else ffi.NULL, len(cb), err, 512)
        if p == ffi.NULL:
            raise errors.SimError(f"{self.filename}: {ffi.string(err).decode()}")
        self._ptr = ffi.gc(p, lib.gs_program_destroy)
        self.sass = None            # engine.sass.SassCosts once a timing run attached them
        self.sass_state = None      # how timing runs time it (engine.timing.TimingSim.sass_mode)

    def replace_program(self, program: Program) -> None:
        """Run `program` instead: the same functions, globals and results, other instructions
        (engine/sass/unroll.py's loops laid out as ptxas's). The SASS costs must be attached again."""
        self._retired.append(self._ptr)
        self._bind(program)
        self.sass = None

    def reschedule(self, sass_keys: dict[int, int] | None, sass_all: bool = False) -> None:
        """Lower the module's PTX again with its global loads where ptxas put them (sass_keys: PTX line ->
        position of its last SASS instruction, engine.sass.line_order; timing.sass_order = 1), every
        instruction in ptxas's order (sass_all: timing.sass_order = 2) or, with None, in the latency order
        Device.load_ptx gives. Results are the same in every order (every dependency is kept); global
        variables keep their addresses and contents. The SASS costs must be attached again."""
        if not self.scheduled:
            raise errors.SimError(f"{self.filename}: loaded with schedule=False (nvcc's order): not reordered")
        program = ptx_load(self.program.source, self.filename, schedule=True, sass_keys=sass_keys,
                           sass_all=sass_all)
        self._retired.append(self._ptr)
        self._bind(program)
        self.order = "latency" if sass_keys is None else "sass" if sass_all else "sass loads"

    def kernel(self, name: str) -> Kernel:
        for f in self.program.functions:
            if f.name == name and f.is_entry:
                return Kernel(self, name, f.index, f.params)
        names = ", ".join(sorted(self.program.kernels)) or "none"
        raise KeyError(f"no kernel '{name}' in {self.filename} (kernels: {names})")

    @property
    def kernels(self) -> list[str]:
        return [f.name for f in self.program.functions if f.is_entry]

    def global_address(self, name: str) -> int:
        return self._global_addrs[name]

    def pc_info(self, pc: int) -> tuple[int, str]:
        return int(self.program.insts[pc]["line"]), self.program.pc_text[pc]


class Device:
    """A simulated GPU's memory plus launches. `num_sms` only affects %nsmid / %smid in functional runs."""

    def __init__(self, num_sms: int = 132):
        self.num_sms = check_int("num_sms", num_sms, 1, 1024)
        self._ptr = ffi.gc(lib.gs_device_create(), lib.gs_device_destroy)
        self._modules: list[Module] = []

    # ---------------------------------------------------------------- memory
    def malloc(self, nbytes: int) -> int:
        if nbytes < 0:
            raise ValueError("negative allocation size")
        addr = lib.gs_malloc(self._ptr, int(nbytes))
        if addr == 0:
            raise errors.DeviceOutOfMemory(f"device allocation of {nbytes} bytes failed (host memory exhausted)")
        return int(addr)

    def free(self, buf: DeviceBuffer | int) -> None:
        if lib.gs_free(self._ptr, int(buf)) != 0:
            raise ValueError(f"0x{int(buf):x} is not a live allocation")

    def alloc(self, shape, dtype=np.float32) -> DeviceBuffer:
        dt = np.dtype(dtype)
        shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
        n = int(np.prod(shape)) * dt.itemsize
        return DeviceBuffer(self.malloc(n), n, dt, shape)

    def to_device(self, arr: np.ndarray) -> DeviceBuffer:
        a = np.ascontiguousarray(arr)
        buf = DeviceBuffer(self.malloc(a.nbytes), a.nbytes, a.dtype, a.shape)
        self._htod(buf.addr, a)
        return buf

    def write(self, buf: DeviceBuffer | int, arr) -> None:
        self._htod(int(buf), np.ascontiguousarray(arr))

    def from_device(self, buf: DeviceBuffer, dtype=None, shape=None) -> np.ndarray:
        dt = np.dtype(dtype) if dtype is not None else buf.dtype
        out = np.empty(buf.nbytes // dt.itemsize, dt)
        self._dtoh(out, buf.addr)
        return out.reshape(shape if shape is not None else (buf.shape if dtype is None else out.shape))

    def read(self, addr: int, nbytes: int) -> bytes:
        out = bytearray(nbytes)
        self._dtoh(out, addr)
        return bytes(out)

    def _htod(self, addr: int, data) -> None:
        mv = memoryview(data).cast("B") if not isinstance(data, (bytes, bytearray)) else data
        if lib.gs_memcpy_htod(self._ptr, addr, ffi.from_buffer(mv), len(mv)) != 0:
            raise ValueError(f"host-to-device copy of {len(mv)} bytes at 0x{addr:x} is outside every allocation")

    def _dtoh(self, out, addr: int) -> None:
        mv = memoryview(out).cast("B")
        if lib.gs_memcpy_dtoh(self._ptr, ffi.from_buffer(mv, require_writable=True), addr, len(mv)) != 0:
            raise ValueError(f"device-to-host copy of {len(mv)} bytes at 0x{addr:x} is outside every allocation")

    @property
    def allocated_bytes(self) -> int:
        return int(lib.gs_device_allocated_bytes(self._ptr))

    # ---------------------------------------------------------------- modules
    def load_ptx(self, source: str | Path, filename: str | None = None, schedule: bool = True) -> Module:
        """Parse, lower and bind PTX (text or a path). Raises PTXSyntaxError, PTXSemanticError or
        UnsupportedInstruction (every unsupported instruction, by name and line). schedule=False keeps
        nvcc's instruction order (the default reorders within basic blocks as ptxas does)."""
        return self.add_module(ptx_load(source, filename, schedule=schedule), scheduled=schedule)

    def add_module(self, program: Program, scheduled: bool = True) -> Module:
        """Bind a Program lowered elsewhere (engine.ptx.load, which touches no device: another thread may
        run it) as load_ptx does: its globals are allocated now."""
        m = Module(self, program, scheduled=scheduled)
        self._modules.append(m)
        return m

    # ---------------------------------------------------------------- launches
    def pack_params(self, kernel: Kernel, args: Sequence) -> bytes:
        params = kernel.params
        if isinstance(args, (str, bytes, bytearray)) or not hasattr(args, "__len__"):
            raise errors.LaunchError(f"args must be a sequence of {len(params)} argument(s), got {type(args).__name__}")
        if len(args) != len(params):
            raise errors.LaunchError(f"kernel {kernel.name} takes {len(params)} argument(s), {len(args)} given")
        size = kernel.info.param_bytes
        buf = bytearray(size)
        for p, a in zip(params, args):
            if isinstance(a, DeviceBuffer):
                a = a.addr
            if p.size > 8 or p.type not in PARAM_FORMATS:
                try:
                    data = bytes(a) if isinstance(a, (bytes, bytearray)) else np.asarray(a).tobytes()
                except (TypeError, ValueError) as e:
                    raise errors.LaunchError(f"argument {p.name} needs {p.size} bytes: {e}") from None
                if len(data) != p.size:
                    raise errors.LaunchError(f"argument {p.name} needs {p.size} bytes, got {len(data)}")
                buf[p.offset:p.offset + p.size] = data
                continue
            try:
                if p.type in ("f16", "f32", "f64"):
                    v = struct.pack(PARAM_FORMATS[p.type], float(a))
                else:
                    n = struct.calcsize(PARAM_FORMATS[p.type])
                    iv = int(a)
                    if not -(1 << (8 * n - 1)) <= iv < (1 << (8 * n)):
                        raise ValueError(f"{iv} does not fit in {8 * n} bits")
                    v = (iv & ((1 << (8 * n)) - 1)).to_bytes(n, "little")
            except (struct.error, TypeError, ValueError, OverflowError) as e:
                raise errors.LaunchError(f"argument {p.name} ({p.type}): {e}") from None
            buf[p.offset:p.offset + len(v)] = v
        return bytes(buf)

    def launch(self, kernel: Kernel, grid, block, args: Sequence = (), shared: int = 0,
               max_warp_insts: int = 0, progress: Callable[[int, int], None] | None = None,
               chunk: int = 5_000_000) -> LaunchResult:
        """Run a kernel to completion in the functional core. Raises KernelFault subclasses."""
        g, b = _dim3(grid, "grid"), _dim3(block, "block")
        shared, max_warp_insts = check_launch(kernel, shared, max_warp_insts, progress)
        chunk = check_int("chunk", chunk, 1, U64_MAX)
        params = self.pack_params(kernel, args)
        desc = ffi.new("gs_launch_desc *")
        desc.func = kernel.index
        desc.grid = list(g)
        desc.block = list(b)
        desc.dyn_shared_bytes = shared
        desc.max_warp_insts = max_warp_insts
        desc.num_sms = self.num_sms
        fault = ffi.new("gs_fault *")
        pbuf = ffi.from_buffer(params) if params else ffi.NULL
        run = lib.gs_func_launch(self._ptr, kernel.module._ptr, desc, pbuf, len(params), fault)
        if run == ffi.NULL:
            raise errors.LaunchError(f"{kernel.name}: {ffi.string(fault.message).decode()}")
        run = ffi.gc(run, lib.gs_func_destroy)
        stats = ffi.new("gs_func_stats *")
        t0 = time.perf_counter()
        while True:
            st = lib.gs_func_step(run, chunk, fault)
            if st == lib.GS_DONE:
                break
            if st == lib.GS_FAULTED:
                raise self.fault_exception(kernel.module, kernel.name, fault)
            if progress:
                lib.gs_func_get_stats(run, stats)
                progress(int(stats.ctas_done), int(stats.ctas_total))
        wall = time.perf_counter() - t0
        lib.gs_func_get_stats(run, stats)
        counts = {OP_NAMES.get(i, str(i)): int(stats.op_counts[i]) for i in range(lib.GS_OP__COUNT)
                  if stats.op_counts[i]}
        return LaunchResult(kernel.name, g, b, int(stats.warp_insts), int(stats.thread_insts), counts, wall,
                            int(stats.ctas_total))

    @staticmethod
    def fault_exception(module: Module, kernel: str, f) -> errors.KernelFault:
        cls = _FAULT_CLASS.get(f.kind, errors.KernelFault)
        pc = int(f.pc)
        text = module.program.pc_text[pc] if 0 <= pc < len(module.program.pc_text) else None
        return cls(kernel, tuple(int(x) for x in f.cta), int(f.warp), int(f.lane), pc, int(f.line), text,
                   int(f.addr), int(f.space), int(f.cycle), ffi.string(f.message).decode(errors="replace"),
                   module.filename)
