"""Where NVIDIA's offline tools are: `ptxas` (PTX -> SASS cubin) and `nvdisasm` (cubin -> SASS text).

Looked for in the pip packages first (`nvidia-cuda-nvcc`, `nvidia-cuda-nvdisasm`: the `sass` extra of
pyproject.toml pins ptxas to the CUDA release of the H200's driver, so offline SASS is the JIT's), then on
PATH. Neither needs a GPU. `find_tools()` returns None, with the reason, when one is missing: the timing
model then runs in pure-PTX mode.
"""
from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import subprocess
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..cachedir import cache_root
from .cache import read_json, write_json

# folders of the pip wheels that hold the binaries, under the `nvidia` namespace package
_PIP_BIN_DIRS = ("cu13/bin", "cu12/bin", "cuda_nvcc/bin", "cuda_nvdisasm/bin")


@dataclass(frozen=True)
class Tools:
    ptxas: str
    nvdisasm: str
    ptxas_version: str        # the last line of `ptxas --version` (e.g. "Build cuda_13.0.r13.0/compiler...")
    nvdisasm_version: str

    @property
    def key(self) -> str:
        """What the SASS depends on besides the PTX: part of the cache key."""
        return f"{self.ptxas_version}|{self.nvdisasm_version}"


def _pip_dirs() -> list[Path]:
    try:
        spec = importlib.util.find_spec("nvidia")
    except (ImportError, ValueError):
        return []
    if spec is None or not spec.submodule_search_locations:
        return []
    return [Path(loc) / sub for loc in spec.submodule_search_locations for sub in _PIP_BIN_DIRS]


def _find(name: str) -> str | None:
    for d in _pip_dirs():
        p = d / name
        if p.is_file() and os.access(p, os.X_OK):
            return str(p)
    return shutil.which(name)


def _run_version(path: str) -> str:
    out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=60)
    lines = [ln.strip() for ln in out.stdout.splitlines() if ln.strip()]
    if out.returncode != 0 or not lines:
        raise OSError(f"{path} --version failed: {out.stderr.strip() or out.returncode}")
    return " ".join(lines[-2:])


def _version(path: str) -> str:
    """`path --version`'s last lines, remembered on disk per binary (its path, size, mtime and inode: a reinstall
    changes them): starting the two tools took ~10 ms of every process that lowers a module, a twentieth of a small
    bundle's run. A damaged or unwritable cache only means running the tool."""
    st = os.stat(path)
    ident = f"{os.path.realpath(path)}|{st.st_size}|{st.st_mtime_ns}|{st.st_ino}"
    f = cache_root() / "tools" / (hashlib.sha256(ident.encode()).hexdigest()[:32] + ".json")
    rec = read_json(f)
    if rec is not None and rec.get("ident") == ident and isinstance(rec.get("version"), str) and rec["version"]:
        return rec["version"]
    v = _run_version(path)
    write_json(f, {"ident": ident, "version": v})
    return v


@lru_cache(maxsize=1)
def _found() -> tuple[Tools | None, str]:
    ptxas, nvdisasm = _find("ptxas"), _find("nvdisasm")
    missing = [n for n, p in (("ptxas", ptxas), ("nvdisasm", nvdisasm)) if p is None]
    if missing:
        return None, (f"{' and '.join(missing)} not found (pip install 'simtscope[sass]' or put the CUDA "
                      f"toolkit's bin/ on PATH)")
    try:
        return Tools(ptxas, nvdisasm, _version(ptxas), _version(nvdisasm)), ""
    except (OSError, subprocess.SubprocessError) as e:
        return None, f"cannot run the SASS tools: {e}"


def find_tools() -> Tools | None:
    """The tools, or None when one is missing or does not run (why: `why_missing()`)."""
    return _found()[0]


def why_missing() -> str:
    """Why find_tools() is None ('' when the tools were found)."""
    return _found()[1]
