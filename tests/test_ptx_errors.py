"""Errors from the PTX front end: syntax errors name file, line, column and token; semantic errors name
line and column; unsupported instructions are all listed by name; hostile input fails with a clear error."""
import pytest

from engine.ptx import PTXSemanticError, PTXSyntaxError, UnsupportedInstruction, load

HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"


def kernel(body: str, decls: str = ".reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n.reg .pred %p;\n.reg .f32 %f<3>;\n"
                                   ".reg .u32 %u<3>;\n") -> str:
    return HEAD + ".visible .entry k(.param .u64 p)\n{\n" + decls + body + "\n}\n"


def syntax_error(text, filename="bad.ptx") -> PTXSyntaxError:
    with pytest.raises(PTXSyntaxError) as e:
        load(text, filename)
    assert str(e.value).startswith(f"{filename}:{e.value.line}:{e.value.col}: ")
    return e.value


def semantic_error(text) -> PTXSemanticError:
    with pytest.raises(PTXSemanticError) as e:
        load(text, "sem.ptx")
    assert str(e.value).startswith(f"sem.ptx:{e.value.line}:{e.value.col}: ")
    return e.value


@pytest.mark.parametrize("body, line, col, token, words", [
    ("mov.u32 %r1, 1\nret;", 12, 1, "ret", "expected ',' or ';'"),                   # missing semicolon
    ("mov.u32 %r1, *;\nret;", 11, 14, "*", "unexpected character '*'"),               # bad operand
    ("add.s32 %r1, %r2, ;\nret;", 11, 19, ";", "expected an operand"),
    ("ld.global.u32 %r1, [%rd1 + ];", 11, 28, "]", "expected an integer offset"),
    (".frobnicate 3;\nret;", 11, 1, ".frobnicate", "expected an instruction, a label or a declaration"),
    ("mov.u32 %r1, 09;", 11, 14, "09", "not a valid octal literal"),
    ("mov.u32 %r1, 1; /* never closed", 11, 17, "/*", "unterminated /* comment"),
])
def test_syntax_errors_name_line_column_and_token(body, line, col, token, words):
    e = syntax_error(kernel(body))
    assert (e.line, e.col, e.token) == (line, col, token)
    assert words in e.message


def test_unknown_module_directive():
    e = syntax_error(HEAD + ".frobnicate 1\n")
    assert (e.line, e.col, e.token) == (4, 1, ".frobnicate") and "expected a directive" in e.message


def test_unbalanced_braces():
    e = syntax_error(kernel("ret;").rstrip().rstrip("}"))          # missing '}'
    assert "block(s) still open" in e.message and e.token == ""
    e = syntax_error(kernel("ret;") + "}\n")                           # one '}' too many
    assert e.token == "}" and e.line == 13


def test_binary_junk_empty_and_truncated_files():
    e = syntax_error(bytes([0x7f, 0x45, 0x4c, 0x46, 0x02, 0xff, 0x00]), "a.out")
    assert e.line == 1 and "binary data" in e.message
    e = syntax_error(HEAD + "\x00mov", "nul.ptx")
    assert e.token == "\x00" and (e.line, e.col) == (4, 1) and "unexpected character" in e.message
    with pytest.raises(PTXSemanticError, match="defines no function"):
        load("", "empty.ptx")
    full = kernel("mov.u32 %r1, 1;\nret;")
    e = syntax_error(full[: full.index("%r1, 1") + 4])                # cut in the middle of an instruction
    assert "end of input" in e.message


@pytest.mark.parametrize("body, words", [
    ("mov.u32 %r9, 1;", "undeclared name '%r9'"),
    ("bra NOWHERE;", "undefined label 'NOWHERE'"),
    ("add.bogus.s32 %r1, %r2, %r3;", "unknown modifier '.bogus'"),
    ("add.s32 %r1, %r2;", "'add' takes 3 operands, 2 given"),
    ("add.s32 %rd1, %rd2, %rd3;", "operand %rd1 is a 64-bit register; add.s32 needs a 32-bit operand"),
    ("add.f32 %f1, %u1, %f2;", "operand %u1 is a .u32 register; add.f32 needs a float"),
    ("add.s32 %u1, %f1, %u2;", "operand %f1 is a .f32 register; add.s32 needs an integer"),
    ("@%r1 bra L;\nL: ret;", "guard '%r1' is not a declared predicate"),
    ("frobnicate %r1;", "unknown instruction 'frobnicate'"),
])
def test_semantic_errors_name_line_and_column(body, words):
    e = semantic_error(kernel(body))
    assert words in e.message
    assert (e.line, e.col) == (11, 1 if not body.startswith("@") else 6)


def test_every_unsupported_instruction_is_listed():
    body = ("tex.2d.v4.f32.f32 {%f1, %f2, %f1, %f2}, [t, {%f1, %f2}];\n"
            "vadd.u32.u32.u32 %r1, %r2, %r3;\n"
            "suld.b.1d.b32.trap {%r1}, [s, {%r2}];\nret;")
    with pytest.raises(UnsupportedInstruction) as e:
        load(kernel(body), "un.ptx")
    ops = [(o, ln) for o, ln, _ in e.value.instructions]
    assert ops == [("tex.2d.v4.f32.f32", 11), ("vadd.u32.u32.u32", 12), ("suld.b.1d.b32.trap", 13)]
    assert "unsupported instruction 'tex.2d.v4.f32.f32'" in str(e.value) and "vadd.u32.u32.u32 at line 12" in str(e.value)


def test_hostile_input_fails_at_once():
    e = syntax_error("\x01junk " * (10 * 2**20 // 6))                     # 10 MB of junk
    assert (e.line, e.col) == (1, 1)
    e = syntax_error(HEAD + ".visible .entry k()\n" + "{" * 100_000)      # deeply nested braces
    assert "nested deeper than 1024" in e.message
    e = syntax_error(HEAD + ".global .u32 g[1] = " + "{" * 1000 + "1" + "}" * 1000 + ";")
    assert "initialiser nested deeper" in e.message
    e = syntax_error("// comment\n" * 1_000_000 + "junk")                 # a 1M-line file
    assert e.line == 1_000_001 and e.token == "junk"
