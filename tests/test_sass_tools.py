"""The SASS tools' versions (part of the SASS and lowered-module cache keys) are remembered on disk per binary, so a
process does not start ptxas and nvdisasm only to ask them (engine/sass/tools.py _version)."""
import os
import stat

import pytest

from engine.sass import tools


def _fake_tool(tmp_path, version: str, name: str = "ptxas", fail: bool = False):
    """an executable that prints a two-line version (or fails) and counts its runs in a file next to it"""
    tool = tmp_path / "bin" / name
    tool.parent.mkdir(exist_ok=True)
    runs = tmp_path / f"{name}.runs"
    body = "echo oops >&2; exit 3" if fail else f"echo 'Cuda compilation tools'; echo '{version}'"
    tool.write_text(f"#!/bin/sh\necho x >> '{runs}'\n{body}\n")
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
    return str(tool), runs


def _runs(runs) -> int:
    return len(runs.read_text().splitlines()) if runs.exists() else 0


@pytest.fixture
def cache(tmp_path, monkeypatch):
    d = tmp_path / "cache"
    monkeypatch.setenv("SIMTSCOPE_CACHE_DIR", str(d))
    return d


def test_a_version_is_asked_once_then_read_from_the_cache(tmp_path, cache):
    tool, runs = _fake_tool(tmp_path, "Build cuda_13.0.r13.0/compiler.1")
    assert tools._version(tool) == "Cuda compilation tools Build cuda_13.0.r13.0/compiler.1"
    assert tools._version(tool) == "Cuda compilation tools Build cuda_13.0.r13.0/compiler.1"
    assert _runs(runs) == 1
    assert len(list((cache / "tools").glob("*.json"))) == 1


def test_a_replaced_binary_is_asked_again(tmp_path, cache):
    tool, runs = _fake_tool(tmp_path, "Build cuda_13.0.r13.0/compiler.1")
    assert tools._version(tool).endswith("compiler.1")
    os.unlink(tool)                                  # a reinstall: a new file (size, mtime and inode change)
    tool, _ = _fake_tool(tmp_path, "Build cuda_13.5.r13.5/compiler.22")
    assert tools._version(tool).endswith("compiler.22")
    assert _runs(runs) == 2


@pytest.mark.parametrize("damage", [b"", b"{not json", b'{"ident": "other", "version": "X"}', b'["a list"]',
                                    b'{"version": 5}'])
def test_a_damaged_cache_entry_only_means_asking_the_tool(tmp_path, cache, damage):
    tool, runs = _fake_tool(tmp_path, "Build cuda_13.0.r13.0/compiler.1")
    tools._version(tool)
    (entry,) = (cache / "tools").glob("*.json")
    entry.write_bytes(damage)
    assert tools._version(tool).endswith("compiler.1")
    assert _runs(runs) == 2
    assert tools._version(tool).endswith("compiler.1")   # rewritten whole
    assert _runs(runs) == 2


def test_an_unwritable_cache_still_gives_the_version(tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the cache folder would be")
    monkeypatch.setenv("SIMTSCOPE_CACHE_DIR", str(blocker))
    tool, runs = _fake_tool(tmp_path, "Build cuda_13.0.r13.0/compiler.1")
    assert tools._version(tool).endswith("compiler.1")
    assert tools._version(tool).endswith("compiler.1")
    assert _runs(runs) == 2


def test_a_failing_tool_raises_and_caches_nothing(tmp_path, cache):
    tool, runs = _fake_tool(tmp_path, "", fail=True)
    for _ in range(2):
        with pytest.raises(OSError, match="--version failed: oops"):
            tools._version(tool)
    assert _runs(runs) == 2
    assert not (cache / "tools").exists() or not list((cache / "tools").glob("*.json"))
