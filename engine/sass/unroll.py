"""Loops as ptxas lays them out: unroll a PTX loop by ptxas's extra factor and issue it in the SASS's order.

ptxas often unrolls a loop further than nvcc's PTX does and issues the loads of several PTX iterations
before the arithmetic that consumes them. sgemm_naive's PTX K loop holds 4 steps (8 loads, 4 FMAs);
its SASS body holds 16 steps and 32 LDGs, issued in three batches (the registers ptxas reuses make later
loads wait behind earlier FFMAs), so a warp has up to 14 loads in flight where the PTX, issued in order,
has 8, and a 16-step body costs three memory round trips where the PTX's four 4-step bodies cost four.
Timing the PTX as written misses that memory-level parallelism (sgemm_naive +20..26 % slow).

For every single-block PTX loop whose memory instructions ptxas copies F > 1 times into one block of a
SASS loop, this pass (on the lowered program, values still from executing the PTX):

  1. checks that the loop is a counted loop it can guard: the back edge is `@p bra head` (or `@!p`), `p`
     comes from `setp.ne` / `setp.eq` of an integer register `r` against a loop-invariant value `X`, and
     `r` changes once per iteration by `add r, r, imm`;
  2. lays out  PRE: `d = r - X` (or `X - r`), `pg = d > K`, `@!pg bra ORIG` /  UNR: F copies of the body
     (every register a copy writes gets a fresh slot, but the last copy writes the original ones), the
     guard again, `@!p bra EXIT`, `@pg bra UNR` /  ORIG: the original loop (the remainder) / EXIT.
     K = (F - 2 + a) x |step| (a = 1 when the test follows the add): when d > K none of the first F - 1
     tests of the next F iterations can exit, so the copies need no test of their own. Otherwise the
     original loop runs, so results never change;
  3. orders UNR's instructions as the SASS block orders their counterparts: the k-th SASS instructions of
     a PTX line in that block (in address order) belong to copy k; each copy of an IR instruction takes the
     address of its first SASS instruction as its rank, instructions without SASS there take their
     earliest consumer's, and a list scheduler keeps every dependency (schedule.schedule_block).

Loops with other control flow inside, a guarded instruction that writes a register, accumulating
tensor-core instructions or a shape the guard cannot express are left as they are (`skipped` says why).
With `reorder` (timing.sass_unroll = 2, not a preset) the single-block loops that ptxas keeps at the PTX's
factor are issued in the SASS's order too (step 3 alone: F = 1 plans).
"""
from __future__ import annotations

import dataclasses
from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from .._ffi import E
from ..ptx import schedule
from ..ptx.ifconvert import recompute_rpc
from ..ptx.ir import INST_DT, OPND_DT
from ..ptx.lower import _succ_fn
from ..ptx.regalloc import IRView, repack
from .classes import sass_class

OP = E.op
REG, PRED, MEM, VEC, IMM = E.ok["reg"], E.ok["pred"], E.ok["mem"], E.ok["vec"], E.ok["imm"]
MAX_FACTOR = 8
# control flow inside a loop body (the back edge excepted) makes it more than one block
_CONTROL = {OP[n] for n in ("bra", "call", "ret", "exit", "trap", "brkpt")}
_REFUSE = {OP[n] for n in ("wgmma_mma",)}        # accumulates into its destinations (reads them)
_MEMORY = {OP[n] for n in ("ld", "ldu", "st", "atom", "red", "ldmatrix", "stmatrix", "wmma_load", "wmma_store",
                           "cp_async")}
_INT32 = {E.type[t] for t in ("s32", "u32", "b32")}
_INT64 = {E.type[t] for t in ("s64", "u64", "b64")}


