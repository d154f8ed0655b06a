"""The layers of docs/architecture.md import downwards only: every module's imports, read with `ast`, are
checked against the arrows below. A new module belongs to the layer of its longest matching prefix."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "webapp", "simtscope")

# layer -> module prefixes (longest prefix wins)
LAYERS = {
    "binding": ("engine._ffi", "engine._engine", "engine.build_ffi"),
    "recording": ("engine.recording", "engine.enums"),
    "ir": ("engine.ptx", "engine.sass", "engine.cachedir"),
    "engine": ("engine",),
    "workloads": ("engine.workload", "engine.traces"),
    "store": ("webapp.store",),
    "server": ("webapp",),
    "cli": ("simtscope",),
}
# layer -> the layers it may import (besides itself): the arrows of docs/architecture.md
MAY_IMPORT = {
    "binding": set(),
    "recording": set(),
    "ir": {"binding"},
    "engine": {"ir", "recording", "binding"},
    "workloads": {"engine", "ir", "recording", "binding"},
    "store": {"recording"},
    "server": {"store", "workloads", "engine", "ir", "recording"},
    "cli": {"server", "workloads", "engine", "ir", "recording"},
}
# compiled extensions: each has exactly one importer
ONLY_IMPORTER = {"engine._engine": "engine._ffi", "webapp.store._lod": "webapp.store.lod"}


def layer_of(module: str) -> str | None:
    best, name = -1, None
    for layer, prefixes in LAYERS.items():
        for p in prefixes:
            if (module == p or module.startswith(p + ".")) and len(p) > best:
                best, name = len(p), layer
    return name


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(source: str, module: str, is_package: bool) -> set[str]:
    """Every module of ours that `source` (the text of `module`) imports, relative imports resolved;
    `from a import b` counts as importing a.b where b is a module, else as importing a."""
    pkg = module if is_package else module.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg.split(".")[:len(pkg.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            mods = [f"{target}.{a.name}" for a in node.names if _is_module(f"{target}.{a.name}")]
            out.update(mods)
            if len(mods) < len(node.names):     # some names are the package's own attributes
                out.add(target)
    return {m for m in out if m.split(".")[0] in PACKAGES}


def _is_module(name: str) -> bool:
    p = ROOT / name.replace(".", "/")
    return p.with_suffix(".py").is_file() or p.is_dir() or any(p.parent.glob(p.name + ".*.so"))


def violations(module: str, imported: set[str]) -> list[str]:
    me = layer_of(module)
    bad = []
    for target in sorted(imported):
        for ext, owner in ONLY_IMPORTER.items():
            if (target == ext or target.startswith(ext + ".")) and module != owner:
                bad.append(f"{module} imports {target}: only {owner} may")
        them = layer_of(target)
        if them is None or them == me or them in MAY_IMPORT[me]:
            continue
        bad.append(f"{module} ({me}) imports {target} ({them})")
    return bad


def all_modules():
    for top in PACKAGES:
        for p in sorted((ROOT / top).rglob("*.py")):
            if "__pycache__" not in p.parts:
                yield p


def test_every_module_imports_downwards_only():
    bad = []
    for p in all_modules():
        m = module_name(p)
        assert layer_of(m) is not None, f"{m} is in no layer: add it to LAYERS and docs/architecture.md"
        bad += violations(m, imports_of(p.read_text(), m, p.name == "__init__.py"))
    assert not bad, "imports against the arrows of docs/architecture.md:\n" + "\n".join(bad)


@pytest.mark.parametrize("module,source,expect", [
    ("engine.timing", "from webapp.store import reader", "engine.timing (engine) imports webapp.store.reader (store)"),
    ("engine.cli", "import simtscope.cli", "engine.cli (engine) imports simtscope.cli (cli)"),
    ("webapp.store.lod", "from engine._ffi import ffi, lib", "webapp.store.lod (store) imports engine._ffi (binding)"),
    ("webapp.store.reader", "from .. import services", "webapp.store.reader (store) imports webapp.services (server)"),
    ("engine.recording", "from ._ffi import ffi", "engine.recording (recording) imports engine._ffi (binding)"),
    ("webapp.frames", "from engine._engine import lib", "webapp.frames imports engine._engine: only engine._ffi may"),
    ("engine.device", "from ._engine import lib", "engine.device imports engine._engine: only engine._ffi may"),
])
def test_the_checker_finds_imports_against_the_arrows(module, source, expect):
    assert expect in violations(module, imports_of(source, module, False))


def test_the_checker_allows_the_arrows():
    for module, source in [("simtscope.cli", "from webapp.serve import serve\nfrom engine.cases import load_suite"),
                           ("webapp.store.writer", "from engine.recording import TABLES\nfrom . import runfile"),
                           ("engine.timing", "from . import recording\nfrom .ptx import load")]:
        assert violations(module, imports_of(source, module, False)) == []


def test_the_document_names_every_layer():
    doc = (ROOT / "docs" / "architecture.md").read_text()
    for layer, prefixes in LAYERS.items():
        assert f"### {layer}" in doc, f"docs/architecture.md has no section for layer {layer}"
        for p in prefixes:
            assert f"`{p}`" in doc, f"docs/architecture.md does not place `{p}`"
