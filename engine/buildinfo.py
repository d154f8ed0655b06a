"""What identifies the simulator that produced a result, beyond the package version: a digest of the
compiled engine library and of the engine's Python sources (front end, lowering, timing glue).

Sweeps key their points by it, so a point simulated by an earlier build of the engine is run again rather
than reused after a change that kept the version number (every development build does)."""
from __future__ import annotations

import hashlib
from functools import lru_cache
from importlib import metadata
from pathlib import Path

_ENGINE = Path(__file__).resolve().parent


def _engine_files() -> list[Path]:
    libs = sorted(p for p in _ENGINE.glob("_engine*") if p.suffix in (".so", ".pyd"))
    srcs = sorted(p for p in _ENGINE.rglob("*.py") if "__pycache__" not in p.parts)
    return libs + srcs


@lru_cache(maxsize=1)
def engine_digest() -> str:
    """sha256 over the engine library's bytes and every engine/*.py (path and bytes), hex."""
    h = hashlib.sha256()
    for p in _engine_files():
        h.update(str(p.relative_to(_ENGINE)).encode() + b"\0")
        h.update(p.read_bytes())
        h.update(b"\0")
    return h.hexdigest()


def package_version() -> str:
    try:
        return metadata.version("simtscope")
    except metadata.PackageNotFoundError:          # a source checkout that was never installed
        return "0+unknown"


def build_id() -> str:
    """`<package version>+<first 12 hex digits of engine_digest()>`, e.g. `0.1.0+3fa2c0d19e4b`."""
    return f"{package_version()}+{engine_digest()[:12]}"
