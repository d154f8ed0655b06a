"""If-conversion of short forward branches (hammocks), as ptxas does before scheduling.

nvcc guards small conditional regions with a branch:

        @%p4 bra  L;          // skip the load when out of bounds
        ld.global.f32 %f60, [%rd15];
    L:  st.shared.f32 [%r6], %f60;

ptxas turns such regions into predicated straight-line code (`@!%p4 ld...`), which removes the branch
and lets its scheduler overlap the region with what follows (the second tile load of sgemm_tiled16
then issues before the first shared store instead of after it, so both global loads are in flight at
once, as on the real GPU). Without this, the timing model would serialise latencies the hardware
overlaps. A region is converted when it is short, is entered only from the branch above it (no label
inside), contains no control flow, barrier, fence or warp-synchronous operation, has no guarded
instruction of its own and does not write the branch's predicate. Results are unchanged: each lane
executes the region's instructions exactly when it would have fallen through the branch.

The pass works on the packed IR of a whole program and rewrites it in place: branch targets,
reconvergence points and function bounds are remapped after removing the branches, and reconvergence
points are recomputed.
"""
from __future__ import annotations

import numpy as np

from .._ffi import E
from . import cfg

OP = E.op
MAX_REGION = 8
NOT_CONVERTIBLE = {OP[n] for n in ("bra", "call", "ret", "exit", "trap", "brkpt", "bar", "bar_warp", "membar",
                                   "shfl", "vote", "match", "redux", "activemask", "elect", "wgmma_mma",
                                   "wgmma_fence", "wgmma_commit", "wgmma_wait", "cp_async_commit",
                                   "cp_async_wait", "mbarrier", "nanosleep", "wmma_load", "wmma_store",
                                   "wmma_mma", "mma", "ldmatrix", "stmatrix")}


def _pred_writes(program, pc) -> set[int]:
    ins, ops = program.insts, program.opnds
    first, ndst = int(ins["opnd"][pc]), int(ins["ndst"][pc])
    out, j = set(), first
    for top in range(int(ins["nopnd"][pc])):
        k = int(ops["kind"][j])
        n = int(ops["n"][j]) if k == E.ok["vec"] else 0
        if top < ndst:
            for e in range(j, j + n + 1):
                if int(ops["kind"][e]) == E.ok["pred"]:
                    out.add(int(ops["reg"][e]))
        j += n + 1
    return out


def convert(program, succ_fn) -> int:
    """If-convert every eligible hammock of every function; returns how many were converted."""
    ins = program.insts
    n = len(ins)
    if n == 0:
        return 0
    op, guard, neg, target = (ins["op"].tolist(), ins["guard"].tolist(), ins["guard_neg"].tolist(),
                              ins["target"].tolist())
    targets = {t for o, t in zip(op, target) if o in (OP["bra"],) and t >= 0}
    remove = []
    for f in program.functions:
        pc = f.entry_pc
        while pc < f.end_pc:
            t = target[pc]
            if (op[pc] == OP["bra"] and guard[pc] >= 0 and pc + 1 < t <= f.end_pc and t - pc - 1 <= MAX_REGION
                    and all(q not in targets for q in range(pc + 1, t))
                    and all(op[q] not in NOT_CONVERTIBLE and guard[q] < 0 for q in range(pc + 1, t))
                    and all(guard[pc] not in _pred_writes(program, q) for q in range(pc + 1, t))):
                for q in range(pc + 1, t):
                    ins["guard"][q] = guard[pc]
                    ins["guard_neg"][q] = 0 if neg[pc] else 1
                    guard[q] = guard[pc]
                remove.append(pc)
                pc = t
                continue
            pc += 1
    if not remove:
        return 0
    keep = np.ones(n, bool)
    keep[remove] = False
    new_index = np.cumsum(keep) - 1                        # old pc -> new pc (for kept pcs)
    # a removed pc maps to the next kept instruction (the region's first instruction)
    nxt = np.empty(n + 1, np.int64)
    nxt[n] = int(keep.sum())
    for pc in range(n - 1, -1, -1):
        nxt[pc] = new_index[pc] if keep[pc] else nxt[pc + 1]

    def remap(v):
        return int(nxt[v]) if 0 <= v <= n else v

    new = ins[keep].copy()
    for i in range(len(new)):
        if new["target"][i] >= 0 and new["op"][i] in (OP["bra"], OP["call"]):
            new["target"][i] = remap(int(new["target"][i]))
    new["rpc"] = -1
    program.insts = new
    for fi, row in zip(program.functions, program.funcs):
        fi.entry_pc, fi.end_pc = remap(fi.entry_pc), remap(fi.end_pc)
        row["entry_pc"], row["end_pc"] = fi.entry_pc, fi.end_pc
    kept = np.flatnonzero(keep).tolist()
    for name, val in list(vars(program).items()):
        if name.startswith("pc_") and isinstance(val, list) and len(val) == n:
            setattr(program, name, [val[i] for i in kept])
    recompute_rpc(program, succ_fn)
    return len(remove)


def recompute_rpc(program, succ_fn) -> None:
    """Reconvergence points (immediate post-dominators) of every conditional branch, on the packed IR."""
    ins = program.insts
    for f in program.functions:
        succ_of = succ_fn(ins, f.entry_pc)
        for i, r in cfg.ipdom_rpc(f.end_pc - f.entry_pc, succ_of).items():
            ins["rpc"][f.entry_pc + i] = (r + f.entry_pc) if r >= 0 else -1
