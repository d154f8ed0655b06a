"""Opcode text -> the fields of one IR instruction (op, types, state space, modifiers).

`decode(opcode)` splits "ld.global.nc.v4.f32" into its dotted parts and gives each part its meaning,
or raises KeyError-like `DecodeError` naming the part it does not know. Enum values come from the
engine's public header through cffi (engine/_ffi.py), so C and Python cannot drift apart.
"""
from __future__ import annotations

from dataclasses import dataclass

from .._ffi import E


class DecodeError(Exception):
    """An opcode or modifier that is not PTX (or not one we know)."""


class NotImplementedForm(DecodeError):
    """Real PTX that the engine does not implement: lower.py refuses it by name at load."""


# PTX forms refused by name (UnsupportedInstruction) although their base is known: the tensor-memory-
# accelerator copies and the tensor-map fence need tensor-map descriptors, which are not modelled
NOT_IMPLEMENTED = ("cp.async.bulk.tensor", "cp.async.bulk.prefetch.tensor", "cp.reduce.async.bulk.tensor",
                   "fence.proxy.tensormap")


TYPES = {n: E.type[n] for n in (
    "b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
    "f16", "f16x2", "bf16", "bf16x2", "tf32", "f32", "f64", "pred", "e4m3", "e5m2", "e4m3x2",
    "e5m2x2", "u4", "s4", "b1", "u16x2", "s16x2")}
SPACES = {"global": E.space["global"], "shared": E.space["shared"], "shared::cta": E.space["shared"],
          "shared::cluster": E.space["shared_cluster"], "local": E.space["local"],
          "param": E.space["param"], "param::entry": E.space["param"], "param::func": E.space["param"],
          "const": E.space["const"], "tex": E.space["tex"]}
RND = {n: E.rnd[n] for n in ("rn", "rz", "rm", "rp", "rna", "rs", "rni", "rzi", "rmi", "rpi")}
CMP = {n: E.cmp[n] for n in ("eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs", "equ", "neu",
                              "ltu", "leu", "gtu", "geu", "num", "nan")}
F = E.flag
S = E.sub
FLAGS = {"ftz": F["ftz"], "sat": F["sat"], "approx": F["approx"], "full": F["full"], "hi": F["hi"],
         "lo": F["lo"], "wide": F["wide"], "cc": F["cc"], "uni": F["uni"], "relu": F["relu"],
         "NaN": F["nan"], "xorsign": F["xorsign"], "abs": F["abs"], "clamp": F["clamp"],
         "volatile": F["volatile"], "relaxed": F["relaxed"], "acquire": F["acquire"],
         "release": F["release"], "aligned": F["aligned"], "nc": F["nc"], "trans": F["trans"]}
# memory-model, cache and scope qualifiers: parsed, no effect on values
IGNORED = {"ca", "cg", "cs", "lu", "cv", "wb", "wt", "acq_rel", "sc", "weak", "mmio", "cta", "gpu",
           "sys", "cluster", "sync", "noftz", "satfinite", "unified", "L2::64B", "L2::128B",
           "L2::256B", "L2::cache_hint", "L1::evict_normal", "L1::evict_unchanged", "L1::evict_first",
           "L1::evict_last", "L1::no_allocate", "L2::evict_normal", "L2::evict_first",
           "L2::evict_last", "L2::evict_unchanged", "level::eviction_priority", "v8.f16x2"}
ATOM_OPS = {"add": S["atom_add"], "min": S["atom_min"], "max": S["atom_max"], "exch": S["atom_exch"],
            "cas": S["atom_cas"], "and": S["atom_and"], "or": S["atom_or"], "xor": S["atom_xor"],
            "inc": S["atom_inc"], "dec": S["atom_dec"], "popc": S["atom_add"]}
BOOL_OPS = {"and": S["bool_and"], "or": S["bool_or"], "xor": S["bool_xor"]}
TESTP = {"finite": S["testp_finite"], "infinite": S["testp_infinite"], "number": S["testp_number"],
         "notanumber": S["testp_notanumber"], "normal": S["testp_normal"],
         "subnormal": S["testp_subnormal"]}

