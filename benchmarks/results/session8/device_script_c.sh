#!/bin/bash
# session 8 device call 3: bert_base at two threads, this tree (L1 set masks on whole host lines) against bff014e
set -e
T0=$(date +%s)
mkdir -p /tmp/site /tmp/base
python3 -m pip install -q --no-index --target /tmp/site .whl/*.whl > /dev/null 2>&1 || true
tar xJf .whl/cudatools.tar.xz -C /tmp/site
tar xzf .whl/base.tgz -C /tmp/base
export PYTHONPATH=/tmp/site OPENBLAS_NUM_THREADS=1 SIMTSCOPE_CACHE_DIR=/tmp/simc
(cd /tmp/base && python3 scripts/build_pgo.py > $OUT/build_base.txt 2>&1) &
(python3 scripts/build_pgo.py > $OUT/build_new.txt 2>&1) &
wait
echo "built at $(( $(date +%s) - T0 )) s"; grep -c gs_line_calloc engine/csrc/setmask.h
python3 benchmarks/threads_bundles.py --warm-only --bundles bert_base_b4_t128_fp16 > /dev/null 2>&1 || true
python3 benchmarks/threads_bundles.py --bundles bert_base_b4_t128_fp16 --threads 2 --repeat 2 --cpus 14,15 --fresh-ir --baseline /tmp/base > $OUT/tb_bert2.txt 2> $OUT/tb_bert2.err || true
echo "done at $(( $(date +%s) - T0 )) s"
grep "T2:" $OUT/tb_bert2.err; tail -n 4 $OUT/tb_bert2.txt
