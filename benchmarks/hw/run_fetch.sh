#!/usr/bin/env bash
# run_fetch.sh OUT_DIR: fetch.cu on the GPU machine (instruction fetch of long straight-line code: cycles per
# instruction of N independent FFMAs, cold and warm, 1 and 4 warps; docs/calibration.md 5m), then one ncu pass
# over the same launches for the no_instruction / imc_miss stalls. Reads the GPU's settings only.
# From the repository root: bash benchmarks/hw/run_fetch.sh "$OUT"   (~1 min)
set -u
HW=$(cd "$(dirname "$0")" && pwd)
O=${1:-${OUT:-/tmp/fetch_out}}
mkdir -p "$O"
B=$(mktemp -d)
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
{ date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=name,driver_version,pstate,clocks.sm,clocks.max.sm,clocks.mem --format=csv
  nvcc --version | tail -1; "$NCU" --version 2>&1 | tail -1; } > "$O/fetch_env.txt" 2>&1
nvcc -O3 -arch=sm_90 -lineinfo -o "$B/fetch" "$HW/fetch.cu" >> "$O/fetch_env.txt" 2>&1 \
  || { echo BUILD FAILED; cat "$O/fetch_env.txt"; exit 1; }
cuobjdump -sass -fun '_Z7fetch_kILi1EEvffiPyPf' "$B/fetch" > "$O/fetch_n256.sass" 2>&1
echo "[$(date +%T)] run" >> "$O/fetch_env.txt"
timeout 60 "$B/fetch" > "$O/fetch.out" 2> "$O/fetch.err"
echo "fetch rc=$?" | tee -a "$O/fetch_env.txt"
grep -c RESULT "$O/fetch.out"
echo "[$(date +%T)] ncu" >> "$O/fetch_env.txt"
M=gpc__cycles_elapsed.max,sm__cycles_active.max,smsp__inst_executed.sum,smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio,smsp__average_warps_issue_stalled_imc_miss_per_issue_active.ratio,smsp__average_warps_issue_stalled_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_branch_resolving_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio,smsp__average_warp_latency_per_inst_issued.ratio
for cc in all none; do
  timeout 90 "$NCU" --clock-control none --cache-control $cc --kernel-name regex:fetch_k \
    --metrics $M --csv --print-units base --log-file "$O/fetch_ncu_cache_$cc.csv" "$B/fetch" > /dev/null 2>&1
  echo "ncu cache=$cc rc=$? rows=$(wc -l < "$O/fetch_ncu_cache_$cc.csv")" | tee -a "$O/fetch_env.txt"
done
echo "[$(date +%T)] done" >> "$O/fetch_env.txt"
rm -rf "$B"
