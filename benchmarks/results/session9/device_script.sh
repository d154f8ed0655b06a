#!/bin/bash
# session 9 device call 1: PGO builds of the base (d3beabe, session 8's final main) and this tree; the suite A/B
# on cores 0-7, two-thread bundles (resnet18_b1, mlp_b128) on cores 10-11, bert_base at two threads on 14-15
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
echo "built at $(( $(date +%s) - T0 )) s"; tail -n 2 $OUT/build_base.txt $OUT/build_new.txt; grep -c act_mark engine/csrc/timing.h
python3 benchmarks/threads_bundles.py --warm-only --bundles resnet18_b1_224_fp16,mlp_b128_fp16,bert_base_b4_t128_fp16 > /dev/null 2>&1 || true
taskset -c 0-7 python3 benchmarks/ab_suite.py /tmp/base . --cap 5000000 --repeat 2 --jobs 6 > $OUT/ab.txt 2> $OUT/ab.err &
P1=$!
python3 benchmarks/threads_bundles.py --bundles resnet18_b1_224_fp16,mlp_b128_fp16 --threads 1,2 --repeat 3 --cpus 10,11 --baseline /tmp/base > $OUT/tb.txt 2> $OUT/tb.err &
P2=$!
python3 benchmarks/threads_bundles.py --bundles bert_base_b4_t128_fp16 --threads 2 --repeat 3 --cpus 14,15 --baseline /tmp/base > $OUT/tb_bert.txt 2> $OUT/tb_bert.err &
P3=$!
wait $P1 || true; echo "suite done at $(( $(date +%s) - T0 )) s"
wait $P2 || true; echo "bundles done at $(( $(date +%s) - T0 )) s"
wait $P3 || true; echo "bert done at $(( $(date +%s) - T0 )) s"
tail -8 $OUT/ab.txt; tail -n 6 $OUT/tb.txt $OUT/tb_bert.txt; grep "T2:" $OUT/tb_bert.err || true
