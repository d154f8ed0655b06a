#!/usr/bin/env bash
# run_sreg.sh OUT_DIR: sreg.cu on the GPU machine (docs/calibration.md 5w): the latency and rate of special-register
# reads (S2R, CS2R) and of a warm LDC, and ncu's per-issue stall ratios of each launch. Also the kernels' PTX and
# SASS, so the simulator can run the same code. Reads the GPU's settings only.
# From the repository root: bash benchmarks/hw/run_sreg.sh "$OUT"   (~1 min)
set -u
HW=$(cd "$(dirname "$0")" && pwd)
O=${1:-${OUT:-/tmp/sreg_out}}
mkdir -p "$O"
B=$(mktemp -d)
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
{ date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=name,driver_version,pstate,clocks.sm,clocks.max.sm,clocks.mem --format=csv
  nvcc --version | tail -1; "$NCU" --version 2>&1 | tail -1; } > "$O/sreg_env.txt" 2>&1
nvcc -O3 -arch=sm_90 -lineinfo -o "$B/sreg" "$HW/sreg.cu" >> "$O/sreg_env.txt" 2>&1 \
  || { echo BUILD FAILED; cat "$O/sreg_env.txt"; exit 1; }
nvcc -O3 -arch=sm_90 -ptx -o "$O/sreg.sm90.ptx" "$HW/sreg.cu" >> "$O/sreg_env.txt" 2>&1
cuobjdump -sass "$B/sreg" > "$O/sreg.sass" 2>&1
timeout 120 "$B/sreg" > "$O/sreg.out" 2> "$O/sreg.err"
echo "sreg rc=$? results=$(grep -c RESULT "$O/sreg.out")" | tee -a "$O/sreg_env.txt"
S=smsp__average_warps_issue_stalled
M=gpc__cycles_elapsed.max,sm__cycles_active.max,smsp__inst_executed.sum,launch__block_size
for r in selected wait math_pipe_throttle not_selected short_scoreboard dispatch_stall no_instruction mio_throttle \
         lg_throttle tex_throttle drain sleeping membar barrier misc imc_miss branch_resolving long_scoreboard; do M="$M,${S}_${r}_per_issue_active.ratio"; done
timeout 300 "$NCU" --clock-control none --cache-control all --kernel-name regex:sreg_ \
  --metrics "$M" --csv --print-units base --log-file "$O/sreg_ncu.csv" "$B/sreg" > /dev/null 2>&1
echo "ncu rc=$? rows=$(wc -l < "$O/sreg_ncu.csv")" | tee -a "$O/sreg_env.txt"
rm -rf "$B"
