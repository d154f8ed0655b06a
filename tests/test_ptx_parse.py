"""The PTX corpus (tests/fixtures/ptx: nvcc 13 for sm_75..sm_90a incl. -G and -lineinfo builds, and
Triton 3.9 for sm_75..sm_90) parses and lowers; the engine refuses exactly the opcodes listed in
refused.json (regenerate it with tests/fixtures/ptx/refused.py when a family lands)."""
import json
from pathlib import Path

import pytest

from engine.ptx import UnsupportedInstruction, load
from engine.ptx.lower import lower
from engine.ptx.syntax import parse

CORPUS = Path(__file__).resolve().parent / "fixtures" / "ptx"
REFUSED = json.loads((CORPUS / "refused.json").read_text())
VALIDATION = Path(__file__).resolve().parent.parent / "validation" / "ptx"


@pytest.mark.parametrize("rel", sorted(REFUSED))
def test_corpus_file_loads_or_refuses_exactly_the_listed_opcodes(rel):
    path = CORPUS / rel
    try:
        prog = load(path)
        got = []
        assert len(prog.insts) > 0 and prog.kernels
    except UnsupportedInstruction as e:
        got = sorted({op for op, _, _ in e.instructions})
        lines = path.read_text().splitlines()
        for op, line, col in e.instructions:     # each refusal points at the instruction's text
            assert op in lines[line - 1] and lines[line - 1].index(op) + 1 == col
    assert got == REFUSED[rel]


def test_corpus_is_complete():
    files = {str(p.relative_to(CORPUS)) for p in CORPUS.rglob("*.ptx")} - {"nvcc/recursion.sm90.ptx",
                                                                          "nvcc/printf.sm90.ptx"}
    assert files == set(REFUSED)
    targets = {parse(p.read_text()).target[0] for p in CORPUS.rglob("*.ptx")}
    assert {"sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a"} <= targets


@pytest.mark.parametrize("path", sorted(VALIDATION.glob("*.ptx")), ids=lambda p: p.name)
def test_validation_ptx_is_fully_supported(path):
    assert load(path).kernels


@pytest.mark.parametrize("rel", ["nvcc/calls.sm75.ptx", "nvcc/control.sm75.ptx", "triton/add.sm75.ptx"])
def test_sm70_target(rel):
    """nvcc 13 no longer targets sm_70; nvcc 12's sm_70 output differs from its sm_75 output only in
    .target for ordinary CUDA C, which is what this checks."""
    text = (CORPUS / rel).read_text().replace(".target sm_75", ".target sm_70")
    mod = parse(text, rel)
    assert mod.target == ["sm_70"]
    lower(mod, text)


def test_debug_build_keeps_source_mapping_and_skips_dwarf():
    text = (CORPUS / "nvcc/control.sm90.G.ptx").read_text()
    assert ".section" in text
    prog = lower(parse(text), text)
    assert any(f.endswith("control.cu") for f in prog.files.values())
    cu = [c for c in prog.pc_cuda if c is not None]
    assert len(cu) > 0.6 * len(prog.pc_cuda)
    main = next(i for i, f in prog.files.items() if f.endswith("control.cu"))
    src_lines = {ln for fi, ln in cu if fi == main}
    assert min(src_lines) >= 0 and max(src_lines) <= len((CORPUS / "nvcc/control.cu").read_text().splitlines())


def test_lineinfo_build_maps_to_cuda_lines():
    text = (CORPUS / "nvcc/misc.sm80.lineinfo.ptx").read_text()
    assert "inlined_at" in text and "function_name" in text
    prog = lower(parse(text), text)
    assert sum(c is not None for c in prog.pc_cuda) > 0.6 * len(prog.pc_cuda)


def test_triton_performance_directives_and_params():
    prog = load(CORPUS / "triton/layernorm.sm90.ptx")
    f = prog.kernels["layernorm_kernel"]
    assert f.perf["reqntid"] == [128]
    assert list(prog.funcs[f.index]["reqntid"]) == [128, 1, 1]
    assert [p.type for p in f.params][:2] == ["u64", "u64"]      # .param .u64 .ptr .global .align 1


def test_module_level_declarations_of_the_corpus():
    text = (CORPUS / "nvcc/calls.sm90.ptx").read_text()
    mod = parse(text)
    spaces = {(v.space, tuple(v.linkage)) for v in mod.variables}
    assert ("const", ()) in spaces and ("global", ()) in spaces and ("shared", ("extern",)) in spaces
    funcs = {f.name: f for f in mod.functions}
    cross = funcs["_Z6cross3RK4Vec3S_"]
    assert cross.rets[0].align == 4 and cross.rets[0].dims == [12]
