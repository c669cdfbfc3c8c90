#!/usr/bin/env bash
# Installs what building and testing tritonc needs, when it is missing:
# cmake, ninja, a C++17 compiler, GoogleTest (Debian packages), ccache if available.
set -euo pipefail

missing=()
command -v cmake >/dev/null 2>&1 || missing+=(cmake)
command -v ninja >/dev/null 2>&1 || missing+=(ninja-build)
command -v g++ >/dev/null 2>&1 || missing+=(g++)
[ -f /usr/include/gtest/gtest.h ] || missing+=(libgtest-dev)
command -v ccache >/dev/null 2>&1 || missing+=(ccache)

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "setup-deps: installing ${missing[*]}" >&2
if [ "$(id -u)" != 0 ] && ! command -v sudo >/dev/null 2>&1; then
  echo "setup-deps: need root to install: ${missing[*]}" >&2
  exit 1
fi
SUDO=""
[ "$(id -u)" != 0 ] && SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# ccache is a nicety: do not fail the build if it cannot be installed.
required=()
for p in "${missing[@]}"; do [ "$p" != ccache ] && required+=("$p"); done
if [ ${#required[@]} -gt 0 ]; then
  $SUDO apt-get install -y -qq "${required[@]}" >/dev/null
fi
$SUDO apt-get install -y -qq ccache >/dev/null 2>&1 || echo "setup-deps: ccache not installed (optional)" >&2
