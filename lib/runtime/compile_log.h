// Recompiles made visible (issue 15). Every compile of the runtime (a miss
// of both caches) is noted here first: with TRITONC_LOG_COMPILES=1 it prints
// one line to stderr naming the kernel, its configuration and what it is
// specialized for, and, when the same kernel (source and name) compiled
// before in this process, which part of the key differs from the earlier
// compile it is closest to: an argument's alignment or divisibility (the
// specialization key, specialize.h), a dtype, a macro, num_warps or
// num_stages, the target. With TRITONC_CACHE_MUST_HIT=1 (or
// KernelOptions::cacheMustHit) a compile is an error naming the key.
#pragma once
#include <string>
#include <vector>

#include "lang/compile.h"

namespace tritonc::runtime {

// What a compile is for.
struct CompileRequest {
  std::string kernel;                // the kernel's name
  std::string source;                // with `kernel`: which kernel this is
  std::string target;                // "interp", "sm_90a", ...
  std::vector<lang::Define> macros;  // the configuration's -D values, tuned and fixed
  int numWarps = 4, numStages = 3;
  std::vector<std::string> paramNames, paramTypes;  // "x", "f32*"
  std::string specialization;        // one letter per parameter (specialize.h)
};

// "kernel 'scale' (BLOCK=64 num_warps=4 num_stages=3) for x: 16-byte aligned,
// n: divisible by 16, on interp".
std::string describeKey(const CompileRequest& r);

// What changed from `before` to `now`: "argument 'x' alignment: 16-byte
// aligned -> not 16-byte aligned; macro BLOCK: 64 -> 128" ("" when nothing).
std::string describeChange(const CompileRequest& before, const CompileRequest& now);

// Call before compiling `r`: logs it (TRITONC_LOG_COMPILES=1) and throws
// UserError naming its key when `mustHit` or TRITONC_CACHE_MUST_HIT=1.
// Thread-safe (the tuner compiles on several threads).
void noteCompile(const CompileRequest& r, bool mustHit);

}  // namespace tritonc::runtime
