"""The C header's enums and recorded-row layouts, read from its text: no compiled extension needed.

engine/include/simtscope.h defines every enum and row struct once; this module parses the (deliberately
simple, cffi-compatible) header so that the recorder's data description (engine/recording.py), the run store
and the explorer can use them where the engine is not built. tests/test_enums.py checks the result against the
compiled extension's own view (cffi) field by field and value by value.

    names("gs_wstate_kind", "GS_WS_")   -> ["idle", "selected", ...]   (ordered by value, __COUNT dropped)
    row_dtype("gs_rec_wstate")          -> numpy dtype with the C offsets and size
"""
from __future__ import annotations

import ast
import operator
import re
from functools import lru_cache
from importlib.resources import files

import numpy as np

_C_TYPES = {"uint8_t": "u1", "int8_t": "i1", "uint16_t": "<u2", "int16_t": "<i2", "uint32_t": "<u4",
            "int32_t": "<i4", "uint64_t": "<u8", "int64_t": "<i8", "double": "<f8", "float": "<f4"}


@lru_cache(maxsize=1)
def header_text() -> str:
    """simtscope.h without comments (shipped in the wheel as engine/include/simtscope.h)."""
    text = files("engine").joinpath("include", "simtscope.h").read_text()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


@lru_cache(maxsize=None)
def enum_values(ctype: str) -> dict[str, int]:
    """{C name: value} of `enum ctype` (implicit values counted as C does)."""
    m = re.search(r"\benum\s+" + re.escape(ctype) + r"\s*\{([^}]*)\}", header_text())
    if not m:
        raise KeyError(f"enum {ctype} is not in engine/include/simtscope.h")
    out, nxt = {}, 0
    for item in (x.strip() for x in m.group(1).split(",")):
        if not item:
            continue
        name, _, val = (p.strip() for p in item.partition("="))
        nxt = _eval(val, out) if val else nxt
        out[name] = nxt
        nxt += 1
    return out


_OPS = {ast.LShift: operator.lshift, ast.RShift: operator.rshift, ast.BitOr: operator.or_, ast.BitAnd: operator.and_,
        ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul}


def _eval(expr: str, known: dict[str, int]) -> int:
    """An enum value: integer literals, earlier names of the same enum, << >> | & + - *."""
    def ev(n):
        if isinstance(n, ast.Constant) and isinstance(n.value, int):
            return n.value
        if isinstance(n, ast.Name) and n.id in known:
            return known[n.id]
        if isinstance(n, ast.BinOp) and type(n.op) in _OPS:
            return _OPS[type(n.op)](ev(n.left), ev(n.right))
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
            return -ev(n.operand)
        raise ValueError(f"enum value {expr!r}: cannot evaluate")
    return ev(ast.parse(re.sub(r"(?<=\d)[uUlL]+\b", "", expr), mode="eval").body)


def names(ctype: str, prefix: str) -> list[str]:
    """The enum's names without `prefix`, lower-case, in value order (values must be 0..n-1; `__COUNT` left out)."""
    vals = {k: v for k, v in enum_values(ctype).items() if not k.endswith("__COUNT")}
    order = sorted(vals, key=vals.get)
    if [vals[k] for k in order] != list(range(len(order))):
        raise ValueError(f"enum {ctype} is not dense from 0: {vals}")
    if any(not k.startswith(prefix) for k in order):
        raise ValueError(f"enum {ctype}: not every name starts with {prefix}")
    return [k[len(prefix):].lower() for k in order]


def _constant(expr: str) -> int:
    expr = expr.strip()
    if re.fullmatch(r"\d+", expr):
        return int(expr)
    for ctype in re.findall(r"\benum\s+(\w+)\s*\{", header_text()):
        vals = enum_values(ctype)
        if expr in vals:
            return vals[expr]
    raise KeyError(f"array size {expr!r} is neither a number nor an enum value of simtscope.h")


@lru_cache(maxsize=None)
def row_dtype(ctype: str) -> np.dtype:
    """The numpy dtype of `typedef struct ctype {...} ctype;`: fixed-width fields at C's natural alignment."""
    m = re.search(r"typedef\s+struct\s+" + re.escape(ctype) + r"\s*\{([^}]*)\}\s*" + re.escape(ctype) + r"\s*;",
                  header_text())
    if not m:
        raise KeyError(f"struct {ctype} is not in engine/include/simtscope.h")
    names_, formats, offsets, off, align = [], [], [], 0, 1
    for decl in (d.strip() for d in m.group(1).split(";")):
        if not decl:
            continue
        ctyp, _, rest = decl.partition(" ")
        if ctyp not in _C_TYPES:
            raise ValueError(f"struct {ctype}: field type {ctyp!r} is not a fixed-width type")
        base = np.dtype(_C_TYPES[ctyp])
        for field in (f.strip() for f in rest.split(",")):
            fm = re.fullmatch(r"(\w+)\s*(?:\[\s*([\w]+)\s*\])?", field)
            if not fm:
                raise ValueError(f"struct {ctype}: cannot read field {field!r}")
            count = _constant(fm.group(2)) if fm.group(2) else None
            off = -(-off // base.alignment) * base.alignment
            names_.append(fm.group(1))
            formats.append((base, (count,)) if count is not None else base)
            offsets.append(off)
            off += base.itemsize * (count or 1)
            align = max(align, base.alignment)
    return np.dtype({"names": names_, "formats": formats, "offsets": offsets,
                     "itemsize": -(-off // align) * align})
