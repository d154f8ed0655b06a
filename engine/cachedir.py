"""The folder of simtscope's disk caches: $SIMTSCOPE_CACHE_DIR, else $XDG_CACHE_HOME/simtscope, else
~/.cache/simtscope. Its users keep one subfolder each: sass/ and tools/ (engine/sass/cache.py, tools.py), ir/
(engine/ircache.py), bundles/ (engine/workload/unpacked.py). A module of its own, importing nothing of the engine,
so that the workload package (captures on a GPU machine without the C engine) can use it."""
from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    base = os.environ.get("SIMTSCOPE_CACHE_DIR")
    if base:
        return Path(base)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "simtscope"
