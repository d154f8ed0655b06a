#!/bin/bash
# session 13 device call 2: the global-atomic histograms (quanta with few SMs at work) and mlp_b128 at 2 and 16
# threads, this tree against 5aebca7, best of 3, then resnet18_b1 and mlp_b128 again (5 runs each)
source benchmarks/device_setup.sh
uptime
timeout 240 taskset -c 0-15 python3 benchmarks/timing.py --threads 1,2,16 --repeat 3 --cases hist_global_256bins_4M,hist_global_32bins_4M,hist_smem_256bins_4M --baseline /tmp/base > $OUT/hist.txt 2> $OUT/hist.err || echo "timing rc $?"
echo "timing done at $(( $(date +%s) - T0 )) s"; uptime
timeout 60 python3 benchmarks/threads_bundles.py --warm-only --bundles resnet18_b1_224_fp16,mlp_b128_fp16 > /dev/null 2>&1 || true
timeout 200 python3 benchmarks/threads_bundles.py --bundles mlp_b128_fp16,resnet18_b1_224_fp16 --threads 1,2,16 --repeat 5 --cpus 0-15 --baseline /tmp/base > $OUT/tb2.txt 2> $OUT/tb2.err || echo "bundles rc $?"
echo "bundles done at $(( $(date +%s) - T0 )) s"; uptime
tail -n 14 $OUT/hist.txt; tail -n 6 $OUT/tb2.txt
