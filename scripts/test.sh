#!/usr/bin/env bash
# Set up, build and run every test, WebAssembly and native. This is the README's test command
# and what CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-debian.sh
scripts/build-wasm.sh
ctest --test-dir build/wasm --output-on-failure
scripts/build-native.sh
ctest --test-dir build/native --output-on-failure -j "$(nproc)"
