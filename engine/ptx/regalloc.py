"""Register allocation: PTX virtual registers -> as few 64-bit slots as possible, per function.

PTX declares registers freely (nvcc and Triton declare one per SSA value), and the engine keeps every
slot for 32 lanes of every warp, so a Triton kernel with 2,000 virtual registers would cost 512 KB per
warp. Values whose lifetimes never overlap can share a slot. Steps:

  1. uses and definitions of every instruction, from the IR operands (top-level operands before
     `ndst` are written, the rest read; a guarded write also reads: when the guard is false the old
     value survives; so does an accumulating write such as wgmma's D);
  2. live-in/live-out sets per basic block by the classic backward dataflow over the CFG, iterated
     to a fixed point (sets are Python ints used as bit sets);
  3. one live interval per register in program order: the hull of every point where it is live or
     touched (conservative: holes are ignored, so two registers share a slot only if no point has
     both live);
  4. linear scan (Poletto and Sarkar) over the intervals, reusing the lowest free slot.

Results never change: each lane sees exactly the values it would with one slot per register, because
SIMT execution keeps per-thread semantics (a lane runs only its own path), and an interval covers every
point of every path where its value may still be read.

Also estimated here: hardware registers per thread, the peak over the function of the live values
counted in 32-bit registers (64-bit values count 2, predicates are not counted), for the timing
model's occupancy (gs_ir_func.regs_per_thread).
"""
from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np

from .._ffi import E
from .cfg import leaders

REG, PRED, MEM, VEC = E.ok["reg"], E.ok["pred"], E.ok["mem"], E.ok["vec"]
# ops whose destinations are also read (accumulate into D)
ALSO_READS_DST = {E.op["wgmma_mma"]}


@dataclass
class Allocation:
    mapping: dict[int, int]     # old register index -> new slot index (0-based within the function)
    nslots: int                 # slots used
    pressure: int               # peak live 32-bit registers (64-bit values count 2)


class IRView:
    """The packed IR as plain Python lists (numpy scalar indexing is ~50x slower in loops)."""

    def __init__(self, insts, opnds):
        self.op = insts["op"].tolist()
        self.guard = insts["guard"].tolist()
        self.first = insts["opnd"].tolist()
        self.nopnd = insts["nopnd"].tolist()
        self.ndst = insts["ndst"].tolist()
        self.kind = opnds["kind"].tolist()
        self.n = opnds["n"].tolist()
        self.reg = opnds["reg"].tolist()

    def span(self, pc):
        """(first, end): the operand records of instruction pc (a vector's elements follow its record)"""
        j = self.first[pc]
        for _ in range(self.nopnd[pc]):
            j += 1 + (self.n[j] if self.kind[j] == VEC else 0)
        return self.first[pc], j

    def uses_defs(self, pc):
        """(uses, defs) register indices of instruction pc (predicates are left out)."""
        kind, reg = self.kind, self.reg
        ndst = self.ndst[pc]
        uses, defs = [], []
        j = self.first[pc]
        for top in range(self.nopnd[pc]):
            k = kind[j]
            n = self.n[j] if k == VEC else 0
            out = defs if top < ndst else uses
            for e in range(j + (1 if k == VEC else 0), j + n + 1):
                ke = kind[e]
                if ke == REG:
                    out.append(reg[e])
                elif ke == MEM and reg[e] >= 0:
                    uses.append(reg[e])
            j += n + 1
        if defs and (self.guard[pc] >= 0 or self.op[pc] in ALSO_READS_DST):
            uses.extend(defs)
        return uses, defs


def allocate(ir: IRView, start: int, end: int, succ_of, widths: dict[int, int]) -> Allocation:
    """Allocate the registers of the function whose instructions are [start, end).

    succ_of(i) -> (targets, falls_through, ends) for the function-relative index i (as for cfg.py);
    widths: register index -> declared bits (for the pressure estimate)."""
    n = end - start
    if n == 0:
        return Allocation({}, 0, 0)
    ud = [ir.uses_defs(start + i) for i in range(n)]
    bounds, live_in, live_out = _liveness(n, succ_of, ud, lambda i: ir.guard[start + i] < 0 and
                                          ir.op[start + i] not in ALSO_READS_DST)

    lo: dict[int, int] = {}
    hi: dict[int, int] = {}

    def cover(r, a, z):
        if r not in lo or a < lo[r]:
            lo[r] = a
        if r not in hi or z > hi[r]:
            hi[r] = z

    for b, (s, e) in enumerate(bounds):
        for r in _bits(live_in[b]):
            cover(r, s, s)
        for r in _bits(live_out[b]):
            cover(r, e - 1, e - 1)
        for i in range(s, e):
            uses, defs = ud[i]
            for r in uses:
                cover(r, i, i)
            for r in defs:
                cover(r, i, i)
    # a register live into a block and out of it is live across the whole block: covered by the hull

    order = sorted(lo, key=lambda r: (lo[r], hi[r]))
    mapping: dict[int, int] = {}
    free: list[int] = []
    active: list[tuple[int, int]] = []  # (end, slot) heap
    nslots = 0
    events = []
    for r in order:
        a = lo[r]
        while active and active[0][0] < a:
            _, slot = heapq.heappop(active)
            heapq.heappush(free, slot)
        if free:
            slot = heapq.heappop(free)
        else:
            slot = nslots
            nslots += 1
        mapping[r] = slot
        heapq.heappush(active, (hi[r], slot))
        w = 2 if widths.get(r, 32) > 32 else 1
        events.append((a, w))
        events.append((hi[r] + 1, -w))
    events.sort(key=lambda x: (x[0], x[1]))
    cur = peak = 0
    for _, w in events:
        cur += w
        peak = max(peak, cur)
    return Allocation(mapping, nslots, peak)