@dataclass
class LoopPlan:
    func: int               # program function index
    head: int               # first pc of the loop body
    back: int               # pc of the backward branch
    factor: int             # copies per unrolled iteration (ptxas's extra factor)
    counter: int            # register slot of the induction variable
    step: int
    bound: tuple[str, int]  # ("reg", slot) or ("imm", value)
    wide: bool              # 64-bit counter
    after_add: bool         # the exit test reads the counter after this iteration's add
    ranks: dict[tuple[int, int], int]   # (pc, copy) -> SASS index in the chosen block
    line: int               # PTX line of the loop's first instruction


@dataclass
class UnrollResult:
    program: object
    origin: list[int]       # per new pc: the original pc it copies (-1: a guard instruction)
    loops: list[LoopPlan]
    skipped: list[str]


def _operands(ir: IRView, opnds, pc: int):
    """(operand index, top-level operand number) of every operand record of pc, vector elements included."""
    j = ir.first[pc]
    out = []
    for top in range(ir.nopnd[pc]):
        k = ir.kind[j]
        n = ir.n[j] if k == VEC else 0
        for e in range(j, j + n + 1):
            out.append((e, top))
        j += n + 1
    return out


def _pred_defs(ir: IRView, opnds, pc: int) -> list[int]:
    return [ir.reg[e] for e, top in _operands(ir, opnds, pc) if top < ir.ndst[pc] and ir.kind[e] == PRED]


def _exit_test(program, ir: IRView, head: int, back: int):
    """The counted-loop shape of [head, back] (see the module doc) or a reason why not."""
    ins, opnds = program.insts, program.opnds
    p, neg = ir.guard[back], int(ins["guard_neg"][back])
    setp_pc = None
    for pc in range(back - 1, head - 1, -1):
        if p in _pred_defs(ir, opnds, pc):
            setp_pc = pc
            break
    if setp_pc is None or ir.op[setp_pc] != OP["setp"] or ir.guard[setp_pc] >= 0:
        return "its exit predicate is not an unguarded setp in the loop"
    cmp = int(ins["cmp"][setp_pc])
    if not ((cmp == E.cmp["ne"] and not neg) or (cmp == E.cmp["eq"] and neg)):
        return "its exit test is not `counter != bound`"
    typ = int(ins["type"][setp_pc])
    if typ not in _INT32 | _INT64:
        return "its exit test is not on an integer"
    ops = [e for e, top in _operands(ir, opnds, setp_pc) if top >= ir.ndst[setp_pc]]
    if len(ops) != 2 or int(ins["nopnd"][setp_pc]) != 3:
        return "its exit test has an unexpected form"
    defs_in = defaultdict(list)
    for pc in range(head, back):
        for r in ir.uses_defs(pc)[1]:
            defs_in[r].append(pc)
    kinds = [ir.kind[e] for e in ops]
    for ci in (0, 1):
        e, o = ops[ci], ops[1 - ci]
        if kinds[ci] != REG or len(defs_in.get(ir.reg[e], ())) != 1:
            continue
        r = ir.reg[e]
        add_pc = defs_in[r][0]
        if ir.op[add_pc] not in (OP["add"], OP["sub"]) or ir.guard[add_pc] >= 0:
            continue
        aops = _operands(ir, opnds, add_pc)
        if len(aops) != 3 or ir.kind[aops[0][0]] != REG or ir.kind[aops[1][0]] != REG or ir.kind[aops[2][0]] != IMM:
            continue
        if ir.reg[aops[0][0]] != r or ir.reg[aops[1][0]] != r:
            continue
        step = int(opnds["imm"][aops[2][0]])
        if ir.op[add_pc] == OP["sub"]:
            step = -step
        if kinds[1 - ci] == IMM:
            bound = ("imm", int(opnds["imm"][o]))
        elif kinds[1 - ci] == REG and ir.reg[o] not in defs_in:
            bound = ("reg", ir.reg[o])
        else:
            continue
        if step == 0 or abs(step) > (1 << 20):
            continue
        return dict(counter=r, step=step, bound=bound, wide=typ in _INT64, after_add=add_pc < setp_pc)
    return "no counter `add r, r, imm` tested against a loop-invariant value"


