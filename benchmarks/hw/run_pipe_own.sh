#!/usr/bin/env bash
# run_pipe_own.sh OUT_DIR: pipe_own.cu on the GPU machine (docs/calibration.md 5u): a lone warp per sub-core, or
# eight, issuing independent MUFU.EX2 / DFMA / FFMA, and ncu's per-issue stall ratios of each launch. Also the
# kernel's PTX and SASS, so the simulator can run the same code. Reads the GPU's settings only.
# From the repository root: bash benchmarks/hw/run_pipe_own.sh "$OUT"   (~1 min)
set -u
HW=$(cd "$(dirname "$0")" && pwd)
O=${1:-${OUT:-/tmp/pipe_own_out}}
mkdir -p "$O"
B=$(mktemp -d)
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
{ date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=name,driver_version,pstate,clocks.sm,clocks.max.sm,clocks.mem --format=csv
  nvcc --version | tail -1; "$NCU" --version 2>&1 | tail -1; } > "$O/pipe_own_env.txt" 2>&1
nvcc -O3 -arch=sm_90 -lineinfo -o "$B/pipe_own" "$HW/pipe_own.cu" >> "$O/pipe_own_env.txt" 2>&1 \
  || { echo BUILD FAILED; cat "$O/pipe_own_env.txt"; exit 1; }
nvcc -O3 -arch=sm_90 -ptx -o "$O/pipe_own.sm90.ptx" "$HW/pipe_own.cu" >> "$O/pipe_own_env.txt" 2>&1
cuobjdump -sass "$B/pipe_own" > "$O/pipe_own.sass" 2>&1
timeout 60 "$B/pipe_own" > "$O/pipe_own.out" 2> "$O/pipe_own.err"
echo "pipe_own rc=$? results=$(grep -c RESULT "$O/pipe_own.out")" | tee -a "$O/pipe_own_env.txt"
S=smsp__average_warps_issue_stalled
M=gpc__cycles_elapsed.max,sm__cycles_active.max,smsp__inst_executed.sum,launch__block_size
for r in selected wait math_pipe_throttle not_selected short_scoreboard dispatch_stall no_instruction mio_throttle \
         lg_throttle tex_throttle drain sleeping membar barrier misc imc_miss branch_resolving long_scoreboard; do M="$M,${S}_${r}_per_issue_active.ratio"; done
timeout 120 "$NCU" --clock-control none --cache-control all --kernel-name regex:pipe_k \
  --metrics "$M" --csv --print-units base --log-file "$O/pipe_own_ncu.csv" "$B/pipe_own" > /dev/null 2>&1
echo "ncu rc=$? rows=$(wc -l < "$O/pipe_own_ncu.csv")" | tee -a "$O/pipe_own_env.txt"
rm -rf "$B"
