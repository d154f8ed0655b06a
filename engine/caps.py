"""Caps on a run of several launches (a workload bundle's launches, a trace directory's kernels).

A single launch takes `max_cycles` / `max_warp_insts` and the engine stops it past either with
`LimitExceeded` ("cycle cap reached: N cycles (max_cycles)"). A run of many launches is capped as a whole:
each launch gets what the earlier ones left, and the launch that passes it ends the run with a
`LimitExceeded` naming the run's cap and the launch where it was reached.

    caps = RunCaps(max_cycles=10**9, max_warp_insts=0)     # 0: no cap
    for launch in launches:
        caps.before(where)                                 # LimitExceeded if nothing is left
        try:
            res = sim.launch(..., **caps.left())
        except errors.LimitExceeded as e:
            raise caps.exceeded(e, where) from None
        caps.spend(res.cycles, res.warp_insts)
"""
from __future__ import annotations

from . import errors

U64_MAX = (1 << 64) - 1


class RunCaps:
    def __init__(self, max_cycles: int = 0, max_warp_insts: int = 0):
        from .device import check_int
        self.max_cycles = check_int("max_cycles", max_cycles, 0, U64_MAX)
        self.max_warp_insts = check_int("max_warp_insts", max_warp_insts, 0, U64_MAX)
        self.cycles = 0
        self.warp_insts = 0

    def left(self, timed: bool = True) -> dict:
        """Keyword arguments for the next launch: what is left of each cap (absent when uncapped)."""
        out = {}
        if self.max_cycles and timed:
            out["max_cycles"] = self.max_cycles - self.cycles
        if self.max_warp_insts:
            out["max_warp_insts"] = self.max_warp_insts - self.warp_insts
        return out

    def before(self, where: str, timed: bool = True) -> None:
        """A launch about to start when a cap is used up exactly would pass it (every launch takes a cycle
        and an instruction): it ends the run before it starts."""
        if timed and self.max_cycles and self.cycles >= self.max_cycles:
            raise self._error("cycle", where)
        if self.max_warp_insts and self.warp_insts >= self.max_warp_insts:
            raise self._error("instruction", where)

    def spend(self, cycles: int | None, warp_insts: int | None) -> None:
        self.cycles += int(cycles or 0)
        self.warp_insts += int(warp_insts or 0)

    def exceeded(self, exc: errors.LimitExceeded, where: str) -> errors.LimitExceeded:
        """The run's error for a launch that stopped at what was left of a cap (where it stopped is kept)."""
        kind = "instruction" if "instruction cap" in str(exc) else "cycle"
        return type(exc)(exc.kernel, exc.cta, exc.warp, exc.lane, exc.pc, exc.line, exc.ptx, exc.addr, exc.space,
                         exc.cycle, self._detail(kind, where), exc.filename)

    def _error(self, kind: str, where: str) -> errors.LimitExceeded:
        return limit_error(where, self._detail(kind, where))

    def _detail(self, kind: str, where: str) -> str:
        if kind == "cycle":
            return f"cycle cap reached: {self.max_cycles} cycles (max_cycles) for the whole run, in {where}"
        return (f"instruction cap reached: {self.max_warp_insts} warp instructions (max_warp_insts) for the whole "
                f"run, in {where}")


def limit_error(kernel: str, detail: str, filename: str = "<run>", cycle: int = 0) -> errors.LimitExceeded:
    """A LimitExceeded that is not tied to a PTX instruction (a trace launch, a run's cap)."""
    return errors.LimitExceeded(kernel, None, -1, -1, -1, 0, None, 0, 0, cycle, detail, filename)
