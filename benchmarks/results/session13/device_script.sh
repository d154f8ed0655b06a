#!/bin/bash
# session 13 device call: light quanta only for a sleeping team (this tree) against 5aebca7 (light quanta whenever
# the last quantum had little work), at 1, 2, 8 and 16 threads: five suite cases launch by launch, then the two
# small bundles; the host's load before and after
source benchmarks/device_setup.sh
uptime; lscpu | grep -E "^CPU\(s\)|Thread|Core|Socket|Model name"
timeout 60 python3 benchmarks/threads_bundles.py --warm-only --bundles resnet18_b1_224_fp16,mlp_b128_fp16 > /dev/null 2>&1 || true
timeout 200 python3 benchmarks/threads_bundles.py --bundles resnet18_b1_224_fp16,mlp_b128_fp16 --threads 1,2,8,16 --repeat 3 --cpus 0-15 --baseline /tmp/base > $OUT/tb.txt 2> $OUT/tb.err || echo "bundles rc $?"
echo "bundles done at $(( $(date +%s) - T0 )) s"; uptime
timeout 280 taskset -c 0-15 python3 benchmarks/timing.py --threads 1,2,8,16 --cases hist_global_256bins_4M,hist_global_32bins_4M,saxpy_16M,sgemm_tiled16_512,hgemm_wmma_tiled_2048 --baseline /tmp/base > $OUT/scale.txt 2> $OUT/scale.err || echo "timing rc $?"
echo "timing done at $(( $(date +%s) - T0 )) s"; uptime
cat $OUT/tb.txt | tail -n 8; tail -n 30 $OUT/scale.txt
