#!/usr/bin/env bash
# Captures the model zoo on a machine with an NVIDIA GPU, torch and triton (run from the repository root):
#   bash workloads/zoo/capture_zoo.sh OUTDIR [NAME...]      # then: python -m engine.workload.capture.measure OUTDIR/*.tar.xz
# Every model of workloads/zoo/models.py (or the NAMEs given) in parallel, each in its own process and log.
set -u
out=${1:-out}; shift || true
mkdir -p "$out"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
names=("$@")
[ ${#names[@]} -gt 0 ] || names=($(python -c "import sys; sys.path.insert(0, 'workloads/zoo'); import models; print(' '.join(models.ZOO))"))
for n in "${names[@]}"; do
  syn=$(python -c "import sys; sys.path.insert(0, 'workloads/zoo'); import models; print('--synthetic-params' if models.ZOO['$n'][1] else '')")
  ( t0=$(date +%s); timeout "${CAPTURE_TIMEOUT:-560}" python -m simtscope capture --model "workloads/zoo/models.py:$n" \
        $syn --out "$out/$n.tar.xz" > "$out/$n.log" 2>&1; rc=$?
    echo "$n rc=$rc $(( $(date +%s) - t0 )) s" >> "$out/capture.log" ) &
done
wait
cat "$out/capture.log"
