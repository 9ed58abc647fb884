#!/usr/bin/env bash
# Set up, build and run every test: native (GoogleTest, CLI, validation, kvbench, benchmark
# smoke), the Python package installed from its wheel, the core under WebAssembly, the JS API
# under node, the npm package installed from its tarball, the page in headless Chromium, the
# native tests again under AddressSanitizer + UBSan, and each fuzzer for FUZZ_SECONDS (60).
# This is the README's test command and what CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-debian.sh
scripts/build-native.sh
ctest --test-dir build/native --output-on-failure -j "$(nproc)"
# The Python package's wheel (build/python/kvscope-<version>-*.whl), installed into a fresh venv.
scripts/build-python.sh
scripts/test-python.sh
scripts/build-wasm.sh
ctest --test-dir build/wasm --output-on-failure
# The npm package packed (build/npm/kvscope-<version>.tgz) and installed as a user would.
scripts/pack-npm.sh
# The JS API against the CLI's JSON, the package (its CLI, MCP server and the GitHub Action's
# steps), then the page in Chromium (screenshots:
# build-artifacts/).
node --test tests/wasm/ tests/npm/ tests/action/ tests/browser/
scripts/test-sanitizers.sh
scripts/fuzz.sh
