"""Instruction scheduling within basic blocks, as ptxas does before the hardware sees the code.

The hardware issues SASS in order, and ptxas orders SASS to hide latency: it hoists independent loads
above the arithmetic that waits for earlier results (sgemm_tiled16's inner loop issues all its shared
loads, then its FMAs). Executing PTX in nvcc's order would leave a warp stalled on every load that
ptxas would have issued early, so the timing model would see far less instruction-level parallelism
than the real GPU. This pass reorders the instructions of each basic block by list scheduling:

  * dependencies: read-after-write, write-after-read and write-after-write on registers and predicates
    (a guarded write also reads its destination), memory order between operations that may touch the
    same state space (loads may pass loads; stores, atomics and async copies keep their order with
    every access to a space they may alias), and fences that nothing crosses (barriers, memory fences,
    calls, exits, traps, cp.async/wgmma group operations, clock reads);
  * priority: the longest latency-weighted path to the end of the block (latencies by instruction
    class), then the original order; the block's terminating branch stays last.

It never changes results: every lane executes the same permutation of a block it executes whole, and
every dependency is kept. Branch targets and reconvergence points are block starts, which do not move.
"""
from __future__ import annotations

import numpy as np

from .._ffi import E
from .cfg import leaders
from .regalloc import IRView

OP = E.op
SP = E.space
PRED_KIND = E.ok["pred"]
VEC_KIND = E.ok["vec"]
SREG_KIND = E.ok["sreg"]

FENCES = {OP[n] for n in ("bar", "bar_warp", "membar", "call", "ret", "exit", "trap", "brkpt", "nanosleep",
                          "cp_async_commit", "cp_async_wait", "wgmma_fence", "wgmma_commit", "wgmma_wait",
                          "mbarrier", "bra", "activemask", "elect", "createpolicy")}
LOADS = {OP[n] for n in ("ld", "ldu", "wmma_load", "ldmatrix", "prefetch")}
STORES = {OP[n] for n in ("st", "wmma_store", "stmatrix")}
RMW = {OP[n] for n in ("atom", "red", "cp_async")}
SFU = {OP[n] for n in ("rcp", "sqrt", "rsqrt", "ex2", "lg2", "sin", "cos", "tanh", "div", "rem")}
TENSOR = {OP[n] for n in ("wmma_mma", "mma", "wgmma_mma")}
WARP = {OP[n] for n in ("shfl", "vote", "match", "redux")}
CLOCK_SREGS = {E.sreg[n] for n in ("clock", "clock_hi", "clock64", "globaltimer", "globaltimer_lo",
                                   "globaltimer_hi")}


def _latency(op: int, space: int) -> int:
    """Rough result latency by class (cycles): only the ranking matters."""
    if op in LOADS or op in RMW:
        if space in (SP["shared"], SP["shared_cluster"]):
            return 25
        if space in (SP["param"], SP["const"]):
            return 8
        return 400
    if op in TENSOR:
        return 24
    if op in SFU or op in WARP:
        return 20
    return 4


def _pred_uses_defs(ir: IRView, pc: int, opnd_kind, opnd_reg, opnd_n) -> tuple[list[int], list[int]]:
    uses, defs = [], []
    if ir.guard[pc] >= 0:
        uses.append(ir.guard[pc])
    j = ir.first[pc]
    ndst = ir.ndst[pc]
    for top in range(ir.nopnd[pc]):
        k = opnd_kind[j]
        n = opnd_n[j] if k == VEC_KIND else 0
        for e in range(j + (1 if k == VEC_KIND else 0), j + n + 1):
            if opnd_kind[e] == PRED_KIND:
                (defs if top < ndst else uses).append(opnd_reg[e])
        j += n + 1
    if defs and ir.guard[pc] >= 0:
        uses.extend(defs)
    return uses, defs


def _reads_clock(ir: IRView, pc: int, opnd_kind, opnd_n) -> bool:
    j = ir.first[pc]
    for _ in range(ir.nopnd[pc]):
        if opnd_kind[j] == SREG_KIND and opnd_n[j] in CLOCK_SREGS:
            return True
        j += 1 + (opnd_n[j] if opnd_kind[j] == VEC_KIND else 0)
    return False


def _may_alias(a: int, b: int) -> bool:
    generic = (SP["generic"], 0)
    return a == b or a in generic or b in generic


