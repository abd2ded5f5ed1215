#!/usr/bin/env bash
# Runs each libFuzzer target of tests/fuzz for SECONDS (make fuzz, .ci/run; docs/testing.md).
#   tests/fuzz/run_fuzzers.sh BUILD_DIR SECONDS [TARGET...]
# Each target starts from its committed seeds (tests/fuzz/corpus/TARGET, read only) and the
# inputs earlier runs found (BUILD_DIR/fuzz-corpus/TARGET, where new ones go). A crash, a
# sanitizer finding, an input slower than 10 s or a run above 2 GiB is a failure: the input
# is written to BUILD_DIR/fuzz-crashes/, the run goes on with the next target, and the
# script exits 1 at the end. Prints executions per second per target.
# FUZZ_SEED (default 1) fixes libFuzzer's random seed, so a CI run explores the same inputs
# as a longer run with the same seed did first; FUZZ_SEED=0 draws a new seed each run
# (exploration: make fuzz FUZZ_SEED=0 FUZZ_SECONDS=600). FUZZ_RUNS (optional) also stops
# each target after that many inputs: with a fixed seed, CI's run is then the same prefix
# of inputs on any machine, however fast.
set -uo pipefail
build=${1:?build directory}
seconds=${2:?seconds per target}
shift 2
source_dir=$(cd "$(dirname "$0")" && pwd)
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(elf_loader scenario_parser rv64_decoder xdavinci_decoder stats_diff gdb_packet onnx_importer)
fi
mkdir -p "$build/fuzz-crashes" "$build/fuzz-logs"
failed=()
printf '%-18s %12s %10s %8s %s\n' target executions execs/s corpus result
for target in "${targets[@]}"; do
  binary=$build/tests/fuzz/${target}_fuzz
  log=$build/fuzz-logs/$target.log
  mkdir -p "$build/fuzz-corpus/$target"
  SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 "$binary" -max_total_time="$seconds" -seed="${FUZZ_SEED:-1}" ${FUZZ_RUNS:+-runs="$FUZZ_RUNS"} -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$build/fuzz-crashes/$target-" \
    "$build/fuzz-corpus/$target" "$source_dir/corpus/$target" >"$log" 2>&1
  status=$?
  executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  corpus=$(find "$build/fuzz-corpus/$target" -type f | wc -l)
  result=ok
  if [ $status -ne 0 ]; then
    result="FAILED (exit $status): $(grep -m1 -E 'ERROR|SUMMARY|property failed|uncaught|==[0-9]+==' "$log" | cut -c1-100); log: $log"
    failed+=("$target")
  fi
  printf '%-18s %12s %10s %8s %s\n' "$target" "${executions:-?}" "${rate:-?}" "$corpus" "$result"
done
if [ ${#failed[@]} -ne 0 ]; then
  echo "fuzzing found bugs in: ${failed[*]} (inputs in $build/fuzz-crashes/)" >&2
  exit 1
fi
