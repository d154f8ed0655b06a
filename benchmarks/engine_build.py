"""How a checkout's C engine was compiled, for the benchmarks' headers: the profile-guided build that
scripts/setup.sh makes is ~9 % faster than a plain `setup.py build_ext` (docs/performance.md), so a speed
measured without saying which build it was cannot be compared with another.

    from engine_build import engine_build_of
    engine_build_of("/path/to/checkout")   # e.g. "profile-guided, -march=native, -O3"
"""
from __future__ import annotations

import subprocess
import sys

_CHILD = ("import sys; sys.path.insert(0, sys.argv[1]); from engine import timing; "
          "print(timing.engine_build() if hasattr(timing, 'engine_build') else 'unknown (a build before gs_build_desc)')")


def engine_build_of(root) -> str:
    """the build description of the engine in checkout `root`, asked in a fresh process (its own library)"""
    out = subprocess.run([sys.executable, "-c", _CHILD, str(root)], capture_output=True, text=True, check=False)
    return out.stdout.strip() if out.returncode == 0 else f"unknown ({out.stderr.strip().splitlines()[-1:]})"
