"""SASS-aware timing's front end: what ptxas makes of a PTX module, per PTX instruction.

The H200 runs the SASS that the driver's JIT compiles from the PTX, not the PTX. With NVIDIA's offline
tools (`ptxas`, `nvdisasm`: pip `nvidia-cuda-nvcc`, `nvidia-cuda-nvdisasm`; no GPU needed) this package
compiles a module for sm_90a, reads back every SASS instruction with the PTX line it came from
(disasm.py), classes it (classes.py) and gives each IR instruction of a lowered Program its SASS count,
pipe and classes, and each function ptxas's register count (costs.py). Results are cached on disk by the
PTX bytes and tool versions (cache.py). The timing model (engine/timing.py) issues each PTX instruction as
that many SASS issue slots; values still come from executing the PTX. docs/sass.md has the details.

    costs = sass.costs_for(program)       # SassCosts, or raises SassUnavailable / SassError

Modes (config `timing.sass`): "auto" uses SASS when the tools are found and ptxas accepts the module,
"off" never; `mode_for()` says which applies and why.
"""
from __future__ import annotations

from .cache import key_of, load as cache_load, store as cache_store
from .costs import COST_DT, KernelSass, SassCosts, program_costs  # noqa: F401
from .disasm import ARCH, SassError, SassFunction, SassInst, compile_ptx
from .tools import Tools, find_tools, why_missing  # noqa: F401
from . import unroll  # noqa: F401,E402

MODES = ("auto", "off", "regs")


class SassUnavailable(RuntimeError):
    """The SASS tools are not installed (the message says what to install)."""


def analyse(ptx: str | bytes, tools: Tools | None = None) -> dict[str, SassFunction]:
    """The SASS of every function of a PTX module (from the disk cache when it was compiled before)."""
    tools = tools or find_tools()
    if tools is None:
        raise SassUnavailable(why_missing())
    data = ptx.encode() if isinstance(ptx, str) else bytes(ptx)
    key = key_of(data, tools.key, ARCH)
    hit = cache_load(key)
    if hit is not None:
        try:
            return _from_json(hit["functions"])
        except (KeyError, TypeError, ValueError):
            pass                                  # a damaged file: compile again
    funcs, _log = compile_ptx(data, tools)
    cache_store(key, {"functions": _to_json(funcs), "tools": tools.key, "arch": ARCH})
    return funcs


def costs_for(program, tools: Tools | None = None) -> SassCosts:
    """Per IR instruction of a lowered Program: SASS issue cost, pipe and classes; registers per function."""
    return program_costs(program, analyse(program.source, tools))


def line_order(funcs: dict[str, SassFunction]) -> dict[int, int]:
    """PTX line -> position of the last SASS instruction ptxas made of it (functions in turn, instructions
    in address order): the order ptxas scheduled the PTX in, for engine.ptx.load(sass_keys=...). The last,
    because a line's address arithmetic may be issued long before its load or store (a Triton GEMM's
    `st.shared` lines start with their shared address near the top, their STS come after all the LDGs).
    Only lines outside SASS loops: in a loop ptxas unrolls, peels and pipelines, a line has several copies
    in several blocks (sgemm_naive: a 16x body and a remainder), and no copy's position says where the
    main body issues it."""
    keys: dict[int, int] = {}
    in_loop: set[int] = set()
    pos = 0
    for f in funcs.values():
        for si in f.insts:
            if si.line:
                if si.depth:
                    in_loop.add(si.line)
                else:
                    keys[si.line] = pos
            pos += 1
    return {ln: k for ln, k in keys.items() if ln not in in_loop}


def _to_json(funcs: dict[str, SassFunction]) -> dict:
    return {name: {"insts": [[i.opcode, i.mods, i.line, int(i.predicated), i.block, i.depth, " ".join(i.dst),
                              " ".join(i.src)] for i in f.insts],
                   "padding": f.padding, "is_entry": f.is_entry, "registers": f.registers,
                   "stack_bytes": f.stack_bytes, "spill_store_bytes": f.spill_store_bytes,
                   "spill_load_bytes": f.spill_load_bytes} for name, f in funcs.items()}


def _from_json(d: dict) -> dict[str, SassFunction]:
    out = {}
    for name, f in d.items():
        out[name] = SassFunction(name, [SassInst(str(o), str(m), int(ln), bool(p), int(b), int(d),
                                                 dst=tuple(str(w).split()), src=tuple(str(r).split()))
                                        for o, m, ln, p, b, d, w, r in f["insts"]],
                                 int(f["padding"]), bool(f["is_entry"]), int(f["registers"]),
                                 int(f["stack_bytes"]), int(f["spill_store_bytes"]), int(f["spill_load_bytes"]))
    return out
