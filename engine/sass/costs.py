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
    fields = [("issue16", "<u2"), ("pipe16", "<u2"), ("unit", "u1"), ("known", "u1"),
              ("path", ("u1", E.unit["_count"])), ("hi_hops", "u1"), ("pred_hops", "u1"),
              ("sreg_hops", "u1")]
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


# nominal latencies (cycles) that pick the longest dependence path of a line's SASS (configs/h200.toml's
# [pipes]: int/fp32 4, fp16 6, fp64 8, sfu 17); the engine times the chosen path with the configuration's
# own latencies. Memory, tensor-core, control and barrier instructions are timed by their own models and
# are not part of it.
# Two hops take longer than their pipe's latency on the H200 (divmix.cu, calibration.md 5q): an IMAD.HI's or IMAD.WIDE's result
# (9.3 cycles; "hi" on a path) and a compare's predicate read by a guarded instruction or as an operand of one
# that writes no predicate (~13: PRED_GUARD's 22.8-cycle step, as the control codes' 13; "pred" on a path). A
# path counts them apart (gs_sass_cost.hi_hops / pred_hops); the engine adds sm.imad_hi_latency_cycles and
# sm.sass_pred_guard_cycles for them when those are set. So for an S2R (22 cycles, sreg.cu; "sreg" on a path,
# gs_sass_cost.sreg_hops, sm.sreg_latency_cycles).
_PATH_LAT = {"int": 4, "imad": 4, "imad_hi": 9, "fp32": 4, "fp16": 6, "fp64": 8, "sfu": 17, "conv": 17, "uniform": 4,
             "sreg": 22, "misc": 4}
_PRED_GUARD_LAT = 13
PATH_UNITS = ("int", "fp32", "fp16", "fp64", "sfu", "misc")
_UNIT_LAT = {"int": 4, "fp32": 4, "fp16": 6, "fp64": 8, "sfu": 17, "misc": 4, "hi": 5, "pred": _PRED_GUARD_LAT - 4,
             "sreg": 18}
_HOPS = ("hi", "pred", "sreg")         # counted apart on a path, besides their instruction's pipe
_PATH_UNIT = {"int": "int", "imad": "fp32", "imad_hi": "fp32", "fp32": "fp32", "fp16": "fp16", "fp64": "fp64",
              "sfu": "sfu", "conv": "sfu", "uniform": "int", "sreg": "misc", "misc": "misc"}


def _cls(si) -> str:
    return sass_class(si.opcode, si.mods)


def _longest_path(insts: list) -> Counter:
    """The longest chain of dependent instructions (by _PATH_LAT) among `insts` (one block, address order):
    each reads the last earlier one of them that wrote a register it reads. Returns the chain's
    instructions per pipe."""
    best: list[tuple[float, Counter]] = []
    writer: dict[str, int] = {}
    for i, si in enumerate(insts):
        cls = _cls(si)
        lat = _PATH_LAT.get(cls, 0)
        start, via = 0.0, Counter()
        writes_pred = any(d.startswith("P") for d in si.dst)
        for r in si.src:
            j = writer.get(r)
            if j is None:
                continue
            t, p = best[j]
            wlat = _PATH_LAT.get(_cls(insts[j]), 0)
            if r.startswith("P") and not writes_pred and wlat and _PRED_GUARD_LAT > wlat:
                t, p = t + _PRED_GUARD_LAT - wlat, p + Counter(pred=1)    # a predicate read by a guard
            if t > start:
                start, via = t, p
        path = Counter(via)
        if lat:
            path[_PATH_UNIT[cls]] += 1
            if cls == "imad_hi":
                path["hi"] += 1
            elif cls == "sreg":
                path["sreg"] += 1
        best.append((start + lat, path))
        for r in si.dst:
            writer[r] = i
    return max(best, key=lambda b: b[0])[1] if best else Counter()