# mma/wmma/ldmatrix shape codes (aux bits 0-7), shared with exec_wmma.c, exec_mma.c, exec_ldmatrix.c
SHAPES = {"m16n16k16": 1, "m32n8k16": 2, "m8n32k16": 3, "m16n16k8": 4, "m8n8k4": 5, "m16n8k8": 6,
          "m16n8k16": 7, "m16n8k4": 8, "m8n8k16": 9, "m16n8k32": 10, "m8n8k32": 11, "m8n8k128": 12,
          "m16n8k64": 13, "m16n8k128": 14, "m16n8k256": 15, "m8n8": 16, "m16n16": 17, "m8n16": 18}
WGMMA_K = {16: 24, 8: 25, 32: 26, 256: 27}   # shape codes for m64nNkK (exec_wgmma.c); N/8 in aux bits 24-31
# cp.async aux bits, shared with exec_async.c: the form, and (bits 8-11) the source state space
CP_ASYNC_AUX = {"bulk": 1, "mbarrier::complete_tx::bytes": 2, "mbarrier": 4, "noinc": 8,
                "L2::cache_hint": 16, "bulk_group": 0, "ca": 0, "cg": 0, "arrive": 0}
# mbarrier aux bits, shared with exec_async.c: bit 0 .parity, bit 1 .expect_tx after arrive{_drop}

OP = E.op


@dataclass
class Decoded:
    op: int
    name: str              # base name for messages
    type: int = 0
    type2: int = 0
    space: int = 0
    cmp: int = 0
    sub: int = 0
    rnd: int = 0
    flags: int = 0
    vec: int = 0
    aux: int = 0
    types: tuple = ()


# base opcode name -> op; names with dots are matched longest first
BASES = {
    "add": OP["add"], "sub": OP["sub"], "mul": OP["mul"], "mad": OP["mad"], "mul24": OP["mul24"],
    "mad24": OP["mad24"], "sad": OP["sad"], "div": OP["div"], "rem": OP["rem"], "abs": OP["abs"],
    "neg": OP["neg"], "min": OP["min"], "max": OP["max"], "popc": OP["popc"], "clz": OP["clz"],
    "bfind": OP["bfind"], "fns": OP["fns"], "brev": OP["brev"], "bfe": OP["bfe"], "bfi": OP["bfi"],
    "prmt": OP["prmt"], "lop3": OP["lop3"], "shf": OP["shf"], "shl": OP["shl"], "shr": OP["shr"],
    "and": OP["and"], "or": OP["or"], "xor": OP["xor"], "not": OP["not"], "cnot": OP["cnot"],
    "addc": OP["addc"], "subc": OP["subc"], "madc": OP["madc"], "dp4a": OP["dp4a"], "dp2a": OP["dp2a"],
    "fma": OP["fma"], "rcp": OP["rcp"], "sqrt": OP["sqrt"], "rsqrt": OP["rsqrt"], "ex2": OP["ex2"],
    "lg2": OP["lg2"], "sin": OP["sin"], "cos": OP["cos"], "tanh": OP["tanh"], "testp": OP["testp"],
    "copysign": OP["copysign"], "setp": OP["setp"], "set": OP["set"], "selp": OP["selp"],
    "slct": OP["slct"], "mov": OP["mov"], "cvt": OP["cvt"], "cvt.pack": OP["cvt_pack"],
    "cvta": OP["cvta"], "ld": OP["ld"], "st": OP["st"], "ldu": OP["ldu"], "prefetch": OP["prefetch"],
    "prefetchu": OP["prefetch"], "atom": OP["atom"], "red": OP["red"], "isspacep": OP["isspacep"],
    "cp.async": OP["cp_async"], "cp.async.commit_group": OP["cp_async_commit"],
    "cp.async.wait_group": OP["cp_async_wait"], "cp.async.wait_all": OP["cp_async_wait"],
    "cp.async.bulk.commit_group": OP["cp_async_commit"], "cp.async.bulk.wait_group": OP["cp_async_wait"],
    "ldmatrix": OP["ldmatrix"], "stmatrix": OP["stmatrix"], "createpolicy": OP["createpolicy"],
    "applypriority": OP["cache_hint"], "discard": OP["cache_hint"],
    "bra": OP["bra"], "call": OP["call"], "ret": OP["ret"], "exit": OP["exit"], "trap": OP["trap"],
    "brkpt": OP["brkpt"], "nanosleep": OP["nanosleep"], "pmevent": OP["nop"],
    "setmaxnreg": OP["nop"], "griddepcontrol": OP["nop"],
    "bar": OP["bar"], "barrier": OP["bar"], "bar.warp.sync": OP["bar_warp"],
    "membar": OP["membar"], "fence": OP["membar"],
    "shfl": OP["shfl"], "vote": OP["vote"], "match": OP["match"], "redux": OP["redux"],
    "activemask": OP["activemask"], "elect": OP["elect"],
    "wmma.load": OP["wmma_load"], "wmma.store": OP["wmma_store"], "wmma.mma": OP["wmma_mma"],
    "mma": OP["mma"], "wgmma.mma_async": OP["wgmma_mma"], "wgmma.fence": OP["wgmma_fence"],
    "wgmma.commit_group": OP["wgmma_commit"], "wgmma.wait_group": OP["wgmma_wait"],
    "mbarrier": OP["mbarrier"],
}
_BASES_BY_LEN = sorted(BASES, key=lambda b: -b.count("."))


