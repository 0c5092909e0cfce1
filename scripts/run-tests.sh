#!/usr/bin/env bash
# Run every test of one build directory: ctest, then pytest (integration
# tests use the vpk binary of the same build through $VPK_BUILD).
set -euo pipefail
build=${1:-build}
export VPK_BUILD=$(cd "$build" && pwd)
ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
if compgen -G "tests/integration/test_*.py" >/dev/null; then
  ${PYTHON:-python3} -m pytest -q tests/integration
fi
