#!/usr/bin/env bash
# Run every libFuzzer target of a build for a bounded time from its seed corpus
# and print one line per target: final coverage (cov: edges, ft: features)
# and executions per second, as libFuzzer reports them.
#
#   scripts/run-fuzz.sh BUILD_DIR [SECONDS_PER_TARGET] [TARGET...]
#
# SECONDS_PER_TARGET defaults to $VPK_FUZZ_SECONDS, else 60. TARGETs are
# names without the fuzz_ prefix (acl_rules, fwd_config, ...); default: all
# fuzz_* binaries in BUILD_DIR/fuzz. Each run starts from a fresh copy of
# tests/data/fuzz/<name>/ (so figures compare across builds) with -seed=1;
# new inputs go to BUILD_DIR/fuzz-out/<name>/corpus, the log to
# BUILD_DIR/fuzz-out/<name>/log, a crashing input to
# BUILD_DIR/fuzz-out/<name>/crash-*. Exit status: non-zero if any target
# crashed, leaked, timed out or printed a sanitizer report. VPK_FUZZ_JOBS=N
# runs N targets at a time (CI: one per core).
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: run-fuzz.sh BUILD_DIR [SECONDS] [TARGET...]}
secs=${2:-${VPK_FUZZ_SECONDS:-60}}
shift $(( $# >= 2 ? 2 : 1 ))
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in "$build"/fuzz/fuzz_*; do
    [ -x "$f" ] && targets+=("$(basename "$f" | sed 's/^fuzz_//')")
  done
fi
if [ ${#targets[@]} -eq 0 ]; then
  echo "run-fuzz: no fuzz_* binaries in $build/fuzz (configure with -DVPK_FUZZ=ON and clang)" >&2
  exit 1
fi

# halt_on_error: a UBSan report must fail the run, not scroll past.
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
# One target: run it, then write its summary line to $out/result.
run_one() {
  local t=$1 bin="$build/fuzz/fuzz_$1" out="$build/fuzz-out/$1" seeds=() rc last cov ft eps runs result
  rm -rf "$out"
  mkdir -p "$out/corpus"
  [ -d "tests/data/fuzz/$t" ] && seeds=("tests/data/fuzz/$t")
  # -timeout: one input taking this long is a finding (a hang), with room
  # for ASan on a loaded 2-core machine.
  "$bin" -seed=1 -max_total_time="$secs" -timeout=25 -print_final_stats=1 \
    -artifact_prefix="$out/" "$out/corpus" "${seeds[@]}" >"$out/log" 2>&1
  rc=$?
  last=$(grep -E '^#[0-9]+.*cov: ' "$out/log" | tail -n 1)
  cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$last")
  ft=$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$last")
  eps=$(sed -nE 's/.*stat::average_exec_per_sec: *([0-9]+).*/\1/p' "$out/log" | tail -n 1)
  runs=$(sed -nE 's/.*stat::number_of_executed_units: *([0-9]+).*/\1/p' "$out/log" | tail -n 1)
  result=ok
  if [ $rc -ne 0 ] || grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:' "$out/log"; then
    result="FAILED (rc $rc, see $out/log)"
  fi
  printf '%-16s %8s %8s %10s %10s  %s\n' "$t" "${cov:--}" "${ft:--}" "${eps:--}" "${runs:--}" "$result" >"$out/result"
}

# VPK_FUZZ_JOBS targets at a time (default 1: exec/s figures then compare).
jobs=${VPK_FUZZ_JOBS:-1}
running=0
for t in "${targets[@]}"; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n
    running=$((running - 1))
  fi
  run_one "$t" &
  running=$((running + 1))
done
wait
failed=()
printf '%-16s %8s %8s %10s %10s  %s\n' target cov ft exec/s runs result
for t in "${targets[@]}"; do
  cat "$build/fuzz-out/$t/result"
  grep -q ' ok$' "$build/fuzz-out/$t/result" || failed+=("$t")
done
if [ ${#failed[@]} -gt 0 ]; then
  for t in "${failed[@]}"; do
    echo "=== fuzz_$t: last lines of $build/fuzz-out/$t/log"
    tail -n 40 "$build/fuzz-out/$t/log"
  done
  echo "run-fuzz: ${#failed[@]} target(s) failed: ${failed[*]}" >&2
  exit 1
fi