def _split(opcode: str) -> tuple[str, list[str]]:
    for b in _BASES_BY_LEN:
        if opcode == b or opcode.startswith(b + "."):
            rest = opcode[len(b) + 1:]
            return b, (rest.split(".") if rest else [])
    raise DecodeError(f"unknown instruction '{opcode.split('.')[0]}'")


def decode(opcode: str) -> Decoded:
    if opcode.startswith(NOT_IMPLEMENTED):
        raise NotImplementedForm(f"unsupported instruction '{opcode}'")
    base, mods = _split(opcode)
    d = Decoded(op=BASES[base], name=base)
    types = []
    op = d.op
    for i, m in enumerate(mods):
        if m in TYPES:
            types.append(TYPES[m])
        elif m in SPACES and op not in (OP["membar"],):
            if op == OP["cvta"] or op == OP["isspacep"]:
                d.space = SPACES[m]
            elif op in (OP["cp_async"],) and d.space:
                d.aux |= SPACES[m] << 8               # cp.async.cg.shared.global: dst, src spaces
            else:
                d.space = SPACES[m]
        elif m == "to" and op == OP["cvta"]:
            d.flags |= F["lo"]                        # cvta.to.space
        elif m in ("v2", "v4", "v8"):
            d.vec = int(m[1:])
        elif m in RND:
            d.rnd = RND[m]
        elif m in CMP and op in (OP["setp"], OP["set"], OP["slct"]) and not d.cmp:
            d.cmp = CMP[m]
        elif m in BOOL_OPS and op in (OP["setp"], OP["set"]) and d.cmp:
            d.sub = BOOL_OPS[m]
        elif m in ATOM_OPS and op in (OP["atom"], OP["red"], OP["redux"], OP["bar"]) and not d.sub:
            d.sub = ATOM_OPS[m]
        elif m in TESTP and op == OP["testp"]:
            d.sub = TESTP[m]
        elif m in FLAGS and not (op in (OP["setp"], OP["set"]) and m in BOOL_OPS) and \
                not (op == OP["vote"] and m == "uni"):     # vote.uni is a mode, bra.uni a flag
            d.flags |= FLAGS[m]
        elif m in IGNORED or m.startswith("L2::") or m.startswith("L1::"):
            if m == "satfinite" and op == OP["cvt"]:
                d.aux |= 1                            # cvt .satfinite (exec_cvt.c)
            if m == "cg" and op == OP["cp_async"]:
                d.flags |= F["bulk"]                  # cp.async.cg: bypass L1 (timing only)
            if m == "satfinite" and op in (OP["mma"], OP["wmma_mma"], OP["wgmma_mma"]):
                d.flags |= F["sat"]                   # integer mma: clamp instead of wrapping
            if m == "L2::cache_hint" and op == OP["cp_async"]:
                d.aux |= CP_ASYNC_AUX["L2::cache_hint"]   # a cache-policy operand follows
        elif not _op_specific(d, op, m, i, mods):
            raise DecodeError(f"unknown modifier '.{m}' in '{opcode}'")
    d.types = tuple(types)
    if types:
        d.type = types[0]
        d.type2 = types[1] if len(types) > 1 else 0
    if op in (OP["mma"], OP["wmma_mma"]) and len(types) >= 2:
        # d.a.b.c (mma) or d.c (wmma f16 inputs) or d.a.b.c (wmma bf16/tf32)
        ctype = types[-1]
        d.type2 = types[1] if len(types) == 4 else 0
        d.aux |= ctype << 16
        if len(types) == 4 and op == OP["mma"]:
            d.aux |= types[2] << 24                   # B type (int8/fp8 may differ from A's)
    if op == OP["wgmma_mma"] and types:
        d.type = types[0]
        d.type2 = types[1] if len(types) > 1 else 0
        if len(types) > 2:
            d.aux |= types[2] << 16                   # B type (fp8/int8 may differ from A's)
    return d


