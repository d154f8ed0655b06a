#!/usr/bin/env bash
# Sets up the project on a fresh Debian machine: a virtual environment with simtscope installed
# (its C engine compiled by cffi). With --test, also the test tools and Debian's Chromium for the
# browser tests. Idempotent: a second run only re-installs what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
want_test=0
[ "${1:-}" = "--test" ] && want_test=1
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$PY" -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -U pip "setuptools>=74" wheel cffi 2>&1 | grep -v "WARNING: Location" || true
if [ "$want_test" = 1 ]; then
    .venv/bin/python -m pip install -q --disable-pip-version-check --no-build-isolation -e ".[test]" 2>&1 | grep -v "WARNING: Location" || true
    if ! command -v chromium >/dev/null 2>&1 && [ ! -x /usr/bin/chromium ]; then
        if [ "$(id -u)" = 0 ]; then
            (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
                || echo "setup: could not install chromium; browser tests will fail" >&2
        else
            echo "setup: Debian's chromium is missing (apt-get install chromium); browser tests need it" >&2
        fi
    fi
else
    .venv/bin/python -m pip install -q --disable-pip-version-check --no-build-isolation -e . 2>&1 | grep -v "WARNING: Location" || true
fi
# editable installs do not rebuild C: always build the engine in place from the current sources
.venv/bin/python setup.py -q build_ext --inplace >/dev/null
# then once per source change, the profile-guided build (the same results, faster: scripts/build_pgo.py);
# SIMTSCOPE_PGO=0 keeps the plain build
if [ "${SIMTSCOPE_PGO:-1}" != 0 ]; then
    .venv/bin/python scripts/build_pgo.py --quiet || echo "setup: kept the plain engine build" >&2
fi
.venv/bin/python -c "import engine._engine, webapp.store._lod"
