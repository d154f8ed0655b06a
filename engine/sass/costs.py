"""SASS per PTX instruction: the issue cost, pipe and classes of every IR instruction of a Program.

Every SASS instruction names the PTX line it came from (disasm.py). What one execution of a line costs is
one copy of its SASS (ptxas unrolls loops: `_per_execution`). A line's SASS is shared evenly by the
IR instructions lowered from that line (usually one); SASS of a line that kept no IR instruction (the
function's opening brace: the stack-pointer load; a branch if-conversion removed) goes to the next IR
instruction after it in the same function, so a function's SASS is counted once, all of it. Where a
function body was inlined into several kernels, each line takes the largest of its copies.

Per IR instruction the timing model gets (gs_sass_cost): `issue16`, its SASS count ×16 (the issue slots
it takes; 0: ptxas folded it into another instruction, e.g. `ld.param` into a constant-bank operand);
`unit`, the pipe with the most work among its SASS (instructions weighted by classes.WEIGHT, ties to the
earlier class in classes.CLASSES); `pipe16`, that work ×16, in the pipe's own intervals.
"""
from __future__ import annotations

import bisect
import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field

import numpy as np

from .._ffi import E, ffi
from .classes import CLASSES, UNIT_OF, WEIGHT, sass_class
from .disasm import SassFunction


def _dtype() -> np.dtype:
    fields = [("issue16", "<u2"), ("pipe16", "<u2"), ("unit", "u1"), ("known", "u1")]
    return np.dtype({"names": [f for f, _ in fields], "formats": [t for _, t in fields],
                     "offsets": [ffi.offsetof("gs_sass_cost", f) for f, _ in fields],
                     "itemsize": ffi.sizeof("gs_sass_cost")})


COST_DT = _dtype()


@dataclass
class KernelSass:
    """What ptxas made of one function."""
    name: str
    sass_insts: int           # executable SASS instructions (padding excluded)
    padding: int
    registers: int
    stack_bytes: int
    spill_store_bytes: int
    spill_load_bytes: int
    mapped: float             # SASS instructions given to this program's IR instructions


@dataclass
class SassCosts:
    costs: np.ndarray                          # COST_DT per pc
    classes: list[dict[str, float]]            # per pc: SASS class -> count
    regs: list[int]                            # per program function: ptxas's registers (0: unknown)
    kernels: dict[str, KernelSass] = field(default_factory=dict)
    static: np.ndarray | None = None           # per pc: SASS instructions in the code, every copy counted

    def static_sass(self, pc_counts: np.ndarray) -> float:
        """SASS warp instructions for the given per-pc warp-instruction counts."""
        return float(np.dot(pc_counts.astype(np.float64), self.costs["issue16"].astype(np.float64)) / 16.0)


def _per_execution(insts: list) -> Counter:
    """The SASS of one execution of a PTX line, from all its copies: ptxas unrolls loops and duplicates
    tails, so a line's instructions may repeat k times inside one basic block (a k-times unrolled body)
    and again in other blocks (the remainder loops). Per block, the line's instructions divided by the
    greatest common divisor of their counts is one copy, and each instruction (opcode and modifiers) is
    counted as often as the copy that has it most often (so the copies in other blocks count once, and a
    computation split between a loop's preheader and its body counts both parts)."""
    blocks: dict[int, Counter] = defaultdict(Counter)
    for si in insts:
        blocks[si.block][si.opcode + si.mods] += 1
    one: Counter = Counter()
    for cnt in blocks.values():
        g = 0
        for v in cnt.values():
            g = math.gcd(g, v)
        for op, v in cnt.items():
            one[op] = max(one[op], v // g)
    out: Counter = Counter()
    for op, v in one.items():
        out[sass_class(op.split(".", 1)[0])] += v
    return out


def program_costs(program, funcs: dict[str, SassFunction]) -> SassCosts:
    n = len(program.insts)
    lines = program.insts["line"].astype(np.int64)
    line_pcs: dict[int, list[int]] = defaultdict(list)
    for pc in range(n):
        line_pcs[int(lines[pc])].append(pc)
    by_name = {f.name: f for f in program.functions}
    per_pc: dict[int, Counter] = {}            # pc -> classes of one execution (the copy with the most SASS)
    static = np.zeros(n)                       # pc -> SASS instructions in the code (all copies)
    kernels = {}
    for name, sf in funcs.items():
        pf = by_name.get(name)
        own = sorted((int(lines[pc]), pc) for pc in range(pf.entry_pc, pf.end_pc)) if pf else []
        own_lines = [ln for ln, _ in own]
        groups: dict[tuple, list] = defaultdict(list)   # the pcs that share SASS -> that SASS
        for si in sf.insts:
            pcs = line_pcs.get(si.line)
            if not pcs and own:                  # no IR instruction on that line: the next one in this function
                i = bisect.bisect_right(own_lines, si.line)
                pcs = [own[min(i, len(own) - 1)][1]]
            if pcs:
                groups[tuple(pcs)].append(si)
        got: dict[int, Counter] = defaultdict(Counter)
        mapped = 0.0
        for pcs, insts in groups.items():
            one = _per_execution(insts)
            for pc in pcs:
                for cls, v in one.items():
                    got[pc][cls] += v / len(pcs)
                static[pc] += len(insts) / len(pcs)
            mapped += len(insts)
        for pc, c in got.items():
            if pc not in per_pc or sum(c.values()) > sum(per_pc[pc].values()):
                per_pc[pc] = c
        kernels[name] = KernelSass(name, len(sf.insts), sf.padding, sf.registers, sf.stack_bytes,
                                   sf.spill_store_bytes, sf.spill_load_bytes, mapped)
    costs = np.zeros(n, COST_DT)
    classes: list[dict[str, float]] = []
    for pc in range(n):
        c = per_pc.get(pc, Counter())
        classes.append(dict(c))
        total = sum(c.values())
        costs[pc]["known"] = 1
        costs[pc]["issue16"] = min(65535, int(round(16 * total)))
        best, best_work = None, 0.0
        for cls in CLASSES:
            unit = UNIT_OF[cls]
            if unit is None or not c.get(cls):
                continue
            work = sum(v * WEIGHT.get(k, 1.0) for k, v in c.items() if UNIT_OF[k] == unit)
            if work > best_work:
                best, best_work = unit, work
        if best is not None:
            costs[pc]["unit"] = E.unit[best]
            costs[pc]["pipe16"] = min(65535, int(round(16 * best_work)))
        else:
            costs[pc]["unit"] = E.unit["misc"]
    regs = [funcs[f.name].registers if f.name in funcs else 0 for f in program.functions]
    return SassCosts(costs, classes, regs, kernels, static)
