#!/usr/bin/env bash
# One-command GPU check, for a GPU host (Ubuntu 24.04, CUDA 13, no LLVM, no
# network): builds tritonc from source, runs the unit tests and every example
# kernel on the GPU against its reference, runs them under compute-sanitizer
# (memcheck, racecheck), and writes logs and JSON into the folder given as $1
# (or $OUT).
#   scripts/gpu-check.sh [OUTDIR]
# STEPS (comma-separated, default all) picks what runs after the build:
#   ctest, examples, sanitizer, aot, python, launch, runtime, bench, shapes, dsl, multicast, sweep, ab
# (aot: the runtime-only library built on its own, TRITONC_RUNTIME_ONLY, running
# a kernel that this build's `tritonc compile` made for the GPU; ctest has the
# other ahead-of-time round trips on the GPU: CLI, C API, Python's CUDA tensors.)
# (sanitizer: the examples under memcheck and racecheck; with python too,
# the DSL's attention backward tests on CUDA under both.)
# (dsl: bench/dsl_bench.py, the Python DSL's kernels beside Triton 3.6 running
# the same functions; DSL_AB=NAME=VALUE runs it again with that variable set:
# dsl-ab.txt, dsl-ab.json.)
# (multicast: bench/multicast_ab.py, the masked matmul with B's boxes
# multicast to pairs of programs and without, alternately.)
# (ab: bench/switch_ab.py, the environment switch AB_SWITCH=NAME=VALUE on and
# off alternately on the masked matmul, conv and attention kernels, AB_ONLY
# picking among matmul,conv,attention; not in the default STEPS.)
# (sweep: bench/matmul_sweep.py, every configuration of the masked matmul at
# SWEEP_SHAPES, default 1000,1000,1000, beside cuBLAS and the kernel it runs;
# not in the default STEPS.)
# (smallprobe: bench/matmul_small_probe.py, the 1000 x 1000 matmul over K
# beside cuBLAS and an in-kernel timeline of it; not in the default STEPS.)
# (probe: bench/tune_probe.py, the tuner's picks for the masked matmul at
# PROBE_ARGS (default 8192^3), each configuration's trial time in the log,
# against do_bench of the picks and given configurations; not in the
# default STEPS.)
# (liger: bench/thirdparty_liger.py, Liger-Kernel's kernels under Triton and
# tritonc, from LIGER_SRC; LIGER_AB=NAME=VALUE adds tritonc with that
# variable set; not in the default STEPS.)
# (tritontests: bench/thirdparty_triton_tests.py, Triton's own language tests
# under tritonc on CUDA tensors, from TRITON_TESTS_SRC, the failures re-run
# under Triton; not in the default STEPS.)
# (flaggems: bench/thirdparty_flaggems.py, FlagGems' own tests under tritonc,
# from FLAGGEMS_SRC, the failures re-run under Triton; not in the default
# STEPS.)
# (ncu: Nsight Compute's sections, details and warp stall reasons included,
# on bench/profile_kernels.py NCU_WHAT (default matmul-f32), the kernels
# whose names match NCU_KERNELS; not in the default STEPS.)
# (shapes: bench/shapes.py, the user-style kernels beside cuBLAS/cuDNN/torch
# and Triton; SHAPES_ARGS passes options such as "--quick --only matmul").
# TRITONC_COMMIT names the commit in the results where the tree's .git does
# not (a copy of the working tree).
# BUNDLE=1 packs every file it wrote but summary.txt into bundle.tar.gz at
# the end (the device tool brings back 8 files of a run; the shapes and DSL
# benchmarks alone write more).
# SKIP_BENCH=1 drops the benchmarks (launch ... sweep); PYTHON_ONLY=1 keeps
# only python and the Python benchmarks (and builds only the Python package's
# core). DSL_ONLY picks sections of the dsl step (bench/dsl_bench.py);
# PYTEST_K passes -k to the python step's pytest (a quick run of some tests).
# EXAMPLE_PRESETS (default "test demo") picks the examples step's presets at
# 3 stages ("test" alone skips the demo sizes, a minute of device time).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT_DIR=${1:-${OUT:-gpu-check-out}}
mkdir -p "$OUT_DIR"
BUILD=${BUILD_DIR:-build-gpu}
status=0

