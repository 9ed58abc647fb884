#!/usr/bin/env bash
# Configures and builds the WebAssembly tree (the same core under Emscripten) in build/wasm.
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH=/usr/share/nodejs  # Debian's emcc needs node-acorn from there (toolchain.md §1)
emcmake cmake -S . -B build/wasm -DCMAKE_BUILD_TYPE=Release -DKVSCOPE_WARNINGS_AS_ERRORS=ON \
  "-DCMAKE_CROSSCOMPILING_EMULATOR=/usr/bin/node;--no-experimental-fetch" >/dev/null
cmake --build build/wasm -j "$(nproc)"
