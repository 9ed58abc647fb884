#!/usr/bin/env bash
# Set up, build and run every test: native (GoogleTest, CLI, validation, benchmark smoke), the
# core under WebAssembly, the JS API under node, and the page in headless Chromium.
# This is the README's test command and what CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-debian.sh
scripts/build-native.sh
ctest --test-dir build/native --output-on-failure -j "$(nproc)"
scripts/build-wasm.sh
ctest --test-dir build/wasm --output-on-failure
# The JS API against the CLI's JSON, then the page in Chromium (screenshots: build-artifacts/).
node --test tests/wasm/ tests/browser/
