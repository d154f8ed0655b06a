"""The disk cache of compiled modules: one JSON file per (PTX bytes, ptxas and nvdisasm versions, target).

Folder: $SIMTSCOPE_CACHE_DIR/sass, else $XDG_CACHE_HOME/simtscope/sass, else ~/.cache/simtscope/sass.
Files are written whole (a temporary file renamed), so a reader never sees half of one; an unreadable or
foreign file is ignored and rewritten. Nothing expires: a module's SASS never changes for one toolchain.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from ..cachedir import cache_root

FORMAT = 4


def cache_dir() -> Path:
    return cache_root() / "sass"


def key_of(ptx: bytes, tools_key: str, arch: str) -> str:
    h = hashlib.sha256()
    for part in (f"sass-cache/{FORMAT}".encode(), arch.encode(), tools_key.encode(), ptx):
        h.update(len(part).to_bytes(8, "little"))
        h.update(part)
    return h.hexdigest()


def read_json(p: Path) -> dict | None:
    """The JSON object in file p, or None (absent, unreadable, not JSON, not an object)."""
    try:
        data = json.loads(p.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def write_json(p: Path, data: dict) -> None:
    """data into file p, written whole (a temporary file renamed); best effort: a read-only or full disk only
    costs the next run the work the file would have saved."""
    tmp = None
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=".tmp-", suffix=".json")
        with os.fdopen(fd, "w") as f:
            json.dump(data, f, separators=(",", ":"))
        os.replace(tmp, p)
        tmp = None
    except OSError:
        pass
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def load(key: str) -> dict | None:
    data = read_json(cache_dir() / f"{key}.json")
    return data if data is not None and data.get("format") == FORMAT and data.get("key") == key else None


def store(key: str, data: dict) -> None:
    """Best effort: a read-only or full disk only costs the next run a compile."""
    write_json(cache_dir() / f"{key}.json", {**data, "format": FORMAT, "key": key})
