#!/usr/bin/env bash
# Builds the Python package kvscope into build/python/kvscope-<version>-*.whl, offline, with
# Debian's Python and packages (pybind11-dev, python3-build, python3-setuptools, python3-wheel):
# the extension is built in build/native (scripts/build-native.sh's tree; its core objects are
# reused) by packaging/python/setup.py.
set -euo pipefail
cd "$(dirname "$0")/.."
python=${KVSCOPE_PYTHON_EXE:-/usr/bin/python3}
rm -f build/python/kvscope-*.whl
KVSCOPE_CMAKE_BUILD_DIR="$PWD/build/native" \
  "$python" -m build --wheel --no-isolation --outdir build/python packaging/python >/dev/null
ls build/python/kvscope-*.whl
