"""Semantic checks PTX itself makes (ptxas rejects these): operand counts and operand types.

Kept deliberately narrow, so that no PTX which ptxas accepts is refused: operand counts for the
instructions whose count is fixed, and for the typed arithmetic instructions the register operands'
size (add.s32 with a 64-bit register) and kind (add.f32 with a .u32 register, add.s32 with a .f32
register). Bit-size registers (.b32) agree with every type of their size, signed and unsigned integer
types agree with each other, as the PTX ISA's operand type-checking rules say. Each case was checked
against ptxas ("Arguments mismatch for instruction").
"""
from __future__ import annotations

# base opcode (decode.py BASES key) -> allowed numbers of operands as written (a|b counts once)
ARITY = {
    **{n: (3,) for n in ("add", "sub", "mul", "div", "rem", "and", "or", "xor", "shl", "shr", "copysign",
                         "mul24", "addc", "subc")},
    **{n: (3, 4) for n in ("min", "max", "setp", "set")},
    **{n: (4,) for n in ("mad", "fma", "selp", "slct", "bfe", "prmt", "mad24", "sad", "shf", "madc")},
    "bfi": (5,),
    **{n: (2,) for n in ("abs", "neg", "not", "popc", "clz", "brev", "cnot", "rcp", "sqrt", "rsqrt", "ex2",
                         "lg2", "sin", "cos", "tanh", "cvta", "testp", "bfind")},
    "activemask": (1,),
    "cvt": (2, 3), "mov": (2,), "ld": (2, 3), "ldu": (2,), "st": (2, 3), "bra": (1,), "ret": (0,),
    "exit": (0,), "trap": (0,), "brkpt": (0,),
}
FLOAT_TYPES = {"f16", "f16x2", "bf16", "bf16x2", "f32", "f64", "tf32"}
INT_TYPES = {"s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64"}
TYPE_BITS = {"b8": 8, "u8": 8, "s8": 8, "b16": 16, "u16": 16, "s16": 16, "f16": 16, "bf16": 16,
             "b32": 32, "u32": 32, "s32": 32, "f32": 32, "f16x2": 32, "bf16x2": 32, "tf32": 32,
             "b64": 64, "u64": 64, "s64": 64, "f64": 64, "u16x2": 32, "s16x2": 32}
# instructions whose every operand has the instruction's type (mul/mad .wide: see below)
TYPED_ALL = {"add", "sub", "min", "max", "and", "or", "xor", "not", "neg", "abs", "div", "rem", "mul", "mad",
             "fma"}


def check_arity(base: str, mods: list[str], nops: int) -> str | None:
    """An error message if `nops` operands is not a count PTX allows for this instruction."""
    allowed = ARITY.get(base)
    if allowed is None or nops in allowed:
        return None
    if base in ("ld", "st") and ("L2::cache_hint" in mods or "cache_hint" in mods):
        return None
    want = " or ".join(str(a) for a in allowed)
    return f"'{base}' takes {want} operand{'s' if allowed != (1,) else ''}, {nops} given"


def check_types(base: str, mods: list[str], type_name: str | None, operands, describe) -> str | None:
    """An error message if a register operand's declared type does not agree with the instruction type.

    describe(name) -> (declared type, width in bits) of a register, or None (not a plain register)."""
    if base not in TYPED_ALL or not type_name or type_name not in TYPE_BITS:
        return None
    bits = TYPE_BITS[type_name]
    wide = "wide" in mods and base in ("mul", "mad")
    for i, o in enumerate(operands):
        if o.kind != "reg":
            continue
        info = describe(o.name)
        if info is None:
            continue
        dtype, width = info
        want = bits * 2 if wide and (i == 0 or (base == "mad" and i == 3)) else bits
        if width != want:
            return (f"operand {o.name} is a {width}-bit register; {base}.{type_name} needs a {want}-bit "
                    f"operand there")
        if type_name in FLOAT_TYPES and dtype in INT_TYPES:
            return f"operand {o.name} is a .{dtype} register; {base}.{type_name} needs a float or bit-size register"
        if (type_name in INT_TYPES or type_name in ("u16x2", "s16x2")) and dtype in FLOAT_TYPES:
            return f"operand {o.name} is a .{dtype} register; {base}.{type_name} needs an integer or bit-size register"
    return None
