#!/usr/bin/env bash
# Configures and builds tritonc into ${BUILD_DIR:-build} (Ninja, RelWithDebInfo).
set -euo pipefail
cd "$(dirname "$0")/.."
"./scripts/setup-deps.sh"
BUILD_DIR=${BUILD_DIR:-build}
# TRITONC_CMAKE_ARGS: extra configuration (the test script adds the Python extension).
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-RelWithDebInfo} ${TRITONC_CMAKE_ARGS:-} >/dev/null
# Optional arguments are targets (default: everything).
if [ $# -gt 0 ]; then
  cmake --build "$BUILD_DIR" -j "${JOBS:-$(nproc)}" --target "$@"
else
  cmake --build "$BUILD_DIR" -j "${JOBS:-$(nproc)}"
fi
