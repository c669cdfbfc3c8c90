// What one configuration of a kernel compiled to, for one launch
// specialization, and how it runs: the unit that the compiling runtime
// (kernel.h) caches and the ahead-of-time runtime (loaded_kernel.h) loads
// from a .tck file.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "ir/ir.h"
#include "runtime/config.h"
#include "target/interp/interpreter.h"

namespace tritonc::nvptx {
class GpuKernel;
}
namespace tritonc::cpu {
class CpuKernel;
}

namespace tritonc::runtime {

struct CompiledKernel {
  Config config;
  std::string key;                     // the cache key (compiled) or the entry's place in its file (loaded)
  std::unique_ptr<ir::Module> module;  // optimized and specialized (null for GPU code from a cache or a file)
  const ir::Function* function = nullptr;
  std::string ptx;                     // GPU targets
  std::string cubin;                   // the PTX assembled by ptxas (the tuner, a .tck file), or empty
  std::vector<Param> signature;        // the compiled function's parameters
  std::unique_ptr<nvptx::GpuKernel> gpu;  // loaded on first GPU launch
  std::unique_ptr<cpu::CpuKernel> cpu;    // the CPU target's code (JIT-compiled from `module`)
  double compileMs = 0;                // 0 for a cache hit
  std::string origin;                  // "compiled", "disk", "memory" or "file"
  ~CompiledKernel();
};

// Loads the PTX of `k` into the GPU (the driver's compiler runs) unless it
// is loaded already. Touches `k` only: the tuner loads on several threads.
void loadOnGpu(CompiledKernel& k, const std::string& name);
// JIT-compiles the optimized IR of `k` for the CPU unless it is compiled
// already (a disk hit or a .tck file holds the IR only). Touches `k` only.
void loadOnCpu(CompiledKernel& k);

// Throws UserError, naming the kernel, for a grid beyond the GPU's limits
// (interp::gridProblem): checked on every back end, before any work.
void checkGrid(const std::string& kernel, const interp::Grid& grid);

// Runs `k`, compiled for `target` ("interp", "cpu" or "sm_XX"), on `args`:
// once when `repeats` <= 0 (then asynchronously on `stream` when every
// pointer is a device address), else `repeats` timed runs (GPU: after a
// warm-up, CUDA events) whose times in milliseconds it returns.
std::vector<float> runCompiled(CompiledKernel& k, const std::string& target, const std::string& name,
                               const std::vector<interp::KernelArg>& args, const interp::Grid& grid, int repeats,
                               void* stream);

}  // namespace tritonc::runtime
