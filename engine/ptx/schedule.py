"""Instruction scheduling within basic blocks, as ptxas does before the hardware sees the code.

The hardware issues SASS in order, and ptxas orders SASS to hide latency: it hoists independent loads
above the arithmetic that waits for earlier results (sgemm_tiled16's inner loop issues all its shared
loads, then its FMAs). Executing PTX in nvcc's order would leave a warp stalled on every load that
ptxas would have issued early, so the timing model would see far less instruction-level parallelism
than the real GPU. This pass reorders the instructions of each basic block by list scheduling:

  * dependencies: read-after-write, write-after-read and write-after-write on registers and predicates
    (a guarded write also reads its destination), memory order between operations that may touch the
    same state space (loads may pass loads; stores, atomics and async copies keep their order with
    every access to a space they may alias; a non-coherent load, `ld.global.nc`, reads data that is
    read-only for the kernel's lifetime, so no store or atomic can touch it and it keeps no order with
    them: ptxas hoists such loads, LDG.E.CONSTANT, above the STGs before them); a tensor-core fragment load
    from global (or generic) memory stays behind the block's earlier `wmma.mma`s (see FRAG_GLOBAL); and fences that nothing crosses (barriers, memory fences,
    calls, exits, traps, cp.async/wgmma group operations, clock reads);
  * priority: the longest latency-weighted path to the end of the block (latencies by instruction
    class), then the original order; the block's terminating branch stays last.

With `keys` (PTX line -> position of its last SASS instruction, engine.sass.line_order: ptxas's own
schedule, `timing.sass_order`, docs/sass.md "SASS order") a load from global memory is held back until
every instruction ptxas put before it is placed: loads stay late where ptxas keeps them late to save
registers (a Triton softmax row kernel at 48 registers loads its 8 rows one or two at a time, reusing
the same registers, so each row waits for its own DRAM round trip; the latency ranking above issues all
8 loads at once). With `sass_all` the position is the priority of every instruction. An instruction whose
line has no SASS of its own (ptxas folded it) takes the smallest position among the instructions that
depend on it, so it comes just before its first user, and no instruction's position is before that of
one it depends on.

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
NC_FLAG = E.flag["nc"]

FENCES = {OP[n] for n in ("bar", "bar_warp", "membar", "call", "ret", "exit", "trap", "brkpt", "nanosleep",
                          "cp_async_commit", "cp_async_wait", "wgmma_fence", "wgmma_commit", "wgmma_wait",
                          "mbarrier", "bra", "activemask", "elect", "createpolicy")}
LOADS = {OP[n] for n in ("ld", "ldu", "wmma_load", "ldmatrix", "prefetch")}
STORES = {OP[n] for n in ("st", "wmma_store", "stmatrix")}
RMW = {OP[n] for n in ("atom", "red", "cp_async")}
SFU = {OP[n] for n in ("rcp", "sqrt", "rsqrt", "ex2", "lg2", "sin", "cos", "tanh", "div", "rem")}
TENSOR = {OP[n] for n in ("wmma_mma", "mma", "wgmma_mma")}
WARP = {OP[n] for n in ("shfl", "vote", "match", "redux")}
# wmma fragment loads that may read global memory. The JIT keeps them behind the mma before them: in
# hgemm_wmma_simple's 4x-unrolled K loop each step's 8 LDG.E load the registers the previous step's HMMAs
# read (validation/sass/hgemm_wmma.sm90.jit.sass), and the H200 takes a full DRAM round trip per k step
# (benchmarks/hw/wmmaload.cu: 1,048 cycles cold at one CTA, calibration.md 5m) where hoisting the four
# steps' loads gave the model 286. Fragments from shared memory are hoisted (hgemm_wmma_tiled's SASS issues
# both k steps' LDSMs before the HMMAs) and keep the general rules.
FRAG_GLOBAL = ("global", "generic")
CLOCK_SREGS = {E.sreg[n] for n in ("clock", "clock_hi", "clock64", "globaltimer", "globaltimer_lo",
                                   "globaltimer_hi")}


_FRAG_GLOBAL_SP = {SP[n] for n in FRAG_GLOBAL} | {0}


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


def _dependencies(body: list[int], info: list) -> tuple[list[set[int]], list[int]]:
    """Per instruction of `body` (indices into it): the instructions that must come after it, and how many
    must come before it."""
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
    last_mma = -1

    def edge(a: int, b: int):
        if a != b and b not in succ[a]:
            succ[a].add(b)
            npred[b] += 1

    for i, pc in enumerate(body):
        uses, defs, puses, pdefs, op, space, clock, nc = info[pc]
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
        if is_load and nc:
            pass            # read-only for the kernel: no order with stores or atomics (loads pass loads)
        elif is_load or is_store:
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
        if op == OP["wmma_load"] and space in _FRAG_GLOBAL_SP and last_mma >= 0:
            edge(last_mma, i)
        if op in TENSOR:
            last_mma = i
    return succ, npred


_NO_SASS = 1 << 40
GLOBAL_SPACES = {SP["global"], SP["generic"], SP["local"], 0}


def schedule_block(ir: IRView, pcs: list[int], spaces: list[int], info: list,
                   keys: dict[int, int] | None = None, lines: list[int] | None = None,
                   sass_all: bool = False) -> list[int]:
    """The new order of the instructions `pcs` (one basic block): the longest latency path first; with
    `keys` (PTX line -> SASS position) and `lines` (per pc, its PTX line) a load from global memory waits
    until every instruction ptxas put before it is placed, and with sass_all every instruction is in
    ptxas's order."""
    n = len(pcs)
    if n < 3:
        return pcs
    last_fixed = ir.op[pcs[-1]] in FENCES
    body = pcs[:-1] if last_fixed else pcs
    m = len(body)
    succ, npred = _dependencies(body, info)
    prio = [0] * m
    key = [_NO_SASS] * m
    if keys is not None:
        # positions in ptxas's order; a folded instruction (no SASS of its own) just before its first user
        for i in range(m - 1, -1, -1):
            k = keys.get(lines[body[i]])
            key[i] = k if k is not None else min((key[j] for j in succ[i]), default=_NO_SASS)
        # never before what it depends on (a line table can say otherwise): then no instruction that
        # waits for a load's data holds that load back
        for i in range(m):
            for j in succ[i]:
                if key[j] < key[i] < _NO_SASS:
                    key[j] = key[i]
    if keys is not None and not any(k < _NO_SASS for k in key):
        keys = None                       # no line of this block outside a SASS loop: the latency order
    if keys is not None and sass_all:
        prio = [-k for k in key]          # the earliest SASS position first
    else:
        # longest latency path to the end of the block
        for i in range(m - 1, -1, -1):
            lat = _latency(info[body[i]][4], info[body[i]][5])
            prio[i] = lat + max((prio[k] for k in succ[i]), default=0)
    # loads from global memory held back to where ptxas put them (keys, not sass_all): eligible once
    # every instruction with an earlier SASS position is placed (`by_key[lo:]`: those not placed yet)
    gated = [keys is not None and not sass_all and info[pc][4] in LOADS and info[pc][5] in GLOBAL_SPACES
             and key[i] < _NO_SASS for i, pc in enumerate(body)]
    by_key = sorted(range(m), key=lambda i: key[i]) if any(gated) else []
    placed = [False] * m
    lo = 0
    ready = [i for i in range(m) if npred[i] == 0]
    order = []
    while ready:
        cand = ready
        if by_key:
            while lo < m and placed[by_key[lo]]:
                lo += 1
            first = key[by_key[lo]] if lo < m else _NO_SASS
            cand = [i for i in ready if not gated[i] or key[i] <= first]
            if not cand:      # (a line table that puts a user before its load: the earliest held load)
                cand = [min((i for i in ready), key=lambda i: key[i])]
        best = max(cand, key=lambda i: (prio[i], -i))
        ready.remove(best)
        placed[best] = True
        order.append(body[best])
        for k in succ[best]:
            npred[k] -= 1
            if npred[k] == 0:
                ready.append(k)
    assert len(order) == m, "scheduling lost instructions (dependency cycle)"
    return order + ([pcs[-1]] if last_fixed else [])


