#!/usr/bin/env bash
# run_memstream.sh: build memstream.cu, time its 256 MB configurations with events, then profile every
# configuration with ncu as the validation suite was (--clock-control none --cache-control all).
# usage (on the GPU machine, repository root): bash benchmarks/hw/run_memstream.sh [OUT_DIR]
set -u
O=${1:-${OUT:-/tmp/memstream_out}}
mkdir -p "$O"
HW=$(cd "$(dirname "$0")" && pwd)
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv; nvcc --version | tail -1; echo "ncu: $NCU"; } > "$O/memstream_env.txt" 2>&1
if [ -x "$HW/build/memstream" ]; then cp "$HW/build/memstream" /tmp/memstream   # prebuilt: nvcc -O3 -arch=sm_90 -lineinfo -o build/memstream memstream.cu
else nvcc -O3 -arch=sm_90 -lineinfo -o /tmp/memstream "$HW/memstream.cu" >> "$O/memstream_env.txt" 2>&1 || { echo BUILD FAILED; cat "$O/memstream_env.txt"; exit 1; }; fi
cuobjdump -sass /tmp/memstream | grep -E 'Function|LDG|STG' > "$O/memstream_sass.txt" 2>&1
timeout 40 /tmp/memstream time > "$O/memstream_time.txt" 2>&1
cat "$O/memstream_time.txt"
M=gpc__cycles_elapsed.max,sm__cycles_active.max,gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__t_sector_hit_rate.pct,dram__throughput.avg.pct_of_peak_sustained_elapsed
timeout 150 "$NCU" --clock-control none --cache-control all --kernel-name regex:bench_ --metrics $M --csv \
  --log-file "$O/memstream_ncu.csv" /tmp/memstream ncu > "$O/memstream_launches.txt" 2>&1
echo "ncu rc=$? rows=$(wc -l < "$O/memstream_ncu.csv")"
timeout 20 "$NCU" --query-metrics --chip gh100 > /tmp/q.txt 2>&1
grep -E '^(lts__|dram__|fbpa__)' /tmp/q.txt | cut -c1-160 > "$O/memstream_metric_names.txt"
X=$(grep -oE '^lts__[a-z_]*(evict|dirty|fill|ltcfabric|clean)[a-z_]*' /tmp/q.txt | sort -u | head -10 | sed 's/$/.sum/' | paste -sd,)
echo "extra: $X"
[ -n "$X" ] && timeout 25 "$NCU" --clock-control none --cache-control all --kernel-name regex:bench_wr1 --metrics "$X,dram__bytes_write.sum" \
  --csv --log-file "$O/memstream_ncu_extra.csv" /tmp/memstream ncu > /dev/null 2>&1
echo "extra rc=$?"
