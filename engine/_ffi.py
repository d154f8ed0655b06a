"""The one importer of the compiled engine (engine._engine). Everything else uses engine.device etc.

`E` gives the header's enums as plain dicts without their prefixes: E.op["add"] == lib.GS_OP_ADD.
"""
from __future__ import annotations

from types import SimpleNamespace

try:
    from ._engine import ffi, lib  # noqa: F401
except ImportError as exc:  # pragma: no cover - message for an unbuilt checkout
    raise ImportError(
        "the C engine is not built: run `pip install -e .` (or `python setup.py build_ext --inplace`) "
        f"in the project root ({exc})") from exc


def _enum(ctype: str, prefix: str) -> dict[str, int]:
    return {name[len(prefix):].lower(): value
            for value, name in ffi.typeof(ctype).elements.items() if name.startswith(prefix)}


E = SimpleNamespace(
    op=_enum("enum gs_op", "GS_OP_"),
    type=_enum("enum gs_type", "GS_T_"),
    rnd=_enum("enum gs_rnd", "GS_RND_"),
    flag=_enum("enum gs_flag", "GS_F_"),
    cmp=_enum("enum gs_cmp", "GS_CMP_"),
    sub=_enum("enum gs_sub", "GS_"),
    space=_enum("enum gs_space", "GS_SPACE_"),
    ok=_enum("enum gs_opnd_kind", "GS_OK_"),
    of=_enum("enum gs_opnd_flag", "GS_OF_"),
    sreg=_enum("enum gs_sreg", "GS_SR_"),
    fault=_enum("enum gs_fault_kind", "GS_FAULT_"),
    unit=_enum("enum gs_unit", "GS_U_"),
    status={"done": lib.GS_DONE, "running": lib.GS_RUNNING, "faulted": lib.GS_FAULTED},
)
OP_NAMES = {v: k for k, v in E.op.items()}
