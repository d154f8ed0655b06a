#!/bin/bash
# session 10 device call 1: this session's engine (L1 arrays kept across launches, the flush split by slice, SMs on their own
# thread) against
# 9c78d67 (session 9's final main) on the small bundles at one and two threads (cores 10-11, alone), then how one
# simulation scales with threads on this 16-core host today (GEMMs, saxpy, conv; resnet18_b1), each benchmark alone
set -e
source benchmarks/device_setup.sh
python3 benchmarks/threads_bundles.py --warm-only --bundles resnet18_b1_224_fp16,mlp_b128_fp16,bert_base_b4_t128_fp16 > /dev/null 2>&1 || true
python3 benchmarks/threads_bundles.py --bundles resnet18_b1_224_fp16,mlp_b128_fp16 --threads 1,2 --repeat 3 --cpus 10,11 --baseline /tmp/base > $OUT/tb.txt 2> $OUT/tb.err || true
echo "bundles A/B done at $(( $(date +%s) - T0 )) s"
python3 benchmarks/timing.py --cases sgemm_tiled16_512,sgemm_rb64_1024,hgemm_wmma_tiled_2048,conv2d_3x3_n1,saxpy_16M --threads 1,2,4,8,16 --repeat 1 > $OUT/scale.txt 2>&1 || true
echo "scaling done at $(( $(date +%s) - T0 )) s"
python3 benchmarks/threads_bundles.py --bundles resnet18_b1_224_fp16 --threads 1,2,4,8,16 --repeat 2 > $OUT/tbscale.txt 2> $OUT/tbscale.err || true
echo "bundle scaling done at $(( $(date +%s) - T0 )) s"
tail -n 6 $OUT/tb.txt; tail -n 9 $OUT/scale.txt; tail -n 3 $OUT/tbscale.txt
