"""PTX text -> syntax tree of plain dataclasses (no meaning attached yet).

`parse(text, filename)` runs the Lark LALR parser on ptx.lark and turns its tree into a `Module`:
directives, variables, functions with their statements in order. Nested `{ }` blocks are flattened
into the statement list between `Scope` markers so that later passes can resolve block-local names.
A syntax error becomes `PTXSyntaxError` naming the file, line, column and the offending token.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from .errors import PTXSyntaxError

GRAMMAR = Path(__file__).with_name("ptx.lark")


# ---------------------------------------------------------------- syntax objects
@dataclass
class Opnd:
    """One operand as written. kind: reg (a name: register, symbol, label or special register),
    imm (int), fimm (float bits, `bits` 32 or 64), fdec (decimal float literal), mem ([base+off]),
    vec (elements), sink (_), not (!name), pair (a|b), args ((a, b) of call), symoff (sym+off)."""
    kind: str
    name: str | None = None
    value: int | float | None = None
    bits: int = 0
    elems: list["Opnd"] = field(default_factory=list)


@dataclass
class Instr:
    opcode: str
    operands: list[Opnd]
    guard: str | None
    guard_neg: bool
    line: int
    col: int


@dataclass
class Label:
    name: str
    line: int


@dataclass
class Scope:
    """Marks entering (enter=True) or leaving a nested { } block."""
    enter: bool
    line: int


@dataclass
class Loc:
    file: int
    line: int
    col: int


@dataclass
class Pragma:
    values: list[str]
    line: int


@dataclass
class VarDecl:
    space: str            # reg, shared, global, const, local, param, ...
    type: str             # b32, f32, pred, ...
    names: list[tuple[str, list[int | None], int | None, object]]  # (name, dims, reg_range, init)
    align: int | None
    vec: int
    linkage: list[str]
    line: int


@dataclass
class Param:
    name: str
    type: str
    align: int | None
    dims: list[int | None]
    space: str = "param"
    ptr_space: str | None = None


@dataclass
class Function:
    name: str
    kind: str             # entry or func
    params: list[Param]
    rets: list[Param]
    body: list | None     # statements, None for a declaration
    linkage: list[str]
    perf: dict
    line: int


@dataclass
class Module:
    filename: str
    version: str | None = None
    target: list[str] = field(default_factory=list)
    address_size: int = 64
    files: dict[int, str] = field(default_factory=dict)
    variables: list[VarDecl] = field(default_factory=list)
    functions: list[Function] = field(default_factory=list)


# ---------------------------------------------------------------- tree -> objects
def _int(tok: str) -> int:
    s = str(tok).rstrip("U")
    if s[:2] in ("0x", "0X"):
        return int(s[2:], 16)
    if s[:2] in ("0b", "0B"):
        return int(s[2:], 2)
    if len(s) > 1 and s[0] == "0" and s.isdigit():
        return int(s, 8)          # PTX octal literals
    return int(s)


def _number(children) -> Opnd:
    neg = False
    toks = [c for c in children if isinstance(c, Token)]
    if toks and toks[0] == "-":
        neg = True
        toks = toks[1:]
    t = toks[-1]
    if t.type == "INT":
        v = _int(t)
        return Opnd("imm", value=-v if neg else v)
    if t.type == "FLOAT_HEX":
        bits = int(str(t)[2:], 16)
        if neg:
            bits ^= 0x80000000
        return Opnd("fimm", value=bits, bits=32)
    if t.type == "FLOAT_HEX64":
        bits = int(str(t)[2:], 16)
        if neg:
            bits ^= 1 << 63
        return Opnd("fimm", value=bits, bits=64)
    return Opnd("fdec", value=-float(t) if neg else float(t))


class _Build(Transformer):
    """Bottom-up construction of the syntax objects."""

    def __init__(self, filename: str):
        super().__init__()
        self.filename = filename

    # operands
    @v_args(inline=True)
    def reg_or_sym(self, tok):
        return Opnd("reg", name=str(tok))

    def signed_number(self, ch):
        return _number(ch)

    def signed_int(self, ch):
        return _number(ch).value

    def sink(self, _):
        return Opnd("sink")

    @v_args(inline=True)
    def not_operand(self, _bang, tok):
        return Opnd("not", name=str(tok))

    @v_args(inline=True)
    def pair(self, a, b):
        return Opnd("pair", elems=[a, b])

    def vector(self, ch):
        return Opnd("vec", elems=list(ch))

    def call_args(self, ch):
        return Opnd("args", elems=[c for c in ch if c is not None])

    @v_args(inline=True)
    def sym_plus(self, tok, off):
        return Opnd("symoff", name=str(tok), value=_int(off))

    @v_args(inline=True)
    def address(self, a):
        return a

    @v_args(inline=True)
    def addr_sym(self, tok):
        return Opnd("mem", name=str(tok), value=0)

    @v_args(inline=True)
    def addr_sym_off(self, tok, off):
        return Opnd("mem", name=str(tok), value=off)

    @v_args(inline=True)
    def addr_sym_negoff(self, tok, off):
        return Opnd("mem", name=str(tok), value=-_int(off))

    @v_args(inline=True)
    def addr_abs(self, v):
        return Opnd("mem", name=None, value=v)

    def operands(self, ch):
        return list(ch)

    @v_args(meta=True)
    def instruction(self, meta, ch):
        guard, neg = None, False
        ops: list[Opnd] = []
        opcode = None
        for c in ch:
            if isinstance(c, tuple):
                guard, neg = c
            elif isinstance(c, Token):
                opcode = c
            elif isinstance(c, list):
                ops = c
        return Instr(str(opcode), ops, guard, neg, opcode.line, opcode.column)

    def guard(self, ch):
        neg = any(isinstance(c, Token) and c.type == "NOT" for c in ch)
        return (str(ch[-1]), neg)

    @v_args(inline=True)
    def label(self, tok):
        return Label(str(tok), tok.line)

    # declarations
    def linkage(self, ch):
        return ("linkage", str(ch[0])[1:])

    def state_space(self, ch):
        return ("space", str(ch[0])[1:])

    def type_spec(self, ch):
        return ("type", str(ch[0])[1:])

    def align(self, ch):
        return ("align", _int(ch[0]))

    def ptr_attr(self, ch):
        space = next((str(c)[1:] for c in ch if isinstance(c, Token) and c.type == "STATE_SPACE"), None)
        al = next((_int(c) for c in ch if isinstance(c, Token) and c.type == "INT"), None)
        return ("ptr", (space, al))

    def attribute(self, ch):
        return ("attribute", str(ch[0]))

    def vector_attr(self, ch):
        return ("vec", int(str(ch[0])[2:]))

    def array_dims(self, ch):
        return ("dims", [_int(c) if c is not None else None for c in ch] or [None])

    def reg_range(self, ch):
        return ("range", _int(ch[0]))

    def initializer(self, ch):
        return ("init", ch[0])

    def init_list(self, ch):
        return [c for c in ch if c is not None]

    def init_scalar(self, ch):
        c = ch[0]
        if isinstance(c, Token):
            return ("sym", str(c), 0)
        return c

    @v_args(inline=True)
    def generic_ref(self, tok, off=None):
        return ("sym", str(tok), _int(off) if off is not None else 0)

    @v_args(inline=True)
    def addr_expr_init(self, tok, off):
        return ("sym", str(tok), _int(off))

    @v_args(meta=True)
    def var_item(self, meta, ch):
        name = str(ch[0])
        dims, rng, init = [], None, None
        for c in ch[1:]:
            if c[0] == "dims":
                dims = c[1]
            elif c[0] == "range":
                rng = c[1]
            elif c[0] == "init":
                init = c[1]
        return ("item", (name, dims, rng, init))

    def var_decl(self, ch):
        space, typ, align, vec, link, items = None, None, None, 1, [], []
        line = 0
        for c in ch:
            k, v = c
            if k == "space":
                space = v
            elif k == "type":
                typ = v
            elif k == "align":
                align = v
            elif k == "vec":
                vec = v
            elif k == "linkage":
                link.append(v)
            elif k == "item":
                items.append(v)
        return VarDecl(space, typ, items, align, vec, link, line)

    # functions
    @v_args(inline=True)
    def param_name(self, tok):
        return ("name", str(tok))

    def param_decl(self, ch):
        name, typ, align, dims, space, ptr = None, None, None, [], "param", None
        for c in ch:
            if isinstance(c, tuple):
                k, v = c
                if k == "name":
                    name = v
                elif k == "type":
                    typ = v
                elif k == "align":
                    align = v
                elif k == "dims":
                    dims = v
                elif k == "space":
                    space = v
                elif k == "ptr":
                    ptr = v[0]
        return Param(name, typ, align, dims, space, ptr)

    def ret_params(self, ch):
        return ("rets", list(ch))

    def params(self, ch):
        return ("params", [c for c in ch if c is not None])

    def maxntid(self, ch):
        return ("perf", ("maxntid", [_int(c) for c in ch]))

    def reqntid(self, ch):
        return ("perf", ("reqntid", [_int(c) for c in ch]))

    def minnctapersm(self, ch):
        return ("perf", ("minnctapersm", _int(ch[0])))

    def maxnctapersm(self, ch):
        return ("perf", ("maxnctapersm", _int(ch[0])))

    def maxnreg(self, ch):
        return ("perf", ("maxnreg", _int(ch[0])))

    def noreturn(self, ch):
        return ("perf", ("noreturn", True))

    def explicitcluster(self, ch):
        return ("perf", ("explicitcluster", True))

    def reqnctapercluster(self, ch):
        return ("perf", ("reqnctapercluster", [_int(c) for c in ch]))

    def maxclusterrank(self, ch):
        return ("perf", ("maxclusterrank", _int(ch[0])))

    def func_pragma(self, ch):
        return ("perf", ("pragma", [str(c)[1:-1] for c in ch]))

    def body(self, ch):
        out = [Scope(True, 0)]
        for c in ch:
            if isinstance(c, list):       # nested block
                out.extend(c)
            elif c is not None:
                out.append(c)
        out.append(Scope(False, 0))
        return out

    def empty_stmt(self, _):
        return None

    def function(self, ch):
        link, kind, name, params, rets, perf, body = [], None, None, [], [], {}, None
        line = 0
        for c in ch:
            if isinstance(c, Token):
                if c.type == "FUNC_KIND":
                    kind = str(c)[1:]
                    line = c.line
                elif c.type == "IDENT":
                    name = str(c)
            elif isinstance(c, list):
                body = c
            elif isinstance(c, tuple):
                k, v = c
                if k == "linkage":
                    link.append(v)
                elif k == "params":
                    params = v
                elif k == "rets":
                    rets = v
                elif k == "perf":
                    perf[v[0]] = v[1]
        return Function(name, kind, params, rets, body, link, perf, line)

    # directives
    def version(self, ch):
        return ("version", str(ch[0]))

    def target(self, ch):
        return ("target", [str(c.children[0]) for c in ch])

    def address_size(self, ch):
        return ("address_size", _int(ch[0]))

    def file_dir(self, ch):
        return ("file", (_int(ch[0]), str(ch[1])[1:-1]))

    def loc_dir(self, ch):
        return Loc(_int(ch[0]), _int(ch[1]), _int(ch[2]))

    def loc_function_name(self, ch):
        return None

    def loc_inlined_at(self, ch):
        return None

    def pragma(self, ch):
        return Pragma([str(c)[1:-1] for c in ch], ch[0].line if ch else 0)

    def section(self, ch):
        return None

    def alias_dir(self, ch):
        return None

    def module_perf(self, ch):
        return None

    def start(self, ch):
        m = Module(self.filename)
        for c in ch:
            if c is None or isinstance(c, (Loc, Pragma)):
                continue
            if isinstance(c, VarDecl):
                m.variables.append(c)
            elif isinstance(c, Function):
                m.functions.append(c)
            elif isinstance(c, tuple):
                k, v = c
                if k == "version":
                    m.version = v
                elif k == "target":
                    m.target = v
                elif k == "address_size":
                    m.address_size = v
                elif k == "file":
                    m.files[v[0]] = v[1]
        return m


@functools.lru_cache(maxsize=1)
def _parser() -> Lark:
    return Lark(GRAMMAR.read_text(), parser="lalr", lexer="contextual", maybe_placeholders=False)


def _describe_expected(exp) -> str:
    names = sorted(exp)[:8]
    return ", ".join(names)


def parse(text: str, filename: str = "<ptx>") -> Module:
    """Parse PTX source text into a Module; raises PTXSyntaxError with file, line, column, token."""
    try:
        tree = _parser().parse(text)
    except UnexpectedToken as e:
        tok = e.token
        shown = "end of input" if tok.type == "$END" else repr(str(tok))
        raise PTXSyntaxError(filename, e.line, e.column, str(tok),
                             f"unexpected {shown}; expected {_describe_expected(e.expected)}") from None
    except UnexpectedCharacters as e:
        ch = text[e.pos_in_stream] if e.pos_in_stream < len(text) else ""
        raise PTXSyntaxError(filename, e.line, e.column, ch,
                             f"unexpected character {ch!r}") from None
    except UnexpectedEOF as e:
        lines = text.splitlines() or [""]
        raise PTXSyntaxError(filename, len(lines), len(lines[-1]) + 1, "",
                             "unexpected end of input") from None
    except UnexpectedInput as e:  # pragma: no cover - other Lark errors
        raise PTXSyntaxError(filename, getattr(e, "line", 0), getattr(e, "column", 0), "",
                             str(e).splitlines()[0]) from None
    return _Build(filename).transform(tree)
