#!/bin/bash
# session 11 device call 2 (the same machine, warm): what else runs there, then the A/B again with fewer launches
# at a time (4) on the cases the change touches and four it does not, and the small bundles with 5 repeats
T0=$(date +%s)
export PYTHONPATH=/tmp/site OPENBLAS_NUM_THREADS=1 SIMTSCOPE_CACHE_DIR=/tmp/simc
ls /tmp/base/engine/_engine.abi3.so engine/_engine.abi3.so || source benchmarks/device_setup.sh
uptime; top -bn1 | head -15 > $OUT/top.txt
timeout 200 python3 benchmarks/ab_suite.py /tmp/base . --cap 5000000 --repeat 3 --jobs 4 --only conv2d_3x3_n1,conv2d_3x3_n8,sgemm_naive_256,sgemm_naive_512,hgemm_wmma_simple_1024,hgemm_wmma_tiled_2048,sgemm_tiled16_512,sgemm_rb64_1024,relu_16M,transpose_naive_4096,softmax_4096x128,saxpy_16M > $OUT/ab2.txt 2> $OUT/ab2.err || echo "ab_suite rc $?"
echo "A/B done at $(( $(date +%s) - T0 )) s"; uptime
timeout 200 python3 benchmarks/threads_bundles.py --bundles resnet18_b1_224_fp16,mlp_b128_fp16 --threads 1,2 --repeat 5 --cpus 10,11 --baseline /tmp/base > $OUT/tb2.txt 2> $OUT/tb2.err || echo "bundles rc $?"
echo "bundles done at $(( $(date +%s) - T0 )) s"
tail -n 17 $OUT/ab2.txt; tail -n 6 $OUT/tb2.txt
