#!/usr/bin/env bash
# run_hwbench.sh OUT_DIR: the launch/drain study under Nsight Compute (ncu_launch.cu) and the wgmma
# microbenchmarks (wgmma.cu) on the GPU machine. Uses prebuilt binaries in build/ when present (built
# with the commands below), else builds them. Reads the GPU's settings only; never changes them.
#   nvcc -O3 -arch=sm_90 -lineinfo -o build/ncu_launch ncu_launch.cu
#   nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -lineinfo -o build/wgmma wgmma.cu
set -u
HW=$(cd "$(dirname "$0")" && pwd)
O=${1:-${OUT:-/tmp/hw_out}}
B=$HW/build
mkdir -p "$O" "$B"
{
  date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=name,driver_version,pstate,clocks.sm,clocks.max.sm,clocks.mem,power.limit,persistence_mode,mig.mode.current --format=csv
  ncu --version 2>&1 | tail -1
  nvcc --version 2>&1 | tail -1
} > "$O/env.txt" 2>&1
[ -x "$B/ncu_launch" ] || nvcc -O3 -arch=sm_90 -lineinfo -o "$B/ncu_launch" "$HW/ncu_launch.cu"
[ -x "$B/wgmma" ] || nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -lineinfo -o "$B/wgmma" "$HW/wgmma.cu"
echo "[$(date +%T)] wgmma" >> "$O/env.txt"
timeout ${WGMMA_S:-240} "$B/wgmma" > "$O/wgmma.out" 2>&1
echo "rc=$?" >> "$O/wgmma.out"
echo "[$(date +%T)] ncu_launch" >> "$O/env.txt"
timeout ${NCU_S:-280} ncu --metrics gpc__cycles_elapsed.max,gpu__time_duration.sum,sm__cycles_active.max,sm__cycles_active.avg,sm__cycles_elapsed.max \
  --clock-control none --cache-control all --replay-mode kernel --launch-skip 4 --csv --print-units base \
  "$B/ncu_launch" > "$O/ncu_launch.log" 2>&1
echo "rc=$?" >> "$O/ncu_launch.log"
python3 "$HW/ncu_launch_collect.py" "$O/ncu_launch.log" "$O/ncu_launch.log" > "$O/ncu_launch.jsonl" 2> "$O/ncu_launch.collect.err"
echo "[$(date +%T)] done" >> "$O/env.txt"
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv >> "$O/env.txt" 2>&1
