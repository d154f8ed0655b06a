#!/bin/bash
# Set-up shared by the device-host benchmark scripts (benchmarks/results/session*/device_script*.sh), sourced from
# the checkout's root on the device machine: the wheels and CUDA tools the checkout carries in .whl/ (git-ignored:
# cffi, msgpack, zstandard, tqdm, ...; cudatools.tar.xz; base.tgz = `git archive BASE engine configs simtscope
# validation scripts setup.py pyproject.toml benchmarks webapp workloads/zoo/<bundles>`), then profile-guided
# builds of this tree and of the base tree in /tmp/base, side by side. Sets T0, PYTHONPATH, SIMTSCOPE_CACHE_DIR.
T0=$(date +%s)
mkdir -p /tmp/site /tmp/base
python3 -m pip install -q --no-index --target /tmp/site .whl/*.whl > /dev/null 2>&1 || true
tar xJf .whl/cudatools.tar.xz -C /tmp/site
if [ -f .whl/base.tgz ]; then tar xzf .whl/base.tgz -C /tmp/base; fi
export PYTHONPATH=/tmp/site OPENBLAS_NUM_THREADS=1 SIMTSCOPE_CACHE_DIR=/tmp/simc
if [ -f /tmp/base/setup.py ]; then (cd /tmp/base && python3 scripts/build_pgo.py > "$OUT/build_base.txt" 2>&1) & fi
(python3 scripts/build_pgo.py > "$OUT/build_new.txt" 2>&1) &
wait
echo "set up and built at $(( $(date +%s) - T0 )) s on $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"
tail -n 1 "$OUT/build_new.txt"; [ -f "$OUT/build_base.txt" ] && tail -n 1 "$OUT/build_base.txt"
true