def schedule_block(ir: IRView, pcs: list[int], spaces: list[int], info: list) -> list[int]:
    """The new order of the instructions `pcs` (one basic block)."""
    n = len(pcs)
    if n < 3:
        return pcs
    last_fixed = ir.op[pcs[-1]] in FENCES
    body = pcs[:-1] if last_fixed else pcs
    m = len(body)
    succ: list[set[int]] = [set() for _ in range(m)]
    npred = [0] * m
    last_def: dict[int, int] = {}
    readers: dict[int, list[int]] = {}
    plast_def: dict[int, int] = {}
    preaders: dict[int, list[int]] = {}
    mem_writes: list[tuple[int, int]] = []      # (index, space)
    mem_reads: list[tuple[int, int]] = []
    last_fence = -1
    since_fence: list[int] = []

    def edge(a: int, b: int):
        if a != b and b not in succ[a]:
            succ[a].add(b)
            npred[b] += 1

    for i, pc in enumerate(body):
        uses, defs, puses, pdefs, op, space, clock = info[pc]
        if op in FENCES or clock:
            for k in since_fence:
                edge(k, i)
            if last_fence >= 0:
                edge(last_fence, i)
            last_fence = i
            since_fence = []
        elif last_fence >= 0:
            edge(last_fence, i)
        for r in uses:
            if r in last_def:
                edge(last_def[r], i)
        for r in defs:
            if r in last_def:
                edge(last_def[r], i)
            for k in readers.get(r, ()):
                edge(k, i)
        for p in puses:
            if p in plast_def:
                edge(plast_def[p], i)
        for p in pdefs:
            if p in plast_def:
                edge(plast_def[p], i)
            for k in preaders.get(p, ()):
                edge(k, i)
        for r in uses:
            readers.setdefault(r, []).append(i)
        for r in defs:
            last_def[r] = i
            readers[r] = []
        for p in puses:
            preaders.setdefault(p, []).append(i)
        for p in pdefs:
            plast_def[p] = i
            preaders[p] = []
        is_load, is_store = op in LOADS, op in STORES or op in RMW
        if is_load or is_store:
            for k, s in mem_writes:
                if _may_alias(s, space):
                    edge(k, i)
            if is_store:
                for k, s in mem_reads:
                    if _may_alias(s, space):
                        edge(k, i)
                mem_writes.append((i, space))
            else:
                mem_reads.append((i, space))
        if op not in FENCES and not clock:
            since_fence.append(i)

    # priorities: longest latency path to the end of the block
    prio = [0] * m
    for i in range(m - 1, -1, -1):
        lat = _latency(info[body[i]][4], info[body[i]][5])
        prio[i] = lat + max((prio[k] for k in succ[i]), default=0)
    ready = [i for i in range(m) if npred[i] == 0]
    order = []
    while ready:
        best = max(ready, key=lambda i: (prio[i], -i))
        ready.remove(best)
        order.append(body[best])
        for k in succ[best]:
            npred[k] -= 1
            if npred[k] == 0:
                ready.append(k)
    assert len(order) == m, "scheduling lost instructions (dependency cycle)"
    return order + ([pcs[-1]] if last_fixed else [])


def reorder(program, succ_fn) -> None:
    """Schedule every basic block of every function of `program` in place (arrays and source maps)."""
    insts = program.insts
    if len(insts) == 0:
        return
    ir = IRView(insts, program.opnds)
    kinds = program.opnds["kind"].tolist()
    regs = program.opnds["reg"].tolist()
    ns = program.opnds["n"].tolist()
    spaces = insts["space"].tolist()
    info = []
    for pc in range(len(insts)):
        uses, defs = ir.uses_defs(pc)
        puses, pdefs = _pred_uses_defs(ir, pc, kinds, regs, ns)
        info.append((uses, defs, puses, pdefs, ir.op[pc], spaces[pc], _reads_clock(ir, pc, kinds, ns)))
    perm = list(range(len(insts)))
    for f in program.functions:
        start, end = f.entry_pc, f.end_pc
        succ_of = succ_fn(insts, start)
        starts = leaders(end - start, succ_of)
        for b, s in enumerate(starts):
            e = starts[b + 1] if b + 1 < len(starts) else end - start
            pcs = list(range(start + s, start + e))
            new = schedule_block(ir, pcs, spaces, info)
            perm[start + s:start + e] = new
    if perm == list(range(len(insts))):
        return
    idx = np.asarray(perm)
    program.insts = insts[idx]
    for name, val in list(vars(program).items()):       # every per-pc list: pc_text, pc_col, ...
        if name.startswith("pc_") and isinstance(val, list) and len(val) == len(perm):
            setattr(program, name, [val[i] for i in perm])
