"""The IR's vocabulary and results: numpy views of the C structs (gs_ir_inst / gs_ir_opnd / gs_ir_func),
the opcode, type and special-register tables, the lowered Program with its parts, and small layout helpers
(sizes, alignment, initialiser bytes, declaration scopes) shared by lower.py and its mixins."""
from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np

from .._ffi import E, ffi
from .decode import OP
from .syntax import Instr


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


F32_MAX = 3.4028234663852886e38
F16_MAX = 65504.0


def f32_bits(v: float) -> int:
    """The .f32 bit pattern of a decimal literal; ValueError past the largest .f32 (which struct reports
    as OverflowError)."""
    try:
        return struct.unpack("<I", struct.pack("<f", v))[0]
    except OverflowError:
        raise ValueError(f"{v!r} is out of range for .f32 (largest {F32_MAX:.7g})") from None


def f16_bits(v: float) -> int:
    """The .f16 bit pattern of a decimal literal (ValueError past the largest .f16)."""
    if abs(v) > F16_MAX + 16 and v == v and abs(v) != float("inf"):
        raise ValueError(f"{v!r} is out of range for .f16 (largest {F16_MAX:g})")
    with np.errstate(over="ignore"):
        return int(np.array(v, np.float16).view(np.uint16))


def _pack_value(typ: str, v) -> bytes:
    """Bytes of one initialiser element of PTX type typ (v: Opnd-like or symbol tuple)."""
    kind = getattr(v, "kind", None)
    size = _type_bytes(typ)
    if kind == "fimm":
        bits = v.value
        if typ == "f64" and v.bits == 32:
            bits = struct.unpack("<Q", struct.pack("<d", struct.unpack("<f", struct.pack("<I", bits))[0]))[0]
        return (bits & ((1 << (8 * size)) - 1)).to_bytes(size, "little")
    if kind == "fdec" and typ not in ("f32", "f64", "f16", "bf16"):
        raise ValueError(f"floating-point value {v.value!r} in a .{typ} initialiser (use a .f32/.f64 variable "
                         f"or the value's bits as an integer)")
    if kind == "fdec" or (kind == "imm" and typ in ("f32", "f64", "f16")):
        f = float(v.value)
        if typ == "f64":
            return struct.pack("<d", f)
        if typ == "f16":
            return f16_bits(f).to_bytes(2, "little")
        if typ == "bf16":
            return (f32_bits(f) >> 16).to_bytes(2, "little")
        return f32_bits(f).to_bytes(4, "little")
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
    builtin: str | None = None       # a call of an extern the simulator provides (lower.BUILTIN_FUNCS)
