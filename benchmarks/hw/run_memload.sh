#!/usr/bin/env bash
# memfid2 device request: benchmarks/hw/memload.cu (probe latency under background traffic). usage (GPU machine): bash benchmarks/hw/run_memload.sh OUT_DIR
# Builds benchmarks/hw/memload.cu (common.cuh beside it) and runs it, ~10-20 s; results in benchmarks/hw/results/h200_memload*.
set -u
O=${1:-${OUT:-/tmp/memload_out}}
mkdir -p "$O"
D=$(cd "$(dirname "$0")" && pwd)
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv; nvcc --version | tail -1; } > "$O/memload_env.txt" 2>&1
nvcc -O3 -arch=sm_90 -Xptxas -v -o /tmp/memload "$D/memload.cu" >> "$O/memload_env.txt" 2>&1 || { echo BUILD FAILED; cat "$O/memload_env.txt"; exit 1; }
timeout 100 /tmp/memload > "$O/memload.txt" 2>&1
echo "rc=$?" >> "$O/memload.txt"
cat "$O/memload.txt"