def _op_specific(d: Decoded, op: int, m: str, i: int, mods: list[str]) -> bool:
    """Modifiers whose meaning depends on the instruction; True if m was consumed."""
    if op == OP["bar"]:
        if m == "arrive":
            d.flags |= F["arrive"]
        elif m == "red":
            d.flags |= F["red"]
        elif m in ("sync",):
            pass
        else:
            return False
        return True
    if op == OP["shf"]:
        if m == "l":
            return True
        if m == "r":
            d.flags |= F["shift_right"]
            return True
        if m == "wrap":
            return True
        return False
    if op == OP["shfl"]:
        modes = {"up": S["shfl_up"], "down": S["shfl_down"], "bfly": S["shfl_bfly"], "idx": S["shfl_idx"]}
        if m in modes:
            d.sub = modes[m]
            return True
        return False
    if op == OP["vote"]:
        modes = {"all": S["vote_all"], "any": S["vote_any"], "uni": S["vote_uni"], "ballot": S["vote_ballot"]}
        if m in modes:
            d.sub = modes[m]
            return True
        return False
    if op == OP["match"]:
        modes = {"any": S["match_any"], "all": S["match_all"]}
        if m in modes:
            d.sub = modes[m]
            return True
        return False
    if op == OP["prmt"]:
        modes = {"f4e": 1, "b4e": 2, "rc8": 3, "ecl": 4, "ecr": 5, "rc16": 6}
        if m in modes:
            d.aux = modes[m]
            return True
        return False
    if op == OP["bfind"] and m == "shiftamt":
        d.aux = 1
        return True
    if op == OP["membar"]:
        levels = {"cta": S["level_cta"], "gl": S["level_gpu"], "gpu": S["level_gpu"], "sys": S["level_sys"],
                  "cluster": S["level_cluster"], "proxy": S["level_proxy"], "async": S["level_proxy"],
                  "sc": 0, "acq_rel": 0, "alias": 0, "tensormap": 0, "release": 0, "acquire": 0,
                  "shared": 0, "global": 0, "shared::cta": 0, "shared::cluster": 0, "mbarrier_init": 0,
                  "op_restrict": 0, "sync_restrict": 0, "sync_restrict::shared::cluster": 0,
                  "sync_restrict::shared::cta": 0}
        if m in levels:
            if levels[m]:
                d.sub = levels[m]
            return True
        return False
    if op in (OP["wmma_load"], OP["wmma_store"], OP["wmma_mma"], OP["mma"], OP["ldmatrix"], OP["stmatrix"]):
        if m in SHAPES:
            d.aux = (d.aux & ~0xff) | SHAPES[m]
            return True
        frags = {"a": S["frag_a"], "b": S["frag_b"], "c": S["frag_c"], "d": S["frag_d"]}
        if m in frags and op in (OP["wmma_load"], OP["wmma_store"]) and not d.sub:
            d.sub = frags[m]
            return True
        if m in ("row", "col"):
            # load/store: one layout (bit 8); mma: A then B layouts (bits 8, 9)
            if op in (OP["wmma_mma"], OP["mma"]):
                seen = d.aux & (1 << 12)
                bit = 9 if seen else 8
                if m == "col":
                    d.aux |= 1 << bit
                d.aux |= 1 << 12
            elif m == "col":
                d.aux |= 1 << 8
            return True
        if m in ("x1", "x2", "x4"):
            d.aux |= {"x1": 0, "x2": 1, "x4": 2}[m] << 10
            return True
        if m in ("satfinite", "sync", "aligned"):
            return True
        return False
    if op == OP["wgmma_mma"]:
        import re
        mm = re.fullmatch(r"m64n(\d+)k(\d+)", m)
        if mm:
            n, k = int(mm.group(1)), int(mm.group(2))
            if k not in WGMMA_K or n % 8 or n > 256:
                raise DecodeError(f"unsupported wgmma shape '.{m}'")
            d.aux = (d.aux & ~0xff) | WGMMA_K[k] | ((n // 8) << 24)
            return True
        return m in ("sync", "aligned", "satfinite")
    if op in (OP["wgmma_fence"], OP["wgmma_commit"], OP["wgmma_wait"]):
        return m in ("sync", "aligned")
    if op == OP["cp_async_wait"]:
        return m == "read"                             # cp.async.bulk.wait_group.read
    if op == OP["createpolicy"]:
        return m in ("fractional", "range") or m.startswith("L2::")
    if op == OP["redux"] or op == OP["elect"] or op == OP["activemask"]:
        return m in ("sync",)
    if op == OP["mbarrier"]:
        subs = {"init": S["mbar_init"], "arrive": S["mbar_arrive"], "arrive_drop": S["mbar_arrive_drop"],
                "expect_tx": S["mbar_expect_tx"], "test_wait": S["mbar_test_wait"],
                "try_wait": S["mbar_try_wait"], "inval": S["mbar_inval"],
                "pending_count": S["mbar_pending_count"], "complete_tx": S["mbar_complete_tx"]}
        if m in subs and not d.sub:
            d.sub = subs[m]
            return True
        if m == "expect_tx" and d.sub in (S["mbar_arrive"], S["mbar_arrive_drop"]):
            d.aux |= 2
            return True
        if m == "parity":
            d.aux |= 1
            return True
        if m == "noComplete":
            d.flags |= F["noinc"]
            return True
        return m in ("release", "acquire", "relaxed", "cta", "cluster", "sync", "aligned")
    if op == OP["cp_async"]:
        if m in CP_ASYNC_AUX:
            d.aux |= CP_ASYNC_AUX[m]
            return True
        return False
    if op == OP["nop"] or op == OP["cache_hint"] or op == OP["prefetch"]:
        return True                                    # setmaxnreg.inc..., applypriority.L2::evict_normal
    if op == OP["fma"] and m == "oob":
        d.flags |= F["unsupported"]                    # fma.oob: real PTX (sm_90) refused by name: its
        return True                                    # out-of-bounds NaN comes from TMA, not modelled
    if op == OP["cvt"] and m in ("relu",):
        d.flags |= F["relu"]
        return True
    if op in (OP["mul24"], OP["mad24"]) and m in ("lo", "hi"):
        if m == "hi":
            d.flags |= F["hi"]
        return True
    return False
