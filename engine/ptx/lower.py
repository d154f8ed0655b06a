"""Syntax tree -> the engine's compact IR (numpy arrays laid out as gs_ir_inst / gs_ir_opnd / gs_ir_func).

What happens here, in order:
  1. module layout: kernel parameters, .const bank, .global variables (allocated by the device at load,
     patched through relocations), shared memory per kernel, static local-memory frames per function;
  2. per function, a declaration pass over the flattened body resolves block-scoped registers and
     labels (Triton's inline-asm blocks reuse names), and binds call-site .param variables to the
     callee's parameter frame (calls pass parameters through local memory);
  3. .func bodies are normalised to one final `ret` (other rets branch to it) and guarded calls become
     a branch around an unguarded call, so the SIMT stack reconverges at the function end;
  4. instructions are decoded (decode.py) and their operands resolved to register slots, immediates,
     special registers and addresses;
  5. branch reconvergence points come from immediate post-dominators (cfg.py).
The IR tables and result classes are in ir.py, operand resolution in operands.py and the
whole-program passes (recursion check, reconvergence, packing, register allocation) in passes.py.
"""
from __future__ import annotations

from .._ffi import E
from . import ifconvert, schedule
from .decode import OP, DecodeError, NotImplementedForm, decode
from .errors import PTXSemanticError
from .checks import TYPE_BITS as CHECKED_TYPE_BITS, check_arity, check_types
from . import limits
from .ir import (NO_DST, PTX_OPCODES, TYPE_BITS, FuncInfo, GlobalVar, KernelParam, Program, _align,
                 _flatten_init, _pack_value, _Pending, _Scope, _type_bytes, _var_size)
from .operands import OperandsMixin
from .passes import PassesMixin, _succ_fn
from .syntax import BranchTargets, CallPrototype, Instr, Label, Loc, Module, Opnd, Pragma, Scope, VarDecl


# extern functions the simulator provides: name -> parameter sizes in bytes. __assertfail(message, file,
# line, function, charSize) is CUDA's and Triton's device assert (Inductor's indexing bounds checks); its
# call becomes a trap that quotes the message, file and line (exec_ctrl.c reads them from the frame)
BUILTIN_FUNCS = {"__assertfail": (8, 8, 4, 8, 8)}


def _builtin_frame(name: str) -> list[int]:
    """offsets of a builtin's parameters in its frame (natural alignment), then the frame size"""
    offs, off = [], 0
    for size in BUILTIN_FUNCS[name]:
        off = _align(off, size)
        offs.append(off)
        off += size
    return offs + [off]


# --------------------------------------------------------------------------- the lowering


