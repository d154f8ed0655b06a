#!/bin/bash
# session 14 device call: the same tree built plain (/tmp/base, setup.py build_ext) and profile-guided (this
# checkout, scripts/build_pgo.py), the whole suite one thread per launch, 4 launches at a time, cap 5 M
source benchmarks/device_setup.sh
(cd /tmp/base && python3 setup.py -q build_ext --inplace --force > "$OUT/build_base_plain.txt" 2>&1) || echo "plain build rc $?"
echo "plain build done at $(( $(date +%s) - T0 )) s"; uptime
timeout 420 python3 benchmarks/ab_suite.py /tmp/base . --cap 5000000 --repeat 2 --jobs 4 > $OUT/ab_plain_pgo.txt 2> $OUT/ab.err || echo "ab rc $?"
echo "ab done at $(( $(date +%s) - T0 )) s"; uptime
tail -n 50 $OUT/ab_plain_pgo.txt
