#!/bin/bash
# session 11 device call 1: this tree (the coalescer's runs, the L1 set without a division, the wavefront count)
# against a871f3d (session 10's final main) on the public suite at one thread, then the small bundles at one and
# two threads; each benchmark alone, PGO builds of both (benchmarks/device_setup.sh)
source benchmarks/device_setup.sh
uptime
timeout 300 python3 benchmarks/ab_suite.py /tmp/base . --cap 5000000 --repeat 2 --jobs 8 > $OUT/ab.txt 2> $OUT/ab.err || echo "ab_suite rc $?"
echo "suite done at $(( $(date +%s) - T0 )) s"
timeout 60 python3 benchmarks/threads_bundles.py --warm-only --bundles resnet18_b1_224_fp16,mlp_b128_fp16 > /dev/null 2>&1 || true
timeout 150 python3 benchmarks/threads_bundles.py --bundles resnet18_b1_224_fp16,mlp_b128_fp16 --threads 1,2 --repeat 3 --cpus 10,11 --baseline /tmp/base > $OUT/tb.txt 2> $OUT/tb.err || echo "bundles rc $?"
echo "bundles done at $(( $(date +%s) - T0 )) s"
tail -n 5 $OUT/ab.txt; tail -n 4 $OUT/tb.txt
