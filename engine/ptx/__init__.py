"""The PTX front end: text -> syntax (syntax.py) -> IR (lower.py), checked against the engine's handlers.

`load(source, filename)` is the entry point: it accepts PTX text or a path and returns a lowered
Program, raising PTXSyntaxError, PTXSemanticError or UnsupportedInstruction (all unsupported
instructions of the module, by opcode and line).
"""
from __future__ import annotations

from pathlib import Path

from .errors import PTXError, PTXSemanticError, PTXSyntaxError, UnsupportedInstruction  # noqa: F401


def load(source, filename: str | None = None):
    from .._ffi import ffi, lib
    from .lower import lower
    from .syntax import parse

    if isinstance(source, Path):
        filename = filename or str(source)
        text = source.read_text()
    else:
        text = source
        filename = filename or "<ptx>"
    if "\0" in text:
        raise PTXSyntaxError(filename, 1, 1, "\\0", "binary data: the file is not PTX text")
    program = lower(parse(text, filename), text)
    insts, opnds = program.insts, program.opnds
    bad = []
    if len(insts):
        ip = ffi.from_buffer("gs_ir_inst[]", insts)
        op = ffi.from_buffer("gs_ir_opnd[]", opnds) if len(opnds) else ffi.NULL
        for pc in range(len(insts)):
            first = int(insts[pc]["opnd"])
            if not lib.gs_inst_supported(ip + pc, (op + first) if len(opnds) else ffi.NULL):
                text_pc = program.pc_text[pc]
                opcode = text_pc.split()[0] if text_pc else "?"
                if opcode.startswith("@"):
                    opcode = text_pc.split()[1]
                bad.append((opcode.rstrip(";"), int(insts[pc]["line"]), program.pc_col[pc]))
    if bad:
        raise UnsupportedInstruction(filename, bad)
    return program
