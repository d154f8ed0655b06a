"""Tier (a): C unit tests of self-contained engine components, compiled with the system C compiler.

One executable per component test file (engine/ctest/test_*.c), linked with only the sources that
component needs: a component that grew a dependency on the rest of the engine fails to link here."""
import shutil
import subprocess
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parent.parent / "engine"

UNITS = {
    "test_units": ["cache.c"],                       # cache directory, calendar
    "test_dram": ["dram.c"],                         # DRAM channels and row policies
    "test_l2": ["l2.c", "dram.c", "cache.c"],        # L2 slices, partitions, atomic units
    "test_l1": ["l1.c", "icnt.c", "cache.c"],        # coalescer, shared banks, L1 directory, interconnect
    "test_tc_tile": ["tc_tile.c", "l1.c", "cache.c"],  # wmma tile pieces through the coalescer, f16 -> double
    "test_arena": ["arena.c"],                       # the simulator's huge-page arena
}


def test_every_ctest_file_is_run():
    assert {p.stem for p in (ENGINE / "ctest").glob("test_*.c")} == set(UNITS)


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")
@pytest.mark.parametrize("unit", sorted(UNITS))
def test_c_units(tmp_path, unit):
    exe = tmp_path / unit
    srcs = [str(ENGINE / "ctest" / f"{unit}.c")] + [str(ENGINE / "csrc" / s) for s in UNITS[unit]]
    subprocess.run(["cc", "-O1", "-std=c11", "-Wall", "-Werror", f"-I{ENGINE / 'csrc'}", f"-I{ENGINE / 'include'}",
                    *srcs, "-lm", "-lpthread", "-o", str(exe)], check=True, capture_output=True, text=True)
    r = subprocess.run([str(exe)], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "all C unit tests passed" in r.stdout
