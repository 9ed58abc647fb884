#!/usr/bin/env bash
# Set up, build and run kvscope on the default model. Extra arguments go to `kvscope estimate`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-debian.sh
scripts/build-native.sh
if [ $# -eq 0 ]; then set -- --model llama-3.1-8b --context 128k; fi
exec build/native/native-bench/kvscope estimate "$@"
