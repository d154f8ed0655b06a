#!/bin/bash
# session 9 device call 3: the session's final engine against d3beabe (PGO builds), each benchmark alone: two-thread
# bundles on cores 10-11, GEMMs at one and two threads, bert_base at one and two threads (this tree)
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
echo "built at $(( $(date +%s) - T0 )) s"; tail -n 1 $OUT/build_base.txt; tail -n 1 $OUT/build_new.txt; grep -c gs_rng_fill engine/csrc/rng.c
python3 benchmarks/threads_bundles.py --warm-only --bundles resnet18_b1_224_fp16,mlp_b128_fp16,bert_base_b4_t128_fp16 > /dev/null 2>&1 || true
python3 benchmarks/threads_bundles.py --bundles resnet18_b1_224_fp16,mlp_b128_fp16 --threads 1,2 --repeat 3 --cpus 10,11 --baseline /tmp/base > $OUT/tb.txt 2> $OUT/tb.err || true
echo "bundles done at $(( $(date +%s) - T0 )) s"
taskset -c 10,11 python3 benchmarks/timing.py --cases sgemm_tiled16_512,hgemm_wmma_tiled_2048,sgemm_rb64_1024 --threads 1,2 --repeat 2 > $OUT/gemm.txt 2>&1 || true
echo "gemms done at $(( $(date +%s) - T0 )) s"
python3 benchmarks/threads_bundles.py --bundles bert_base_b4_t128_fp16 --threads 1,2 --repeat 1 --cpus 10,11 > $OUT/tbbert.txt 2> $OUT/tbbert.err || true
echo "bert done at $(( $(date +%s) - T0 )) s"
tail -n 6 $OUT/tb.txt; tail -n 6 $OUT/gemm.txt; tail -n 4 $OUT/tbbert.txt
