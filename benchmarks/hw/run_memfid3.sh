#!/usr/bin/env bash
# memfid3 device request: benchmarks/hw/wmmaload.cu (hgemm_wmma_simple's K loop per warp, cold / warm L2 /
# L1-resident, 1..256 CTAs) and benchmarks/hw/rowbw.cu (DRAM read/copy throughput against the chunk size of a
# scrambled order; copy2d against a linear copy of the same grid). usage (GPU machine): bash benchmarks/hw/run_memfid3.sh OUT_DIR
# ~1 min; results as benchmarks/hw/results/h200_wmmaload.txt, h200_rowbw.txt (calibration.md 5m).
set -u
O=${1:-${OUT:-/tmp/memfid3_out}}
mkdir -p "$O"
D=$(cd "$(dirname "$0")" && pwd)
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv; nvcc --version | tail -1; } > "$O/memfid3_env.txt" 2>&1
for b in wmmaload rowbw; do
  nvcc -O3 -arch=sm_90 -o /tmp/$b "$D/$b.cu" >> "$O/memfid3_env.txt" 2>&1 || { echo "BUILD FAILED: $b"; cat "$O/memfid3_env.txt"; exit 1; }
  timeout 120 /tmp/$b > "$O/$b.txt" 2>&1
  echo "$b rc=$?" >> "$O/$b.txt"
done
cat "$O/wmmaload.txt" "$O/rowbw.txt"
