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
"""
from __future__ import annotations

import struct
from dataclasses import dataclass, field

import numpy as np

from .._ffi import E, ffi
from . import cfg, ifconvert, regalloc, schedule
from .decode import OP, DecodeError, decode
from .errors import PTXSemanticError
from .checks import check_arity, check_types
from .syntax import BranchTargets, CallPrototype, Instr, Label, Loc, Module, Opnd, Param, Pragma, Scope, VarDecl

# --------------------------------------------------------------------------- numpy views of the C structs


def _dtype(cname: str, fields: list[tuple[str, str]]) -> np.dtype:
    names, formats, offsets = [], [], []
    for f, *fmt in fields:
        names.append(f)
        formats.append(fmt[0] if len(fmt) == 1 else (fmt[0], fmt[1]))
        offsets.append(ffi.offsetof(cname, f))
    return np.dtype({"names": names, "formats": formats, "offsets": offsets, "itemsize": ffi.sizeof(cname)})


INST_DT = _dtype("gs_ir_inst", [("op", "<u2"), ("type", "u1"), ("type2", "u1"), ("space", "u1"),
                                ("cmp", "u1"), ("sub", "u1"), ("rnd", "u1"), ("flags", "<u4"),
                                ("guard", "<i4"), ("opnd", "<u4"), ("nopnd", "u1"), ("ndst", "u1"),
                                ("vec", "u1"), ("guard_neg", "u1"), ("target", "<i4"), ("rpc", "<i4"),
                                ("aux", "<u4"), ("line", "<u4")])
OPND_DT = _dtype("gs_ir_opnd", [("kind", "u1"), ("flags", "u1"), ("n", "<u2"), ("reg", "<i4"), ("imm", "<i8")])
FUNC_DT = _dtype("gs_ir_func", [("entry_pc", "<i4"), ("end_pc", "<i4"), ("param_bytes", "<u4"),
                                ("shared_bytes", "<u4"), ("local_bytes", "<u4"), ("nregs", "<u4"),
                                ("npreds", "<u4"), ("regs_per_thread", "<u4"), ("reqntid", "<u4", (3,)),
                                ("maxntid", "<u4", (3,)), ("minnctapersm", "<u4"), ("is_entry", "<u4")])

OK = E.ok
T = E.type
SP = E.space
SREGS = {
    "%tid.x": "tid_x", "%tid.y": "tid_y", "%tid.z": "tid_z", "%ntid.x": "ntid_x", "%ntid.y": "ntid_y",
    "%ntid.z": "ntid_z", "%ctaid.x": "ctaid_x", "%ctaid.y": "ctaid_y", "%ctaid.z": "ctaid_z",
    "%nctaid.x": "nctaid_x", "%nctaid.y": "nctaid_y", "%nctaid.z": "nctaid_z", "%laneid": "laneid",
    "%warpid": "warpid", "%nwarpid": "nwarpid", "%smid": "smid", "%nsmid": "nsmid", "%gridid": "gridid",
    "%lanemask_eq": "lanemask_eq", "%lanemask_lt": "lanemask_lt", "%lanemask_le": "lanemask_le",
    "%lanemask_gt": "lanemask_gt", "%lanemask_ge": "lanemask_ge", "%clock": "clock",
    "%clock_hi": "clock_hi", "%clock64": "clock64", "%globaltimer": "globaltimer",
    "%globaltimer_lo": "globaltimer_lo", "%globaltimer_hi": "globaltimer_hi",
    "%dynamic_smem_size": "dyn_smem_size", "%total_smem_size": "total_smem_size",
    "%cluster_ctarank": "cluster_ctarank", "%cluster_nctarank": "cluster_nctarank",
    "%clusterid.x": "clusterid_x", "%clusterid.y": "clusterid_y", "%clusterid.z": "clusterid_z",
    "%nclusterid.x": "nclusterid_x", "%nclusterid.y": "nclusterid_y", "%nclusterid.z": "nclusterid_z",
    "%cluster_ctaid.x": "cluster_ctaid_x", "%cluster_ctaid.y": "cluster_ctaid_y",
    "%cluster_ctaid.z": "cluster_ctaid_z", "%cluster_nctaid.x": "cluster_nctaid_x",
    "%cluster_nctaid.y": "cluster_nctaid_y", "%cluster_nctaid.z": "cluster_nctaid_z",
    "%is_explicit_cluster": "is_explicit_cluster",
}
SREGS.update({f"%pm{i}": "pm0" for i in range(8)})
SREGS.update({f"%pm{i}_64": "pm0" for i in range(8)})
SREGS.update({f"%envreg{i}": "zero" for i in range(32)})

TYPE_BITS = {"pred": 1, "b8": 8, "u8": 8, "s8": 8, "b16": 16, "u16": 16, "s16": 16, "f16": 16, "bf16": 16,
             "b32": 32, "u32": 32, "s32": 32, "f32": 32, "f16x2": 32, "bf16x2": 32, "tf32": 32,
             "b64": 64, "u64": 64, "s64": 64, "f64": 64, "b128": 128, "e4m3": 8, "e5m2": 8}
FLOAT_T = {T["f16"], T["bf16"], T["f32"], T["f64"], T["f16x2"], T["bf16x2"], T["tf32"]}

# every PTX instruction name (first component): those decode.py does not know are refused by name
PTX_OPCODES = set("""abs activemask add addc alloca and applypriority atom bar barrier bfe bfi bfind bmsk bra brev
brkpt brx call clusterlaunchcontrol clz cnot copysign cos cp createpolicy cvt cvta discard div dp2a dp4a elect
ex2 exit fence fma fns getctarank griddepcontrol isspacep istypep ld ldmatrix ldu lg2 lop3 mad mad24 madc mapa
match max mbarrier membar min mma mov movmatrix mul mul24 multimem nanosleep neg not or pmevent popc prefetch
prefetchu prmt rcp red redux rem ret rsqrt sad selp set setmaxnreg setp shf shfl shl shr sin slct sqrt st
stackrestore stacksave stmatrix sub subc suld suq sured sust szext tanh tcgen05 tensormap testp tex tld4 trap
txq vabsdiff vabsdiff2 vabsdiff4 vadd vadd2 vadd4 vavrg2 vavrg4 vmad vmax vmax2 vmax4 vmin vmin2 vmin4 vote
vset vset2 vset4 vshl vshr vsub vsub2 vsub4 wgmma wmma xor""".split())

# ops that write nothing (all operands are sources)
NO_DST = {OP[n] for n in ("st", "red", "bra", "call", "ret", "exit", "trap", "brkpt", "membar", "nanosleep",
                          "bar_warp", "prefetch", "wmma_store", "stmatrix", "cp_async", "cp_async_commit",
                          "cp_async_wait", "wgmma_fence", "wgmma_commit", "wgmma_wait", "cache_hint", "nop")}


# --------------------------------------------------------------------------- results


@dataclass
class KernelParam:
    name: str
    type: str
    offset: int
    size: int
    align: int


@dataclass
class FuncInfo:
    name: str
    index: int
    is_entry: bool
    params: list[KernelParam]
    param_bytes: int
    shared_bytes: int
    local_bytes: int
    entry_pc: int
    end_pc: int
    nregs: int
    npreds: int
    line: int
    perf: dict
    regs_per_thread: int = 0


@dataclass
class GlobalVar:
    name: str
    size: int
    align: int
    init: bytes | None


@dataclass
class Program:
    """A lowered PTX module, ready for gs_program_create (after relocation of globals)."""
    filename: str
    source: str
    insts: np.ndarray
    opnds: np.ndarray
    funcs: np.ndarray
    const_bank: bytes
    functions: list[FuncInfo]
    globals: list[GlobalVar]
    relocs: list[tuple[int, str, int]]        # (operand index, global name, addend)
    pc_text: list[str]                        # the instruction as written, per pc
    pc_col: list[int]
    pc_op: list[str]                          # the opcode as written, per pc
    pc_cuda: list[tuple[int, int] | None]     # (.loc file, line) per pc, or None
    files: dict[int, str]
    target: list[str]
    version: str | None

    @property
    def kernels(self) -> dict[str, FuncInfo]:
        return {f.name: f for f in self.functions if f.is_entry}


# --------------------------------------------------------------------------- helpers


def _align(x: int, a: int) -> int:
    return (x + a - 1) // a * a


def _type_bytes(t: str) -> int:
    return max(1, TYPE_BITS.get(t, 8) // 8)


def _var_size(typ: str, vec: int, dims: list[int | None]) -> int:
    n = _type_bytes(typ) * (vec or 1)
    for d in dims:
        n *= d if d is not None else 0
    return n


def _flatten_init(init) -> list:
    if isinstance(init, list):
        out = []
        for x in init:
            out.extend(_flatten_init(x))
        return out
    return [init]


def _pack_value(typ: str, v) -> bytes:
    """Bytes of one initialiser element of PTX type typ (v: Opnd-like or symbol tuple)."""
    kind = getattr(v, "kind", None)
    size = _type_bytes(typ)
    if kind == "fimm":
        bits = v.value
        if typ == "f64" and v.bits == 32:
            bits = struct.unpack("<Q", struct.pack("<d", struct.unpack("<f", struct.pack("<I", bits))[0]))[0]
        return (bits & ((1 << (8 * size)) - 1)).to_bytes(size, "little")
    if kind == "fdec" or (kind == "imm" and typ in ("f32", "f64", "f16")):
        f = float(v.value)
        if typ == "f64":
            return struct.pack("<d", f)
        if typ == "f16":
            return np.float16(f).tobytes()
        return struct.pack("<f", f)
    if kind == "imm":
        return (int(v.value) & ((1 << (8 * size)) - 1)).to_bytes(size, "little")
    raise ValueError(f"initialiser {v!r} is not supported")


class _Scope:
    def __init__(self, parent: "_Scope | None"):
        self.parent = parent
        self.names: dict[str, tuple] = {}

    def lookup(self, name: str):
        s = self
        while s is not None:
            if name in s.names:
                return s.names[name]
            s = s.parent
        return None


@dataclass
class _Pending:
    """An instruction on its way to the IR."""
    instr: Instr | None
    scope: _Scope | None
    opcode: str
    guard: str | None
    guard_neg: bool
    line: int
    col: int
    cuda: tuple[int, int] | None
    synth: str | None = None        # synthetic: "bra", "ret"
    target_label: str | None = None  # for synthetic branches
    local_label: int | None = None   # index of a synthetic label


# --------------------------------------------------------------------------- the lowering


class Lowering:
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
                    off = _align(len(self.const_bank), align)
                    self.const_bank.extend(b"\0" * (off - len(self.const_bank)))
                    self.const_bank.extend(self._init_bytes(v, init, size))
                    self.const_syms[name] = off
                elif v.space == "global":
                    if "extern" in v.linkage and init is None and size == 0:
                        self.err(v.line, 0, f"extern global '{name}' has no definition in this module")
                    self.globals.append(GlobalVar(name, max(size, 1), align,
                                                  self._init_bytes(v, init, size) if init is not None else None))
                    self.global_syms.add(name)
                elif v.space in ("shared", "shared::cta"):
                    self.shared_module.append((name, size, align, "extern" in v.linkage or size == 0))
                else:
                    self.err(v.line, 0, f"module-level .{v.space} variable '{name}' is not supported")
        self.funcs = {f.name: f for f in self.mod.functions if f.body is not None}
        self.decls = {f.name: f for f in self.mod.functions}

    def _init_bytes(self, v: VarDecl, init, size: int) -> bytes:
        if init is None:
            return b"\0" * size
        vals = _flatten_init(init)
        out = bytearray()
        for x in vals:
            if isinstance(x, tuple):
                self.err(v.line, 0, "initialisers with addresses of symbols are not supported")
            out += _pack_value(v.type, x)
        if len(out) > size:
            self.err(v.line, 0, "initialiser larger than the variable")
        return bytes(out) + b"\0" * (size - len(out))

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
            elif v.space == "param":
                size = _var_size(v.type, v.vec, dims)
                scope.names[name] = ("callparam", None, size)
                info["callparams"].append((scope, name))
            elif v.space == "const":
                size = _var_size(v.type, v.vec, dims)
                al = v.align or _type_bytes(v.type)
                off = _align(len(self.const_bank), al)
                self.const_bank.extend(b"\0" * (off - len(self.const_bank)))
                self.const_bank.extend(self._init_bytes(v, init, size))
                scope.names[name] = ("const", off)
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
            if p.opcode.split(".")[0] in PTX_OPCODES and "unknown instruction" in str(e):
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
                tname = next((m for m in mods if m in TYPE_BITS and m != "pred"), None)
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
            for i, o in enumerate(ops):
                is_dst = i < ndst
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

    def _describe(self, p: _Pending, name: str):
        v = self._lookup(p, name)
        if v is None or v[0] != "reg" or len(v) < 4 or v[3] is None:
            return None
        return v[3], v[2]

    def _lookup(self, p: _Pending, name: str):
        if p.scope is not None:
            return p.scope.lookup(name)
        return self._cur[1]["scope"].lookup(name)

    def _imm_value(self, d, o, is_src_float_type: int | None):
        """An immediate's 64-bit pattern, converted to the float type the instruction reads."""
        t = is_src_float_type
        if o.kind == "fimm":
            bits = o.value
            if o.bits == 32 and t == T["f64"]:
                bits = struct.unpack("<q", struct.pack("<d", struct.unpack("<f", struct.pack("<I", bits))[0]))[0]
            elif o.bits == 64 and t == T["f32"]:
                bits = struct.unpack("<I", struct.pack("<f", struct.unpack("<d", struct.pack("<Q", bits))[0]))[0]
            elif o.bits == 32 and t in (T["f16"], T["bf16"]):
                f32 = struct.unpack("<f", struct.pack("<I", bits))[0]
                bits = int(np.array(f32, np.float16).view(np.uint16)) if t == T["f16"] else (bits >> 16)
            return _s64(bits)
        if o.kind == "fdec" or (o.kind == "imm" and t in FLOAT_T and d.op not in (OP["mov"],)):
            v = float(o.value)
            if t == T["f64"]:
                return struct.unpack("<q", struct.pack("<d", v))[0]
            if t in (T["f16"],):
                return int(np.array(v, np.float16).view(np.uint16))
            if t in (T["f32"], T["tf32"], None) or t in FLOAT_T:
                return struct.unpack("<I", struct.pack("<f", v))[0]
        return _s64(int(o.value))

    def _src_type(self, d):
        if d.op == OP["cvt"]:
            return d.type2
        if d.op in (OP["set"],):
            return d.type2
        if d.op in (OP["shl"], OP["shr"], OP["bfe"], OP["bfi"], OP["prmt"], OP["shf"], OP["lop3"]):
            return None
        return d.type

    def _operand(self, p: _Pending, d, o, is_dst: bool):
        f, info, reg_base, pred_base = self._cur
        add = self.opnds.append
        if o.kind == "reg":
            name = o.name
            v = self._lookup(p, name)
            if v is not None:
                k = v[0]
                if k == "reg":
                    add((OK["reg"], 0, v[2], reg_base + v[1], 0))
                    return
                if k == "pred":
                    add((OK["pred"], 0, 1, pred_base + v[1], 0))
                    return
                if k == "kparam":
                    add((OK["imm"], 0, 0, -1, v[1]))
                    return
                if k in ("local", "local_abs"):
                    add((OK["imm"], 0, 0, -1, self._local_off(f, v)))
                    return
                if k == "shared":
                    add((OK["imm"], 0, 0, -1, info["shared_off"][v[1]]))
                    return
                if k == "const":
                    add((OK["imm"], 0, 0, -1, v[1]))
                    return
                if k == "callparam":
                    self.err(p.line, p.col, f".param variable '{name}' is not bound to a call")
                if k == "label":
                    self.err(p.line, p.col, f"label '{name}' used as an operand")
            if name in SREGS:
                if is_dst:
                    self.err(p.line, p.col, f"special register {name} cannot be written")
                add((OK["sreg"], 0, E.sreg[SREGS[name]], -1, 0))
                return
            sym = self._symbol_address(p, name, 0)
            if sym is not None:
                return
            self.err(p.line, p.col, f"undeclared name '{name}'")
        if o.kind == "not":
            v = self._lookup(p, o.name)
            if v is None or v[0] != "pred":
                self.err(p.line, p.col, f"'!{o.name}': not a predicate")
            add((OK["pred"], E.of["neg"], 1, pred_base + v[1], 0))
            return
        if o.kind in ("imm", "fimm", "fdec"):
            if is_dst:
                self.err(p.line, p.col, "an immediate cannot be a destination")
            add((OK["imm"], 0, 0, -1, self._imm_value(d, o, self._src_type(d))))
            return
        if o.kind == "sink":
            add((OK["sink"], 0, 0, -1, 0))
            return
        if o.kind == "symoff":
            if self._symbol_address(p, o.name, o.value) is None:
                self.err(p.line, p.col, f"undeclared name '{o.name}'")
            return
        if o.kind == "vec":
            add((OK["vec"], 0, len(o.elems), -1, 0))
            for e in o.elems:
                if e.kind == "vec":
                    self.err(p.line, p.col, "nested vector operand")
                self._operand(p, d, e, is_dst)
            return
        if o.kind == "mem":
            self._mem_operand(p, d, o)
            return
        if o.kind == "args":
            self.err(p.line, p.col, "unexpected parenthesised operand list")
        self.err(p.line, p.col, f"unsupported operand {o.kind}")

    def _symbol_address(self, p, name, addend):
        """Address of a named variable as an immediate (mov r, sym / sym+off); None if unknown."""
        f, info, _, _ = self._cur
        add = self.opnds.append
        v = self._lookup(p, name)
        if v is not None:
            k = v[0]
            if k == "shared":
                add((OK["imm"], 0, 0, -1, info["shared_off"][v[1]] + addend))
                return True
            if k in ("local", "local_abs"):
                add((OK["imm"], 0, 0, -1, self._local_off(f, v) + addend))
                return True
            if k == "const":
                add((OK["imm"], 0, 0, -1, v[1] + addend))
                return True
            if k == "kparam":
                add((OK["imm"], 0, 0, -1, v[1] + addend))
                return True
        if name in self.global_syms:
            self.relocs.append((len(self.opnds), name, addend))
            add((OK["imm"], 0, 0, -1, 0))
            return True
        if name in self.const_syms:
            add((OK["imm"], 0, 0, -1, self.const_syms[name] + addend))
            return True
        if name in info["shared_off"]:
            add((OK["imm"], 0, 0, -1, info["shared_off"][name] + addend))
            return True
        return None

    def _local_off(self, f, v):
        """Absolute local-memory offset of a ("local", frame offset, type) or ("local_abs", offset) entry."""
        return v[1] if v[0] == "local_abs" else self.frame_base[f.name] + v[1]

    def _mem_operand(self, p, d, o):
        """[reg+off] or [sym+off]: base register (or -1) and absolute offset; records the symbol's space."""
        f, info, reg_base, _ = self._cur
        add = self.opnds.append
        off = int(o.value or 0)
        if o.name is None:
            add((OK["mem"], 0, 0, -1, off))
            return
        v = self._lookup(p, o.name)
        if v is not None:
            k = v[0]
            if k == "reg":
                add((OK["mem"], 0, v[2], reg_base + v[1], off))
                return
            if k == "kparam":
                add((OK["mem"], 0, 0, -1, v[1] + off))
                self._mem_space = SP["param"]
                return
            if k in ("local", "local_abs"):
                add((OK["mem"], 0, 0, -1, self._local_off(f, v) + off))
                self._mem_space = SP["local"]
                return
            if k == "shared":
                add((OK["mem"], 0, 0, -1, info["shared_off"][v[1]] + off))
                self._mem_space = SP["shared"]
                return
            if k == "const":
                add((OK["mem"], 0, 0, -1, v[1] + off))
                self._mem_space = SP["const"]
                return
            if k == "callparam":
                self.err(p.line, p.col, f".param variable '{o.name}' is not bound to a call")
            if k == "pred":
                self.err(p.line, p.col, f"predicate '{o.name}' used as an address")
        if o.name in self.global_syms:
            self.relocs.append((len(self.opnds), o.name, off))
            add((OK["mem"], 0, 0, -1, 0))
            self._mem_space = SP["global"]
            return
        if o.name in self.const_syms:
            add((OK["mem"], 0, 0, -1, self.const_syms[o.name] + off))
            self._mem_space = SP["const"]
            return
        if o.name in info["shared_off"]:
            add((OK["mem"], 0, 0, -1, info["shared_off"][o.name] + off))
            self._mem_space = SP["shared"]
            return
        self.err(p.line, p.col, f"undeclared name '{o.name}' in address")

    def _fix_space(self, p, d, first):
        """ld.param/st.param of a .func parameter or call-site param go to local memory."""
        ms = getattr(self, "_mem_space", None)
        self._mem_space = None
        if d.space == SP["param"] and ms == SP["local"]:
            d.space = SP["local"]
        if d.space == 0:
            d.space = SP["generic"]
        return d

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
        funcs_local = base
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
                                  (funcs_local if has_funcs else inf["local_size"]) if f.kind == "entry" else 0,
                                  start, end, rb if (has_funcs and f.kind == "entry") else
                                  (inf["reg_base"] + inf["nregs"]),
                                  pb if (has_funcs and f.kind == "entry") else (inf["pred_base"] + inf["npreds"]),
                                  f.line, f.perf))
        for pc, callee in self.call_fix:
            row = self.insts[pc]
            self.insts[pc] = row[:14] + (self.entry_of[callee],) + row[15:]
        program = self._pack(infos)
        if self.schedule:
            ifconvert.convert(program, _succ_fn)
        # register pressure (hardware registers per thread, for occupancy) is measured in nvcc's order:
        # ptxas schedules with an eye on pressure, our list scheduler does not, so the scheduled order
        # would overstate it (sgemm_rb64: 112 against the 40 the driver's JIT allocates)
        self.pressure = self.measure_pressure(program, fs)
        if self.schedule:
            schedule.reorder(program, _succ_fn)
        self.allocate_registers(program, fs)
        return program

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
        first = insts["opnd"]
        kind, reg = opnds["kind"], opnds["reg"]
        # each function's operands are one contiguous range (instructions may have been reordered
        # within blocks by schedule.py, so take the smallest start in the function, not its first pc)
        nop, kinds_l, n_l = insts["nopnd"].tolist(), opnds["kind"].tolist(), opnds["n"].tolist()

        def span(pc):
            j = int(first[pc])
            for _ in range(nop[pc]):
                j += 1 + (n_l[j] if kinds_l[j] == OK["vec"] else 0)
            return int(first[pc]), j
        for fi, f in zip(program.functions, fs):
            # kernels all number their registers from 0: rewrite each function's operands separately
            spans = [span(pc) for pc in range(fi.entry_pc, fi.end_pc)]
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


def _s64(v: int) -> int:
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >= 1 << 63 else v


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


def lower(mod: Module, source: str, regalloc: bool = True, schedule: bool = True) -> Program:
    """Lower a parsed module; regalloc=False keeps one slot per declared register (for comparison);
    schedule=False keeps nvcc's code as written instead of the ptxas-like transformations (if-conversion
    of short branches, ifconvert.py, then list scheduling within basic blocks, schedule.py)."""
    lw = Lowering(mod, source)
    lw.regalloc = regalloc
    lw.schedule = schedule
    return lw.run()
