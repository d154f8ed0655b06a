"""PTX text -> syntax tree of plain dataclasses (no meaning attached yet).

`parse(text, filename)` tokenises the text with one compiled regular expression (lexer.py) and reads
the tokens with a small recursive-descent parser whose grammar is written out in ptx.ebnf beside this
file. Nested `{ }` blocks are flattened into the statement list between `Scope` markers so that later
passes can resolve block-local names; DWARF `.section` blocks are skipped by the lexer. Any error
becomes `PTXSyntaxError` naming the file, line, column and the offending token.

Why not a parser generator: Lark's LALR parser (used by the first version) spent ~40 us per token, so a
50k-line Triton module took over 10 s; this parser does the same work at ~2 us per token. Nothing in it
recurses on input nesting except initialiser lists and operands, whose depths are bounded
(MAX_INIT_DEPTH, MAX_OPERAND_DEPTH); counts that the IR stores in fixed-width fields are bounded too.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .errors import PTXSyntaxError
from .lexer import EOF, Lexer, int_value
from .limits import MAX_ALIGN, MAX_REG_RANGE

MAX_BLOCK_DEPTH = 1024     # nested { } inside a function body
MAX_INIT_DEPTH = 16        # nested { } in an initialiser
MAX_OPERAND_DEPTH = 2      # (args) may hold names; {vector} elements are plain operands
MAX_OPERANDS = 255         # top-level operands of one instruction (gs_ir_inst.nopnd is 8 bits)
MAX_VECTOR = 256           # elements of one {vector} operand (wgmma's largest fragment is 128)
MAX_PERF_VALUE = (1 << 31) - 1   # .reqntid/.maxntid/.minnctapersm/... values


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
    col: int = 0


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
class BranchTargets:
    """`name: .branchtargets L1, L2, ...;` — the label table of a brx.idx."""
    name: str
    labels: list[str]
    line: int
    col: int


@dataclass
class CallPrototype:
    """`name: .callprototype ...;` or `.calltargets` — kept only to refuse indirect calls by name."""
    name: str
    line: int
    col: int


@dataclass
class VarDecl:
    space: str            # reg, shared, global, const, local, param, ...
    type: str             # b32, f32, pred, ...
    names: list[tuple[str, list[int | None], int | None, object]]  # (name, dims, reg_range, init)
    align: int | None
    vec: int
    linkage: list[str]
    line: int
    col: int = 0


@dataclass
class Param:
    name: str
    type: str
    align: int | None
    dims: list[int | None]
    space: str = "param"
    ptr_space: str | None = None
    vec: int = 1


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
    col: int = 0


@dataclass
class Module:
    filename: str
    version: str | None = None
    target: list[str] = field(default_factory=list)
    address_size: int = 64
    files: dict[int, str] = field(default_factory=dict)
    variables: list[VarDecl] = field(default_factory=list)
    functions: list[Function] = field(default_factory=list)


# ---------------------------------------------------------------- the parser
LINKAGE = {".visible", ".extern", ".weak", ".common"}
SPACES = {".reg", ".sreg", ".const", ".global", ".local", ".param", ".shared", ".tex", ".shared::cta",
          ".shared::cluster"}
TYPES = {".b8", ".b16", ".b32", ".b64", ".b128", ".u8", ".u16", ".u32", ".u64", ".s8", ".s16", ".s32",
         ".s64", ".f16", ".f16x2", ".bf16", ".bf16x2", ".f32", ".f64", ".pred", ".tf32", ".e4m3", ".e5m2",
         ".texref", ".samplerref", ".surfref"}
VECTORS = {".v2": 2, ".v4": 4, ".v8": 8}
PERF_LIST = {".maxntid", ".reqntid", ".reqnctapercluster"}
PERF_ONE = {".minnctapersm", ".maxnctapersm", ".maxnreg", ".maxclusterrank"}
PERF_FLAG = {".noreturn", ".explicitcluster", ".blocksareclusters"}


class Parser:
    """Recursive descent over the token stream (grammar: ptx.ebnf). Tokens are (kind, text, pos)."""

    def __init__(self, text: str, filename: str):
        self.lx = Lexer(text, filename)
        self.fn = filename
        self.tok = self.lx.next()
        self.ahead = None

    # ---- token helpers
    def error(self, tok=None, expected: str = "", message: str | None = None):
        tok = tok or self.tok
        line, col = self.lx.position(tok[2])
        if message is None:
            shown = "end of input" if tok[0] == EOF else repr(tok[1])
            message = f"unexpected {shown}" + (f"; expected {expected}" if expected else "")
        raise PTXSyntaxError(self.fn, line, col, tok[1], message)

    def advance(self):
        t = self.tok
        if self.ahead is not None:
            self.tok, self.ahead = self.ahead, None
        else:
            self.tok = self.lx.next()
        return t

    def peek(self):
        if self.ahead is None:
            self.ahead = self.lx.next()
        return self.ahead

    def at(self, text: str) -> bool:
        return self.tok[1] == text and self.tok[0] != "str"

    def expect(self, text: str, what: str | None = None):
        if self.tok[1] != text or self.tok[0] == "str":
            self.error(expected=what or f"'{text}'")
        return self.advance()

    def expect_kind(self, kind: str, what: str):
        if self.tok[0] != kind:
            self.error(expected=what)
        return self.advance()

    def int_tok(self, what: str = "an integer") -> int:
        t = self.expect_kind("int", what)
        return int_value(t[1])

    def line_col(self, tok) -> tuple[int, int]:
        return self.lx.position(tok[2])

    # ---- module
    def module(self) -> Module:
        m = Module(self.fn)
        while self.tok[0] != EOF:
            t = self.tok
            k, s = t[0], t[1]
            if s == ";" and k == "punct":
                self.advance()
            elif s == ".version":
                self.advance()
                v = self.advance()
                if v[0] not in ("float", "int"):
                    self.error(v, "a version number like 8.0")
                m.version = v[1]
            elif s == ".target":
                self.advance()
                m.target = [self.expect_kind("word", "a target name like sm_90")[1]]
                while self.at(","):
                    self.advance()
                    m.target.append(self.expect_kind("word", "a target name")[1])
            elif s == ".address_size":
                self.advance()
                m.address_size = self.int_tok("32 or 64")
                if m.address_size not in (32, 64):
                    self.error(t, message=f".address_size {m.address_size}: only 32 and 64 exist")
            elif s == ".file":
                self.advance()
                idx = self.int_tok("a file number")
                name = self.expect_kind("str", "a file name string")[1]
                m.files[idx] = name[1:-1]
                while self.at(","):
                    self.advance()
                    self.int_tok("a timestamp or size")
            elif s == ".loc":
                self.loc()
            elif s == ".pragma":
                self.pragma()
            elif s == ".alias":
                self.advance()
                self.expect_kind("word", "a function name")
                self.expect(",")
                self.expect_kind("word", "a function name")
                self.expect(";")
            elif s in (".maxnreg",):
                self.advance()
                self.int_tok()
            elif s in (".entry", ".func") or (s in LINKAGE and self.function_ahead()):
                m.functions.append(self.function())
            elif s in LINKAGE or s in SPACES:
                m.variables.append(self.var_decl())
                self.expect(";", "';' after the declaration")
            else:
                self.error(expected="a directive (.version, .target, .entry, .func, .global, ...)")
        return m

    def function_ahead(self) -> bool:
        """After linkage words: is this a function (.entry/.func) rather than a variable?"""
        return self.lx.function_follows(self.tok[2])

    def loc(self) -> Loc:
        self.advance()
        f = self.int_tok("a file number")
        ln = self.int_tok("a line number")
        col = self.int_tok("a column number")
        while self.at(","):
            self.advance()
            attr = self.expect_kind("word", "function_name or inlined_at")
            if attr[1] == "function_name":
                self.expect_kind("word", "a label")
                if self.at("+"):
                    self.advance()
                    self.int_tok()
            elif attr[1] == "inlined_at":
                self.int_tok()
                self.int_tok()
                self.int_tok()
            else:
                self.error(attr, "function_name or inlined_at")
        return Loc(f, ln, col)

    def pragma(self) -> Pragma:
        t = self.advance()
        vals = [self.expect_kind("str", "a pragma string")[1][1:-1]]
        while self.at(","):
            self.advance()
            vals.append(self.expect_kind("str", "a pragma string")[1][1:-1])
        self.expect(";", "';' after .pragma")
        return Pragma(vals, self.line_col(t)[0])

    # ---- declarations
    def var_decl(self) -> VarDecl:
        first = self.tok
        linkage = []
        while self.tok[1] in LINKAGE:
            linkage.append(self.advance()[1][1:])
        if self.tok[1] not in SPACES:
            self.error(expected="a state space (.reg, .shared, .global, .const, .local, .param)")
        space = self.advance()[1][1:]
        align, vec, typ = None, 1, None
        while True:
            s = self.tok[1]
            if s == ".align":
                self.advance()
                align = self.alignment()
            elif s in VECTORS:
                vec = VECTORS[self.advance()[1]]
            elif s == ".ptr":
                self.advance()
            elif s == ".attribute":
                self.advance()
                self.expect("(")
                self.expect_kind("dir", "an attribute like .managed")
                self.expect(")")
            elif s in TYPES:
                if typ is not None:
                    break
                typ = self.advance()[1][1:]
            else:
                break
        if typ is None:
            self.error(expected="a type (.b32, .f32, .u64, ...)")
        items = [self.var_item()]
        while self.at(","):
            self.advance()
            items.append(self.var_item())
        line, col = self.line_col(first)
        return VarDecl(space, typ, items, align, vec, linkage, line, col)

    def alignment(self) -> int:
        t = self.tok
        align = self.int_tok("an alignment")
        if align <= 0 or align & (align - 1):
            self.error(t, message=f".align {align} is not a power of two")
        if align > MAX_ALIGN:
            self.error(t, message=f".align {align} is larger than {MAX_ALIGN}")
        return align

    def var_item(self):
        name = self.expect_kind("word", "a variable name")[1]
        dims, rng, init = [], None, None
        if self.at("<"):
            self.advance()
            t = self.tok
            rng = self.int_tok("a register count")
            if rng > MAX_REG_RANGE:
                self.error(t, message=f"%{name.lstrip('%')}<{rng}> declares more than {MAX_REG_RANGE} registers "
                                      f"in one declaration")
            self.expect(">")
        while self.at("["):
            self.advance()
            if self.at("]"):
                dims.append(None)
            else:
                dims.append(self.int_tok("an array size"))
            self.expect("]")
        if self.at("="):
            self.advance()
            init = self.init_value(0)
        return (name, dims, rng, init)

    def init_value(self, depth: int):
        if self.at("{"):
            if depth >= MAX_INIT_DEPTH:
                self.error(message=f"initialiser nested deeper than {MAX_INIT_DEPTH} levels")
            self.advance()
            out = []
            if not self.at("}"):
                out.append(self.init_value(depth + 1))
                while self.at(","):
                    self.advance()
                    out.append(self.init_value(depth + 1))
            self.expect("}", "',' or '}' in the initialiser")
            return out
        t = self.tok
        if t[0] == "word":
            self.advance()
            if t[1] == "generic" and self.at("("):
                self.advance()
                sym = self.expect_kind("word", "a variable name")[1]
                self.expect(")")
                off = self.sym_offset()
                return ("sym", sym, off)
            return ("sym", t[1], self.sym_offset())
        return self.number("an initial value")

    def sym_offset(self) -> int:
        if self.at("+") or self.at("-"):
            neg = self.advance()[1] == "-"
            v = self.int_tok("an offset")
            return -v if neg else v
        return 0

    def number(self, what: str) -> Opnd:
        neg = False
        if self.at("-"):
            self.advance()
            neg = True
        t = self.tok
        k = t[0]
        if k == "int":
            self.advance()
            v = int_value(t[1])
            return Opnd("imm", value=-v if neg else v)
        if k == "fhex":
            self.advance()
            bits = int(t[1][2:], 16)
            return Opnd("fimm", value=bits ^ (0x80000000 if neg else 0), bits=32)
        if k == "dhex":
            self.advance()
            bits = int(t[1][2:], 16)
            return Opnd("fimm", value=bits ^ ((1 << 63) if neg else 0), bits=64)
        if k == "float":
            self.advance()
            return Opnd("fdec", value=-float(t[1]) if neg else float(t[1]))
        self.error(expected=what)

    def perf_value(self, directive: str) -> int:
        t = self.tok
        v = self.int_tok()
        if v > MAX_PERF_VALUE:
            self.error(t, message=f"{directive} value {v} is out of range (at most {MAX_PERF_VALUE})")
        return v

    # ---- functions
    def function(self) -> Function:
        linkage = []
        while self.tok[1] in LINKAGE:
            linkage.append(self.advance()[1][1:])
        kt = self.tok
        if kt[1] not in (".entry", ".func"):
            self.error(expected=".entry or .func")
        self.advance()
        kind = kt[1][1:]
        rets: list[Param] = []
        if self.at("("):
            rets = self.param_list()
        nt = self.expect_kind("word", "a function name")
        params: list[Param] = []
        if self.at("("):
            params = self.param_list()
        perf: dict = {}
        while True:
            s = self.tok[1]
            if s in PERF_LIST:
                self.advance()
                vals = [self.perf_value(s)]
                while self.at(","):
                    self.advance()
                    if len(vals) >= 3:
                        self.error(message=f"{s} takes at most 3 values")
                    vals.append(self.perf_value(s))
                perf[s[1:]] = vals
            elif s in PERF_ONE:
                self.advance()
                perf[s[1:]] = self.perf_value(s)
            elif s in PERF_FLAG:
                self.advance()
                perf[s[1:]] = True
            elif s == ".pragma":
                perf.setdefault("pragma", []).extend(self.pragma().values)
            else:
                break
        line, col = self.line_col(kt)
        if self.at(";"):
            self.advance()
            return Function(nt[1], kind, params, rets, None, linkage, perf, line, col)
        if not self.at("{"):
            self.error(expected="'{' (the function body) or ';'")
        body = self.body()
        return Function(nt[1], kind, params, rets, body, linkage, perf, line, col)

    def param_list(self) -> list[Param]:
        self.expect("(")
        out = []
        if not self.at(")"):
            out.append(self.param_decl())
            while self.at(","):
                self.advance()
                out.append(self.param_decl())
        self.expect(")", "',' or ')' in the parameter list")
        return out

    def param_decl(self) -> Param:
        if self.tok[1] not in (".param", ".reg"):
            self.error(expected=".param or .reg")
        space = self.advance()[1][1:]
        typ, align, ptr, vec = None, None, None, 1
        while True:
            s = self.tok[1]
            if s == ".align":
                self.advance()
                align = self.alignment()
            elif s == ".ptr":
                self.advance()
                if self.tok[1] in SPACES:
                    ptr = self.advance()[1][1:]
            elif s in VECTORS:
                vec = VECTORS[self.advance()[1]]
            elif s in TYPES and typ is None:
                typ = self.advance()[1][1:]
            else:
                break
        if typ is None:
            self.error(expected="a parameter type (.u64, .b32, .align N .b8, ...)")
        name = self.expect_kind("word", "a parameter name")[1]
        dims = []
        while self.at("["):
            self.advance()
            dims.append(None if self.at("]") else self.int_tok("an array size"))
            self.expect("]")
        return Param(name, typ, align, dims, space, ptr, vec)

    def body(self) -> list:
        """Statements of a function body, nested blocks flattened between Scope markers."""
        out = []
        depth = 0
        while True:
            t = self.tok
            k, s = t[0], t[1]
            if k == "punct":
                if s == "{":
                    depth += 1
                    if depth > MAX_BLOCK_DEPTH:
                        self.error(message=f"blocks nested deeper than {MAX_BLOCK_DEPTH} levels")
                    self.advance()
                    out.append(Scope(True, 0))
                    continue
                if s == "}":
                    self.advance()
                    out.append(Scope(False, 0))
                    depth -= 1
                    if depth == 0:
                        return out
                    continue
                if s == ";":
                    self.advance()
                    continue
                if s == "@":
                    out.append(self.instruction())
                    continue
            elif k == "word":
                nxt = self.peek()
                if nxt[1] == ":" and nxt[0] == "punct":
                    self.advance()
                    self.advance()
                    if self.tok[1] == ".branchtargets":
                        out.append(self.branch_targets(t))
                    elif self.tok[1] in (".callprototype", ".calltargets"):
                        out.append(self.call_prototype(t))
                    else:
                        line, col = self.line_col(t)
                        out.append(Label(s, line, col))
                    continue
                out.append(self.instruction())
                continue
            elif k == "dir":
                if s == ".loc":
                    out.append(self.loc())
                    continue
                if s == ".pragma":
                    out.append(self.pragma())
                    continue
                if s in SPACES or s in LINKAGE:
                    out.append(self.var_decl())
                    self.expect(";", "';' after the declaration")
                    continue
                if s in (".maxnreg",) or s in PERF_ONE:
                    self.advance()
                    self.int_tok()
                    continue
                self.error(expected="an instruction, a label or a declaration")
            elif k == EOF:
                self.error(message=f"unexpected end of input: {depth} block(s) still open "
                                   "(missing '}')")
            self.error(expected="an instruction, a label or a declaration")

    def branch_targets(self, name_tok) -> BranchTargets:
        self.advance()
        labels = [self.expect_kind("word", "a label")[1]]
        while self.at(","):
            self.advance()
            labels.append(self.expect_kind("word", "a label")[1])
        self.expect(";")
        line, col = self.line_col(name_tok)
        return BranchTargets(name_tok[1], labels, line, col)

    def call_prototype(self, name_tok) -> CallPrototype:
        # skip to the ';' (the prototype's parameter lists carry no meaning for us)
        while not self.at(";"):
            if self.tok[0] == EOF:
                self.error(expected="';'")
            self.advance()
        self.advance()
        line, col = self.line_col(name_tok)
        return CallPrototype(name_tok[1], line, col)

    # ---- instructions
    def instruction(self) -> Instr:
        guard, neg = None, False
        first = self.tok
        if self.at("@"):
            self.advance()
            if self.at("!"):
                self.advance()
                neg = True
            guard = self.expect_kind("word", "a predicate register after '@'")[1]
        ot = self.tok
        if ot[0] != "word":
            self.error(expected="an instruction opcode")
        self.advance()
        ops = []
        if not self.at(";"):
            ops.append(self.operand())
            while self.at(","):
                self.advance()
                if len(ops) >= MAX_OPERANDS:
                    self.error(message=f"more than {MAX_OPERANDS} operands in one instruction")
                ops.append(self.operand())
        if not self.at(";"):
            self.error(expected="',' or ';' after an operand" if ops else "an operand or ';'")
        self.advance()
        line, col = self.line_col(ot)
        del first
        return Instr(ot[1], ops, guard, neg, line, col)

    def operand(self, depth: int = 0) -> Opnd:
        a = self.atom(depth)
        if self.at("|"):
            self.advance()
            b = self.atom(depth)
            return Opnd("pair", elems=[a, b])
        return a

    def elements(self, close: str, what: str, depth: int) -> list:
        """Operands up to `close` (after the opening bracket), at most MAX_VECTOR of them."""
        if depth >= MAX_OPERAND_DEPTH:
            self.error(message=f"operands nested deeper than {MAX_OPERAND_DEPTH} levels")
        self.advance()
        elems = []
        if close == "}" or not self.at(close):
            elems.append(self.operand(depth + 1))
            while self.at(","):
                self.advance()
                if len(elems) >= MAX_VECTOR:
                    self.error(message=f"more than {MAX_VECTOR} elements in one {what}")
                elems.append(self.operand(depth + 1))
        self.expect(close, f"',' or '{close}' in the {what}")
        return elems

    def atom(self, depth: int = 0) -> Opnd:
        t = self.tok
        k, s = t[0], t[1]
        if k == "word":
            self.advance()
            if s == "_":
                return Opnd("sink")
            if self.at("+") and self.peek()[0] == "int":
                self.advance()
                return Opnd("symoff", name=s, value=int_value(self.advance()[1]))
            return Opnd("reg", name=s)
        if k == "punct":
            if s == "!":
                self.advance()
                return Opnd("not", name=self.expect_kind("word", "a predicate after '!'")[1])
            if s == "[":
                return self.address()
            if s == "{":
                return Opnd("vec", elems=self.elements("}", "vector operand", depth))
            if s == "(":
                return Opnd("args", elems=self.elements(")", "argument list", depth))
            if s == "-":
                return self.number("a number after '-'")
        if k in ("int", "fhex", "dhex", "float"):
            return self.number("a number")
        self.error(expected="an operand (register, number, [address], {vector})")

    def address(self) -> Opnd:
        self.advance()   # [
        t = self.tok
        if t[0] == "word":
            self.advance()
            off = 0
            if self.at("+") or self.at("-"):
                neg = self.advance()[1] == "-"
                if self.at("-"):          # [%r + -4]
                    self.advance()
                    neg = not neg
                v = self.int_tok("an integer offset")
                off = -v if neg else v
            elif self.at(","):
                # [texref, {coords}] and similar: keep the name, drop the rest (refused later)
                while not self.at("]"):
                    if self.tok[0] == EOF:
                        self.error(expected="']'")
                    self.advance()
            self.expect("]", "'+ offset' or ']' in the address")
            return Opnd("mem", name=t[1], value=off)
        neg = False
        if self.at("-"):
            self.advance()
            neg = True
        v = self.int_tok("a register, a variable or an integer address")
        self.expect("]", "']' after the address")
        return Opnd("mem", name=None, value=-v if neg else v)


def parse(text: str, filename: str = "<ptx>") -> Module:
    """Parse PTX source text into a Module; raises PTXSyntaxError with file, line, column, token."""
    return Parser(text, filename).module()