def _sass_block(sf, lines: set[int], mem_lines: list[int]):
    """The SASS block of a loop holding the most copies of the PTX body's memory instructions: (factor,
    that block's instructions as (index, SassInst)), or (1, None)."""
    per_block: dict[int, list] = defaultdict(list)
    for i, si in enumerate(sf.insts):
        if si.depth > 0 and si.line in lines:
            per_block[si.block].append((i, si))
    best, best_n = (1, None), -1
    for b, items in per_block.items():
        counts = defaultdict(int)
        for _, si in items:
            if sass_class(si.opcode) == "mem":
                counts[si.line] += 1
        if not mem_lines or any(counts.get(ln, 0) == 0 for ln in mem_lines):
            continue
        votes = defaultdict(int)
        for ln in mem_lines:
            votes[counts[ln]] += 1
        f = max(votes.items(), key=lambda kv: (kv[1], -kv[0]))[0]
        if (f, len(items)) > (best[0], best_n):
            best, best_n = (f, items), len(items)
    return best


def plan(program, funcs: dict, reorder: bool = False) -> tuple[list[LoopPlan], list[str]]:
    """The loops to unroll (and why others are not). With `reorder`, also the single-block loops ptxas keeps
    at the PTX's factor (F = 1 plans: issued in the SASS's order, not unrolled)."""
    ir = IRView(program.insts, program.opnds)
    ins = program.insts
    targets = ins["target"].tolist()
    lines = ins["line"].tolist()
    plans, skipped = [], []
    for fi in program.functions:
        sf = funcs.get(fi.name)
        if sf is None or not fi.is_entry:
            continue
        branch_targets = defaultdict(list)
        for pc in range(fi.entry_pc, fi.end_pc):
            if ir.op[pc] in (OP["bra"],) and targets[pc] >= 0:
                branch_targets[targets[pc]].append(pc)
        for back in range(fi.entry_pc, fi.end_pc):
            head = targets[back]
            if ir.op[back] != OP["bra"] or not (fi.entry_pc <= head <= back) or ir.guard[back] < 0:
                continue
            where = f"{fi.name} line {lines[head]}"
            body = range(head, back)
            mem_lines = sorted({lines[pc] for pc in body if ir.op[pc] in _MEMORY})
            factor, items = _sass_block(sf, {lines[pc] for pc in body}, mem_lines)
            if items is None or (factor < 2 and not reorder):
                continue
            if any(ir.op[pc] in _CONTROL for pc in body):
                skipped.append(f"{where}: control flow inside the loop")
                continue
            if factor < 2:
                plans.append(LoopPlan(fi.index, head, back, 1, -1, 0, ("imm", 0), False, False,
                                      _ranks(items, 1, body, lines), lines[head]))
                continue
            if any(t for t in range(head + 1, back + 1) if any(s != back for s in branch_targets.get(t, ()))):
                skipped.append(f"{where}: a branch enters the loop's middle")
                continue
            if back + 1 >= fi.end_pc:
                skipped.append(f"{where}: the loop ends its function")
                continue
            if any(ir.op[pc] in _REFUSE for pc in body):
                skipped.append(f"{where}: an accumulating tensor-core instruction")
                continue
            if any(ir.guard[pc] >= 0 and (ir.uses_defs(pc)[1] or _pred_defs(ir, program.opnds, pc)) for pc in body):
                skipped.append(f"{where}: a guarded instruction writes a register")
                continue
            shape = _exit_test(program, ir, head, back)
            if isinstance(shape, str):
                skipped.append(f"{where}: {shape}")
                continue
            factor = min(factor, MAX_FACTOR)
            ranks = _ranks(items, factor, body, lines)
            plans.append(LoopPlan(fi.index, head, back, factor, ranks=ranks, line=lines[head], **shape))
    return plans, skipped


