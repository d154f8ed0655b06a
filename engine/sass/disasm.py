"""PTX -> SASS with the offline tools, read back per function with the PTX line of every instruction.

`ptxas -arch=sm_90a -lineinfo -v` compiles the module (as the driver's JIT does on the H200: for most
modules the JIT's SASS equals offline ptxas's, validation/README.md); `-v` reports each function's
registers, stack frame and spills. `-lineinfo` makes ptxas write `.nv_debug_line_sass`, which maps every
SASS instruction to the line of the PTX text it came from, whatever `.loc` directives the PTX carries;
`nvdisasm -gp -c` prints it as `//## File ".nv_debug_ptx_txt", line N` before the instructions of line N.
The trailing self-branch and NOPs that pad a function's code to its alignment are never executed and are
kept apart (`padding`).
"""
from __future__ import annotations

import re
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from .tools import Tools

ARCH = "sm_90a"

_SECTION = re.compile(r"^//-+ \.text\.(\S+)")
_LINE = re.compile(r'^\s*//## File "[^"]*", line (\d+)')
_INST = re.compile(r"^\s*/\*([0-9a-f]+)\*/\s+(@!?U?P(?:T|\d+)\s+)?([A-Z][A-Z0-9_]*)((?:\.[A-Za-z0-9_]+)*)\s*([^;]*);")
_LABEL = re.compile(r"^(\.L_x_\d+):")
_BRA_SELF = re.compile(r"`\((\.L_x_\d+)\)")
# instructions after which a new basic block starts
_ENDS_BLOCK = {"BRA", "BRX", "BRXU", "JMP", "JMX", "JMXU", "CALL", "RET", "EXIT", "BREAK", "KILL", "BPT"}

_V_FUNC = re.compile(r"(?:Compiling entry function|Function properties for) '?([\w$.]+)'?")
_V_ENTRY = re.compile(r"Compiling entry function '([\w$.]+)'")
_V_FRAME = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_V_REGS = re.compile(r"Used (\d+) registers")


class SassError(RuntimeError):
    """ptxas or nvdisasm refused the module or failed: the message quotes the tool's own."""


@dataclass
class SassInst:
    opcode: str           # base mnemonic: IMAD
    mods: str             # modifiers as written: .WIDE.U32
    line: int             # PTX line (0: none given)
    predicated: bool
    block: int = 0            # basic block (a label or a control transfer starts a new one)
    depth: int = 0            # loops around it: backward branches whose range [target, branch] holds it
    self_loop: bool = False   # `L: BRA L` (the end-of-code trap loop)
    dst: tuple[str, ...] = ()     # registers and predicates it writes (R8, R9, P0, UR4, UP0)
    src: tuple[str, ...] = ()     # those it reads (the guard predicate included)


@dataclass
class SassFunction:
    name: str
    insts: list[SassInst] = field(default_factory=list)
    padding: int = 0                  # trailing self-branch + NOPs (never executed)
    is_entry: bool = False
    registers: int = 0
    stack_bytes: int = 0
    spill_store_bytes: int = 0
    spill_load_bytes: int = 0

    @property
    def total(self) -> int:
        """every instruction of the function's code, padding included (what nvdisasm lists)"""
        return len(self.insts) + self.padding


def parse_disasm(text: str) -> dict[str, SassFunction]:
    """nvdisasm -gp -c output -> functions by name, instructions in address order with their PTX lines."""
    funcs: dict[str, SassFunction] = {}
    cur: SassFunction | None = None
    line = 0
    labels: list[str] = []               # labels since the last instruction
    block, ended = 0, False
    where: dict[str, dict[str, int]] = {}     # function -> label -> index of the instruction after it
    branches: dict[str, list[tuple[int, str]]] = {}   # function -> (index, target label) of branches
    for raw in text.splitlines():
        m = _SECTION.match(raw)
        if m:
            cur = funcs.setdefault(m.group(1), SassFunction(m.group(1)))
            line, labels, block, ended = 0, [], 0, False
            continue
        if cur is None:
            continue
        m = _LINE.match(raw)
        if m:
            line = int(m.group(1))
            continue
        m = _LABEL.match(raw)
        if m:
            labels.append(m.group(1))
            continue
        m = _INST.match(raw)
        if m:
            if (labels or ended) and cur.insts:
                block += 1
            inst = SassInst(m.group(3), m.group(4), line, bool(m.group(2)), block)
            inst.dst, inst.src = operands(m.group(4), m.group(5), m.group(2))
            ended = inst.opcode in _ENDS_BLOCK
            t = _BRA_SELF.search(m.group(5))
            inst.self_loop = inst.opcode == "BRA" and t is not None and t.group(1) in labels
            for lab in labels:
                where.setdefault(cur.name, {})[lab] = len(cur.insts)
            if inst.opcode in ("BRA", "BRX", "JMP") and t is not None:
                branches.setdefault(cur.name, []).append((len(cur.insts), t.group(1)))
            cur.insts.append(inst)
            labels = []
    for f in funcs.values():
        for i, lab in branches.get(f.name, []):
            j = where.get(f.name, {}).get(lab)
            if j is not None and j < i and not f.insts[i].self_loop:    # a loop: [j, i]
                for k in range(j, i + 1):
                    f.insts[k].depth += 1
        _strip_padding(f)
    return funcs


