#!/usr/bin/env bash
# run_sched_fair.sh OUT_DIR: sched_fair.cu on the GPU machine (warp-scheduler fairness and the L1's request
# rate for one-line, one-sector and two-line loads; docs/calibration.md), then one ncu pass over the same
# launches for the L1 request/sector counts and stall reasons. Reads the GPU's settings only.
# From the repository root: bash benchmarks/hw/run_sched_fair.sh "$OUT"   (~40 s)
set -u
HW=$(cd "$(dirname "$0")" && pwd)
O=${1:-${OUT:-/tmp/sched_fair_out}}
mkdir -p "$O"
B=$(mktemp -d)
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
{ date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=name,driver_version,pstate,clocks.sm,clocks.max.sm,clocks.mem --format=csv
  nvcc --version | tail -1; "$NCU" --version 2>&1 | tail -1; } > "$O/sched_fair_env.txt" 2>&1
nvcc -O3 -arch=sm_90 -lineinfo -o "$B/sched_fair" "$HW/sched_fair.cu" >> "$O/sched_fair_env.txt" 2>&1 \
  || { echo BUILD FAILED; cat "$O/sched_fair_env.txt"; exit 1; }
cuobjdump -sass "$B/sched_fair" > "$O/sched_fair.sass" 2>&1
echo "[$(date +%T)] run" >> "$O/sched_fair_env.txt"
timeout 60 "$B/sched_fair" > "$O/sched_fair.out" 2> "$O/sched_fair.err"
echo "sched_fair rc=$?" | tee -a "$O/sched_fair_env.txt"
grep -E "^(DONE|CHECK_FAIL)" "$O/sched_fair.out" | head
python3 "$HW/sched_fair_summary.py" "$O/sched_fair.out" | tee "$O/sched_fair_summary.jsonl"
gzip -f "$O/sched_fair.out"
echo "[$(date +%T)] ncu" >> "$O/sched_fair_env.txt"
M=gpc__cycles_elapsed.max,sm__cycles_active.avg,sm__cycles_active.max,smsp__inst_executed.sum,sm__warps_active.avg.per_cycle_active,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sector_hit_rate.pct,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio
timeout 70 "$NCU" --clock-control none --cache-control all --kernel-name regex:fair_k --launch-skip 1 \
  --metrics $M --csv --print-units base --log-file "$O/sched_fair_ncu.csv" "$B/sched_fair" > /dev/null 2>&1
echo "ncu rc=$? rows=$(wc -l < "$O/sched_fair_ncu.csv")" | tee -a "$O/sched_fair_env.txt"
echo "[$(date +%T)] done" >> "$O/sched_fair_env.txt"
rm -rf "$B"
