#!/usr/bin/env bash
# Fuzzes the Triton-C front end with libFuzzer for a bounded time.
#   scripts/fuzz.sh [SECONDS]     (default 60)
# Configures build-fuzz/ with clang++ and ASan+UBSan+libFuzzer instrumentation,
# builds frontend_fuzzer, runs it on fuzz/corpus/ (seeds, read-only) plus
# fuzz/corpus-work/ (what it learns, git-ignored), and writes crashes,
# timeouts and OOMs to fuzz/crashes/. Exits non-zero if it found any.
# FUZZ_JOBS=N runs N fuzzing processes (-fork=N); FUZZ_KEEP_GOING=1 goes on
# after a finding (fork mode); FUZZ_CXXFLAGS adds compiler flags; JOBS=N sets
# the build's -j. Known UBSan reports can be silenced in fuzz/ubsan.supp
# (or the file named by FUZZ_UBSAN_SUPP).
set -uo pipefail

secs=${1:-60}
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build-fuzz
# UBSan checks stay recoverable so that fuzz/ubsan.supp can silence a known
# report while it is being fixed; halt_on_error turns every other one into a crash.
flags="-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer ${FUZZ_CXXFLAGS:-}"

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DTRITONC_FUZZ=ON -DTRITONC_TESTS=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS="$flags" >/dev/null || exit 2
ninja -C "$build" -j"${JOBS:-2}" frontend_fuzzer || exit 2

mkdir -p "$root/fuzz/crashes" "$root/fuzz/corpus-work"
ubsan=halt_on_error=1:print_stacktrace=1
supp=${FUZZ_UBSAN_SUPP:-$root/fuzz/ubsan.supp}
if [ -s "$supp" ]; then ubsan+=":suppressions=$supp"; fi
export UBSAN_OPTIONS=$ubsan ASAN_OPTIONS=detect_leaks=1

# Replay the saved findings under the sanitizers first (the gtest replay in
# test/lang/fuzz_regressions_test.cpp is not instrumented).
failed_regressions=()
replay_dir=$(mktemp -d)
for f in "$root"/test/lang/fuzz_regressions/*.tc; do
  [ -e "$f" ] || continue
  if ! "$build/fuzz/frontend_fuzzer" -timeout=10 -rss_limit_mb=4096 -artifact_prefix="$replay_dir/" "$f" >/dev/null 2>&1; then
    failed_regressions+=("$f")
  fi
done
rm -rf "$replay_dir"
for f in "${failed_regressions[@]}"; do echo "fuzz.sh: regression still fails: $f" >&2; done

marker=$(mktemp)
args=(-max_total_time="$secs" -max_len=4096 -timeout=10 -rss_limit_mb=4096
      -artifact_prefix="$root/fuzz/crashes/" -dict="$root/fuzz/triton-c.dict" -print_final_stats=1)
if [ "${FUZZ_JOBS:-1}" -gt 1 ] || [ -n "${FUZZ_KEEP_GOING:-}" ]; then
  args+=(-fork="${FUZZ_JOBS:-1}" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
fi
"$build/fuzz/frontend_fuzzer" "${args[@]}" "$root/fuzz/corpus-work" "$root/fuzz/corpus"
rc=$?

found=$(find "$root/fuzz/crashes" -type f -newer "$marker" ! -name .gitignore | sort)
rm -f "$marker"
if [ ${#failed_regressions[@]} -gt 0 ]; then
  echo "fuzz.sh: ${#failed_regressions[@]} saved regression(s) still fail under the sanitizers" >&2
  [ -n "$found" ] || [ $rc -ne 0 ] || exit 1
fi
if [ -n "$found" ] || [ $rc -ne 0 ]; then
  echo "fuzz.sh: the fuzzer found problems (exit $rc):" >&2
  for f in $found; do echo "  $f" >&2; done
  echo "reproduce: $build/fuzz/frontend_fuzzer FILE; minimize: add -minimize_crash=1 -runs=10000" >&2
  exit 1
fi
echo "fuzz.sh: no crashes in ${secs}s"
