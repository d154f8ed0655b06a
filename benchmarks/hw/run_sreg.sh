#!/usr/bin/env bash
# run_sreg.sh OUT_DIR: sreg.cu on the GPU machine (docs/calibration.md 5w): the latency and rate of special-register
# reads (S2R, CS2R) and of a warm LDC, and ncu's per-issue stall ratios of each launch. Also the kernels' PTX and
# SASS, so the simulator can run the same code (stall_bench.sh). Reads the GPU's settings only.
# From the repository root: bash benchmarks/hw/run_sreg.sh "$OUT"   (~1 min)
exec bash "$(dirname "$0")/stall_bench.sh" sreg sreg_ "${1:-${OUT:-/tmp/sreg_out}}" 120 300
