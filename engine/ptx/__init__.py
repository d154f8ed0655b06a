"""The PTX front end: text -> syntax (syntax.py) -> IR (lower.py), checked against the engine's handlers.

`load(source, filename)` is the entry point: it accepts PTX text or a path and returns a lowered
Program, raising PTXSyntaxError, PTXSemanticError or UnsupportedInstruction (all unsupported
instructions of the module, by opcode and line).
"""
from __future__ import annotations

from pathlib import Path

from .errors import PTXError, PTXSemanticError, PTXSyntaxError, UnsupportedInstruction  # noqa: F401


def load(source, filename: str | None = None, schedule: bool = True, sass_keys: dict[int, int] | None = None,
         sass_all: bool = False):
    """sass_keys (PTX line -> position of its last SASS instruction, engine.sass.line_order): loads from
    global memory stay where ptxas put them; with sass_all every instruction is in ptxas's order
    (schedule.py)."""
    from .._ffi import ffi, lib
    from .lower import lower
    from .syntax import parse

    if isinstance(source, (bytes, bytearray)):
        text = _decode(bytes(source), filename or "<ptx>")
        filename = filename or "<ptx>"
    elif isinstance(source, Path):
        filename = filename or str(source)
        text = _decode(source.read_bytes(), filename)
    else:
        text = source
        filename = filename or "<ptx>"
    program = lower(parse(text, filename), text, schedule=schedule, sass_keys=sass_keys, sass_all=sass_all)
    insts, opnds = program.insts, program.opnds
    bad = []
    if len(insts):
        ip = ffi.from_buffer("gs_ir_inst[]", insts)
        op = ffi.from_buffer("gs_ir_opnd[]", opnds) if len(opnds) else ffi.NULL
        for pc in range(len(insts)):
            first = int(insts[pc]["opnd"])
            if not lib.gs_inst_supported(ip + pc, (op + first) if len(opnds) else ffi.NULL):
                bad.append((program.pc_op[pc], int(insts[pc]["line"]), program.pc_col[pc]))
    if bad:
        raise UnsupportedInstruction(filename, bad)
    return program


def _decode(data: bytes, filename: str) -> str:
    """PTX is ASCII text: bytes that are not UTF-8 are a syntax error at their position."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        col = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        bad = data[e.start:e.start + 1]
        raise PTXSyntaxError(filename, line, col, repr(bad), f"binary data: byte 0x{bad.hex()} is not text") from None
