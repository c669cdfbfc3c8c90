#!/usr/bin/env bash
# Builds tritonc and runs the whole test suite: ctest (unit, IR, language,
# kernel, command-line and C API tests, and the Python package's pytest
# suite), then checks that `pip install .` builds and installs the package.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup-deps.sh
PY=$(./scripts/python-env.sh)
TRITONC_CMAKE_ARGS="-DTRITONC_PYTHON=ON -DPython_EXECUTABLE=$PY" ./scripts/build.sh
(cd "${BUILD_DIR:-build}" && ctest --output-on-failure -j "${JOBS:-$(nproc)}" --timeout 900)
# The package as users install it (README), imported from outside the tree;
# built without the CPU back end, which checks that the build without LLVM
# (the GPU host's) works, and saves compiling the back end twice.
"$PY" -m pip install -q --no-build-isolation --config-settings=cmake.define.TRITONC_CPU=OFF . >/dev/null
(cd /tmp && "$PY" -c "import tritonc, numpy as np, tritonc.language.extra.cuda.libdevice; print('pip-installed tritonc', tritonc.version())")
