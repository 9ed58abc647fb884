#!/usr/bin/env bash
# The native unit tests again, built with AddressSanitizer + UndefinedBehaviorSanitizer (build/asan):
# any report fails the test that triggered it.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build/asan -DCMAKE_BUILD_TYPE=Debug -DKVSCOPE_SANITIZE=ON -DKVBENCH_CUDA=OFF >/dev/null
cmake --build build/asan -j "$(nproc)"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build/asan --output-on-failure -j "$(nproc)"
