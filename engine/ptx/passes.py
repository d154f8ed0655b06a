"""Whole-program passes for Lowering (a mixin): call-graph checks (no recursion), shared-variable
references, branch reconvergence points per function (cfg.py), packing into the numpy IR, register
pressure and liveness-based register allocation (regalloc.py)."""
from __future__ import annotations

import numpy as np

from . import cfg, regalloc
from .decode import OP
from .ir import FUNC_DT, INST_DT, OK, OPND_DT, FuncInfo, Program


class PassesMixin:
    """Lowering's passes over all functions; they use its state (self.finfo, self.insts, self.opnds, ...)."""

    def measure_pressure(self, program, fs) -> dict[str, int]:
        ir = regalloc.IRView(program.insts, program.opnds)
        out = {}
        for fi, f in zip(program.functions, fs):
            inf = self.finfo[f.name]
            widths = {inf["reg_base"] + k: w for k, w in inf["widths"].items()}
            out[f.name] = regalloc.max_live(ir, fi.entry_pc, fi.end_pc, _succ_fn(program.insts, fi.entry_pc), widths)
        return out

    def check_recursion(self, fs):
        """Refuse call cycles: .func frames and registers are static, one activation per function."""
        calls: dict[str, list] = {f.name: [] for f in fs}
        for f in fs:
            for p in self.finfo[f.name]["pending"]:
                callee = getattr(p, "call_target", None)
                if callee is not None:
                    calls[f.name].append((callee, p))
        state: dict[str, int] = {}
        path: list[str] = []

        def visit(name):
            state[name] = 1
            path.append(name)
            for callee, p in calls.get(name, []):
                if state.get(callee) == 1:
                    cycle = path[path.index(callee):] + [callee]
                    self.err(p.line, p.col, "recursive call " + " -> ".join(cycle) +
                             " is not supported (each .func has one static frame of registers and "
                             "local memory)")
                if callee not in state:
                    visit(callee)
            path.pop()
            state[name] = 2

        for f in fs:
            if f.name not in state:
                visit(f.name)

    def allocate_registers(self, program: "Program", fs):
        """Liveness-based slot allocation per function (regalloc.py), then slot bases: kernels from 0,
        .func bodies after the largest kernel, each in its own range (no recursion, so a function's
        slots are never live in two activations). Also fills regs_per_thread."""
        insts, opnds = program.insts, program.opnds
        allocs = {}
        ir = regalloc.IRView(insts, opnds)
        for fi, f in zip(program.functions, fs):
            inf = self.finfo[f.name]
            widths = {inf["reg_base"] + k: w for k, w in inf["widths"].items()}
            if self.regalloc:
                allocs[f.name] = regalloc.allocate(ir, fi.entry_pc, fi.end_pc,
                                                   _succ_fn(insts, fi.entry_pc), widths)
            else:   # identity: one slot per declared register, pressure still estimated
                a = regalloc.allocate(ir, fi.entry_pc, fi.end_pc, _succ_fn(insts, fi.entry_pc), widths)
                allocs[f.name] = regalloc.Allocation({inf["reg_base"] + k: k for k in range(inf["nregs"])},
                                                     inf["nregs"], a.pressure)
        ebase = max([allocs[f.name].nslots for f in fs if f.kind == "entry"] or [0])
        base, top = {}, ebase
        for f in fs:
            if f.kind == "entry":
                base[f.name] = 0
            else:
                base[f.name] = top
                top += allocs[f.name].nslots
        has_funcs = any(f.kind == "func" for f in fs)
        nold = max([self.finfo[f.name]["reg_base"] + self.finfo[f.name]["nregs"] for f in fs] or [0])
        kind, reg = opnds["kind"], opnds["reg"]
        # each function's operands are one contiguous range (instructions may have been reordered
        # within blocks by schedule.py, so take the smallest start in the function, not its first pc)
        for fi, f in zip(program.functions, fs):
            # kernels all number their registers from 0: rewrite each function's operands separately
            spans = [ir.span(pc) for pc in range(fi.entry_pc, fi.end_pc)]
            spans = [sp for sp in spans if sp[1] > sp[0]]
            lo = min((a for a, _ in spans), default=0)
            hi = max((b for _, b in spans), default=0)
            lut = np.full(max(nold, 1), -1, np.int64)
            for old, new in allocs[f.name].mapping.items():
                lut[old] = base[f.name] + new
            k, r = kind[lo:hi], reg[lo:hi]
            sel = ((k == OK["reg"]) | (k == OK["mem"])) & (r >= 0)
            new = lut[r[sel]]
            if (new < 0).any():
                raise AssertionError(f"register allocation left a register of {f.name} unmapped")
            r[sel] = new
        callees = self._callee_closure(fs)
        for i, (fi, f) in enumerate(zip(program.functions, fs)):
            a = allocs[f.name]
            rpt = self.pressure[f.name] + max([self.pressure[c] for c in callees[f.name]] or [0])
            if f.kind == "entry":
                fi.nregs = top if has_funcs else a.nslots
            else:
                fi.nregs = base[f.name] + a.nslots
            fi.regs_per_thread = max(rpt, 1)
            program.funcs[i]["nregs"] = fi.nregs
            program.funcs[i]["regs_per_thread"] = fi.regs_per_thread

    def _callee_closure(self, fs) -> dict[str, set]:
        direct = {f.name: {getattr(p, "call_target", None) for p in self.finfo[f.name]["pending"]} - {None}
                  for f in fs}
        out = {}
        for f in fs:
            seen, todo = set(), list(direct[f.name])
            while todo:
                c = todo.pop()
                if c not in seen:
                    seen.add(c)
                    todo.extend(direct.get(c, ()))
            out[f.name] = seen
        return out

    def _shared_refs(self, inf) -> set[str]:
        refs = set()
        for p in inf["pending"]:
            if p.instr is None:
                continue
            for o in _walk(p.instr.operands):
                if o.kind in ("reg", "mem", "symoff") and o.name:
                    v = p.scope.lookup(o.name) if p.scope else None
                    if v is None and any(m[0] == o.name for m in self.shared_module):
                        refs.add(o.name)
        return refs

    def cfg_function(self, f, start, end):
        ins = self.insts
        BRA, RET, EXIT, TRAP, BRK = OP["bra"], OP["ret"], OP["exit"], OP["trap"], OP["brkpt"]

        def succ_of(i):
            row = ins[start + i]
            op, guard = row[0], row[8]
            if op == BRA:
                return [row[14] - start], guard >= 0, False
            if op in (RET, EXIT, TRAP, BRK):
                return [], guard >= 0, True
            return [], True, False

        rpc = cfg.ipdom_rpc(end - start, succ_of)
        for i, r in rpc.items():
            row = ins[start + i]
            ins[start + i] = row[:15] + ((r + start) if r >= 0 else -1,) + row[16:]

    def _pack(self, infos: list[FuncInfo]) -> Program:
        insts = np.zeros(len(self.insts), INST_DT)
        names = INST_DT.names
        if self.insts:
            cols = list(zip(*self.insts))
            for k, n in enumerate(names):
                insts[n] = cols[k]
        opnds = np.zeros(len(self.opnds), OPND_DT)
        if self.opnds:
            cols = list(zip(*self.opnds))
            for k, n in enumerate(OPND_DT.names):
                opnds[n] = cols[k]
        funcs = np.zeros(len(infos), FUNC_DT)
        for i, fi in enumerate(infos):
            perf = fi.perf
            funcs[i] = (fi.entry_pc, fi.end_pc, fi.param_bytes, fi.shared_bytes, fi.local_bytes, fi.nregs,
                        fi.npreds, 0, _dim3(perf.get("reqntid")), _dim3(perf.get("maxntid")),
                        perf.get("minnctapersm", 0), 1 if fi.is_entry else 0)
        return Program(self.fn, self.src, insts, opnds, funcs, bytes(self.const_bank), infos, self.globals,
                       self.relocs, self.pc_text, self.pc_col, self.pc_op, self.pc_cuda, self.mod.files, self.mod.target,
                       self.mod.version)


def _dim3(v):
    if not v:
        return (0, 0, 0)
    v = list(v) + [1] * (3 - len(v))
    return tuple(v[:3])


def _walk(ops):
    for o in ops:
        yield o
        if o.elems:
            yield from _walk(o.elems)


def _succ_fn(insts, start: int):
    """succ_of(i) for the function starting at pc `start` (see cfg.ipdom_rpc), on the packed IR."""
    BRA, RET, EXIT, TRAP, BRK = OP["bra"], OP["ret"], OP["exit"], OP["trap"], OP["brkpt"]
    ops, guards, targets = insts["op"].tolist(), insts["guard"].tolist(), insts["target"].tolist()

    def succ_of(i):
        op, guard = ops[start + i], guards[start + i]
        if op == BRA:
            return [targets[start + i] - start], guard >= 0, False
        if op in (RET, EXIT, TRAP, BRK):
            return [], guard >= 0, True
        return [], True, False
    return succ_of
