"""Profile-guided build of the C engine: compile instrumented, run a short training set, compile again with the profile.

    python scripts/build_pgo.py [--quiet]

gcc's -fprofile-use lays the hot paths of the timing loop out together and sets branch and inlining
decisions from measured counts; it changes no result (the code generation flags that keep results bit-exact,
-ffp-contract=off and -frounding-math, are the same; engine/build_ffi.py), only speed (docs/performance.md,
"Profile-guided build"). The training set is a few validation cases capped at a million warp instructions
each, on one and two simulation threads (about half a minute). Any failure (a compiler without profile
support, a training run that fails) falls back to the plain build, so the engine is always usable.
scripts/setup.sh calls this unless SIMTSCOPE_PGO=0; it does nothing when the engine was already built with a profile
from the same sources (a stamp beside the profile), so a second setup costs nothing.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROFILE = ROOT / "build" / "pgo-profile"
STAMP = ROOT / "build" / "pgo-stamp"
# streaming, reductions, GEMMs (naive, tiled, register-blocked, wmma), softmax, atomics, im2col, conv, transpose
TRAIN = ["saxpy_1M", "reduce_smem_4M", "reduce_shfl_4M", "sgemm_naive_256", "sgemm_tiled16_256", "sgemm_rb64_512",
         "hgemm_wmma_simple_512", "softmax_4096x128", "layernorm_4096x1024", "hist_global_32bins_4M",
         "hist_smem_256bins_4M", "im2col_3x3_n1", "conv2d_3x3_n1", "transpose_naive_4096"]
CHILD = r"""
import os, sys
sys.path.insert(0, sys.argv[1])
from engine.cases import load_suite
from engine.errors import LimitExceeded
from engine.runner import prepare
from engine.timing import TimingSim
suite = load_suite()
for threads in (1, 2):
    sim = TimingSim("h200", threads=threads)
    for name in sys.argv[2].split(",")[: None if threads == 1 else 3]:
        case = suite[name]
        kernel, args, _, _ = prepare(case, sim.device)
        try:
            sim.launch(kernel, case.grid, case.block, args, shared=case.shared, max_warp_insts=1_000_000)
        except LimitExceeded:
            pass
"""


def sources_digest() -> str:
    """what the engine is compiled from: its C sources and headers and the build script"""
    h = hashlib.sha256()
    eng = ROOT / "engine"
    for p in sorted([*eng.glob("csrc/*.[ch]"), *eng.glob("include/*.h"), eng / "build_ffi.py"]):
        h.update(p.name.encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


def up_to_date(digest: str) -> bool:
    so = list((ROOT / "engine").glob("_engine*.so"))
    return (STAMP.exists() and STAMP.read_text().strip() == digest and len(so) == 1
            and so[0].stat().st_mtime <= STAMP.stat().st_mtime)


def build(mode: str, quiet: bool) -> None:
    env = dict(os.environ, SIMTSCOPE_PGO_PROFILE=mode)
    subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace", "--force"], cwd=ROOT, env=env,
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL if quiet else None)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--force", action="store_true", help="rebuild even if the engine was built with a profile already")
    a = ap.parse_args()
    t0 = time.monotonic()
    digest = sources_digest()
    if not a.force and up_to_date(digest):
        return 0
    STAMP.unlink(missing_ok=True)
    shutil.rmtree(PROFILE, ignore_errors=True)
    try:
        build(f"gen:{PROFILE}", a.quiet)
        env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
        subprocess.run([sys.executable, "-c", CHILD, str(ROOT), ",".join(TRAIN)], cwd=ROOT, env=env, check=True,
                       stdout=subprocess.DEVNULL)
        if not any(PROFILE.rglob("*.gcda")):
            raise RuntimeError(f"the training run left no profile in {PROFILE}")
        build(f"use:{PROFILE}", a.quiet)
        subprocess.run([sys.executable, "-c", "import engine._engine"], cwd=ROOT, check=True)
    except (subprocess.CalledProcessError, RuntimeError, OSError) as e:
        print(f"build_pgo: profile-guided build failed ({e}); building without a profile", file=sys.stderr)
        build("", a.quiet)
        return 1
    STAMP.write_text(digest + "\n")
    print(f"build_pgo: engine built with a profile ({time.monotonic() - t0:.0f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
