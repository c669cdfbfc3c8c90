#!/usr/bin/env bash
# Builds tritonc and runs the whole test suite (ctest: unit, IR, language,
# kernel and command-line tests).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh
cd "${BUILD_DIR:-build}"
ctest --output-on-failure -j "${JOBS:-$(nproc)}" --timeout 900
