"""Errors raised while reading PTX. Each names the file and the position of what it objects to."""
from __future__ import annotations


class PTXError(Exception):
    """Base class of every error the PTX front end raises."""

    def __init__(self, filename: str, line: int, col: int, message: str):
        self.filename, self.line, self.col = filename, line, col
        self.message = message
        super().__init__(f"{filename}:{line}:{col}: {message}")


class PTXSyntaxError(PTXError):
    """The text is not PTX: carries the offending token."""

    def __init__(self, filename: str, line: int, col: int, token: str, message: str):
        self.token = token
        super().__init__(filename, line, col, message)


class PTXSemanticError(PTXError):
    """Well-formed PTX that does not make sense: undeclared register, unknown modifier, bad label."""


class UnsupportedInstruction(PTXError):
    """Instructions that parse but that the engine does not implement (refused at load time).
    `instructions` lists (opcode text, line, col) of every one found, the first also in the message."""

    def __init__(self, filename: str, items: list[tuple[str, int, int]]):
        self.instructions = items
        op, line, col = items[0]
        more = f" (and {len(items) - 1} more: " + ", ".join(
            f"{o} at line {ln}" for o, ln, _ in items[1:6]) + (", ..." if len(items) > 6 else "") + ")" \
            if len(items) > 1 else ""
        super().__init__(filename, line, col, f"unsupported instruction '{op}'{more}")