log() { echo "== $*" | tee -a "$OUT_DIR/summary.txt"; }

STEPS=${STEPS:-ctest,examples,sanitizer,aot,python,launch,runtime,bench,shapes,dsl,multicast}
[ "${SKIP_BENCH:-0}" = 1 ] && STEPS=$(echo "$STEPS" | tr ',' '\n' | grep -vE '^(launch|runtime|bench|shapes|dsl|multicast|sweep|ab|probe|smallprobe|ncu|liger|flaggems|tritontests)$' | paste -sd,)
[ "${PYTHON_ONLY:-0}" = 1 ] && STEPS=$(echo "$STEPS" | tr ',' '\n' | grep -E '^(python|launch|shapes|dsl|multicast|sweep|ab|probe|smallprobe|ncu|liger|flaggems|tritontests)$' | paste -sd,)
step() { case ",$STEPS," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }

log "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
log "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
tests=OFF
[ -f /usr/include/gtest/gtest.h ] && tests=ON
targets=()
[ "${PYTHON_ONLY:-0}" = 1 ] && targets=(--target tritonc_core)
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRITONC_TESTS=$tests > "$OUT_DIR/build.log" 2>&1 &&
  cmake --build "$BUILD" -j "$(nproc)" "${targets[@]}" >> "$OUT_DIR/build.log" 2>&1
if [ $? -ne 0 ]; then
  log "build FAILED (see build.log)"
  tail -30 "$OUT_DIR/build.log"
  exit 1
fi
log "build ok (tests: $tests)"

EX="$BUILD/examples/tritonc-examples"
# The unit and kernel tests, here with a GPU (the CUDA ones skip elsewhere).
if step ctest && [ "$tests" = ON ]; then
  if (cd "$BUILD" && ctest -j "$(nproc)" --output-on-failure) > "$OUT_DIR/ctest.txt" 2>&1; then
    log "ctest on the GPU host: $(grep 'tests passed' "$OUT_DIR/ctest.txt")"
  else
    log "ctest on the GPU host FAILED: $(grep 'tests passed' "$OUT_DIR/ctest.txt")"
    status=1
  fi
fi

if step examples; then
for preset in ${EXAMPLE_PRESETS:-test demo}; do
  if "$EX" --root . --backend gpu --preset "$preset" > "$OUT_DIR/examples-gpu-$preset.txt" 2>&1; then
    log "examples on gpu ($preset): $(tail -1 "$OUT_DIR/examples-gpu-$preset.txt")"
  else
    log "examples on gpu ($preset) FAILED: $(tail -1 "$OUT_DIR/examples-gpu-$preset.txt")"
    status=1
  fi
done

# Other pipelining depths (the default is 3): 1 (no pre-fetch), 2, 4.
for stages in 1 2 4; do
  if "$EX" --root . --backend gpu --preset test --num-stages "$stages" > "$OUT_DIR/examples-gpu-stages$stages.txt" 2>&1; then
    log "examples on gpu (num_stages $stages): $(tail -1 "$OUT_DIR/examples-gpu-stages$stages.txt")"
  else
    log "examples on gpu (num_stages $stages) FAILED: $(tail -1 "$OUT_DIR/examples-gpu-stages$stages.txt")"
    status=1
  fi
done

# The sm_80 code (mma.sync, ldmatrix, cp.async rings) on this GPU.
if TRITONC_GPU_ARCH=sm_80 "$EX" --root . --backend gpu --preset test > "$OUT_DIR/examples-gpu-sm80.txt" 2>&1; then
  log "examples on gpu compiled for sm_80: $(tail -1 "$OUT_DIR/examples-gpu-sm80.txt")"
else
  log "examples on gpu compiled for sm_80 FAILED: $(tail -1 "$OUT_DIR/examples-gpu-sm80.txt")"
  status=1
fi
fi

if ! step sanitizer; then
  :
