"""How a checkout's C engine was compiled, and what host it ran on, for the benchmarks' headers: the
profile-guided build that scripts/setup.sh makes is ~9 % faster than a plain `setup.py build_ext`, and the
same build ran 1.4-1.9x slower per case on session 17's host than on session 14's (docs/performance.md), so
a speed measured without saying which build and which host cannot be compared with another.

    from engine_build import engine_build_of, host_desc
    engine_build_of("/path/to/checkout")   # e.g. "profile-guided, -march=native, -O3"
    host_desc()                            # e.g. "AMD EPYC, 2596 MHz, KVM guest, 2 cores available"
"""
from __future__ import annotations

import os
import subprocess
import sys

_CHILD = ("import sys; sys.path.insert(0, sys.argv[1]); from engine import timing; "
          "print(timing.engine_build() if hasattr(timing, 'engine_build') else 'unknown (a build before gs_build_desc)')")


def engine_build_of(root) -> str:
    """the build description of the engine in checkout `root`, asked in a fresh process (its own library)"""
    out = subprocess.run([sys.executable, "-c", _CHILD, str(root)], capture_output=True, text=True, check=False)
    return out.stdout.strip() if out.returncode == 0 else f"unknown ({out.stderr.strip().splitlines()[-1:]})"


def host_desc() -> str:
    """the host's CPU model, its clock as the kernel reports it, whether it is a virtual machine and the cores
    this process may use (Linux /proc/cpuinfo; elsewhere only the cores)"""
    model = mhz = ""
    guest = False
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, val = line.partition(":")
                key, val = key.strip(), val.strip()
                if key == "model name" and not model:
                    model = val
                elif key == "cpu MHz" and not mhz:
                    mhz = f"{float(val):.0f} MHz"
                elif key == "flags" and " hypervisor" in f" {val} ":
                    guest = True
    except OSError:
        pass
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return ", ".join(x for x in (model or "unknown CPU", mhz, "virtual machine" if guest else "",
                                 f"{cores} cores available") if x)
