"""Register slots per thread: the allocator's against the least any liveness-based packing could reach.

    python benchmarks/regslots.py

For every kernel of the public suite: the PTX registers it declares, the 64-bit slots the front end's
allocator gives it (engine/ptx/regalloc.py: linear scan over live-interval hulls), the slots a
graph-colouring allocation needs (greedy colouring of the interference graph built from the same liveness:
a definition interferes with what is live after it and with its instruction's other operands), and the most
values live at one point (a lower bound). It answers whether packing registers more tightly would shrink the
register file that the timing engine's warps keep in host memory (docs/performance.md, session 6).
"""
import json, sys
from pathlib import Path
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from engine.ptx import lower as L, syntax, regalloc
from engine.ptx.passes import _succ_fn

d = json.load(open(ROOT / 'validation' / 'cases.json'))
seen = set()
rows = []
for c in d['cases']:
    key = (c['ptx'], c['kernel'])
    if key in seen: continue
    seen.add(key)
    text = (ROOT / 'validation' / c['ptx']).read_text()
    prog = L.lower(syntax.parse(text, c['ptx']), text, regalloc=False)
    ir = regalloc.IRView(prog.insts, prog.opnds)
    for fi in prog.functions:
        if fi.name != c['kernel']: continue
        n = fi.end_pc - fi.entry_pc
        succ = _succ_fn(prog.insts, fi.entry_pc)
        ud = [ir.uses_defs(fi.entry_pc + i) for i in range(n)]
        bounds, live_in, live_out = regalloc._liveness(n, succ, ud, lambda i: ir.guard[fi.entry_pc+i] < 0 and ir.op[fi.entry_pc+i] not in regalloc.ALSO_READS_DST)
        # interference: at each instruction, defs interfere with live-out and with the instruction's uses and other defs
        adj = {}
        def edge(a, b):
            if a == b: return
            adj.setdefault(a, set()).add(b); adj.setdefault(b, set()).add(a)
        regs = set()
        maxlive = 0
        for b, (s, e) in enumerate(bounds):
            live = live_out[b]
            for i in range(e - 1, s - 1, -1):
                uses, defs = ud[i]
                lv = list(regalloc._bits(live))
                for r in defs:
                    regs.add(r)
                    for o in lv: edge(r, o)
                    for o in uses: edge(r, o)
                    for o in defs: edge(r, o)
                maxlive = max(maxlive, len(lv) + len([r for r in defs if not (live >> r) & 1]))
                if ir.guard[fi.entry_pc+i] < 0 and ir.op[fi.entry_pc+i] not in regalloc.ALSO_READS_DST:
                    for r in defs: live &= ~(1 << r)
                for r in uses: live |= (1 << r); regs.add(r)
            for r in regalloc._bits(live_in[b]): regs.add(r)
        for r in regalloc._bits(live_in[0] if bounds else 0):
            for o in regalloc._bits(live_in[0]): edge(r, o)
        # greedy coloring, most-constrained first
        color = {}
        for r in sorted(regs, key=lambda r: -len(adj.get(r, ()))):
            used = {color[o] for o in adj.get(r, ()) if o in color}
            k = 0
            while k in used: k += 1
            color[r] = k
        ncol = max(color.values()) + 1 if color else 0
        a = regalloc.allocate(ir, fi.entry_pc, fi.end_pc, succ, {})
        rows.append((c['name'], fi.nregs, a.nslots, ncol, maxlive))
print(f"{'case':30s} {'declared':>8s} {'hull slots':>10s} {'graph slots':>11s} {'max live':>8s}")
for r in rows: print(f"{r[0]:30s} {r[1]:8d} {r[2]:10d} {r[3]:11d} {r[4]:8d}")