elif command -v compute-sanitizer >/dev/null 2>&1; then
  for tool in memcheck racecheck; do
    compute-sanitizer --tool "$tool" --error-exitcode 3 "$EX" --root . --backend gpu --preset test --seed 1 \
      > "$OUT_DIR/sanitizer-$tool.txt" 2>&1
    rc=$?
    log "compute-sanitizer $tool: exit $rc, $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT_DIR/sanitizer-$tool.txt" | tail -1)"
    [ $rc -ne 0 ] && status=1
  done
  # Without pre-fetching, dot operands go through rings stored from registers.
  compute-sanitizer --tool racecheck --error-exitcode 3 "$EX" --root . --backend gpu --preset test --seed 1 \
    --num-stages 1 > "$OUT_DIR/sanitizer-racecheck-stages1.txt" 2>&1
  rc=$?
  log "compute-sanitizer racecheck (num_stages 1): exit $rc, $(grep -E 'RACECHECK SUMMARY' "$OUT_DIR/sanitizer-racecheck-stages1.txt" | tail -1)"
  [ $rc -ne 0 ] && status=1
else
  log "compute-sanitizer not found: skipped"
fi

if step aot; then
  # A program linked to the runtime-only library runs code compiled ahead of time for this GPU.
  arch=$("$BUILD/tools/tritonc/tritonc" compile examples/vector_add.tc -o "$OUT_DIR/vector_add.tck" 2>&1 |
         sed -n 's/.*targets \(sm_[0-9a-z]*\)).*/\1/p')
  if cmake -S . -B "$BUILD-runtime-only" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRITONC_RUNTIME_ONLY=ON \
       > "$OUT_DIR/aot.txt" 2>&1 &&
     cmake --build "$BUILD-runtime-only" -j "$(nproc)" >> "$OUT_DIR/aot.txt" 2>&1 &&
     [ -n "$arch" ] &&
     "$BUILD-runtime-only/examples/runtime_only/tritonc-runtime-only-example" "$OUT_DIR/vector_add.tck" gpu \
       >> "$OUT_DIR/aot.txt" 2>&1; then
    log "aot: the runtime-only library ran vector_add.tck on the GPU ($arch)"
  else
    log "aot FAILED (see aot.txt; compiled for '${arch}')"
    status=1
  fi
fi

# The Python package on the GPU: its pytest suite (CUDA tensors included) and
# the launch-overhead benchmark, when nanobind, torch and pytest are present.
if ! step python && ! step launch && ! step shapes && ! step dsl && ! step multicast && ! step sweep && ! step ab &&
   ! step probe && ! step smallprobe && ! step ncu && ! step liger && ! step flaggems && ! step tritontests; then
  :
