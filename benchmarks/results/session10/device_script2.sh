#!/bin/bash
# session 10 device call 4: the final engine (also the resets on the threads, quanta without idle SMs, the read-miss
# count) against 9c78d67: which CPUs are SMT siblings (the bundle A/Bs pin to 10,11), the small bundles at one and two
# threads, then the public suite at one thread (cap 5 M), each benchmark alone
set -e
source benchmarks/device_setup.sh
lscpu -e > $OUT/lscpu.txt 2>&1 || true
grep -E "^ *1[01] " $OUT/lscpu.txt || true
python3 benchmarks/threads_bundles.py --warm-only --bundles resnet18_b1_224_fp16,mlp_b128_fp16 > /dev/null 2>&1 || true
python3 benchmarks/threads_bundles.py --bundles resnet18_b1_224_fp16,mlp_b128_fp16 --threads 1,2 --repeat 3 --cpus 10,11 --baseline /tmp/base > $OUT/tb.txt 2> $OUT/tb.err || true
echo "bundles A/B done at $(( $(date +%s) - T0 )) s"
python3 benchmarks/ab_suite.py /tmp/base . --cap 5000000 --repeat 2 --jobs 6 > $OUT/ab.txt 2> $OUT/ab.err || true
echo "suite done at $(( $(date +%s) - T0 )) s"
tail -n 6 $OUT/tb.txt; tail -n 4 $OUT/ab.txt
