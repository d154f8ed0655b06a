"""Binding script of the run store's C module (csrc/lod.c): cffi API mode, as webapp.store._lod.

The store's own extension rather than a part of the engine's: the store sits above the engine and needs only
this arithmetic, so it neither reaches into `engine._ffi` nor puts its helpers in the simulator's public header.
The cdef is csrc/lod.h minus preprocessor lines (the same rule as engine/build_ffi.py).
"""
from pathlib import Path

from cffi import FFI

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
HEADER = HERE / "csrc" / "lod.h"


def _rel(p: Path) -> str:
    return str(p.relative_to(ROOT))


ffibuilder = FFI()
ffibuilder.cdef("\n".join(line for line in HEADER.read_text().splitlines() if not line.lstrip().startswith("#")))
ffibuilder.set_source(
    "webapp.store._lod",
    '#include "lod.h"',
    sources=[_rel(HERE / "csrc" / "lod.c")],
    include_dirs=[_rel(HERE / "csrc")],
    depends=[_rel(HEADER)],
    extra_compile_args=["-O3", "-std=c11", "-Wall", "-Wextra"],
)

if __name__ == "__main__":
    ffibuilder.compile(verbose=False)