_REG = re.compile(r"^[-!~|]*(U?R|U?P)(\d+)(\.64)?")
_WIDE_DST = re.compile(r"\.(WIDE|64|128)\b")


def _regs(name: str, n: int, wide: bool) -> list[str]:
    return [f"{name}{n}", f"{name}{n + 1}"] if wide else [f"{name}{n}"]


def operands(mods: str, text: str, guard: str | None) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The registers and predicates a SASS instruction writes and reads, from nvdisasm's operand text.

    The destination is the first operand when it is a register, with the predicates right after it (the
    compare's second predicate, a carry out: `ISETP P2, PT, R13, ...`, `LEA R12, P3, R10, ...`); a `.WIDE`
    or `.64` result is a register pair. Everything else named (registers inside addresses too, `R22.64`
    as a pair, the guard `@P2`) is read. Constants (RZ, PT, URZ, UPT, immediates, c[..][..]) are neither."""
    ops = [o.strip() for o in text.split(",")] if text.strip() else []
    dst: list[str] = []
    src: list[str] = []
    k = 0
    if ops:
        m = _REG.match(ops[0])
        if m and not ops[0].startswith(("-", "!", "~", "|")):
            dst += _regs(m.group(1), int(m.group(2)), bool(m.group(3)) or (m.group(1).endswith("R")
                                                                           and bool(_WIDE_DST.search(mods))))
            k = 1
            while k < len(ops) and re.match(r"^U?P(\d+|T)$", ops[k]):
                if ops[k][-1] != "T":
                    dst.append(ops[k])
                k += 1
    for o in ops[k:]:
        for m in re.finditer(r"(?<![\w.])[-!~|]*(U?R|U?P)(\d+)(\.64)?", o):
            src += _regs(m.group(1), int(m.group(2)), bool(m.group(3)))
    if guard:
        g = re.search(r"U?P\d+", guard)
        if g:
            src.append(g.group(0))
    return tuple(dst), tuple(src)


def _strip_padding(f: SassFunction) -> None:
    """Drop the trailing `L: BRA L` and the NOPs after it (alignment padding)."""
    n = len(f.insts)
    while n and f.insts[n - 1].opcode == "NOP":
        n -= 1
    if n and f.insts[n - 1].opcode == "BRA" and f.insts[n - 1].self_loop:
        n -= 1
    f.padding = len(f.insts) - n
    del f.insts[n:]


def parse_resources(log: str, funcs: dict[str, SassFunction]) -> None:
    """ptxas -v's report: registers, stack frame and spills per function, entries marked."""
    cur = None
    for raw in log.splitlines():
        m = _V_ENTRY.search(raw)
        if m and m.group(1) in funcs:
            funcs[m.group(1)].is_entry = True
        m = _V_FUNC.search(raw)
        if m:
            cur = funcs.get(m.group(1))
            continue
        if cur is None:
            continue
        m = _V_FRAME.search(raw)
        if m:
            cur.stack_bytes, cur.spill_store_bytes, cur.spill_load_bytes = map(int, m.groups())
        m = _V_REGS.search(raw)
        if m:
            cur.registers = int(m.group(1))


def compile_ptx(ptx: bytes, tools: Tools, timeout: float = 600) -> tuple[dict[str, SassFunction], str]:
    """Compile and disassemble; returns the functions and ptxas's log. Raises SassError."""
    with tempfile.TemporaryDirectory(prefix="simtscope-sass-") as d:
        src, cubin = Path(d) / "k.ptx", Path(d) / "k.cubin"
        src.write_bytes(ptx)
        p = _run([tools.ptxas, f"-arch={ARCH}", "-lineinfo", "-v", "-o", str(cubin), str(src)], timeout, d)
        log = p.stdout + p.stderr
        q = _run([tools.nvdisasm, "-gp", "-c", str(cubin)], timeout, d)
    funcs = parse_disasm(q.stdout)
    parse_resources(log, funcs)
    return funcs, log


def _run(cmd: list[str], timeout: float, tmp: str) -> subprocess.CompletedProcess:
    """Run a tool; its error message names the module `k.ptx` (not the temporary folder, so that it is the
    same on every run)."""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise SassError(f"{Path(cmd[0]).name} took longer than {timeout:.0f} s") from None
    except OSError as e:
        raise SassError(f"cannot run {cmd[0]}: {e}") from None
    if p.returncode != 0:
        msg = (p.stderr or p.stdout).strip().replace(tmp + "/", "").splitlines()
        raise SassError(f"{Path(cmd[0]).name} failed: " + " | ".join(msg[:6]))
    return p
