#!/usr/bin/env bash
# Run the tests with readers and writers on threads (ctest label "concurrent")
# in a ThreadSanitizer build: once at the default SIMD cap, once forced to the
# scalar variants (VPK_MAX_SIMD_BITWIDTH=64), whose loads are the ones TSan
# instruments. halt_on_error: the first report ends the test with exit code
# 66, so any report fails the run. No suppressions file: vpk has none to hide.
set -euo pipefail
build=${1:-build-tsan}
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
if ! ctest --test-dir "$build" -N -L concurrent | grep -q 'Total Tests: [1-9]'; then
  echo "run-tsan: no test labelled 'concurrent' in $build" >&2
  exit 1
fi
# GCC 12's TSan runtime cannot place its shadow memory under the wider mmap
# randomisation of newer kernels (FATAL: unexpected memory mapping); run
# without ASLR where the sandbox allows it.
norand=()
if setarch "$(uname -m)" -R true 2>/dev/null; then
  norand=(setarch "$(uname -m)" -R)
fi
for cap in default 64; do
  echo "== ThreadSanitizer, concurrent tests, SIMD cap: $cap"
  if [ "$cap" = default ]; then
    "${norand[@]}" ctest --test-dir "$build" -L concurrent --output-on-failure -j "$(nproc)"
  else
    VPK_MAX_SIMD_BITWIDTH=$cap "${norand[@]}" ctest --test-dir "$build" -L concurrent --output-on-failure -j "$(nproc)"
  fi
done