elif python3 -c "import nanobind, torch, pytest" 2>/dev/null; then
  if cmake -S . -B "$BUILD" -DTRITONC_PYTHON=ON -DPython_EXECUTABLE="$(command -v python3)" >> "$OUT_DIR/build.log" 2>&1 &&
     cmake --build "$BUILD" -j "$(nproc)" --target _tritonc tritonc_python_files >> "$OUT_DIR/build.log" 2>&1; then
    if ! step python; then
      :
    # The language suite on the GPU too (CI runs it on the interpreter and the CPU back end).
    elif TRITONC_LANGUAGE_BACKENDS=interp,cpu,cuda PYTHONPATH="$BUILD/python" \
         python3 -m pytest -q -rs python/tests ${PYTEST_K:+-k "$PYTEST_K"} > "$OUT_DIR/python-tests.txt" 2>&1; then
      log "python tests: $(tail -1 "$OUT_DIR/python-tests.txt")"
    else
      log "python tests FAILED: $(tail -1 "$OUT_DIR/python-tests.txt")"
      status=1
    fi
    # The DSL's attention backward, quantized matmuls, scans and gathers
    # under compute-sanitizer (with the python and sanitizer steps): wgmma,
    # cp.async rings of tiles and of row statistics, atomics, operands
    # widened in the loop into buffers taken in turn, scratch shared by
    # threads between barriers; the examples above have no such kernel.
    if step python && step sanitizer && command -v compute-sanitizer >/dev/null 2>&1; then
      for what in "attention-bwd:DSL attention backward:test_dsl_attention_bwd.py:cuda or not interp and not cpu" \
                  "quant:DSL quantized matmuls:test_dsl_quant.py:cuda or not interp and not cpu" \
                  "scan-gather:DSL scans and gathers:test_dsl_algorithms.py:cuda and (cumsum or gather)" \
                  "sort:DSL sorts and top-ks:test_dsl_sort.py:cuda and float32 and (shapes or across_warps or topk)" \
                  "combine-fn:DSL tuple scans and reductions:test_dsl_combine_fn.py:cuda and (shapes or warps or segmented or reduce)" \
                  "histogram:DSL histograms:test_dsl_histogram.py:cuda"; do
        IFS=: read -r tag label file filter <<< "$what"
        for tool in memcheck racecheck; do
          f="$OUT_DIR/sanitizer-dsl-$tag-$tool.txt"
          TRITONC_LANGUAGE_BACKENDS=cuda PYTHONPATH="$BUILD/python" compute-sanitizer --tool "$tool" --error-exitcode 3 \
            python3 -m pytest -q -x "python/tests/$file" -k "$filter" > "$f" 2>&1
          rc=$?
          log "compute-sanitizer $tool, $label: exit $rc, $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$f" | tail -1); $(grep -E 'passed|failed' "$f" | tail -1)"
          [ $rc -ne 0 ] && status=1
        done
      done
    fi
    if step launch; then
      PYTHONPATH="$BUILD/python" python3 bench/launch_overhead.py "$OUT_DIR/launch.json" > "$OUT_DIR/launch.txt" 2>&1 ||
        status=1
      log "launch overhead: $(tr '\n' ';' < "$OUT_DIR/launch.txt")"
    fi
  else
    log "python extension build FAILED (see build.log)"
    status=1
  fi
else
  log "python: nanobind, torch or pytest missing: skipped"
fi

if step runtime; then
  # The runtime: the seed's matmul space tuned for three shapes, compile and cache-hit times.
  if "$BUILD/bench/tritonc-runtime-bench" --root . --out "$OUT_DIR/runtime.json" > "$OUT_DIR/runtime.txt" 2>&1; then
    log "runtime bench: $(grep -c best "$OUT_DIR/runtime.txt") shapes tuned (see runtime.txt / runtime.json)"
  else
    log "runtime bench FAILED: $(tail -1 "$OUT_DIR/runtime.txt")"
    status=1
  fi
fi
if step bench; then
  if python3 -c "import torch, triton" 2>/dev/null; then
    python3 bench/bench.py "$BUILD" "$OUT_DIR" > "$OUT_DIR/bench.txt" 2>&1 || status=1
  else
    "$BUILD/bench/tritonc-bench" --root . --out "$OUT_DIR/tritonc.json" > "$OUT_DIR/bench.txt" 2>&1 || status=1
  fi
  log "bench: see bench.txt / bench.json"
fi
# A Python benchmark step: `py_bench LABEL OUT SUMMARY SCRIPT ARGS...` runs
# SCRIPT with the built package into $OUT_DIR/OUT and logs LABEL with
# SUMMARY (a command line, evaluated after the run), or its failure.
py_bench() {
  local label=$1 out="$OUT_DIR/$2" summary=$3
  shift 3
  if PYTHONPATH="$BUILD/python" PYTHONUNBUFFERED=1 python3 "$@" > "$out" 2>&1; then
    log "$label: $(eval "$summary")"
  else
    log "$label FAILED: $(tail -3 "$out" | tr '\n' ';')"
    status=1
  fi
}
# The user-style kernels (masked, ragged) beside cuBLAS/cuDNN/torch and Triton.
step shapes && py_bench "shapes bench" shapes.txt \
  'echo "$(grep -c tritonc "$OUT_DIR/shapes.txt") rows of ours (shapes.txt / shapes.json / shapes.png)"' \
  bench/shapes.py "$OUT_DIR" ${SHAPES_ARGS:-}
# The Python DSL's kernels beside Triton running the same functions.
step dsl && py_bench "dsl bench" dsl.txt 'echo "$(grep -c . "$OUT_DIR/dsl.txt") lines (dsl.txt / dsl.json)"' \
  bench/dsl_bench.py "$OUT_DIR"
