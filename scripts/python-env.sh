#!/usr/bin/env bash
# Creates (once) the virtual environment .venv for the Python package and its
# tests: Debian's python3 with --system-site-packages, so that Debian's
# PyTorch (python3-torch, CPU; installed here when missing and possible) is
# importable for the autograd tests, plus numpy, pytest, nanobind and
# scikit-build-core from PyPI. Prints the environment's python.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3)
SUDO=""
[ "$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1 && SUDO=sudo
if [ "$PY" = /usr/bin/python3 ] && ! "$PY" -c "import torch" >/dev/null 2>&1; then
  # Best effort: without it the torch tests are skipped (and say so).
  (export DEBIAN_FRONTEND=noninteractive; $SUDO apt-get install -y -qq --no-install-recommends python3-torch python3-venv \
     >/dev/null 2>&1 || { $SUDO apt-get update -qq >/dev/null 2>&1 &&
       $SUDO apt-get install -y -qq --no-install-recommends python3-torch python3-venv >/dev/null 2>&1; }) ||
    echo "python-env: could not install python3-torch; the PyTorch tests will be skipped" >&2
fi
if [ ! -x .venv/bin/python ] || ! .venv/bin/python -c "import nanobind, pytest, numpy, scikit_build_core" >/dev/null 2>&1; then
  rm -rf .venv
  "$PY" -m venv --system-site-packages .venv >&2
  .venv/bin/pip install -q --upgrade pip >&2
  .venv/bin/pip install -q numpy pytest nanobind scikit-build-core >&2
fi
echo "$PWD/.venv/bin/python"
