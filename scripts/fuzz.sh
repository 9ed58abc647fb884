#!/usr/bin/env bash
# Builds the libFuzzer targets with Debian's clang (ASan + UBSan) and runs each for FUZZ_SECONDS
# (default 60) from its seed corpus in tests/fuzz/corpus/<target>/, fuzz_config_import also from
# the test configs themselves (tests/data/configs, tests/data/real-configs), fuzz_explain from the
# committed start-up logs (tests/data/logs, model byte first); fuzz_request's seeds are the golden
# requests with their command byte first; fuzz_decimal holds the core's decimal reader to strtod.
# New inputs go to a temporary folder, not the source tree. Any crash, leak, timeout or sanitizer
# report fails it.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${FUZZ_SECONDS:-60}"
# The clang tree builds every target (core, CLI, kvbench with its ISA kernels, benchmarks, tests),
# not only the fuzzers: the native tree builds with clang as with gcc.
CC=clang CXX=clang++ cmake -S . -B build/fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKVSCOPE_FUZZ=ON \
  -DKVSCOPE_WARNINGS_AS_ERRORS=ON -DKVBENCH_CUDA=OFF >/dev/null
cmake --build build/fuzz -j "$(nproc)"
for target in config_import cli plan request explain decimal check; do
  work="$(mktemp -d)"
  seeds=("tests/fuzz/corpus/$target")
  if [ "$target" = config_import ]; then seeds+=(tests/data/configs tests/data/real-configs); fi
  if [ "$target" = explain ]; then
    seeds=("$(mktemp -d)")
    for log in tests/data/logs/*.log; do { printf '\001'; cat "$log"; } >"${seeds[0]}/$(basename "$log")"; done
  fi
  echo "fuzz_$target: ${seconds} s from ${seeds[*]}"
  status=0
  build/fuzz/tests/fuzz/fuzz_$target "$work" "${seeds[@]}" -max_total_time="$seconds" \
    -artifact_prefix="$work-" \
    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 >"$work.log" 2>&1 || status=$?
  grep -E "^stat::number_of_executed_units|^Done|ERROR|SUMMARY|^artifact_prefix|Test unit written" "$work.log" || true
  rm -rf "$work"
  if [ "$target" = explain ]; then rm -rf "${seeds[0]}"; fi
  if [ "$status" -ne 0 ]; then
    # What broke (the invariant, the sanitizer's report or the exception) and the input itself, so a
    # CI log alone is enough to reproduce it: base64 -d > crash && build/fuzz/tests/fuzz/fuzz_X crash
    grep -E -m1 -A40 "violated:|terminate called|runtime error|==[0-9]+==ERROR" "$work.log" >&2 || tail -40 "$work.log" >&2
    for input in "$work"-crash-* "$work"-leak-* "$work"-timeout-* "$work"-oom-*; do
      [ -f "$input" ] && { echo "the input, base64:" >&2; base64 -w0 "$input" | head -c 20000 >&2; echo >&2; }
    done
    echo "fuzz_$target failed (exit $status); the log: $work.log, the input: $work-crash-*" >&2
    exit 1
  fi
  rm -f "$work.log"
done
