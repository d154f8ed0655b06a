"""The disk cache of lowered modules: a module's PTX as TimingSim.prepare_ptx lowers it (parsed, scheduled in
its order, loops unrolled, SASS costs attached), kept so that the next run of the same bundle does not lower it
again; a single kernel's first launch (TimingSim.sass_mode: `simtscope run --case`, validate) loads and stores the
same files. Lowering is pure Python and costs about as much as simulating a small model: resnet18_b1's 25 modules take
0.8 s to lower and 6 ms to load from here (docs/performance.md, "Session 8"). Sweeps run every point in a fresh
process, so each point paid it.

Folder: $SIMTSCOPE_CACHE_DIR/ir, else $XDG_CACHE_HOME/simtscope/ir, else ~/.cache/simtscope/ir (beside the
SASS cache, engine/sass/cache.py). SIMTSCOPE_IR_CACHE=0 turns it off.

A file's key covers everything the lowered module depends on: the PTX text and file name, the lowering
parameters (timing.sass, its order and unrolling), the SASS tools' versions, and the engine's build digest
(engine/buildinfo.py: the compiled library and every engine/*.py), so any change to the engine is a new key,
never a stale program. A file is zstandard-compressed pickle written whole (a temporary file renamed); a file
that does not read back as this format and key is ignored (and rewritten by the next store). The folder is the
user's own, like Python's __pycache__: only this module writes it, from programs the engine made. Since every
engine build writes new keys, the folder is kept to MAX_FILES files (about 17 KB each), the oldest removed first.
"""
from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
from pathlib import Path

import zstandard

from .buildinfo import engine_digest
from .cachedir import cache_root

FORMAT = 1
MAGIC = b"simtscope-ir\0"
MAX_FILES = 4096            # every engine build writes new keys: past this many files the oldest go (prune)


def enabled() -> bool:
    return os.environ.get("SIMTSCOPE_IR_CACHE", "1") != "0"


def cache_dir() -> Path:
    return cache_root() / "ir"


def key_of(source: str, filename: str, params: tuple) -> str:
    """sha256 (hex) of the format, the engine build, the lowering parameters, the file name and the PTX."""
    h = hashlib.sha256()
    for part in (f"ir-cache/{FORMAT}".encode(), engine_digest().encode(), repr(params).encode(),
                 filename.encode(), source.encode()):
        h.update(len(part).to_bytes(8, "little"))
        h.update(part)
    return h.hexdigest()


def _head(key: str) -> bytes:
    return MAGIC + FORMAT.to_bytes(4, "little") + bytes.fromhex(key)


def load(key: str):
    """The lowered module stored under key, or None (absent, unreadable, another format or key)."""
    try:
        blob = (cache_dir() / f"{key}.ir").read_bytes()
        head = _head(key)
        if not blob.startswith(head):
            return None
        return pickle.loads(zstandard.ZstdDecompressor().decompress(blob[len(head):]))
    except Exception:       # (a damaged file of any kind is only a miss: the module is lowered again)
        return None


def prune(d: Path, keep: int | None = None) -> None:
    """Past MAX_FILES files, the oldest (by modification time) removed until `keep` (3/4 of it) are left."""
    keep = MAX_FILES * 3 // 4 if keep is None else keep
    try:
        files = [(e.stat().st_mtime, e.path) for e in os.scandir(d) if e.name.endswith(".ir") and e.is_file()]
    except OSError:
        return
    if len(files) <= MAX_FILES:
        return
    files.sort()
    for _, path in files[: len(files) - keep]:
        try:
            os.unlink(path)
        except OSError:
            pass


def store(key: str, lowered) -> None:
    """Best effort: a read-only or full disk only costs the next run the lowering."""
    d = cache_dir()
    tmp = None
    try:
        data = _head(key) + zstandard.ZstdCompressor(level=3).compress(pickle.dumps(lowered, protocol=5))
        d.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-", suffix=".ir")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, d / f"{key}.ir")
        tmp = None
        if int(key[:2], 16) < 4:                      # (one store in 64 looks at the folder's size)
            prune(d)
    except (OSError, pickle.PicklingError, TypeError, AttributeError):
        pass
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
