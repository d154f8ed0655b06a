#!/bin/bash
# session 8 device call 2: two-thread bundles with the disk cache of lowered modules (and without: --fresh-ir)
set -e
T0=$(date +%s)
mkdir -p /tmp/site /tmp/base
python3 -m pip install -q --no-index --target /tmp/site .whl/*.whl 2>&1 | grep -v "dependency\|setuptools\|WARNING" | tail -2 || true
tar xJf .whl/cudatools.tar.xz -C /tmp/site
tar xzf .whl/base.tgz -C /tmp/base
export PYTHONPATH=/tmp/site OPENBLAS_NUM_THREADS=1 SIMTSCOPE_CACHE_DIR=/tmp/simc
(cd /tmp/base && python3 scripts/build_pgo.py > $OUT/build_base.txt 2>&1) &
(python3 scripts/build_pgo.py > $OUT/build_new.txt 2>&1) &
wait
echo "built at $(( $(date +%s) - T0 )) s"; grep -c ircache engine/timing.py
python3 benchmarks/threads_bundles.py --warm-only --bundles resnet18_b1_224_fp16,mlp_b128_fp16,bert_base_b4_t128_fp16 > /dev/null 2>&1 || true
python3 benchmarks/threads_bundles.py --bundles resnet18_b1_224_fp16,mlp_b128_fp16 --threads 1,2 --repeat 3 --cpus 10,11 --baseline /tmp/base > $OUT/tb_cached.txt 2> $OUT/tb_cached.err &
P1=$!
python3 benchmarks/threads_bundles.py --bundles resnet18_b1_224_fp16,mlp_b128_fp16 --threads 1,2 --repeat 3 --cpus 12,13 --fresh-ir --baseline /tmp/base > $OUT/tb_fresh.txt 2> $OUT/tb_fresh.err &
P2=$!
python3 benchmarks/threads_bundles.py --bundles bert_base_b4_t128_fp16 --threads 1,2 --repeat 2 --cpus 14,15 --baseline /tmp/base > $OUT/tb_bert.txt 2> $OUT/tb_bert.err &
P3=$!
wait $P1 || true; echo "cached done at $(( $(date +%s) - T0 )) s"
wait $P2 || true; echo "fresh done at $(( $(date +%s) - T0 )) s"
wait $P3 || true; echo "bert done at $(( $(date +%s) - T0 )) s"
tail -n 6 $OUT/tb_cached.txt $OUT/tb_fresh.txt $OUT/tb_bert.txt
