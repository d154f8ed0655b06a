#!/bin/bash
# session 13 device call 3: quanta that visit at most 2 SMs stay light with a spinning team (this tree) against
# c78da4b (no light quanta with a spinning team): the global-atomic histograms and resnet18_b1 at 2 and 16 threads
source benchmarks/device_setup.sh
uptime
timeout 200 taskset -c 0-15 python3 benchmarks/timing.py --threads 1,2,16 --repeat 3 --cases hist_global_256bins_4M,hist_global_32bins_4M --baseline /tmp/base > $OUT/hist3.txt 2> $OUT/hist3.err || echo "timing rc $?"
echo "timing done at $(( $(date +%s) - T0 )) s"; uptime
timeout 60 python3 benchmarks/threads_bundles.py --warm-only --bundles resnet18_b1_224_fp16 > /dev/null 2>&1 || true
timeout 150 python3 benchmarks/threads_bundles.py --bundles resnet18_b1_224_fp16 --threads 2,16 --repeat 5 --cpus 0-15 --baseline /tmp/base > $OUT/tb3.txt 2> $OUT/tb3.err || echo "bundles rc $?"
echo "bundles done at $(( $(date +%s) - T0 )) s"; uptime
tail -n 12 $OUT/hist3.txt; tail -n 4 $OUT/tb3.txt
