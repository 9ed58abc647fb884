#!/usr/bin/env bash
# Set up, build and run every test. This is the README's test command and what CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-debian.sh
scripts/build-native.sh
ctest --test-dir build/native --output-on-failure -j "$(nproc)"
