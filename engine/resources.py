"""Where the project's data folders are: configs/, validation/ and workloads/; and which optional modules
are installed (missing_module).

In a source checkout they sit next to `engine/` at the top of the tree; an installed wheel carries them as
package data inside `engine` (pyproject/setup.py map `engine.<name>` to the top-level folder), found through
`importlib.resources`. Every module asks `data_path(name)` instead of walking up from its own `__file__`.

The checkout comes first so that a working tree uses its own files even where an editable install of another
checkout is on the path (that install's finder would answer `engine.<name>` with the other tree's folder).
"""
from __future__ import annotations

from importlib.resources import files
from pathlib import Path

DATA_DIRS = ("configs", "validation", "workloads")   # setup.py ships each of these that exists

_CHECKOUT = Path(__file__).resolve().parent.parent


def _in_checkout() -> bool:
    return (_CHECKOUT / "pyproject.toml").is_file() and (_CHECKOUT / "engine" / "__init__.py").is_file()


def data_path(name: str) -> Path:
    """The folder `name` (one of DATA_DIRS) as a file-system path; it may not exist (workloads/ is optional)."""
    if name not in DATA_DIRS:
        raise ValueError(f"unknown data folder {name!r}: expected one of {', '.join(DATA_DIRS)}")
    if _in_checkout():
        return _CHECKOUT / name
    res = files("engine").joinpath(name)
    if not isinstance(res, Path):   # a zip import: not something simtscope is installed as
        raise RuntimeError(f"simtscope's data folder {name} is not on the file system ({res}); install it unzipped")
    return res


def missing_module(*names: str) -> str | None:
    """The first of these top-level modules that cannot be imported, found without importing it (the command
    line offers `sweep` and `capture` only where flask/dask and torch are there)."""
    import importlib.util
    for name in names:
        try:
            if importlib.util.find_spec(name) is None:
                return name
        except (ImportError, ValueError):
            return name
    return None
