"""Tier (a): C unit tests of self-contained engine components, compiled with the system C compiler."""
import shutil
import subprocess
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parent.parent / "engine"


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")
def test_c_units(tmp_path):
    exe = tmp_path / "test_units"
    subprocess.run(["cc", "-O1", "-std=c11", "-Wall", "-Werror", f"-I{ENGINE / 'csrc'}", f"-I{ENGINE / 'include'}",
                    str(ENGINE / "ctest" / "test_units.c"), str(ENGINE / "csrc" / "cache.c"), "-o", str(exe)],
                   check=True, capture_output=True, text=True)
    r = subprocess.run([str(exe)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "all C unit tests passed" in r.stdout
