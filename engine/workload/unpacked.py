"""The disk cache of unpacked bundle archives: an archive's files as open_bundle unpacked and checked them, kept so
that the next run of the same archive reads them instead of decompressing it again. Unpacking is xz decompression,
serial and slow: mlp_b128's 3.9 MB archive took 0.25 s to open, about as long as its simulation at two threads, and
every sweep point opened its bundle again (docs/performance.md, "Session 13").

Folder: $SIMTSCOPE_CACHE_DIR/bundles, else $XDG_CACHE_HOME/simtscope/bundles, else ~/.cache/simtscope/bundles (beside
the SASS and IR caches). SIMTSCOPE_BUNDLE_CACHE=0 turns it off.

An entry's key is the sha256 of the archive's bytes and of the limits it was unpacked under (a tighter limit is
another key, so it is checked again). An entry is a folder `<key>/` holding `content/` (the unpacked files) and
`complete` (written last): it is unpacked under a temporary name in the same folder and renamed whole, so a reader
never sees a partial one, and of two processes unpacking the same archive one keeps its folder and the other
discards its own. Entries are only read. The folder is kept under MAX_BYTES, the least recently used entries
removed first, but never one used in the last KEEP_S seconds (another process may be reading it). Any failure of the
cache itself (a read-only or full disk) falls back to a temporary folder: it never fails a run.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Callable

from ..cachedir import cache_root

FORMAT = 1
MAX_BYTES = 2 << 30         # the folder's size past which the least recently used entries go
KEEP_S = 3600               # an entry used this recently is never removed


def enabled() -> bool:
    return os.environ.get("SIMTSCOPE_BUNDLE_CACHE", "1") != "0"


def cache_dir() -> Path:
    return cache_root() / "bundles"


def key_of(src: Path, max_members: int, max_bytes: int) -> str:
    """sha256 (hex) of the format, the limits and the archive's bytes"""
    h = hashlib.sha256(f"bundle-cache/{FORMAT}/{max_members}/{max_bytes}/{src.suffix.lower()}\0".encode())
    with open(src, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def lookup(key: str) -> Path | None:
    """The unpacked files stored under key (marked used now), or None"""
    d = cache_dir() / key
    if not (d / "complete").is_file():
        return None
    try:
        os.utime(d)
    except OSError:
        pass
    return d / "content"


def store(key: str, unpack: Callable[[Path], None]) -> Path:
    """Unpack with `unpack(folder)` into a new entry under key and return its files. Exceptions of `unpack` pass
    through (nothing is kept); OSError: the cache could not be written."""
    top = cache_dir()
    top.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".unpacking-", dir=top))
    try:
        unpack(tmp / "content")
        (tmp / "complete").write_text(f"{time.time():.0f}\n")
        for attempt in (0, 1):
            try:
                os.rename(tmp, top / key)
            except OSError:
                if lookup(key) is not None:         # another process stored it first: use that one
                    break
                if attempt or not (top / key).is_dir():
                    raise
                shutil.rmtree(top / key, ignore_errors=True)   # a leftover without `complete`: replace it
            else:
                tmp = None
                break
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    prune()
    found = lookup(key)
    if found is None:
        raise OSError(f"bundle cache entry {key} vanished")
    return found


def _size(d: Path) -> int:
    return sum(f.stat().st_size for f in d.rglob("*") if f.is_file())


def prune(max_bytes: int = MAX_BYTES, keep_s: float = KEEP_S) -> None:
    """Remove the least recently used entries until the folder holds at most max_bytes (entries used within the
    last keep_s seconds stay; so do temporary folders, which their writers remove)"""
    try:
        entries = [(d.stat().st_mtime, d) for d in cache_dir().iterdir() if d.is_dir() and not d.name.startswith(".")]
        sizes = {d: _size(d) for _, d in entries}
    except OSError:
        return
    total = sum(sizes.values())
    now = time.time()
    for mtime, d in sorted(entries):
        if total <= max_bytes:
            break
        if now - mtime < keep_s:
            continue
        try:
            (d / "complete").unlink()              # first: a reader that looks now finds no entry
        except FileNotFoundError:
            pass                                    # (a leftover without it goes too)
        except OSError:
            continue
        shutil.rmtree(d, ignore_errors=True)
        total -= sizes[d]