class Lowering(OperandsMixin, PassesMixin):
    def __init__(self, mod: Module, source: str):
        self.mod = mod
        self.src = source
        self.fn = mod.filename
        self.insts: list[tuple] = []
        self.opnds: list[tuple] = []
        self.relocs: list[tuple[int, str, int]] = []
        self.pc_text: list[str] = []
        self.pc_col: list[int] = []
        self.pc_op: list[str] = []
        self.pc_cuda: list = []
        self.lines = source.splitlines()

    def err(self, line: int, col: int, msg: str):
        raise PTXSemanticError(self.fn, line, col, msg)

    # ---------------------------------------------------------------- module layout
    def layout_module(self):
        self.const_bank = bytearray()
        self.const_syms: dict[str, int] = {}
        self.globals: list[GlobalVar] = []
        self.global_syms: set[str] = set()
        self.shared_module: list[tuple[str, int, int, bool]] = []     # name, size, align, extern
        for v in self.mod.variables:
            for name, dims, _rng, init in v.names:
                size = _var_size(v.type, v.vec, dims)
                align = v.align or _type_bytes(v.type) * (v.vec or 1)
                if v.space == "const":
                    self.const_syms[name] = self._const_var(v, name, init, size, align)
                elif v.space == "global":
                    if "extern" in v.linkage and init is None and size == 0:
                        self.err(v.line, v.col, f"extern global '{name}' has no definition in this module")
                    self._limit(v, name, size, limits.MAX_GLOBAL_BYTES, ".global variable")
                    self.globals.append(GlobalVar(name, max(size, 1), align,
                                                  self._init_bytes(v, init, size, pad=False)
                                                  if init is not None else None))
                    self.global_syms.add(name)
                elif v.space in ("shared", "shared::cta"):
                    self._limit(v, name, size, limits.MAX_SHARED_BYTES, ".shared variable")
                    self.shared_module.append((name, size, align, "extern" in v.linkage or size == 0))
                else:
                    self.err(v.line, 0, f"module-level .{v.space} variable '{name}' is not supported")
        self.funcs = {f.name: f for f in self.mod.functions if f.body is not None}
        self.decls = {f.name: f for f in self.mod.functions}

    def _limit(self, v: VarDecl, name: str, size: int, limit: int, what: str):
        if size > limit:
            self.err(v.line, v.col, f"{what} '{name}' of {size} bytes is larger than the {_bytes(limit)} "
                                    f"the simulator accepts")

    def _const_var(self, v: VarDecl, name: str, init, size: int, align: int) -> int:
        """Place a .const variable in the bank (at most MAX_CONST_BYTES in all); its offset."""
        off = _align(len(self.const_bank), align)
        if off + size > limits.MAX_CONST_BYTES:
            self.err(v.line, v.col, f".const variable '{name}' of {size} bytes does not fit in the "
                                    f"{_bytes(limits.MAX_CONST_BYTES)} constant bank "
                                    f"({len(self.const_bank)} bytes already used)")
        self.const_bank.extend(b"\0" * (off - len(self.const_bank)))
        self.const_bank.extend(self._init_bytes(v, init, size))
        return off

    def _init_bytes(self, v: VarDecl, init, size: int, pad: bool = True) -> bytes:
        """The initial bytes of a variable (zero-padded to size unless pad=False: the device zeroes
        fresh allocations, so a large .global needs only its initialised prefix)."""
        if init is None:
            return b"\0" * size
        vals = _flatten_init(init)
        if len(vals) > size:
            self.err(v.line, v.col, f"initialiser of {len(vals)} values is larger than the variable ({size} bytes)")
        out = bytearray()
        for x in vals:
            if isinstance(x, tuple):
                self.err(v.line, v.col, "initialisers with addresses of symbols are not supported")
            try:
                out += _pack_value(v.type, x)
            except ValueError as e:
                self.err(v.line, v.col, str(e))
        if len(out) > size:
            self.err(v.line, v.col, "initialiser larger than the variable")
        return bytes(out) + b"\0" * (size - len(out)) if pad else bytes(out)

    # ---------------------------------------------------------------- pass 1: declarations
    def declare(self, f):
        """Walk a function body: scopes, registers, labels, local/shared/param variables."""
        root = _Scope(None)
        info = {"scope": root, "nregs": 0, "npreds": 0, "pending": [], "labels": {},
                "shared": [], "local": [], "callparams": [], "local_size": 0, "widths": {}}
        # parameters
        if f.kind == "entry":
            off = 0
            kparams = []
            for p in f.params:
                if p.space == "reg":
                    self.err(f.line, 0, f"kernel parameter '{p.name}' in .reg space")
                size = _var_size(p.type, 1, p.dims)
                al = p.align or _type_bytes(p.type)
                off = _align(off, al)
                kparams.append(KernelParam(p.name, p.type, off, size, al))
                root.names[p.name] = ("kparam", off, p.type)
                off += size
                if off > limits.MAX_PARAM_BYTES:
                    self.err(f.line, f.col, f"kernel parameters of {f.name} take {off} bytes at '{p.name}'; "
                                            f"CUDA allows at most {limits.MAX_PARAM_BYTES}")
            info["kparams"] = kparams
            info["param_bytes"] = _align(off, 8) if off else 0
        else:
            info["kparams"] = []
            info["param_bytes"] = 0
            for p in f.rets + f.params:
                if p.space == "reg":
                    self.err(f.line, 0, f"function parameter '{p.name}' in .reg space is not supported")
                size = _var_size(p.type, 1, p.dims)
                al = p.align or _type_bytes(p.type)
                info["local_size"] = _align(info["local_size"], al)
                root.names[p.name] = ("local", info["local_size"], p.type)
                info["local_size"] += size
                if info["local_size"] > limits.MAX_LOCAL_BYTES:
                    self.err(f.line, f.col, f"parameters of {f.name} take more than the "
                                            f"{_bytes(limits.MAX_LOCAL_BYTES)} of local memory a thread may use")
        scope = root
        cuda = None
        stack = []
        for st in f.body:
            if isinstance(st, Scope):
                if st.enter:
                    stack.append(scope)
                    scope = _Scope(scope) if len(stack) > 1 else scope
                else:
                    scope = stack.pop()
            elif isinstance(st, VarDecl):
                self._declare_var(f, info, scope, st)
            elif isinstance(st, Label):
                if st.name in scope.names:
                    self.err(st.line, 0, f"label '{st.name}' defined twice")
                scope.names[st.name] = ("label", len(info["pending"]))
            elif isinstance(st, Instr):
                info["pending"].append(_Pending(st, scope, st.opcode, st.guard, st.guard_neg, st.line, st.col, cuda))
            elif isinstance(st, BranchTargets):
                scope.names[st.name] = ("btargets", st.labels)
            elif isinstance(st, CallPrototype):
                scope.names[st.name] = ("prototype", None)
            elif isinstance(st, Loc):
                cuda = (st.file, st.line)
            elif isinstance(st, Pragma):
                pass
        return info

    def _declare_var(self, f, info, scope: _Scope, v: VarDecl):
        for name, dims, rng, init in v.names:
            if v.space == "reg":
                count = rng if rng is not None else 1
                if info["nregs"] + info["npreds"] + count > limits.MAX_REGS_PER_FUNCTION:
                    self.err(v.line, v.col, f"{f.name} declares more than {limits.MAX_REGS_PER_FUNCTION} "
                                            f"registers (at '{name}')")
                names = [f"{name}{i}" for i in range(rng)] if rng is not None else [name]
                for n in names:
                    if v.type == "pred":
                        scope.names[n] = ("pred", info["npreds"])
                        info["npreds"] += 1
                    else:
                        width = TYPE_BITS.get(v.type, 32) * (v.vec or 1)
                        if width > 64:
                            self.err(v.line, 0, f"register '{n}' of type .{v.type} is wider than 64 bits")
                        scope.names[n] = ("reg", info["nregs"], width, v.type if (v.vec or 1) == 1 else None)
                        info["widths"][info["nregs"]] = width
                        info["nregs"] += 1
            elif v.space in ("shared", "shared::cta"):
                size = _var_size(v.type, v.vec, dims)
                self._limit(v, name, size, limits.MAX_SHARED_BYTES, ".shared variable")
                al = v.align or _type_bytes(v.type)
                key = f"{f.name}::{name}"
                info["shared"].append((key, size, al, "extern" in v.linkage or size == 0))
                scope.names[name] = ("shared", key)
            elif v.space == "local":
                size = _var_size(v.type, v.vec, dims)
                al = v.align or _type_bytes(v.type)
                info["local_size"] = _align(info["local_size"], al)
                scope.names[name] = ("local", info["local_size"], v.type)
                info["local_size"] += size
                if info["local_size"] > limits.MAX_LOCAL_BYTES:
                    self.err(v.line, v.col, f".local variable '{name}' takes function {f.name} past the "
                                            f"{_bytes(limits.MAX_LOCAL_BYTES)} of local memory a thread may use")
            elif v.space == "param":
                size = _var_size(v.type, v.vec, dims)
                self._limit(v, name, size, limits.MAX_LOCAL_BYTES, ".param variable")
                scope.names[name] = ("callparam", None, size)
                info["callparams"].append((scope, name))
            elif v.space == "const":
                size = _var_size(v.type, v.vec, dims)
                al = v.align or _type_bytes(v.type)
                scope.names[name] = ("const", self._const_var(v, name, init, size, al))
            else:
                self.err(v.line, 0, f".{v.space} variable '{name}' inside a function is not supported")

    # ---------------------------------------------------------------- pass 2: normalise control flow
    def normalise(self, f, info):
        """Single final ret for .func; guarded calls become branches around unguarded calls; call-site
        params bound to the callee's frame."""
        pend: list[_Pending] = info["pending"]
        labels_at: dict[int, list] = {}
        # labels are indices into pending; rebuild them as we insert
        for sc in self._scopes_of(info):
            for name, val in list(sc.names.items()):
                if val[0] == "label":
                    labels_at.setdefault(val[1], []).append((sc, name))
        out: list[_Pending] = []
        newpos: dict[int, int] = {}
        final_ret = "%%__func_exit"
        for i, p in enumerate(pend):
            newpos[i] = len(out)
            base = p.opcode.split(".")[0]
            if base == "call" and p.guard is not None:
                skip = f"%%__skip_{i}"
                out.append(_Pending(None, p.scope, "bra", p.guard, not p.guard_neg, p.line, p.col, p.cuda,
                                    synth="bra", target_label=skip))
                out.append(_Pending(p.instr, p.scope, p.opcode, None, False, p.line, p.col, p.cuda))
                info["scope"].names[skip] = ("label", None)
                info.setdefault("synth_labels", {})[skip] = len(out)
                continue
            if base == "brx":
                self._pending_skip = None
                out.extend(self._expand_brx(info, p, i))
                if self._pending_skip:
                    info["synth_labels"][self._pending_skip] = len(out)
                    info["scope"].names[self._pending_skip] = ("label", None)
                continue
            if base == "ret" and f.kind == "func":
                out.append(_Pending(None, p.scope, "bra", p.guard, p.guard_neg, p.line, p.col, p.cuda,
                                    synth="bra", target_label=final_ret))
                continue
            out.append(p)
        newpos[len(pend)] = len(out)
        if f.kind == "entry" and (not out or out[-1].guard is not None or
                                  out[-1].opcode.split(".")[0] not in ("ret", "exit", "bra", "trap", "brkpt")):
            # a kernel whose last instruction falls through would run past its end into the next
            # function (with that function's registers): it ends there, as if with ret
            last_line = out[-1].line if out else f.line
            out.append(_Pending(None, info["scope"], "ret", None, False, last_line, 0, None, synth="ret"))
        if f.kind == "func":
            info.setdefault("synth_labels", {})[final_ret] = len(out)
            info["scope"].names[final_ret] = ("label", None)
            last_line = pend[-1].line if pend else f.line
            out.append(_Pending(None, info["scope"], "ret", None, False, last_line, 0, None, synth="ret"))
        # relocate labels
        for idx, entries in labels_at.items():
            for sc, name in entries:
                sc.names[name] = ("label", newpos[idx])
        for name, pos in info.get("synth_labels", {}).items():
            info["scope"].names[name] = ("label", pos)
        info["pending"] = out

    def _expand_brx(self, info, p, i):
        """brx.idx{.uni} idx, table  ->  a compare-and-branch chain (setp.eq + @p bra per target; the
        last target is taken unconditionally: an index past the table is undefined in PTX). Branches
        then get ordinary immediate-post-dominator reconvergence."""
        ops = p.instr.operands
        if p.opcode.split(".")[1:2] != ["idx"] or len(ops) != 2 or ops[1].kind != "reg":
            self.err(p.line, p.col, "brx takes the form brx.idx{.uni} index, table;")
        tab = p.scope.lookup(ops[1].name)
        if tab is None or tab[0] != "btargets":
            self.err(p.line, p.col, f"'{ops[1].name}' is not a .branchtargets table")
        pname = "%%__brx_p"
        if pname not in info["scope"].names:
            info["scope"].names[pname] = ("pred", info["npreds"])
            info["npreds"] += 1
        out = []
        skip = None
        if p.guard is not None:
            skip = f"%%__brx_skip_{i}"
            out.append(_Pending(None, p.scope, "bra", p.guard, not p.guard_neg, p.line, p.col, p.cuda,
                                synth="bra", target_label=skip))
        labels = tab[1]
        for k, label in enumerate(labels):
            if k < len(labels) - 1:
                setp = Instr("setp.eq.u32", [Opnd("reg", name=pname), ops[0], Opnd("imm", value=k)], None,
                             False, p.line, p.col)
                out.append(_Pending(setp, p.scope, setp.opcode, None, False, p.line, p.col, p.cuda))
                guard = pname
            else:
                guard = None
            bra = Instr("bra", [Opnd("reg", name=label)], guard, False, p.line, p.col)
            out.append(_Pending(bra, p.scope, "bra", guard, False, p.line, p.col, p.cuda))
        if skip is not None:
            info.setdefault("synth_labels", {})
            self._pending_skip = skip           # its position (after the chain) is set by the caller
        return out

    def _scopes_of(self, info):
        seen, out = set(), []
        for p in info["pending"]:
            s = p.scope
            while s is not None and id(s) not in seen:
                seen.add(id(s))
                out.append(s)
                s = s.parent
        if id(info["scope"]) not in seen:
            out.append(info["scope"])
        return out

    def bind_call_params(self, f, info):
        """Map call-site .param variables onto the callee's parameter frame in local memory."""
        for p in info["pending"]:
            if p.opcode.split(".")[0] != "call" or p.instr is None:
                continue
            ops = p.instr.operands
            rets, callee, args = None, None, None
            rest = list(ops)
            if rest and rest[0].kind == "args":
                rets = rest.pop(0)
            if not rest or rest[0].kind != "reg":
                self.err(p.line, p.col, "call without a function name")
            callee = rest.pop(0).name
            if rest and rest[0].kind == "args":
                args = rest.pop(0)
            if callee not in self.decls:
                self.err(p.line, p.col, f"call to undeclared function '{callee}'")
            # a device-side assert (Triton's tl.device_assert, CUDA's assert): the call only runs when the
            # assertion failed and never returns (.noreturn); it becomes a trap quoting the assertion
            if callee not in self.funcs and callee in BUILTIN_FUNCS:
                self._bind_builtin(p, callee, rets, args)
                continue
            if callee not in self.funcs:
                hint = {"vprintf": " (printf needs the CUDA runtime's vprintf, which the simulator does not provide)",
                        "__assertfail": " (assert() needs the CUDA runtime's __assertfail)",
                        "malloc": " (device-side malloc is not provided)", "free": " (device-side free is not provided)"}
                self.err(p.line, p.col, f"call to external function '{callee}' is not supported: it has no body "
                                        f"in this module{hint.get(callee, '')}")
            cf = self.decls[callee]
            cinfo = self.finfo[callee]
            formal = [("rets", q) for q in cf.rets] + [("params", q) for q in cf.params]
            actual = ([("rets", o) for o in (rets.elems if rets else [])] +
                      [("params", o) for o in (args.elems if args else [])])
            if len(cf.rets) != (len(rets.elems) if rets else 0) or len(cf.params) != (len(args.elems) if args else 0):
                self.err(p.line, p.col, f"call to '{callee}' with {len(args.elems) if args else 0} argument(s); "
                                        f"it takes {len(cf.params)}")
            for (_, q), (_, o) in zip(formal, actual):
                if o.kind != "reg":
                    self.err(p.line, p.col, "call arguments must be .param variables")
                entry = p.scope.lookup(o.name)
                if entry is None or entry[0] != "callparam":
                    self.err(p.line, p.col, f"call argument '{o.name}' is not a .param variable")
                kind, off, ptype = cinfo["scope"].names[q.name]
                # rebind the caller's param name in its scope to the callee frame (absolute offset)
                sc = p.scope
                while sc is not None and o.name not in sc.names:
                    sc = sc.parent
                sc.names[o.name] = ("local_abs", self.frame_base[callee] + off)
            p.call_target = callee

    def _bind_builtin(self, p, callee, rets, args):
        cf, sizes = self.decls[callee], BUILTIN_FUNCS[callee]
        declared = [_type_bytes(q.type) for q in cf.params]
        if cf.rets or declared != list(sizes):
            self.err(p.line, p.col, f"'{callee}' is declared with parameters of {declared} bytes; the simulator "
                                    f"provides it with {list(sizes)} and no return value")
        elems = args.elems if args else []
        if rets or len(elems) != len(sizes):
            self.err(p.line, p.col, f"call to '{callee}' with {len(elems)} argument(s); it takes {len(sizes)}")
        for off, o in zip(_builtin_frame(callee), elems):
            entry = p.scope.lookup(o.name) if o.kind == "reg" else None
            if entry is None or entry[0] != "callparam":
                self.err(p.line, p.col, f"call argument '{o.name}' is not a .param variable")
            sc = p.scope
            while sc is not None and o.name not in sc.names:
                sc = sc.parent
            sc.names[o.name] = ("local_abs", self.frame_base[callee] + off)
        p.builtin = callee

    # ---------------------------------------------------------------- pass 3: emit
    def emit_function(self, f, info, fidx):
        base_pc = len(self.insts)
        reg_base = info["reg_base"]
        pred_base = info["pred_base"]
        pend = info["pending"]
        self._cur = (f, info, reg_base, pred_base)
        branch_fix = []
        for k, p in enumerate(pend):
            pc = base_pc + k
            text = self.lines[p.line - 1].strip() if 0 < p.line <= len(self.lines) else p.opcode
            if p.synth == "ret":
                text = "ret;  // function exit (inserted)"
            self.pc_text.append(text)
            self.pc_col.append(p.col)
            self.pc_op.append(p.opcode)
            self.pc_cuda.append(p.cuda)
            self._emit(p, pc, branch_fix)
        end_pc = base_pc + len(pend)
        # resolve branch targets
        for pc, scope, label, line, col in branch_fix:
            val = scope.lookup(label) if scope else info["scope"].names.get(label)
            if val is None or val[0] != "label":
                self.err(line, col, f"undefined label '{label}'")
            tgt = base_pc + val[1]
            if tgt >= end_pc:
                self.err(line, col, f"label '{label}' is at the end of the function with no instruction")
            self.insts[pc] = self.insts[pc][:14] + (tgt,) + self.insts[pc][15:]
        return base_pc, end_pc

    def _emit(self, p: _Pending, pc: int, branch_fix: list):
        f, info, reg_base, pred_base = self._cur
        self._mem_space = None
        try:
            d = decode(p.opcode)
        except DecodeError as e:
            if isinstance(e, NotImplementedForm) or (p.opcode.split(".")[0] in PTX_OPCODES and
                                                      "unknown instruction" in str(e)):
                # real PTX the engine does not implement: refused by name at load (UnsupportedInstruction)
                self.insts.append((OP["nop"], 0, 0, 0, 0, 0, 0, E.flag["unsupported"], -1, len(self.opnds),
                                   0, 0, 0, 0, -1, -1, 0, p.line))
                return
            self.err(p.line, p.col, str(e))
        if p.instr is not None:
            mods = p.opcode.split(".")[1:]
            msg = check_arity(d.name, mods, len(p.instr.operands))
            if msg is None and d.types:
                tname = p.opcode.split(".")
                tname = next((m for m in mods if m in CHECKED_TYPE_BITS), None)
                msg = check_types(d.name, mods, tname, p.instr.operands, lambda n: self._describe(p, n))
            if msg:
                self.err(p.line, p.col, msg)
        guard = -1
        if p.guard is not None:
            g = self._lookup(p, p.guard)
            if g is None or g[0] != "pred":
                self.err(p.line, p.col, f"guard '{p.guard}' is not a declared predicate")
            guard = pred_base + g[1]
        first = len(self.opnds)
        target = -1
        ops = p.instr.operands if p.instr is not None else []
        ndst = 0
        nop = 0
        flags = d.flags
        if p.synth == "bra" or d.op == OP["bra"]:
            label = p.target_label if p.synth == "bra" else (ops[0].name if ops and ops[0].kind == "reg" else None)
            if label is None:
                self.err(p.line, p.col, "bra needs a label")
            branch_fix.append((pc, p.scope, label, p.line, p.col))
            ops = []
        elif d.op == OP["call"] and p.builtin:
            d = decode("trap")                          # __assertfail: stop with its message
            d.sub, d.aux = E.sub["trap_assertfail"], self.frame_base[p.builtin]
            ops = []
        elif d.op == OP["call"]:
            self.call_fix.append((pc, p.call_target))
            ops = []
        else:
            ndst = 0 if d.op in NO_DST else 1
            if d.op == OP["bar"] and not (flags & E.flag["red"]):
                ndst = 0
            if d.op == OP["mbarrier"] and ops and ops[0].kind == "mem":
                ndst = 0
            if d.op == OP["atom"] and ops and ops[0].kind == "mem":
                self.err(p.line, p.col, "atom needs a destination register (use red for no result)")
            ndst_written = ndst            # destinations as written: a pair d|p is one (two IR operands)
            for i, o in enumerate(ops):
                is_dst = i < ndst_written
                if o.kind == "pair":
                    for e in o.elems:
                        self._operand(p, d, e, is_dst)
                        nop += 1
                    if is_dst:
                        ndst += 1
                    continue
                self._operand(p, d, o, is_dst)
                nop += 1
        if d.op == OP["ld"] or d.op == OP["ldu"] or d.op == OP["st"] or d.op == OP["atom"] or d.op == OP["red"]:
            d = self._fix_space(p, d, first)
        if d.op == OP["exit"] or (d.op == OP["ret"] and f.kind == "entry"):
            pass
        self.insts.append((d.op, d.type, d.type2, d.space, d.cmp, d.sub, d.rnd, flags, guard, first, nop, ndst,
                           d.vec, 1 if p.guard_neg else 0, target, -1, d.aux, p.line))

    def check_ir(self, program: Program):
        """The engine's own IR check (gs_ir_check, the one gs_program_create applies), run here on the
        lowered program so that a malformed instruction (an address where a register is read, a .v4 with
        two registers, a predicate where a value is read) is reported at its PTX line and column."""
        from .._ffi import ffi, lib
        insts, opnds, funcs = program.insts, program.opnds, program.funcs
        if not len(insts):
            return
        err = ffi.new("char[256]")
        pc = lib.gs_ir_check(ffi.from_buffer("gs_ir_inst[]", insts), len(insts),
                             ffi.from_buffer("gs_ir_opnd[]", opnds) if len(opnds) else ffi.NULL, len(opnds),
                             ffi.from_buffer("gs_ir_func[]", funcs), len(funcs), err, 256)
        if pc >= 0:
            msg = ffi.string(err).decode(errors="replace")
            line = int(insts[pc]["line"])
            msg = msg.split(": ", 1)[1] if msg.startswith(f"line {line}: ") else msg
            text = self.pc_text[pc] if pc < len(self.pc_text) else ""
            raise PTXSemanticError(self.fn, line, self.pc_col[pc] if pc < len(self.pc_col) else 0,
                                   f"{msg} (in `{text}`)" if text else msg)

    # ---------------------------------------------------------------- driver
    def run(self) -> Program:
        self.layout_module()
        fs = [f for f in self.mod.functions if f.body is not None]
        if not fs:
            raise PTXSemanticError(self.fn, 1, 1, "the module defines no function")
        names = set()
        for f in fs:
            if f.name in names:
                self.err(f.line, 0, f"function '{f.name}' defined twice")
            names.add(f.name)
        self.finfo = {f.name: self.declare(f) for f in fs}
        for f in fs:
            self.normalise(f, self.finfo[f.name])
        # static local frames: entries at 0, every .func after the largest entry frame
        emax = max([self.finfo[f.name]["local_size"] for f in fs if f.kind == "entry"] or [0])
        base = _align(emax, 16)
        self.frame_base = {}
        for f in fs:
            if f.kind == "entry":
                self.frame_base[f.name] = 0
            else:
                self.frame_base[f.name] = base
                base = _align(base + self.finfo[f.name]["local_size"], 16)
        builtins = [b for b in BUILTIN_FUNCS if b in self.decls and b not in self.funcs]
        for b in builtins:                      # frames of the builtins' parameters, after the .func frames
            self.frame_base[b] = base
            base = _align(base + _builtin_frame(b)[-1], 16)
        funcs_local = base
        if funcs_local > limits.MAX_LOCAL_BYTES:
            self.err(fs[0].line, fs[0].col, f"the module's local-memory frames take {funcs_local} bytes per "
                                            f"thread; a thread may use at most {_bytes(limits.MAX_LOCAL_BYTES)}")
        has_funcs = any(f.kind == "func" for f in fs)
        # registers: entries from 0, .func bodies after the largest entry
        rmax = max([self.finfo[f.name]["nregs"] for f in fs if f.kind == "entry"] or [0])
        pmax = max([self.finfo[f.name]["npreds"] for f in fs if f.kind == "entry"] or [0])
        rb, pb = rmax, pmax
        for f in fs:
            inf = self.finfo[f.name]
            if f.kind == "entry":
                inf["reg_base"], inf["pred_base"] = 0, 0
            else:
                inf["reg_base"], inf["pred_base"] = rb, pb
                rb += inf["nregs"]
                pb += inf["npreds"]
        for f in fs:
            self.bind_call_params(f, self.finfo[f.name])
        self.check_recursion(fs)
        # shared layout: vars of .func bodies first (same offsets in every kernel), then per kernel
        func_shared = []
        for f in fs:
            if f.kind == "func":
                func_shared += self.finfo[f.name]["shared"]
        common_used = set()
        for f in fs:
            if f.kind == "func":
                common_used |= self._shared_refs(self.finfo[f.name])
        for f in fs:
            inf = self.finfo[f.name]
            used = self._shared_refs(inf)
            layout, off, ext = {}, 0, []
            items = []
            if has_funcs:
                items += func_shared + [m for m in self.shared_module if m[0] in common_used]
            items += inf["shared"] if f.kind == "entry" else []
            items += [m for m in self.shared_module if m[0] in used and m[0] not in common_used]
            for name, size, al, extern in items:
                if extern:
                    ext.append((name, al))
                    continue
                off = _align(off, al)
                layout[name] = off
                off += size
            ext_al = max([16] + [a for _, a in ext])
            if ext:
                off = _align(off, ext_al)
                for name, _ in ext:
                    layout[name] = off
            if off > limits.MAX_SHARED_BYTES:
                self.err(f.line, f.col, f"{f.name} uses {off} bytes of static shared memory; the simulator "
                                        f"accepts at most {_bytes(limits.MAX_SHARED_BYTES)}")
            inf["shared_off"] = layout
            inf["shared_bytes"] = off
        # emit
        self.call_fix = []
        self.entry_of = {}
        infos = []
        for i, f in enumerate(fs):
            inf = self.finfo[f.name]
            start, end = self.emit_function(f, inf, i)
            self.entry_of[f.name] = start
            self.cfg_function(f, start, end)
            infos.append(FuncInfo(f.name, i, f.kind == "entry", inf["kparams"], inf["param_bytes"],
                                  inf["shared_bytes"],
                                  (funcs_local if has_funcs or builtins else inf["local_size"])
                                  if f.kind == "entry" else 0,
                                  start, end, rb if (has_funcs and f.kind == "entry") else
                                  (inf["reg_base"] + inf["nregs"]),
                                  pb if (has_funcs and f.kind == "entry") else (inf["pred_base"] + inf["npreds"]),
                                  f.line, f.perf))
        for pc, callee in self.call_fix:
            row = self.insts[pc]
            self.insts[pc] = row[:14] + (self.entry_of[callee],) + row[15:]
        program = self._pack(infos)
        self.check_ir(program)
        if self.schedule:
            ifconvert.convert(program, _succ_fn)
        # register pressure (hardware registers per thread, for occupancy) is measured in nvcc's order:
        # ptxas schedules with an eye on pressure, our list scheduler does not, so the scheduled order
        # would overstate it (sgemm_rb64: 112 against the 40 the driver's JIT allocates)
        self.pressure = self.measure_pressure(program, fs)
        if self.schedule:
            schedule.reorder(program, _succ_fn, self.sass_keys, self.sass_all)
        self.allocate_registers(program, fs)
        return program


def _bytes(n: int) -> str:
    for shift, unit in ((30, "GiB"), (20, "MiB"), (10, "KiB")):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n} bytes"


def lower(mod: Module, source: str, regalloc: bool = True, schedule: bool = True,
          sass_keys: dict[int, int] | None = None, sass_all: bool = False) -> Program:
    """Lower a parsed module; regalloc=False keeps one slot per declared register (for comparison);
    schedule=False keeps nvcc's code as written instead of the ptxas-like transformations (if-conversion
    of short branches, ifconvert.py, then list scheduling within basic blocks, schedule.py); sass_keys
    (PTX line -> position of its last SASS instruction) keeps loads from global memory where ptxas put
    them, or with sass_all schedules each block in ptxas's order (schedule.py)."""
    lw = Lowering(mod, source)
    lw.regalloc = regalloc
    lw.schedule = schedule
    lw.sass_keys = sass_keys
    lw.sass_all = sass_all
    return lw.run()
