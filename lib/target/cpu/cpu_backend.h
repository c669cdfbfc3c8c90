// The CPU back end: optimized Triton-IR lowered to LLVM IR, JIT-compiled in
// process for the host CPU (ORC LLJIT, host features, the O3 pipeline), and
// a grid's programs run in parallel on a thread pool (one worker per core).
//
// This header hides LLVM: the runtime, the command line and the tests use it
// whether or not the build has the back end (CMake option TRITONC_CPU, on
// when LLVM 19 is found). Without it, `available()` is false and the rest
// throws UserError saying so (unavailable.cpp).
//
// Unlike the interpreter, compiled code does not check memory accesses: an
// out-of-bounds access is undefined behaviour, as on the GPU. Integer
// division by zero gives -1 (docs/IR.md), never a trap. `tritonc run
// --backend interp` stays the checked debug mode.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "ir/ir.h"
#include "target/interp/interpreter.h"

namespace tritonc::cpu {

// Whether this build has the CPU back end.
bool available();

// The host as the code is compiled for it: the target triple, the CPU name
// and its features ("x86_64-pc-linux-gnu skylake-avx512 +avx,+avx2,..."). A
// compiled kernel is only valid on a host with this description, so the
// runtime's cache keys include it.
const std::string& hostDescription();

// What machine code for this host depends on besides the program: the host
// description, LLVM's version and the default math (exactMathByDefault).
// Keys of cached object code include it.
const std::string& codeIdentity();

// Whether compiled kernels compute exp and f32 division as the interpreter
// does, bit for bit (exp in double, several times slower; a divide per
// element), rather than within 2 units in the last place (exp in f32; a
// division by a value uniform over the tile as two multiplies):
// TRITONC_CPU_EXACT_MATH=1. Every other operation gives the interpreter's
// bits either way.
bool exactMathByDefault();

struct CompileOptions {
  int optLevel = 3;            // the LLVM pipeline: 0 (none) to 3
  bool keepLlvmIr = false;     // keep the optimized LLVM IR text (CpuKernel::llvmIr)
  bool exactMath = exactMathByDefault();
};

struct RunOptions {
  // Threads that run the grid: 0 for the pool (every core), 1 for the calling
  // thread alone, programs in the interpreter's order (x fastest), so that
  // programs racing on memory end as they do there.
  int threads = 0;
};

// One kernel compiled for the host. Thread-safe to run from several threads
// (launches share the worker pool one at a time).
class CpuKernel {
 public:
  // Compiles `fn` (Triton-IR, not GPU IR; normally optimized and
  // specialized). Throws UserError for IR the back end cannot lower yet and
  // InternalError for its own bugs.
  static std::unique_ptr<CpuKernel> compile(const ir::Function& fn, const CompileOptions& options = {});
  ~CpuKernel();

  // Runs every program of `grid` over host buffers. Throws UserError on bad
  // arguments (count, kinds, broken multipleof/nonneg/aligned promises), a
  // grid dimension < 1, or a failed assertion in a program.
  void run(const interp::Grid& grid, const std::vector<interp::KernelArg>& args,
           const RunOptions& options = {}) const;

  // The kernel as bytes: its object code and what launching it needs (the
  // parameters' checks, error sites, frame size), for a disk cache. Valid
  // on hosts with the same codeIdentity().
  std::string image() const;
  // A kernel from image()'s bytes, linked without compiling. Throws
  // UserError when the bytes are not such an image (truncated, another
  // format), InternalError when the code does not link.
  static std::unique_ptr<CpuKernel> fromImage(const std::string& bytes);

  const std::string& name() const;
  double compileMs() const;              // lowering, optimization and code generation (0 from an image)
  size_t frameBytes() const;             // scratch memory of one program (per worker)
  const std::string& llvmIr() const;     // with CompileOptions::keepLlvmIr

  struct Impl;

 private:
  explicit CpuKernel(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The optimized LLVM IR of `fn` for the host, as text (tritonc emit --stage llvm).
std::string emitLlvmIr(const ir::Function& fn, const CompileOptions& options = {});

// Compiles and runs once (the command line's run without the runtime).
void runOnCpu(const ir::Function& fn, const interp::Grid& grid, const std::vector<interp::KernelArg>& args);

// Workers of the pool that runs grids: TRITONC_CPU_THREADS when set, else
// one per core.
int numThreads();

}  // namespace tritonc::cpu