# DSL_AB=NAME=VALUE: the same benchmark again with that environment variable
# set (a compiler switch beside the default in one run): dsl-ab.txt and
# dsl-ab.json.
if step dsl && [ -n "${DSL_AB:-}" ]; then
  mkdir -p "$OUT_DIR/ab"
  (export "${DSL_AB?}"; py_bench "dsl bench with $DSL_AB" dsl-ab.txt \
    'echo "$(grep -c . "$OUT_DIR/dsl-ab.txt") lines (dsl-ab.txt / dsl-ab.json)"' bench/dsl_bench.py "$OUT_DIR/ab"
   exit "$status") || status=1
  mv "$OUT_DIR/ab/dsl.json" "$OUT_DIR/dsl-ab.json" 2>/dev/null
  rmdir "$OUT_DIR/ab" 2>/dev/null
fi
# B's boxes multicast to pairs of programs, and not, alternately.
step multicast && py_bench "multicast A/B" multicast.txt 'tr "\n" ";" < "$OUT_DIR/multicast.txt"' \
  bench/multicast_ab.py "$OUT_DIR"
# A compiler switch (AB_SWITCH=NAME=VALUE) on and off, alternately, on the
# Triton-C kernels with cp.async rings read by the tensor cores.
step ab && py_bench "switch A/B (${AB_SWITCH:-})" switch_ab.txt 'tr "\n" ";" < "$OUT_DIR/switch_ab.txt" | cut -c1-600' \
  bench/switch_ab.py "$OUT_DIR" "${AB_SWITCH:-}" ${AB_ONLY:+--only "$AB_ONLY"}
# The tuner's view of the masked matmul against do_bench's.
step probe && py_bench "tune probe" probe.txt 'grep -E "ms \(rounds|picks" "$OUT_DIR/probe.txt" | tr "\n" ";"' \
  bench/tune_probe.py "$OUT_DIR" ${PROBE_ARGS:-}
# Where a small matmul's time goes: K sweep beside cuBLAS, in-kernel timeline.
step smallprobe && py_bench "small matmul probe" smallprobe.txt 'tr "\n" ";" < "$OUT_DIR/smallprobe.txt" | cut -c1-900' \
  bench/matmul_small_probe.py "$OUT_DIR"
# The masked matmul's whole configuration space beside cuBLAS.
step sweep && py_bench "matmul sweep" sweep.txt \
  'echo "$(grep -c "of cuBLAS" "$OUT_DIR/sweep.txt") rows timed beside cuBLAS (sweep.txt / matmul_sweep.json)"' \
  bench/matmul_sweep.py "$OUT_DIR" ${SWEEP_SHAPES:-}
# Liger-Kernel's Triton kernels, unchanged, under Triton and under tritonc
# (LIGER_SRC: a directory holding the package liger_kernel; third-party code
# is not in this repository: the device tool's `carry` brings a copy).
if step liger; then
  if [ -d "${LIGER_SRC:-}/liger_kernel" ]; then
    py_bench "Liger-Kernel under Triton and tritonc" liger.txt 'grep -cE "^[a-z_]+ +[0-9]" "$OUT_DIR/liger.txt" | sed "s/$/ ops (liger.txt \/ liger.json)/"' \
      bench/thirdparty_liger.py "$OUT_DIR" "$LIGER_SRC"
  else
    log "liger: LIGER_SRC does not hold liger_kernel: skipped"
  fi
