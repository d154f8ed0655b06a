"""The only binding script: compiles the C engine with cffi in API mode as engine._engine.

The cdef is the public header itself (engine/include/simtscope.h) minus preprocessor lines, so the
Python side can never disagree with C about a struct layout or an enum value.
"""
from pathlib import Path

from cffi import FFI

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
HEADER = HERE / "include" / "simtscope.h"


def _rel(p: Path) -> str:
    return str(p.relative_to(ROOT))


def cdef_source() -> str:
    return "\n".join(line for line in HEADER.read_text().splitlines() if not line.lstrip().startswith("#"))


import os

# The engine is built on the machine that runs it (pip install -e / setup.py build_ext), so it may use
# that CPU's instruction set: fused multiply-add and popcount instructions instead of library calls.
# SIMTSCOPE_PORTABLE=1 builds for baseline x86-64 (for wheels that travel).
ARCH = [] if os.environ.get("SIMTSCOPE_PORTABLE") else ["-march=native"]

# Code generation flags, also given to the linker (profile-guided builds link their run-time there):
# no fused multiply-add contraction and honoured rounding modes keep every result bit-exact.
CFLAGS = ARCH + ["-O3", "-std=c11", "-ffp-contract=off", "-frounding-math", "-fno-strict-aliasing"]

# Profile-guided builds (scripts/build_pgo.py): gen:DIR instruments the engine to write its profile to DIR,
# use:DIR compiles with that profile (same code generation flags: the same results, faster code).
_pgo = os.environ.get("SIMTSCOPE_PGO_PROFILE", "")
if _pgo.startswith("gen:"):
    CFLAGS += ["-fprofile-generate=" + _pgo[4:], "-fprofile-update=prefer-atomic"]
elif _pgo.startswith("use:"):
    CFLAGS += ["-fprofile-use=" + _pgo[4:], "-fprofile-partial-training", "-Wno-missing-profile"]

# How this build was made, compiled into the library (gs_build_desc): speed measurements depend on it, so the
# benchmarks print it beside their numbers (the profile-guided build is ~9 % faster: docs/performance.md).
BUILD_DESC = ", ".join([
    {"gen": "profile-instrumented", "use": "profile-guided"}.get(_pgo.split(":")[0], "plain"),
    "portable x86-64" if not ARCH else "-march=native", "-O3"])

ffibuilder = FFI()
ffibuilder.cdef(cdef_source())
ffibuilder.set_source(
    "engine._engine",
    '#include "simtscope.h"',
    sources=sorted(_rel(p) for p in (HERE / "csrc").glob("*.c")),
    include_dirs=[_rel(HERE / "include"), _rel(HERE / "csrc")],
    depends=sorted(_rel(p) for p in list((HERE / "include").glob("*.h")) + list((HERE / "csrc").glob("*.h"))),
    extra_compile_args=CFLAGS + ["-Wall", "-Wextra", "-Wno-unused-parameter", "-D_GNU_SOURCE",
                                 f'-DGS_BUILD_DESC="{BUILD_DESC}"'],
    extra_link_args=CFLAGS,
    libraries=["m"],
)

if __name__ == "__main__":
    ffibuilder.compile(verbose=False)
