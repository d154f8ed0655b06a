"""The PTX lexer: one compiled regular expression, tokens pulled on demand by the parser.

A token is a tuple (kind, text, pos, line, line_start); kinds:
  word   identifiers, opcodes with their dotted modifiers, registers (%r1, %tid.x), labels
  dir    directives and dotted keywords (.reg, .b32, .shared::cta)
  int    decimal, hex (0x..), binary (0b..) and octal (0..) integers, optional U suffix
  fhex   0f + 8 hex digits (f32 bits)      dhex  0d + 16 hex digits (f64 bits)
  float  decimal floating-point literal    str   "..."
  punct  one of { } ( ) [ ] , ; : @ ! | + - < > =
Whitespace, comments and DWARF `.section` blocks are skipped. Tokens are produced lazily, so a huge
file of junk fails at its first bad character without being read further.
"""
from __future__ import annotations

import re

from .errors import PTXSyntaxError

EOF = "eof"

MAX_INT = (1 << 64) - 1      # literals are at most 64 bits wide (PTX immediates, sizes, offsets)
MAX_LITERAL_CHARS = 80       # longer than any 64-bit literal (0b + 64 digits + U): refused unread

_TOKEN = re.compile(r"""
  (?P<ws>(?:[ \t\r\n\f\v]+|//[^\n]*|/\*[\s\S]*?\*/)+)
| (?P<fhex>0[fF][0-9a-fA-F]{8}(?![0-9a-zA-Z_]))
| (?P<dhex>0[dD][0-9a-fA-F]{16}(?![0-9a-zA-Z_]))
| (?P<hex>0[xX][0-9a-fA-F]+U?(?![0-9a-zA-Z_.]) | 0[bB][01]+U?(?![0-9a-zA-Z_.]))
| (?P<float>[0-9]+\.[0-9]*(?:[eE][+-]?[0-9]+)? | [0-9]+[eE][+-]?[0-9]+)
| (?P<int>[0-9]+U?(?![0-9a-zA-Z_]))
| (?P<section>\.section\b)
| (?P<dir>\.[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z0-9_]+)*)
| (?P<word>[%$A-Za-z_][A-Za-z0-9_$]*(?:(?:\.|::)[A-Za-z0-9_$]+)*)
| (?P<punct>[{}()\[\],;:@!|+\-<>=])
| (?P<str>"(?:[^"\\\n]|\\.)*")
| (?P<ucomment>/\*)
| (?P<ustr>")
| (?P<bad>[\s\S])
""", re.X)

# inside a .section block: anything up to the matching '}', strings and comments respected
_SECTION_HEAD = re.compile(r"\.section[^{;\n]*")
_SECTION_BODY = re.compile(r'[^{}"/\n]+|\n|"(?:[^"\\\n]|\\.)*"|//[^\n]*|/\*[\s\S]*?\*/|[/"]|\{|\}')
_FUNC_AHEAD = re.compile(r"(?:\s*\.(?:visible|extern|weak|common)\b)*\s*\.(?:entry|func)\b")


def int_value(s: str) -> int:
    """The value of a PTX integer literal (decimal, 0x hex, 0b binary, 0-prefixed octal, U suffix)."""
    if s.endswith("U"):
        s = s[:-1]
    if s[:2] in ("0x", "0X"):
        return int(s[2:], 16)
    if s[:2] in ("0b", "0B"):
        return int(s[2:], 2)
    if len(s) > 1 and s[0] == "0":
        try:
            return int(s, 8)            # PTX octal literal
        except ValueError:
            raise ValueError(f"'{s}' is not a valid octal literal") from None
    return int(s)


class Lexer:
    def __init__(self, text: str, filename: str):
        self.text = text
        self.fn = filename
        self.pos = 0
        self._match = _TOKEN.match
        self._memo = (0, 1)          # (position, its line): positions are asked in increasing order

    def position(self, pos: int) -> tuple[int, int]:
        """1-based (line, column) of a character position. Amortised linear over a parse, because
        the parser asks for positions in increasing order (once per statement)."""
        mpos, mline = self._memo
        if pos >= mpos:
            line = mline + self.text.count("\n", mpos, pos)
        else:
            line = self.text.count("\n", 0, pos) + 1
        self._memo = (pos, line)
        start = self.text.rfind("\n", 0, pos) + 1
        return line, pos - start + 1

    def _fail(self, pos: int, token: str, message: str):
        line, col = self.position(pos)
        raise PTXSyntaxError(self.fn, line, col, token, message)

    def next(self):
        text = self.text
        while True:
            pos = self.pos
            m = self._match(text, pos)
            if m is None:
                return (EOF, "", pos)
            k = m.lastgroup
            self.pos = m.end()
            if k == "ws":
                continue
            if k == "hex":
                k = "int"
                self._check_int(pos, m.group())
            elif k == "section":
                self._skip_section(pos)
                continue
            elif k == "int":
                s = m.group()
                if s[0] == "0" and len(s) > 1 and ("8" in s or "9" in s):
                    self._fail(pos, s, f"'{s}' is not a valid octal literal (PTX reads a leading 0 as octal)")
                self._check_int(pos, s)
            elif k == "float":
                self._check_float(pos, m.group())
            elif k in ("bad", "ucomment", "ustr"):
                s = m.group()
                if k == "ucomment":
                    self._fail(pos, s, "unterminated /* comment")
                if k == "ustr":
                    self._fail(pos, s, "unterminated string")
                self._fail(pos, s, f"unexpected character {s!r}")
            return (k, m.group(), pos)

    def _check_int(self, pos: int, s: str):
        """Integer literals are 64-bit at most; a long one is refused before it is converted."""
        if len(s) > MAX_LITERAL_CHARS:
            self._fail(pos, s[:20] + "...", f"integer literal of {len(s)} characters is too long "
                                            f"(literals are at most 64 bits)")
        if int_value(s) > MAX_INT:
            self._fail(pos, s, f"integer literal {s} does not fit in 64 bits")

    def _check_float(self, pos: int, s: str):
        """A decimal float must be a finite double (1e309 would silently become infinity)."""
        if len(s) > 4 * MAX_LITERAL_CHARS:
            self._fail(pos, s[:20] + "...", f"floating-point literal of {len(s)} characters is too long")
        if float(s) == float("inf"):
            self._fail(pos, s, f"floating-point literal {s} is out of range (larger than the largest double)")

    def _skip_section(self, pos: int):
        """Skip `.section name { ... }` (DWARF data in -G and -lineinfo builds)."""
        text = self.text
        h = _SECTION_HEAD.match(text, pos)
        p = h.end()
        while p < len(text) and text[p] in " \t\r\n":
            p += 1
        if p >= len(text) or text[p] != "{":
            self._fail(pos, ".section", "expected '{' after .section name")
        depth = 0
        body = _SECTION_BODY.match
        while True:
            m = body(text, p)
            if m is None:
                self._fail(pos, ".section", "unterminated .section block (missing '}')")
            s = m.group()
            p = m.end()
            if s == "{":
                depth += 1
            elif s == "}":
                depth -= 1
                if depth == 0:
                    self.pos = p
                    return

    def function_follows(self, pos: int) -> bool:
        return _FUNC_AHEAD.match(self.text, pos) is not None
