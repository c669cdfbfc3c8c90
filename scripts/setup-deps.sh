#!/usr/bin/env bash
# Installs what building and testing tritonc needs, when it is missing:
# cmake, ninja, a C++17 compiler, GoogleTest (Debian packages), ccache if
# available, and LLVM 19 (llvm-19-dev) for the CPU back end if available.
# ccache and LLVM are optional: without LLVM the CPU back end is left out
# (CMake's TRITONC_CPU=AUTO), so a machine without network access (the GPU
# host) still builds; a failed attempt at LLVM is not repeated on that
# machine (remove $stamp to retry; TRITONC_NO_LLVM=1 never tries).
set -euo pipefail

missing=()
command -v cmake >/dev/null 2>&1 || missing+=(cmake)
command -v ninja >/dev/null 2>&1 || missing+=(ninja-build)
command -v g++ >/dev/null 2>&1 || missing+=(g++)
[ -f /usr/include/gtest/gtest.h ] || missing+=(libgtest-dev)
command -v ccache >/dev/null 2>&1 || missing+=(ccache)

stamp="${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/tritonc/setup-deps-no-llvm"
want_llvm=0
if [ "${TRITONC_NO_LLVM:-0}" != 1 ] && [ ! -f /usr/lib/llvm-19/lib/cmake/llvm/LLVMConfig.cmake ] && [ ! -f "$stamp" ]; then
  want_llvm=1
fi

if [ ${#missing[@]} -eq 0 ] && [ $want_llvm = 0 ]; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then
  if ! command -v sudo >/dev/null 2>&1; then
    required=()
    for p in "${missing[@]}"; do [ "$p" != ccache ] && required+=("$p"); done
    if [ ${#required[@]} -gt 0 ]; then
      echo "setup-deps: need root to install: ${required[*]}" >&2
      exit 1
    fi
    exit 0  # only optional packages are missing
  fi
  SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
required=()
for p in "${missing[@]}"; do [ "$p" != ccache ] && required+=("$p"); done
updated=0
if [ ${#required[@]} -gt 0 ]; then
  echo "setup-deps: installing ${required[*]}" >&2
  $SUDO apt-get update -qq
  updated=1
  $SUDO apt-get install -y -qq "${required[@]}" >/dev/null
fi
# The optional ones: their failure is only reported (and sudo may not ask
# for a password for them).
OPT_SUDO=""
[ -n "$SUDO" ] && OPT_SUDO="sudo -n"
optional=()
for p in "${missing[@]}"; do [ "$p" = ccache ] && optional+=(ccache); done
[ $want_llvm = 1 ] && optional+=(llvm-19-dev)
for p in "${optional[@]}"; do
  # A package apt does not know yet may need fresh lists (a new machine).
  if [ $updated = 0 ] && ! apt-cache show "$p" >/dev/null 2>&1; then
    $OPT_SUDO apt-get update -qq >/dev/null 2>&1 || true
    updated=1
  fi
  echo "setup-deps: installing $p (optional)" >&2
  if ! $OPT_SUDO apt-get install -y -qq "$p" >/dev/null 2>&1; then
    echo "setup-deps: $p not installed (optional)" >&2
    if [ "$p" = llvm-19-dev ]; then
      echo "setup-deps: building without the CPU back end (it needs LLVM 19)" >&2
      mkdir -p "$(dirname "$stamp")" 2>/dev/null && touch "$stamp" 2>/dev/null || true
    fi
  fi
done
