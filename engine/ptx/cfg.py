"""Control-flow facts computed once at load time: basic blocks, immediate post-dominators.

A branch's reconvergence point is the first instruction of the immediate post-dominator of the
branch's block (the classic SIMT-stack rule of Fung et al., used by GPGPU-Sim). Exits (`ret`/`exit`
in a kernel, or the function's single final `ret` in a .func) lead to a virtual exit node; a branch
whose post-dominator is that virtual exit reconverges nowhere (-1): its paths run until their lanes
exit.
"""
from __future__ import annotations


def leaders(n: int, succ_of) -> list[int]:
    """Start pcs of the basic blocks of instructions [0, n). succ_of(pc) -> (targets, falls_through, ends)."""
    lead = {0}
    for pc in range(n):
        targets, falls, ends = succ_of(pc)
        for t in targets:
            lead.add(t)
        if (targets or ends) and pc + 1 < n:
            lead.add(pc + 1)
    return sorted(x for x in lead if x < n)


def ipdom_rpc(n: int, succ_of) -> dict[int, int]:
    """For every branch pc (an instruction with targets), the pc where its paths reconverge, or -1.

    succ_of(pc) -> (targets: list[int], falls_through: bool, ends: bool): `ends` marks an exit to the
    virtual exit node. Iterative post-dominator computation (Cooper, Harvey, Kennedy) on the reversed
    CFG of basic blocks.
    """
    if n == 0:
        return {}
    starts = leaders(n, succ_of)
    block_of = {}
    bounds = []
    for i, s in enumerate(starts):
        e = starts[i + 1] if i + 1 < len(starts) else n
        bounds.append((s, e))
        block_of[s] = i
    nb = len(bounds)
    EXIT = nb
    succ: list[list[int]] = [[] for _ in range(nb + 1)]
    for b, (s, e) in enumerate(bounds):
        last = e - 1
        targets, falls, ends = succ_of(last)
        out = [block_of[t] for t in targets]
        if falls:
            out.append(block_of[e] if e < n else EXIT)
        if ends:
            out.append(EXIT)
        if not out:                       # falls off the end of the function: treat as exit
            out.append(EXIT)
        succ[b] = sorted(set(out))
    pred: list[list[int]] = [[] for _ in range(nb + 1)]
    for b in range(nb):
        for t in succ[b]:
            pred[t].append(b)

    # reverse post-order of the reversed graph, from EXIT
    order, seen = [], [False] * (nb + 1)
    stack = [(EXIT, iter(pred[EXIT]))]
    seen[EXIT] = True
    while stack:
        node, it = stack[-1]
        nxt = next(it, None)
        if nxt is None:
            order.append(node)
            stack.pop()
        elif not seen[nxt]:
            seen[nxt] = True
            stack.append((nxt, iter(pred[nxt])))
    rpo = list(reversed(order))
    index = {b: i for i, b in enumerate(rpo)}
    ipdom: list[int | None] = [None] * (nb + 1)
    ipdom[EXIT] = EXIT

    def intersect(a: int, b: int) -> int:
        while a != b:
            while index[a] > index[b]:
                a = ipdom[a]
            while index[b] > index[a]:
                b = ipdom[b]
        return a

    changed = True
    while changed:
        changed = False
        for b in rpo:
            if b == EXIT:
                continue
            new = None
            for s in succ[b]:
                if ipdom[s] is not None and s in index:
                    new = s if new is None else intersect(s, new)
            if new is not None and ipdom[b] != new:
                ipdom[b] = new
                changed = True

    rpc = {}
    for b, (s, e) in enumerate(bounds):
        last = e - 1
        targets, _, _ = succ_of(last)
        if not targets:
            continue
        p = ipdom[b]
        rpc[last] = -1 if (p is None or p == EXIT) else bounds[p][0]
    return rpc
