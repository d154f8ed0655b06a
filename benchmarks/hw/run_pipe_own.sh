#!/usr/bin/env bash
# run_pipe_own.sh OUT_DIR: pipe_own.cu on the GPU machine (docs/calibration.md 5u): a lone warp per sub-core, or
# eight, issuing independent MUFU.EX2 / DFMA / FFMA, and ncu's per-issue stall ratios of each launch. Also the
# kernel's PTX and SASS, so the simulator can run the same code (stall_bench.sh). Reads the GPU's settings only.
# From the repository root: bash benchmarks/hw/run_pipe_own.sh "$OUT"   (~1 min)
exec bash "$(dirname "$0")/stall_bench.sh" pipe_own pipe_k "${1:-${OUT:-/tmp/pipe_own_out}}" 60 120