def dependency_info(program) -> tuple[IRView, list[int], list]:
    """What schedule_block needs of a whole program: its IR view, state spaces and, per pc, (uses, defs,
    predicate uses, predicate defs, op, space, reads the clock, ld.global.nc)."""
    insts = program.insts
    ir = IRView(insts, program.opnds)
    kinds = program.opnds["kind"].tolist()
    regs = program.opnds["reg"].tolist()
    ns = program.opnds["n"].tolist()
    spaces = insts["space"].tolist()
    flags = insts["flags"].tolist()
    info = []
    for pc in range(len(insts)):
        uses, defs = ir.uses_defs(pc)
        puses, pdefs = _pred_uses_defs(ir, pc, kinds, regs, ns)
        nc = ir.op[pc] == OP["ld"] and bool(flags[pc] & NC_FLAG)
        info.append((uses, defs, puses, pdefs, ir.op[pc], spaces[pc], _reads_clock(ir, pc, kinds, ns), nc))
    return ir, spaces, info


def reorder(program, succ_fn, keys: dict[int, int] | None = None, sass_all: bool = False) -> None:
    """Schedule every basic block of every function of `program` in place (arrays and source maps); with
    `keys` (PTX line -> position of its last SASS instruction) global loads where ptxas put them, with
    sass_all too every instruction in ptxas's order."""
    insts = program.insts
    if len(insts) == 0:
        return
    ir, spaces, info = dependency_info(program)
    lines = insts["line"].tolist() if keys is not None else None
    perm = list(range(len(insts)))
    for f in program.functions:
        start, end = f.entry_pc, f.end_pc
        succ_of = succ_fn(insts, start)
        starts = leaders(end - start, succ_of)
        for b, s in enumerate(starts):
            e = starts[b + 1] if b + 1 < len(starts) else end - start
            pcs = list(range(start + s, start + e))
            new = schedule_block(ir, pcs, spaces, info, keys, lines, sass_all)
            perm[start + s:start + e] = new
    if perm == list(range(len(insts))):
        return
    idx = np.asarray(perm)
    program.insts = insts[idx]
    for name, val in list(vars(program).items()):       # every per-pc list: pc_text, pc_col, ...
        if name.startswith("pc_") and isinstance(val, list) and len(val) == len(perm):
            setattr(program, name, [val[i] for i in perm])
