#!/usr/bin/env bash
# stall_bench.sh NAME KERNEL_REGEX OUT_DIR [RUN_TIMEOUT_S] [NCU_TIMEOUT_S]: one microbenchmark NAME.cu on the GPU
# machine, as the stall-attribution benchmarks need it (run_pipe_own.sh, run_sreg.sh):
#   NAME_env.txt     the GPU's clocks and the tools' versions (read only: no setting is changed)
#   NAME.sm90.ptx    nvcc's PTX of the binary that ran, so the simulator can run the same code
#   NAME.sass        cuobjdump's SASS of that binary
#   NAME.out         the benchmark's RESULT lines
#   NAME_ncu.csv     Nsight Compute's cycles, instruction count and per-issue stall ratios of every launch whose
#                    kernel matches KERNEL_REGEX (--clock-control none --cache-control all)
set -u
NAME=$1 KREGEX=$2 O=$3 TRUN=${4:-60} TNCU=${5:-120}
HW=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$O"
B=$(mktemp -d)
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
{ date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=name,driver_version,pstate,clocks.sm,clocks.max.sm,clocks.mem --format=csv
  nvcc --version | tail -1; "$NCU" --version 2>&1 | tail -1; } > "$O/${NAME}_env.txt" 2>&1
nvcc -O3 -arch=sm_90 -lineinfo -o "$B/$NAME" "$HW/$NAME.cu" >> "$O/${NAME}_env.txt" 2>&1 \
  || { echo BUILD FAILED; cat "$O/${NAME}_env.txt"; exit 1; }
nvcc -O3 -arch=sm_90 -ptx -o "$O/$NAME.sm90.ptx" "$HW/$NAME.cu" >> "$O/${NAME}_env.txt" 2>&1
cuobjdump -sass "$B/$NAME" > "$O/$NAME.sass" 2>&1
timeout "$TRUN" "$B/$NAME" > "$O/$NAME.out" 2> "$O/$NAME.err"
echo "$NAME rc=$? results=$(grep -c RESULT "$O/$NAME.out")" | tee -a "$O/${NAME}_env.txt"
S=smsp__average_warps_issue_stalled
M=gpc__cycles_elapsed.max,sm__cycles_active.max,smsp__inst_executed.sum,launch__block_size
for r in selected wait math_pipe_throttle not_selected short_scoreboard dispatch_stall no_instruction mio_throttle \
         lg_throttle tex_throttle drain sleeping membar barrier misc imc_miss branch_resolving long_scoreboard; do M="$M,${S}_${r}_per_issue_active.ratio"; done
timeout "$TNCU" "$NCU" --clock-control none --cache-control all --kernel-name "regex:$KREGEX" \
  --metrics "$M" --csv --print-units base --log-file "$O/${NAME}_ncu.csv" "$B/$NAME" > /dev/null 2>&1
echo "ncu rc=$? rows=$(wc -l < "$O/${NAME}_ncu.csv")" | tee -a "$O/${NAME}_env.txt"
rm -rf "$B"