def _ranks(items, factor: int, body, lines) -> dict[tuple[int, int], int]:
    """(pc, copy) -> the SASS index of copy `copy`'s first instruction of pc's line (the line's SASS in the
    block, in address order, cut into `factor` equal runs)."""
    by_line: dict[int, list[int]] = defaultdict(list)
    for i, si in items:
        by_line[si.line].append(i)
    out = {}
    for pc in body:
        idx = by_line.get(lines[pc])
        if not idx:
            continue
        n = len(idx)
        for c in range(factor):
            out[(pc, c)] = idx[(c * n) // factor]
    return out


# --------------------------------------------------------------------------- rewriting the program


class _Builder:
    def __init__(self, program):
        self.p = program
        self.rows: list = []          # INST_DT rows (numpy void copies)
        self.opnds: list = []         # OPND_DT rows
        self.origin: list[int] = []
        self.relocs: list = []
        self.pc_lists = {name: [] for name, val in vars(program).items()
                         if name.startswith("pc_") and isinstance(val, list) and len(val) == len(program.insts)}
        self.tgt: list = []           # per new pc: ("old", pc) | ("new", label) | None
        self.labels: dict[str, int] = {}
        self.reloc_of = defaultdict(list)
        for idx, name, addend in program.relocs:
            self.reloc_of[idx].append((name, addend))

    def label(self, name: str):
        self.labels[name] = len(self.rows)

    def emit(self, pc: int, rename=None, target=None, guard=None):
        """A copy of old instruction pc (rename(e, top, is_def) -> new reg for operand e, or None)."""
        p = self.p
        row = p.insts[pc].copy()
        first, nop = int(row["opnd"]), int(row["nopnd"])
        j, new_first = first, len(self.opnds)
        for _ in range(nop):
            n = int(p.opnds["n"][j]) if int(p.opnds["kind"][j]) == VEC else 0
            j += n + 1
        ops = [p.opnds[e].copy() for e in range(first, j)]
        if rename is not None:
            for k, o in enumerate(ops):
                o2 = rename(first + k, o)
                if o2 is not None:
                    ops[k] = o2
        for k in range(first, j):
            for name, addend in self.reloc_of.get(k, ()):
                self.relocs.append((new_first + (k - first), name, addend))
        self.opnds.extend(ops)
        row["opnd"] = new_first
        if guard is not None:
            row["guard"], row["guard_neg"] = guard
        self.rows.append(row)
        self.origin.append(pc)
        for name, lst in self.pc_lists.items():
            lst.append(getattr(p, name)[pc])
        self.tgt.append(target if target is not None else (("old", int(row["target"]))
                                                          if int(row["op"]) == OP["bra"] else None))

    def emit_new(self, row, ops, text: str, like: int, target=None):
        row = row.copy()
        row["opnd"] = len(self.opnds)
        row["line"] = self.p.insts[like]["line"]
        self.opnds.extend(o.copy() for o in ops)
        self.rows.append(row)
        self.origin.append(-1)
        for name, lst in self.pc_lists.items():
            v = getattr(self.p, name)[like]
            lst.append(text if name == "pc_text" else v)
        self.tgt.append(target)


def _opnd(kind: int, reg: int = -1, imm: int = 0):
    o = np.zeros((), OPND_DT)
    o["kind"], o["reg"], o["imm"] = kind, reg, imm
    return o


def _guard_insts(b: _Builder, pl: LoopPlan, d_slot: int, pg: int, like_setp: int, like_add: int):
    """d = r - X (or X - r); setp.gt.u pg, d, K: IR rows made from the loop's own add and setp."""
    p = b.p
    k = (pl.factor - 2 + int(pl.after_add)) * abs(pl.step)
    utype = E.type["u64" if pl.wide else "u32"]
    add = p.insts[like_add].copy()
    add["guard"], add["guard_neg"], add["type"] = -1, 0, utype
    if pl.bound[0] == "imm":
        x = pl.bound[1]
        if pl.step < 0:       # d = r - X = r + (-X)
            add["op"] = OP["add"]
            ops = [_opnd(REG, d_slot), _opnd(REG, pl.counter), _opnd(IMM, imm=_wrap(-x, pl.wide))]
            txt = f"add (unroll guard: counter - {x})"
        else:                 # d = X - r
            add["op"] = OP["sub"]
            ops = [_opnd(REG, d_slot), _opnd(IMM, imm=_wrap(x, pl.wide)), _opnd(REG, pl.counter)]
            txt = f"sub (unroll guard: {x} - counter)"
    else:
        add["op"] = OP["sub"]
        a, c = (pl.counter, pl.bound[1]) if pl.step < 0 else (pl.bound[1], pl.counter)
        ops = [_opnd(REG, d_slot), _opnd(REG, a), _opnd(REG, c)]
        txt = "sub (unroll guard: distance to the bound)"
    add["nopnd"], add["ndst"] = 3, 1
    b.emit_new(add, ops, txt, like_add)
    setp = p.insts[like_setp].copy()
    setp["guard"], setp["guard_neg"], setp["type"], setp["cmp"] = -1, 0, utype, E.cmp["gt"]
    setp["nopnd"], setp["ndst"] = 3, 1
    b.emit_new(setp, [_opnd(PRED, pg), _opnd(REG, d_slot), _opnd(IMM, imm=k)],
               f"setp.gt (unroll guard: {pl.factor} more iterations)", like_setp)


def _wrap(v: int, wide: bool) -> int:
    bits = 64 if wide else 32
    v &= (1 << bits) - 1
    return v - (1 << 64) if v >= (1 << 63) else v


def apply(program, plans: list[LoopPlan]) -> tuple[object, list[int]]:
    """The program with every planned loop unrolled (see the module doc); per new pc its original pc."""
    ir = IRView(program.insts, program.opnds)
    funcs = program.funcs.copy()
    functions = [dataclasses.replace(f) for f in program.functions]
    slot_top = int(max(funcs["nregs"].max(), 0))
    pred_top = int(max(funcs["npreds"].max(), 0))
    by_head = {pl.head: pl for pl in plans}
    fresh_regs: dict[int, int] = defaultdict(int)
    fresh_preds: dict[int, int] = defaultdict(int)
    b = _Builder(program)
    unr_ranges = []                 # (first new pc, end new pc, keys) of each UNR block
    n = len(program.insts)
    pc = 0
    while pc < n:
        pl = by_head.get(pc)
        if pl is None:
            b.label(f"old{pc}")
            b.emit(pc)
            pc += 1
            continue
        f = pl.func

        def new_reg():
            nonlocal slot_top
            slot_top += 1
            fresh_regs[f] += 1
            return slot_top - 1

        def new_pred():
            nonlocal pred_top
            pred_top += 1
            fresh_preds[f] += 1
            return pred_top - 1
        head, back = pl.head, pl.back
        setp_pc = max(q for q in range(head, back) if ir.guard[back] in _pred_defs(ir, program.opnds, q))
        add_pc = next(q for q in range(head, back) if pl.counter in ir.uses_defs(q)[1])
        d_slot, pg = new_reg(), new_pred()
        # PRE
        b.label(f"old{head}")          # branches from outside the loop to its head come here
        _guard_insts(b, pl, d_slot, pg, setp_pc, add_pc)
        b.emit(back, target=("new", f"orig{head}"), guard=(pg, 1))
        # UNR
        b.label(f"unr{head}")
        start = len(b.rows)
        rmap: dict[int, int] = {}
        pmap: dict[int, int] = {}
        keys = []
        for c in range(pl.factor):
            last = c == pl.factor - 1
            for q in range(head, back):
                ndst = ir.ndst[q]
                tops = {e: t for e, t in _operands(ir, program.opnds, q)}
                new_defs: dict[int, int] = {}
                new_pdefs: dict[int, int] = {}
                if not last:
                    for e, t in tops.items():
                        if t < ndst and ir.kind[e] == REG and ir.reg[e] not in new_defs:
                            new_defs[ir.reg[e]] = new_reg()
                        elif t < ndst and ir.kind[e] == PRED and ir.reg[e] not in new_pdefs:
                            new_pdefs[ir.reg[e]] = new_pred()
                else:
                    new_defs = {ir.reg[e]: ir.reg[e] for e, t in tops.items() if t < ndst and ir.kind[e] == REG}
                    new_pdefs = {ir.reg[e]: ir.reg[e] for e, t in tops.items() if t < ndst and ir.kind[e] == PRED}

                def rename(e, o, tops=tops, ndst=ndst, new_defs=new_defs, new_pdefs=new_pdefs):
                    kd, r = int(o["kind"]), int(o["reg"])
                    is_def = tops[e] < ndst
                    if kd == REG and r >= 0:
                        o["reg"] = new_defs[r] if is_def else rmap.get(r, r)
                    elif kd == MEM and r >= 0:
                        o["reg"] = rmap.get(r, r)
                    elif kd == PRED and r >= 0:
                        o["reg"] = new_pdefs[r] if is_def else pmap.get(r, r)
                    else:
                        return None
                    return o
                g = ir.guard[q]
                b.emit(q, rename=rename, guard=(pmap.get(g, g), int(program.insts["guard_neg"][q])) if g >= 0 else None)
                rmap.update(new_defs)
                pmap.update(new_pdefs)
                keys.append(pl.ranks.get((q, c)))
        _guard_insts(b, pl, d_slot, pg, setp_pc, add_pc)
        keys += [None, None]
        unr_ranges.append((start, len(b.rows), keys))
        p_orig, neg = ir.guard[back], int(program.insts["guard_neg"][back])
        b.emit(back, target=("old", back + 1), guard=(p_orig, 1 - neg))     # exit when the last copy says so
        b.emit(back, target=("new", f"unr{head}"), guard=(pg, 0))
        # ORIG: the loop as it was (the remainder)
        b.label(f"orig{head}")
        for q in range(head, back + 1):
            if q != head:
                b.label(f"old{q}")
            b.emit(q, target=("new", f"orig{head}") if q == back else None)
        pc = back + 1
    b.label(f"old{n}")
    # resolve branch targets
    insts = np.array(b.rows, INST_DT) if b.rows else np.zeros(0, INST_DT)
    for i, t in enumerate(b.tgt):
        if t is None:
            continue
        kind, v = t
        insts["target"][i] = b.labels[f"old{v}"] if kind == "old" else b.labels[v]
    call = OP["call"]
    for i in range(len(insts)):
        if int(insts["op"][i]) == call and int(insts["target"][i]) >= 0:
            insts["target"][i] = b.labels[f"old{int(program.insts['target'][b.origin[i]])}"]
    opnds = np.array(b.opnds, OPND_DT) if b.opnds else np.zeros(0, OPND_DT)
    for fi, row in zip(functions, funcs):
        fi.entry_pc, fi.end_pc = b.labels[f"old{fi.entry_pc}"], b.labels[f"old{fi.end_pc}"]
        row["entry_pc"], row["end_pc"] = fi.entry_pc, fi.end_pc
        if fresh_regs.get(fi.index) or fresh_preds.get(fi.index):
            fi.nregs, fi.npreds = slot_top, pred_top
            row["nregs"], row["npreds"] = slot_top, pred_top
    new = dataclasses.replace(program, insts=insts, opnds=opnds, funcs=funcs, functions=functions,
                              relocs=b.relocs, **b.pc_lists)
    origin = list(b.origin)
    _schedule_unrolled(new, unr_ranges, origin)
    new.insts["rpc"] = -1
    recompute_rpc(new, _succ_fn)
    repack(new, {fi.index for fi in functions if fresh_regs.get(fi.index)})   # the fresh slots packed again
    return new, origin


def _schedule_unrolled(program, ranges, origin: list[int]) -> None:
    """Order each UNR block as the SASS orders it (ranks), keeping every dependency."""
    ir, spaces, info = schedule.dependency_info(program)
    perm = list(range(len(program.insts)))
    for start, end, keys in ranges:
        pcs = list(range(start, end))
        # an instruction's rank is at most its consumers' (address arithmetic comes just before its load,
        # whatever run of its own line's SASS it was given); schedule_block takes the ranks by PTX line:
        # here each pc is its own "line"
        succ, _ = schedule._dependencies(pcs, info)
        eff: list = [None] * len(pcs)
        for i in range(len(pcs) - 1, -1, -1):
            cands = [k for k in [keys[i]] + [eff[j] for j in succ[i]] if k is not None]
            eff[i] = min(cands) if cands else None
        ranks = {pc: k for pc, k in zip(pcs, eff) if k is not None}
        order = schedule.schedule_block(ir, pcs, spaces, info, keys=ranks, lines={pc: pc for pc in pcs},
                                        sass_all=True)
        perm[start:end] = order
    if perm == list(range(len(perm))):
        return
    idx = np.asarray(perm)
    program.insts = program.insts[idx]
    origin[:] = [origin[i] for i in perm]
    for name, val in list(vars(program).items()):
        if name.startswith("pc_") and isinstance(val, list) and len(val) == len(perm):
            setattr(program, name, [val[i] for i in perm])


def _reorder_in_place(program, plans: list[LoopPlan]) -> list[int]:
    """Issue the bodies of F = 1 loops in the SASS's order (pcs outside them do not move); the permutation."""
    ranges = [(pl.head, pl.back, [pl.ranks.get((pc, 0)) for pc in range(pl.head, pl.back)]) for pl in plans]
    perm = list(range(len(program.insts)))
    _schedule_unrolled(program, ranges, perm)
    return perm


def unroll(program, funcs: dict, reorder: bool = False) -> UnrollResult:
    plans, skipped = plan(program, funcs, reorder)
    if not plans:
        return UnrollResult(program, list(range(len(program.insts))), [], skipped)
    ordered = [pl for pl in plans if pl.factor == 1]
    unrolled = [pl for pl in plans if pl.factor > 1]
    perm = list(range(len(program.insts)))
    if ordered:
        program = dataclasses.replace(program, insts=program.insts.copy())
        perm = _reorder_in_place(program, ordered)
    if unrolled:
        program, origin = apply(program, unrolled)
        origin = [perm[o] if o >= 0 else -1 for o in origin]
    else:
        origin = perm
    return UnrollResult(program, origin, plans, skipped)


def remap_costs(costs, origin: list[int]):
    """The SASS costs of the original program's pcs carried to the unrolled program's (a copy costs what
    its original does; a guard instruction one integer issue slot)."""
    from .costs import SassCosts
    idx = np.asarray([o if o >= 0 else 0 for o in origin], np.int64)
    new = costs.costs[idx].copy() if len(idx) else costs.costs[:0].copy()
    guard = np.asarray([o < 0 for o in origin], bool)
    if guard.any():
        new["issue16"][guard] = 16
        new["pipe16"][guard] = 16
        new["unit"][guard] = E.unit["int"]
        new["known"][guard] = 1
        new["path"][guard] = 0
    classes = [costs.classes[o] if o >= 0 else {"int": 1.0} for o in origin]
    static = None if costs.static is None else np.asarray([costs.static[o] if o >= 0 else 1.0 for o in origin])
    return SassCosts(new, classes, costs.regs, costs.kernels, static)
