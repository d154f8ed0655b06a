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


def _unroll_factors(groups: dict[tuple, list]) -> dict[int, int]:
    """Per SASS basic block, how many copies of the PTX it holds: ptxas unrolls loops, so in a k-times
    unrolled body most lines' instructions come k at a time. A line's copies in a block are the gcd of its
    instruction counts (opcode and modifiers); the block's factor is the most common of those (ties to the
    smaller), so an extra instruction ptxas attaches to one line does not hide the unrolling."""
    per_block: dict[int, Counter] = defaultdict(Counter)
    for insts in groups.values():
        counts: dict[int, Counter] = defaultdict(Counter)
        for si in insts:
            counts[si.block][si.opcode + si.mods] += 1
        for b, cnt in counts.items():
            g = 0
            for v in cnt.values():
                g = math.gcd(g, v)
            per_block[b][g] += 1
    return {b: max(votes.items(), key=lambda kv: (kv[1], -kv[0]))[0] for b, votes in per_block.items()}


def _per_execution(insts: list, unroll: dict[int, int]) -> Counter:
    """The SASS classes of one execution of a PTX line: per block its instructions divided by the block's
    unroll factor, from the blocks in the deepest SASS loop it is in (what ptxas hoisted out of a loop
    runs less often: a division's reciprocal of a loop-invariant divisor) and there the most unrolled ones
    (an unrolled loop's main body: what most of its executions run; its remainder loops are left out); each instruction (opcode and
    modifiers) counted as often as the block that has it most per copy (so a computation split between
    blocks of one factor counts all its parts)."""
    blocks: dict[int, Counter] = defaultdict(Counter)
    depth: dict[int, int] = {}
    for si in insts:
        blocks[si.block][si.opcode + si.mods] += 1
        depth[si.block] = si.depth
    # the innermost loop it is in (what ptxas hoisted out runs less often), then the most unrolled copy
    # there (the loop's main body)
    top = max((depth[b], unroll.get(b, 1)) for b in blocks)
    one: dict[str, float] = defaultdict(float)
    for b, cnt in blocks.items():
        u = unroll.get(b, 1)
        if (depth[b], u) != top:
            continue
        for op, v in cnt.items():
            one[op] = max(one[op], v / u)
    out: Counter = Counter()
    for op, v in one.items():
        out[sass_class(op.split(".", 1)[0])] += v
    return out


def _fully_unrolled(program, in_sass_loop: np.ndarray) -> np.ndarray:
    """The IR instructions of PTX loops that ptxas unrolled completely (a constant trip count: Triton's
    GEMM and convolution templates): none of the loop's SASS is inside a SASS loop. Their SASS is one copy
    per iteration laid out straight, and which copy belongs to which execution cannot be told from the
    code, so these instructions keep their PTX timing (docs/sass.md)."""
    n = len(program.insts)
    out = np.zeros(n, bool)
    bra = E.op["bra"]
    ops, targets = program.insts["op"], program.insts["target"]
    for pc in range(n):
        t = int(targets[pc])
        if ops[pc] == bra and 0 <= t <= pc and not in_sass_loop[t:pc + 1].any():
            out[t:pc + 1] = True
    return out


def program_costs(program, funcs: dict[str, SassFunction]) -> SassCosts:
    n = len(program.insts)
    lines = program.insts["line"].astype(np.int64)
    line_pcs: dict[int, list[int]] = defaultdict(list)
    for pc in range(n):
        line_pcs[int(lines[pc])].append(pc)
    by_name = {f.name: f for f in program.functions}
    per_pc: dict[int, Counter] = {}            # pc -> classes of one execution (the copy with the most SASS)
    in_sass_loop = np.zeros(n, bool)           # pc -> some of its SASS is inside a SASS loop
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
                if si.depth:
                    in_sass_loop[pcs] = True
        got: dict[int, Counter] = defaultdict(Counter)
        mapped = 0.0
        unroll = _unroll_factors(groups)
        for pcs, insts in groups.items():
            one = _per_execution(insts, unroll)
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
    unrolled = _fully_unrolled(program, in_sass_loop)
    costs = np.zeros(n, COST_DT)
    classes: list[dict[str, float]] = []
    for pc in range(n):
        c = per_pc.get(pc, Counter())
        classes.append(dict(c))
        if unrolled[pc]:
            continue                           # known = 0: timed as a PTX instruction
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
