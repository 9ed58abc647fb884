#!/usr/bin/env bash
# Configures and builds the native tree (core, CLI, tests) in build/native.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release -DKVSCOPE_WARNINGS_AS_ERRORS=ON >/dev/null
cmake --build build/native -j "$(nproc)"
