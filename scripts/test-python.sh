#!/usr/bin/env bash
# The Python package as a user installs it: scripts/build-python.sh's wheel installed with
# `pip install --no-index` into a fresh venv (Debian's python3-venv; system site-packages only for
# Debian's pytest), then tests/python under that venv's python against the native CLI.
set -euo pipefail
cd "$(dirname "$0")/.."
python=${KVSCOPE_PYTHON_EXE:-/usr/bin/python3}
venv=build/python/venv
rm -rf "$venv"
"$python" -m venv --system-site-packages "$venv"
"$venv/bin/pip" install --no-index --quiet --disable-pip-version-check build/python/kvscope-*.whl
"$venv/bin/python" -m pytest -q -p no:cacheprovider tests/python
