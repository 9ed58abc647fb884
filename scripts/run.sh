#!/usr/bin/env bash
# Set up, build the page (the core in WebAssembly) and serve it on http://127.0.0.1:8000/.
# KVSCOPE_PORT picks another port; KVSCOPE_HOST=0.0.0.0 serves beyond this machine.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-debian.sh
scripts/build-wasm.sh
port="${KVSCOPE_PORT:-8000}"
host="${KVSCOPE_HOST:-127.0.0.1}"
echo "kvscope: serving build/wasm/site at http://${host}:${port}/ (Ctrl-C stops)"
exec python3 -m http.server "$port" --bind "$host" --directory build/wasm/site
