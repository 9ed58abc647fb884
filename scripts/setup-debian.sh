#!/usr/bin/env bash
# Installs what kvscope builds and tests with: Debian 12's packages (compilers, Emscripten,
# Python and pybind11 for the Python package, Chromium for the browser tests) and the npm packages in package-lock.json (the chart library
# the page ships, playwright-core to drive Chromium). Idempotent: skips what is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake g++ make clang libclang-rt-14-dev libgtest-dev libbenchmark-dev nlohmann-json3-dev
          emscripten nodejs npm
          python3-dev python3-venv python3-setuptools python3-wheel python3-build python3-pytest
          pybind11-dev
          chromium fonts-dejavu-core)
missing=()
for p in "${packages[@]}"; do
  # NodeSource's nodejs bundles npm: an installed node with npm on PATH is enough.
  if [ "$p" = npm ] && command -v npm >/dev/null; then continue; fi
  if [ "$p" = nodejs ] && command -v node >/dev/null; then continue; fi
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm packages, exactly as locked; skipped when node_modules is newer than the lockfile.
if [ ! node_modules/.package-lock.json -nt package-lock.json ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
