#!/usr/bin/env bash
# Writes tests/data/requests/NAME.expected.json: the native CLI's answer to NAME.request.json.
# Run after a deliberate change of behaviour, and read the diff before committing it; the core's
# GoogleTest suite and the module's node test both hold their answers against these files.
set -euo pipefail
cd "$(dirname "$0")/.."
cli=${KVSCOPE_CLI:-build/native/native-bench/kvscope}
for request in tests/data/requests/*.request.json; do
  command=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["command"])' "$request")
  "$cli" "$command" --request "$request" --json > "${request%.request.json}.expected.json" 2>/dev/null || true
done
