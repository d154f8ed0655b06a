#!/bin/bash
# session 11 device call 3: the final engine (also the shared atomics' count) against a871f3d on 14 cases, 4 launches
# at a time, 3 repeats, then the small bundles at one and two threads (5 repeats); the host's load before and after
source benchmarks/device_setup.sh
uptime
timeout 240 python3 benchmarks/ab_suite.py /tmp/base . --cap 5000000 --repeat 3 --jobs 4 --only conv2d_3x3_n1,conv2d_3x3_n8,sgemm_naive_256,sgemm_naive_512,hist_smem_256bins_4M,hgemm_wmma_simple_1024,hgemm_wmma_tiled_2048,transpose_naive_4096,sgemm_tiled16_512,sgemm_rb64_1024,relu_16M,saxpy_16M,softmax_4096x128,im2col_3x3_n8 > $OUT/ab3.txt 2> $OUT/ab3.err || echo "ab_suite rc $?"
echo "A/B done at $(( $(date +%s) - T0 )) s"; uptime
timeout 60 python3 benchmarks/threads_bundles.py --warm-only --bundles resnet18_b1_224_fp16,mlp_b128_fp16 > /dev/null 2>&1 || true
timeout 170 python3 benchmarks/threads_bundles.py --bundles resnet18_b1_224_fp16,mlp_b128_fp16 --threads 1,2 --repeat 5 --cpus 10,11 --baseline /tmp/base > $OUT/tb3.txt 2> $OUT/tb3.err || echo "bundles rc $?"
echo "bundles done at $(( $(date +%s) - T0 )) s"; uptime
tail -n 19 $OUT/ab3.txt; tail -n 6 $OUT/tb3.txt