def _path_per_execution(insts: list, unroll: dict[int, int]) -> Counter:
    """The dependence path of one execution of a PTX line (the blocks _per_execution uses): per block the
    longest path of its instructions; in a block holding u copies at most 1/u of them (copies of an
    unrolled loop that feed each other, an accumulation, make one path of all of them)."""
    blocks: dict[int, list] = defaultdict(list)
    depth: dict[int, int] = {}
    for si in insts:
        blocks[si.block].append(si)
        depth[si.block] = si.depth
    top = max((depth[b], unroll.get(b, 1)) for b in blocks)
    out: Counter = Counter()
    out_lat = -1.0
    for b, bi in blocks.items():
        u = unroll.get(b, 1)
        if (depth[b], u) != top:
            continue
        path = _longest_path(bi)
        n = sum(v for k, v in path.items() if k not in _HOPS)
        cap = sum(1 for si in bi if _PATH_LAT.get(_cls(si))) / u
        if n > cap > 0:
            path = Counter({k: v * cap / n for k, v in path.items()})
        lat = sum(v * _UNIT_LAT[k] for k, v in path.items())
        if lat > out_lat:
            out, out_lat = path, lat
    return out


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
        base, _, mods = op.partition(".")
        out[sass_class(base, "." + mods if mods else "")] += v
    return out


def _fully_unrolled(program, in_sass_loop: np.ndarray) -> list[tuple[int, int]]:
    """The PTX loops that ptxas unrolled completely (a constant trip count: Triton's GEMM and convolution
    templates): none of the loop's SASS is inside a SASS loop. Returns their [first pc, backward branch]
    ranges, outermost first."""
    bra = E.op["bra"]
    ops, targets = program.insts["op"], program.insts["target"]
    loops = [(int(targets[pc]), pc) for pc in range(len(program.insts))
             if ops[pc] == bra and 0 <= int(targets[pc]) <= pc and not in_sass_loop[int(targets[pc]):pc + 1].any()]
    return sorted(loops, key=lambda r: (r[0], -r[1]))


# instructions ptxas never removes nor merges: one SASS copy per execution of an unrolled PTX loop's body
_ANCHOR_OPS = ("bar", "wgmma_fence", "wgmma_wait", "wgmma_mma", "mma", "wmma_mma")


def _trip_count(program, lo: int, hi: int, static: np.ndarray) -> int:
    """How many copies of the PTX loop [lo, hi] ptxas laid out: the SASS of its barriers and tensor-core
    instructions (one per copy: never folded), else the most common count among its instructions with
    SASS (ties to the smaller). 0: nothing to tell it by."""
    ops = program.insts["op"]
    anchors = {E.op[o] for o in _ANCHOR_OPS}
    for pick in (lambda pc: int(ops[pc]) in anchors, lambda pc: True):
        votes = Counter(int(round(static[pc])) for pc in range(lo, hi + 1) if pick(pc) and static[pc] >= 1)
        if votes:
            return max(votes.items(), key=lambda kv: (kv[1], -kv[0]))[0]
    return 0


_TENSOR_OPS = ("wgmma_mma", "mma", "wmma_mma")


def _tensor_homes(program, pf, sf: SassFunction, line_pcs: dict[int, list[int]]) -> dict[int, list[int]]:
    """Tensor-core SASS (HGMMA, HMMA, ...) whose PTX line holds no tensor-core instruction, given to one.

    ptxas's line table does not always give an `HGMMA` the line of its `wgmma.mma_async`: the scheduler
    interleaves the index arithmetic of the next iteration with the warpgroup's HGMMAs, and an HGMMA without
    a row of its own takes the line of the instruction before it (`mul.lo.s16`, the descriptor's
    `add.s64`). Charged there, the `wgmma` would be folded (no SASS of its own: no tensor time) and an
    integer instruction would take a tensor issue slot. The k-th such instruction (address order) goes to
    the k-th tensor-core instruction of the function (program order) that got none by its line, cycling
    (an unrolled loop's copies); when every one got some, to the nearest by PTX line. Returns SASS index
    -> [pc]."""
    ops = program.insts["op"]
    tensor_ops = {E.op[o] for o in _TENSOR_OPS}
    tpcs = [pc for pc in range(pf.entry_pc, pf.end_pc) if int(ops[pc]) in tensor_ops]
    if not tpcs:
        return {}
    has: set[int] = set()
    stray: list[int] = []
    for k, si in enumerate(sf.insts):
        if sass_class(si.opcode) != "tensor":
            continue
        own = [pc for pc in line_pcs.get(si.line, ()) if pf.entry_pc <= pc < pf.end_pc]
        hit = [pc for pc in own if int(ops[pc]) in tensor_ops]
        if hit:
            has.update(hit)
        else:
            stray.append(k)
    free = [pc for pc in tpcs if pc not in has]
    lines = program.insts["line"]
    out: dict[int, list[int]] = {}
    for j, k in enumerate(stray):
        if free:
            out[k] = [free[j % len(free)]]
        else:
            ln = sf.insts[k].line
            out[k] = [min(tpcs, key=lambda pc: (abs(int(lines[pc]) - ln), pc))]
    return out