fi
# FlagGems' own pytest suite (quick mode) with `import triton` resolving to
# tritonc, the failures re-run under Triton (FLAGGEMS_SRC: FlagGems' src/,
# tests/ and pytest.ini; FLAGGEMS_SITE: packages it needs where the machine
# lacks them; FLAGGEMS_BUDGET seconds, FLAGGEMS_ONLY file-name substrings).
if step flaggems; then
  if [ -d "${FLAGGEMS_SRC:-}/src/flag_gems" ]; then
    py_bench "FlagGems' tests under tritonc" flaggems.txt 'grep -E "^(FlagGems|failing)" "$OUT_DIR/flaggems.txt" | tr "\n" ";"' \
      bench/thirdparty_flaggems.py "$OUT_DIR" "$FLAGGEMS_SRC" --budget "${FLAGGEMS_BUDGET:-240}" --chunk-timeout "${FLAGGEMS_CHUNK_TIMEOUT:-150}" ${FLAGGEMS_ONLY:+--only "$FLAGGEMS_ONLY"} ${FLAGGEMS_ARGS:-}
  else
    log "flaggems: FLAGGEMS_SRC does not hold src/flag_gems: skipped"
  fi
fi
# Triton's own language tests with `import triton` resolving to tritonc, on
# CUDA tensors, the failures re-run under Triton (TRITON_TESTS_SRC: Triton's
# python/test, python/triton/_internal_testing.py and python/triton/tools/mxfp.py
# of one commit;
# TRITON_TESTS_SITE: pytest-xdist and pytest-timeout where the machine lacks
# them; TRITON_TESTS_FILES, default test_core.py; TRITON_TESTS_K a -k filter;
# TRITON_TESTS_BUDGET seconds for each of the two runs, 0 for no limit).
if step tritontests; then
  if [ -f "${TRITON_TESTS_SRC:-}/python/test/conftest.py" ]; then
    if PYTHONPATH="$BUILD/python${TRITON_TESTS_SITE:+:$TRITON_TESTS_SITE}" PYTHONUNBUFFERED=1 python3 \
         bench/thirdparty_triton_tests.py "$OUT_DIR" "$TRITON_TESTS_SRC" --device cuda --recheck \
         --jobs "${TRITON_TESTS_JOBS:-8}" --budget "${TRITON_TESTS_BUDGET:-0}" --files "${TRITON_TESTS_FILES:-test_core.py}" ${TRITON_TESTS_K:+-k "$TRITON_TESTS_K"} \
         > "$OUT_DIR/triton-tests.txt" 2>&1; then
      log "Triton's tests under tritonc: $(grep -m1 "^Triton's tests" "$OUT_DIR/triton-tests.txt")"
    else
      log "Triton's tests under tritonc FAILED: $(tail -3 "$OUT_DIR/triton-tests.txt" | tr '\n' ';')"
      status=1
    fi
  else
    log "tritontests: TRITON_TESTS_SRC does not hold python/test/conftest.py: skipped"
  fi
fi
# Nsight Compute on fixed configurations of our kernels beside the peers'
# (bench/profile_kernels.py NCU_WHAT, default matmul-f32): the sections that
# say what bounds them (throughputs, warp stalls, occupancy, bank conflicts).
if step ncu; then
  if command -v ncu > /dev/null 2>&1 &&
     PYTHONPATH="$BUILD/python" PROFILE_TIMES=0 ncu --clock-control none --print-details all \
       -k "regex:${NCU_KERNELS:-dot|gemm|attention|conv|nvjet}" --section SpeedOfLight \
       --section ComputeWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats \
       --section SchedulerStats --section MemoryWorkloadAnalysis_Tables --section InstructionStats \
       python3 bench/profile_kernels.py ${NCU_WHAT:-matmul-f32} > "$OUT_DIR/ncu.txt" 2>&1; then
    log "ncu (${NCU_WHAT:-matmul-f32}): $(grep -c 'Duration' "$OUT_DIR/ncu.txt") kernels profiled (ncu.txt)"
  else
    log "ncu FAILED or absent: $(tail -3 "$OUT_DIR/ncu.txt" 2>/dev/null | tr '\n' ';')"
    status=1
  fi
fi
if [ "${BUNDLE:-0}" = 1 ]; then
  files=$(cd "$OUT_DIR" && find . -maxdepth 1 -type f ! -name summary.txt ! -name bundle.tar.gz -printf '%P\n')
  if [ -n "$files" ] && (cd "$OUT_DIR" && tar czf bundle.tar.gz $files && rm -f $files); then
    log "bundle: $(echo "$files" | wc -l) files in bundle.tar.gz"
  fi
fi
exit $status
