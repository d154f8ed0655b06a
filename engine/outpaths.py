"""Whether a result file or folder can be written where the user asked, before a run that may take hours.

`file_problem(path)` and `folder_problem(path)` return why not, in a few words, or None when nothing stands in the
way as far as a check made in advance can tell (the command line checks `--json`, `--plot`, `--save-outputs` and
`--out`; the explorer checks its run store folder). A run must not end by losing its results to a typo.
"""
from __future__ import annotations

import os
from pathlib import Path


def file_problem(path: str | Path) -> str | None:
    """Why a file cannot be written at `path` (its folder must exist), or None."""
    p = Path(path)
    if p.is_dir():
        return "it is a folder"
    if not p.parent.is_dir():
        return f"no folder {p.parent}"
    if not os.access(p.parent, os.W_OK | os.X_OK):
        return f"cannot write in {p.parent}"
    return None


def folder_problem(path: str | Path) -> str | None:
    """Why a folder cannot be made (with its parents) or written at `path`, or None."""
    p = Path(path)
    if p.exists() and not p.is_dir():
        return "it is a file, not a folder"
    have = next(q for q in (p, *p.parents) if q.exists())      # the nearest existing folder
    if not have.is_dir():
        return f"{have} is a file, not a folder"
    if not os.access(have, os.W_OK | os.X_OK):
        return f"cannot write in {have}"
    return None
