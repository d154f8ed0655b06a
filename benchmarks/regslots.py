"""Register slots per thread: the allocator's against the least any liveness-based packing could reach.

    python benchmarks/regslots.py

For every kernel of the public suite: the PTX registers it declares, the 64-bit slots the front end's
allocator gives it (engine/ptx/regalloc.py: linear scan over live-interval hulls), the slots a
graph-colouring allocation needs (greedy colouring of the interference graph built from the same liveness:
a definition interferes with what is live after it and with its instruction's other operands), and the most
values live at one point (a lower bound). It answers whether packing registers more tightly would shrink the
register file that the timing engine's warps keep in host memory (docs/performance.md, session 6).

    python benchmarks/regslots.py --widths

instead says, per kernel, how the engine stores its registers (engine/csrc/regwidth.h). PTX registers (the
program lowered without register allocation, one slot per register): in 32-bit lanes (regs n32), declared
wider than 32 bits (r64), or of at most 32 bits but kept in 64-bit lanes because an instruction whose handler
takes only 64-bit lanes touches them (r forced; those instructions are counted by opcode). The allocator's
slots: those whose registers of at most 32 bits are in 32-bit lanes (slots n32), with no such registers
(s64), or with them forced into 64-bit lanes (s forced).
"""
import json, sys
from pathlib import Path
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from engine.ptx import lower as L, syntax, regalloc
from engine.ptx.passes import _succ_fn

d = json.load(open(ROOT / 'validation' / 'cases.json'))


def _widths():
    """per kernel: (registers narrow, 64-bit, forced wide), the same for the allocator's slots, forcing ops"""
    from collections import Counter
    from engine._ffi import ffi, lib
    from engine.device import Device
    from engine.ptx import load as ptx_load
    dev = Device()
    total = Counter()
    forced = Counter()
    seen = set()
    print(f"{'case':30s} {'regs n32':>8s} {'r64':>5s} {'r forced':>8s} {'slots n32':>9s} {'s64':>5s} {'s forced':>8s}")
    for c in d['cases']:
        key = (c['ptx'], c['kernel'])
        if key in seen: continue
        seen.add(key)
        text = (ROOT / 'validation' / c['ptx']).read_text()
        row = []
        for ra in (False, True):
            prog = L.lower(syntax.parse(text, c['ptx']), text, regalloc=ra)
            m = dev.add_module(prog)
            n = lib.gs_program_reg_widths(m._ptr, ffi.NULL, 0)
            why = ffi.new("uint16_t[]", max(n, 1))
            lib.gs_program_reg_widths(m._ptr, why, n)
            ops, first = prog.opnds, prog.insts["opnd"]
            kinds = (ops["kind"] == L.E.ok["reg"]) | ((ops["kind"] == L.E.ok["mem"]) & (ops["reg"] >= 0))
            maxreg = int(ops["reg"][kinds].max()) if kinds.any() else -1
            nconst = n - (maxreg + 1)
            fi = next(f for f in prog.functions if f.name == c['kernel'])
            # the kernel's registers: those its instructions name
            lo, hi = int(first[fi.entry_pc]), int(first[fi.end_pc]) if fi.end_pc < len(first) else len(ops)
            regs = sorted({int(r) for r, k in zip(ops["reg"][lo:hi], kinds[lo:hi]) if k})
            cnt = Counter()
            for r in regs:
                w = why[nconst + r]
                if w == lib.GS_N32_NARROW: cnt['n32'] += 1
                elif w == lib.GS_N32_DECLARED: cnt['w64'] += 1
                elif w == lib.GS_N32_UNKNOWN: cnt['unknown'] += 1
                else:
                    cnt['forced'] += 1
                    if not ra: forced[lib_op(w)] += 1
            row.append(cnt)
            if not ra: total.update({'regs ' + k: v for k, v in cnt.items()})
            else: total.update({'slots ' + k: v for k, v in cnt.items()})
        a, b = row
        print(f"{c['name']:30s} {a['n32']:8d} {a['w64']:5d} {a['forced']:8d} {b['n32']:9d} {b['w64']:5d} {b['forced']:8d}")
    print("suite:", dict(sorted(total.items())))
    print("registers forced wide, by an opcode touching them:", dict(forced.most_common()))


def lib_op(op):
    from engine._ffi import ffi, lib
    return ffi.string(lib.gs_op_name(op)).decode()


if '--widths' in sys.argv:
    _widths()
    sys.exit(0)
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
