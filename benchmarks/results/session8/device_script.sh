#!/bin/bash
# session 8 device call: PGO builds of the base (bff014e) and this tree, then the suite A/B and two-thread bundles
set -e
T0=$(date +%s)
mkdir -p /tmp/site /tmp/base
python3 -m pip install -q --no-index --target /tmp/site .whl/*.whl 2>&1 | tail -2
tar xJf .whl/cudatools.tar.xz -C /tmp/site
tar xzf .whl/base.tgz -C /tmp/base
export PYTHONPATH=/tmp/site OPENBLAS_NUM_THREADS=1
lscpu -e | head -20 > $OUT/lscpu.txt
(cd /tmp/base && python3 scripts/build_pgo.py > $OUT/build_base.txt 2>&1) &
(python3 scripts/build_pgo.py > $OUT/build_new.txt 2>&1) &
wait
echo "built at $(( $(date +%s) - T0 )) s"
cat $OUT/build_base.txt $OUT/build_new.txt | tail -4
python3 -c "import sys; sys.path.insert(0,'.'); from engine.sass.tools import find_tools, why_missing; print(find_tools(), why_missing())"
grep -c setmask engine/csrc/cache.h; grep -c setmask /tmp/base/engine/csrc/cache.h || true
taskset -c 0-7 python3 benchmarks/ab_suite.py /tmp/base . --cap 5000000 --repeat ${REPEAT:-2} --jobs 6 > $OUT/ab.txt 2> $OUT/ab.err &
P1=$!
python3 benchmarks/threads_bundles.py --bundles resnet18_b1_224_fp16,mlp_b128_fp16 --threads 1,2 --repeat 2 --cpus 10,11 --baseline /tmp/base > $OUT/tb.txt 2> $OUT/tb.err &
P2=$!
wait $P2 || true; echo "bundles done at $(( $(date +%s) - T0 )) s"
wait $P1 || true; echo "suite done at $(( $(date +%s) - T0 )) s"
tail -12 $OUT/ab.txt; tail -6 $OUT/tb.txt
