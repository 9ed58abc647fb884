#!/usr/bin/env bash
# Packs the npm package `kvscope` into build/npm/kvscope-<version>.tgz: the staged page (both
# WebAssembly modules, js/kvscope-client.js as the entry, kvscope.d.ts, the widget as
# kvscope/embed), the CLI compiled for node (bin kvscope) and the MCP server (bin kvscope-mcp),
# from packaging/npm/. The version is the core's (`kvscope --version`).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build-wasm.sh
stage=build/npm/package
rm -rf "$stage" build/npm/kvscope-*.tgz
mkdir -p build/npm
cp -r build/wasm/site "$stage"
rm -rf "$stage/examples"
cp -r packaging/npm/. "$stage/"
cp LICENSE "$stage/"
mkdir -p "$stage/cli"
cp build/wasm/native-bench/kvscope.cjs build/wasm/native-bench/kvscope.wasm "$stage/cli/"
# The client's declarations from its JSDoc, beside kvscope.d.ts (the package's index.d.ts exports both).
node_modules/.bin/tsc --declaration --allowJs --emitDeclarationOnly --skipLibCheck --target es2022 \
  --module esnext --moduleResolution bundler --outDir "$stage/js" web/js/kvscope-client.js
# Each command's kvscope.request/1 JSON Schema (kvscope/schema/plan, ...): the MCP tools' inputs.
mkdir -p "$stage/schema"
for command in estimate plan sweep solve explain check; do
  node "$stage/bin/kvscope.cjs" "$command" --request-schema > "$stage/schema/$command.json"
done
version=$(node "$stage/bin/kvscope.cjs" --version)
version=${version#kvscope }
node -e '
  const fs = require("fs"), file = process.argv[1];
  const pkg = JSON.parse(fs.readFileSync(file, "utf8"));
  pkg.version = process.argv[2];
  fs.writeFileSync(file, JSON.stringify(pkg, null, 2) + "\n");' "$stage/package.json" "$version"
(cd "$stage" && npm pack --silent --pack-destination .. >/dev/null)
echo "build/npm/kvscope-$version.tgz"
