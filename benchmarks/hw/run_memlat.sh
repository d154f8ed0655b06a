#!/usr/bin/env bash
# run_memlat.sh: build memlat.cu and profile each configuration with ncu as the validation suite was
# (--clock-control none --cache-control all). usage (GPU machine, repository root): bash benchmarks/hw/run_memlat.sh [OUT_DIR]
set -u
O=${1:-${OUT:-/tmp/memlat_out}}
mkdir -p "$O"
HW=$(cd "$(dirname "$0")" && pwd)
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv; nvcc --version | tail -1; } > "$O/memlat_env.txt" 2>&1
nvcc -O3 -arch=sm_90 -lineinfo -o /tmp/memlat "$HW/memlat.cu" >> "$O/memlat_env.txt" 2>&1 || { echo BUILD FAILED; cat "$O/memlat_env.txt"; exit 1; }
M=gpc__cycles_elapsed.max,sm__cycles_active.max,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__inst_executed.sum
timeout 50 "$NCU" --clock-control none --cache-control all --kernel-name regex:bench_ --metrics $M --csv \
  --log-file "$O/memlat_ncu.csv" /tmp/memlat > "$O/memlat_launches.txt" 2>&1
echo "ncu rc=$? rows=$(wc -l < "$O/memlat_ncu.csv")"
cat "$O/memlat_launches.txt"
