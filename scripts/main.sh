#!/usr/bin/env bash
# The main job: builds tritonc, then compiles and runs every example kernel on
# the best back end present, checks each against its reference, and prints a
# table (kernel, sizes, back end, compile time, run time, max error).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh tritonc tritonc-examples
"${BUILD_DIR:-build}/examples/tritonc-examples" --root . --preset demo "$@"
