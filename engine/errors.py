"""Errors of the engine's Python API. Kernel faults carry where they happened, in PTX terms."""
from __future__ import annotations

from .ptx.errors import PTXError, PTXSemanticError, PTXSyntaxError, UnsupportedInstruction  # noqa: F401


def show(v, most: int = 80, quote: bool = True) -> str:
    """A value as an error message quotes it: its repr (or, quote=False, the text itself), cut to `most`
    characters (a hostile override or request field can be a 4,000-digit number). One helper for the engine,
    the command line and the explorer's API."""
    r = repr(v) if quote else str(v)
    return r if len(r) <= most else f"{r[:most]}... ({len(r)} characters)"


class SimError(Exception):
    """Base class of errors raised by the simulator (not by the PTX front end)."""


class LaunchError(SimError):
    """The launch itself is invalid (shape, shared memory, parameters): nothing ran."""


class DeviceOutOfMemory(SimError, MemoryError):
    """A device allocation the host could not back (also a MemoryError, for callers that catch that)."""


class KernelFault(SimError):
    """A kernel stopped with a fault. Attributes: kernel, cta, warp, lane, pc, line (PTX line),
    ptx (the instruction text), addr, space, cycle, detail (the engine's message)."""

    def __init__(self, kernel, cta, warp, lane, pc, line, ptx, addr, space, cycle, detail, filename="<ptx>"):
        self.kernel, self.cta, self.warp, self.lane = kernel, cta, warp, lane
        self.pc, self.line, self.ptx, self.addr, self.space = pc, line, ptx, addr, space
        self.cycle, self.detail, self.filename = cycle, detail, filename
        where = [f"kernel {kernel}"]
        if cta is not None:
            where.append(f"CTA ({cta[0]},{cta[1]},{cta[2]})")
        if warp is not None and warp >= 0:
            where.append(f"warp {warp}")
        if lane is not None and lane >= 0:
            where.append(f"lane {lane}")
        if pc is not None and pc >= 0:
            where.append(f"pc {pc}")
        loc = f"{filename}:{line}" if line else filename
        text = f" `{ptx}`" if ptx else ""
        super().__init__(f"{type(self).__name__}: {detail} ({', '.join(where)}; at {loc}{text})")


class MemoryFault(KernelFault):
    """An access outside every allocation, or outside shared/local/param/const memory."""


class MisalignedAccess(KernelFault):
    """An address that is not a multiple of the access size."""


class BarrierDeadlock(KernelFault):
    """A barrier that can never complete (threads that never arrive, e.g. a divergent barrier)."""


class TrapFault(KernelFault):
    """The kernel executed trap or brkpt."""


class LimitExceeded(KernelFault):
    """The run passed its instruction or cycle cap."""


class UnsupportedAtRuntime(KernelFault):
    """An operation the engine cannot perform with these operands (checked at run time)."""


class InvalidOperation(KernelFault):
    """An invalid operation inside the kernel (stack overflow, bad barrier id, ...)."""


class Interrupted(KernelFault):
    """The run was stopped on request."""