def program_costs(program, funcs: dict[str, SassFunction]) -> SassCosts:
    n = len(program.insts)
    lines = program.insts["line"].astype(np.int64)
    line_pcs: dict[int, list[int]] = defaultdict(list)
    for pc in range(n):
        line_pcs[int(lines[pc])].append(pc)
    by_name = {f.name: f for f in program.functions}
    per_pc: dict[int, Counter] = {}            # pc -> classes of one execution (the copy with the most SASS)
    path_pc: dict[int, Counter] = {}           # pc -> its dependence path's instructions per pipe
    in_sass_loop = np.zeros(n, bool)           # pc -> some of its SASS is inside a SASS loop
    static = np.zeros(n)                       # pc -> SASS instructions in the code (all copies)
    kernels = {}
    fgroups: dict[str, dict[tuple, list]] = {}
    for name, sf in funcs.items():
        pf = by_name.get(name)
        own = sorted((int(lines[pc]), pc) for pc in range(pf.entry_pc, pf.end_pc)) if pf else []
        own_lines = [ln for ln, _ in own]
        groups: dict[tuple, list] = defaultdict(list)   # the pcs that share SASS -> that SASS
        rehome = _tensor_homes(program, pf, sf, line_pcs) if pf else {}
        for k, si in enumerate(sf.insts):
            pcs = rehome.get(k) or line_pcs.get(si.line)
            if not pcs and own:                  # no IR instruction on that line: the next one in this function
                i = bisect.bisect_right(own_lines, si.line)
                pcs = [own[min(i, len(own) - 1)][1]]
            if pcs:
                groups[tuple(pcs)].append(si)
                if si.depth:
                    in_sass_loop[pcs] = True
        fgroups[name] = groups
        for pcs, insts in groups.items():
            for pc in pcs:
                static[pc] += len(insts) / len(pcs)
    trip = np.zeros(n, np.int64)                # pc -> copies of its completely unrolled PTX loop (0: none)
    for lo, hi in _fully_unrolled(program, in_sass_loop):
        if not trip[lo:hi + 1].any():
            trip[lo:hi + 1] = _trip_count(program, lo, hi, static) or -1
    for name, sf in funcs.items():
        groups = fgroups[name]
        got: dict[int, Counter] = defaultdict(Counter)
        got_path: dict[int, Counter] = {}
        mapped = 0.0
        unroll = _unroll_factors(groups)
        for pcs, insts in groups.items():
            t = int(trip[pcs[0]])
            if t > 0:                           # one copy per iteration, laid out straight: 1/t of them all
                one = Counter()
                for si in insts:
                    one[_cls(si)] += 1.0 / t
                path = _longest_path(insts)
                cap = sum(1 for si in insts if _PATH_LAT.get(_cls(si))) / t
                k = sum(v for u, v in path.items() if u not in _HOPS)
                if k > cap:
                    path = Counter({u: v * cap / k for u, v in path.items()})
            else:
                one = _per_execution(insts, unroll)
                path = _path_per_execution(insts, unroll)
            for pc in pcs:
                for cls, v in one.items():
                    got[pc][cls] += v / len(pcs)
                got_path[pc] = path                # the instructions of a shared line: each waits for it all
            mapped += len(insts)
        for pc, c in got.items():
            if pc not in per_pc or sum(c.values()) > sum(per_pc[pc].values()):
                per_pc[pc] = c
                path_pc[pc] = got_path.get(pc, Counter())
        kernels[name] = KernelSass(name, len(sf.insts), sf.padding, sf.registers, sf.stack_bytes,
                                   sf.spill_store_bytes, sf.spill_load_bytes, mapped)
    costs = np.zeros(n, COST_DT)
    classes: list[dict[str, float]] = []
    for pc in range(n):
        c = per_pc.get(pc, Counter())
        classes.append(dict(c))
        if trip[pc] < 0:
            continue                           # known = 0: timed as a PTX instruction
        total = sum(c.values())
        costs[pc]["known"] = 1
        for u, v in path_pc.get(pc, Counter()).items():
            if u == "hi":
                costs[pc]["hi_hops"] = min(255, int(round(v)))
            elif u == "pred":
                costs[pc]["pred_hops"] = min(255, int(round(v)))
            elif u == "sreg":
                costs[pc]["sreg_hops"] = min(255, int(round(v)))
            else:
                costs[pc]["path"][E.unit[u]] = min(255, int(round(v)))
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