def max_live(ir: IRView, start: int, end: int, succ_of, widths: dict[int, int]) -> int:
    """Exact register pressure of a function: the largest number of 32-bit registers live at once
    (64-bit values count 2, predicates not at all), from live-out sets per block and a backward scan
    through each block. A lower bound of what an allocator needs; ptxas typically lands close to it."""
    n = end - start
    if n == 0:
        return 0
    # For the estimate a guarded write is an ordinary definition: an allocator (ptxas) sees that an
    # if-converted value is only read under the same predicate. (Allocation itself stays conservative.)
    ud = []
    for i in range(n):
        uses, defs = ir.uses_defs(start + i)
        if defs and ir.guard[start + i] >= 0 and ir.op[start + i] not in ALSO_READS_DST:
            uses = [r for r in uses if r not in defs]
        ud.append((uses, defs))
    bounds, live_in, live_out = _liveness(n, succ_of, ud, lambda i: ir.op[start + i] not in ALSO_READS_DST)
    wide = 0
    for r, w in widths.items():
        if w > 32:
            wide |= 1 << r

    def weight(live: int) -> int:
        return live.bit_count() + (live & wide).bit_count()

    peak = 0
    for b, (s, e) in enumerate(bounds):
        live = live_out[b]
        peak = max(peak, weight(live))
        for i in range(e - 1, s - 1, -1):
            uses, defs = ud[i]
            # values defined here and read later are live across this point together with the uses
            d = 0
            for r in defs:
                d |= 1 << r
            peak = max(peak, weight(live | d))
            if ir.op[start + i] not in ALSO_READS_DST:
                live &= ~d
            for r in uses:
                live |= 1 << r
            peak = max(peak, weight(live))
    return peak


def _liveness(n: int, succ_of, ud: list, kills) -> tuple[list, list, list]:
    """Basic blocks of instructions [0, n) as (start, end) bounds, and the registers live into and out of
    each block as bit sets, by backward dataflow. ud[i] = (uses, defs) of instruction i; kills(i) says
    whether its definitions end the previous values (an unguarded write does; callers decide)."""
    starts = leaders(n, succ_of)
    nb = len(starts)
    block_of = {s: b for b, s in enumerate(starts)}
    bounds = [(s, starts[b + 1] if b + 1 < nb else n) for b, s in enumerate(starts)]
    succ = []
    for s, e in bounds:
        targets, falls, _ends = succ_of(e - 1)
        out = [block_of[t] for t in targets if t in block_of]
        if falls and e < n:
            out.append(block_of[e])
        succ.append(out)
    # gen (used before defined in the block) and kill (defined) as bit sets
    gen, kill = [0] * nb, [0] * nb
    for b, (s, e) in enumerate(bounds):
        g = k = 0
        for i in range(s, e):
            uses, defs = ud[i]
            for r in uses:
                if not k & (1 << r):
                    g |= 1 << r
            if kills(i):
                for r in defs:
                    k |= 1 << r
        gen[b], kill[b] = g, k
    live_in, live_out = [0] * nb, [0] * nb
    changed = True
    while changed:                      # backward dataflow; reverse block order converges fast
        changed = False
        for b in range(nb - 1, -1, -1):
            out = 0
            for t in succ[b]:
                out |= live_in[t]
            inn = gen[b] | (out & ~kill[b])
            if out != live_out[b] or inn != live_in[b]:
                live_out[b], live_in[b] = out, inn
                changed = True
    return bounds, live_in, live_out


def _bits(x: int):
    while x:
        low = x & -x
        yield low.bit_length() - 1
        x ^= low


def repack(program, funcs: set[int]) -> dict[int, int]:
    """Allocate again, in place, the slots of the functions (indices) of a packed program whose registers a
    later pass renumbered (engine/sass/unroll.py gives every unrolled copy's definitions fresh slots above
    the module's top, so hgemm_wmma_simple grew from 53 slots to 588, 157 KB per warp). Same liveness and
    linear scan as at lowering, on the program as it now is; the function's registers -> slots [0, n).
    Results never change, for the reason allocate() gives (a register read before any write is live from
    the entry, so it keeps a slot of its own, zero at CTA start). regs_per_thread (occupancy) is left as
    it was. Only for programs without .func bodies: their slot ranges sit above the kernels' (passes.py),
    so a kernel's slots may not move past them. Returns {function index: its new slot count}."""
    f = program.funcs
    if not funcs or not all(int(x) for x in f["is_entry"]):
        return {}
    insts, opnds = program.insts, program.opnds
    from .passes import _succ_fn          # (passes imports this module)
    ir = IRView(insts, opnds)
    out = {}
    for fi in sorted(funcs):
        start, end = int(f["entry_pc"][fi]), int(f["end_pc"][fi])
        a = allocate(ir, start, end, _succ_fn(insts, start), {})
        if a.nslots >= int(f["nregs"][fi]):
            continue
        idx = np.concatenate([np.arange(*ir.span(pc)) for pc in range(start, end)] or [np.zeros(0, np.int64)])
        kind, reg = opnds["kind"][idx], opnds["reg"][idx]
        sel = ((kind == REG) | (kind == MEM)) & (reg >= 0)
        if any(int(r) not in a.mapping for r in set(reg[sel].tolist())):
            continue                      # a register operand liveness did not see: keep the slots as they are
        opnds["reg"][idx[sel]] = [a.mapping[int(r)] for r in reg[sel]]
        f["nregs"][fi] = a.nslots
        program.functions[fi].nregs = a.nslots
        out[fi] = a.nslots
    return out

