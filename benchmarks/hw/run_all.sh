#!/usr/bin/env bash
# run_all.sh: build, disassemble and run every H200 microbenchmark in this folder, sample the
# GPU clocks with nvidia-smi meanwhile, and write OUT_DIR/hw_results.json (collect.py) plus
# OUT_DIR/raw_logs.tgz (every raw output, SASS listing and nvidia-smi file).
#
# usage (on the GPU machine, any directory):  benchmarks/hw/run_all.sh [OUT_DIR] [BENCH...]
#   OUT_DIR defaults to $OUT, then /tmp/hw_out; BENCH defaults to all of them.
# Reads nvidia-smi only: it never changes a clock, power or mode setting of the GPU.
# A benchmark that fails to build here falls back to a prebuilt binary in build/ if present.
set -u
HW=$(cd "$(dirname "$0")" && pwd)
OUT_DIR=${1:-${OUT:-/tmp/hw_out}}
shift || true
BENCHES=${*:-"launch alu mma smem_bank atomics bw lat dram_rows partition"}
mkdir -p "$OUT_DIR"
WORK=$(mktemp -d /tmp/hwrun.XXXXXX)
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
CUOBJDUMP=$(command -v cuobjdump || echo "$(dirname "$NVCC")/cuobjdump")
log() { echo "[run_all $(date +%H:%M:%S)] $*"; }
echo "$BENCHES" > "$WORK/benches.txt"

{
  echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "uname: $(uname -a)"
  echo "nvcc: $($NVCC --version 2>&1 | tail -2 | tr '\n' ' ')"
  echo "cuobjdump: $CUOBJDUMP"
  nvidia-smi --query-gpu=name,driver_version,vbios_version,pci.bus_id --format=csv,noheader
} > "$WORK/env.txt" 2>&1
SMI_FIELDS=name,pstate,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,clocks.applications.graphics,power.draw,power.limit,temperature.gpu,persistence_mode,ecc.mode.current,mig.mode.current
nvidia-smi --query-gpu=$SMI_FIELDS --format=csv > "$WORK/smi_before.csv" 2>&1
nvidia-smi -q > "$WORK/smi_q_before.txt" 2>&1

log "building: $BENCHES"
for b in $BENCHES; do
  (
    if ! "$NVCC" -O3 -arch=sm_90 -lineinfo -o "$WORK/$b" "$HW/$b.cu" > "$WORK/$b.build.log" 2>&1; then
      if [ -x "$HW/build/$b" ]; then
        cp "$HW/build/$b" "$WORK/$b" && echo "BUILD FAILED HERE: using prebuilt build/$b" >> "$WORK/$b.build.log"
      fi
    fi
    [ -x "$WORK/$b" ] && "$CUOBJDUMP" -sass "$WORK/$b" > "$WORK/$b.sass" 2> "$WORK/$b.sass.err"
  ) &
done
wait
log "built: $(cd "$WORK" && ls -1 $BENCHES 2>/dev/null | tr '\n' ' ')"

nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,utilization.gpu,pstate \
  --format=csv,noheader -lms 100 > "$WORK/smi_samples.csv" 2>&1 &
SMI_PID=$!
T0=$(date +%s)
for b in $BENCHES; do
  [ -x "$WORK/$b" ] || { log "skip $b (no binary)"; echo 127 > "$WORK/$b.rc"; continue; }
  # stay inside one device call's limit: start no benchmark after DEADLINE_S seconds
  if [ $(( $(date +%s) - T0 )) -gt "${DEADLINE_S:-380}" ]; then
    log "skip $b (deadline)"; echo 124 > "$WORK/$b.rc"; continue
  fi
  log "run $b"
  echo "BEGIN $b $(date +%s.%N)" >> "$WORK/phases.txt"
  timeout "${BENCH_TIMEOUT_S:-120}" "$WORK/$b" > "$WORK/$b.out" 2> "$WORK/$b.err"
  echo $? > "$WORK/$b.rc"
  echo "END $b $(date +%s.%N)" >> "$WORK/phases.txt"
  log "$b rc=$(cat "$WORK/$b.rc") results=$(grep -c '^RESULT ' "$WORK/$b.out")"
  # partial results survive a later kill of the whole command
  python3 "$HW/collect.py" --work "$WORK" --out "$OUT_DIR/hw_results.json" --quiet
done
kill "$SMI_PID" 2>/dev/null
wait "$SMI_PID" 2>/dev/null
nvidia-smi --query-gpu=$SMI_FIELDS --format=csv > "$WORK/smi_after.csv" 2>&1

python3 "$HW/collect.py" --work "$WORK" --out "$OUT_DIR/hw_results.json"
(cd "$WORK" && tar czf "$OUT_DIR/raw_logs.tgz" ./*.out ./*.err ./*.rc ./*.sass ./*.log ./*.csv ./*.txt)
log "done: $OUT_DIR/hw_results.json"
