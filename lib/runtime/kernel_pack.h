// A .tck file ("tritonc compiled kernels", docs/TCK_FORMAT.md): one kernel
// compiled ahead of time (`tritonc compile`) for some configurations, launch
// specializations and targets, with its signature, the macros of each
// configuration and launch metadata, so that a runtime without the front end
// and the optimizer (CMake TRITONC_RUNTIME_ONLY) can load and launch it.
// GPU entries hold PTX (and the cubin when ptxas was there); CPU and
// interpreter entries hold the optimized Triton-IR text, which the CPU back
// end JIT-compiles at load.
#pragma once
#include <string>
#include <vector>

#include "runtime/config.h"
#include "support/diagnostic.h"

namespace tritonc::runtime {

// What reading a .tck file throws: it cannot be read, is not a .tck file,
// has another format version, is truncated, damaged or malformed.
class PackFileError : public UserError {
 public:
  using UserError::UserError;
};

// The format version this build reads and writes.
constexpr int kPackFormatVersion = 1;

struct PackEntry {
  std::string target;                // "sm_80", "sm_90a", ... , "cpu" or "interp"
  std::vector<lang::Define> tuned;   // the tuning parameters' values (Config::values)
  std::vector<lang::Define> fixed;   // the kernel's other macros (Config::fixed)
  int numWarps = 4;
  int numStages = 3;
  // What the code assumes of a launch's arguments: one letter of
  // specialize.h's key per parameter (A aligned pointer, P any pointer, D/8/4/2
  // a non-negative integer divisible by that, N non-negative, 1 the integer 1,
  // F or M nothing).
  std::string specialization;
  unsigned sharedBytes = 0;  // GPU: dynamic shared memory per program
  std::string code;          // PTX (GPU targets) or optimized Triton-IR text with locations
  std::string cubin;         // GPU: the PTX assembled for `target`, or empty

  Config config() const { return Config{tuned, fixed, numWarps, numStages}; }
  bool onGpu() const { return target.rfind("sm_", 0) == 0; }
};

struct KernelPack {
  std::string kernel;      // the kernel's name
  std::vector<Param> params;
  std::string sourceFile;  // what it was compiled from (for messages and fault reports)
  std::string producer;    // the tritonc version that wrote it
  std::vector<PackEntry> entries;
};

// The file's bytes.
std::string serializePack(const KernelPack& pack);
// Reads the bytes of a .tck file; throws PackFileError "`path`: ..." saying
// what is wrong (not a .tck file, another format version, truncated,
// damaged, malformed) and never crashes on any input.
KernelPack parsePack(const std::string& bytes, const std::string& path);
// Reads `path` (PackFileError when it cannot be read) and parses it.
KernelPack readPack(const std::string& path);
// Writes atomically (a temporary file beside it, then rename); throws
// UserError when it cannot.
void writePack(const KernelPack& pack, const std::string& path);

}  // namespace tritonc::runtime
