// Runs a compiled kernel on the GPU over the interpreter's host buffers:
// copies them in, launches, copies them back. The same argument structs as
// the interpreter, so that tests compare the two directly.
#pragma once
#include <string>
#include <vector>

#include "ir/ir.h"
#include "target/interp/interpreter.h"

namespace tritonc::nvptx {

struct GpuLaunchOptions {
  int numWarps = 4;
  int warmup = 0;   // extra launches before the timed ones
  int repeats = 0;  // timed launches (CUDA events); 0: launch once, untimed
  // Bytes of device memory overwritten before each timed launch, so that the
  // L2 cache does not hold the inputs of the previous launch (0: no flush).
  size_t flushBytes = size_t(256) << 20;
};

struct GpuRunResult {
  std::vector<float> timesMs;  // one per timed launch
  std::string device;
};

// Loads `ptx`, runs kernel `fn.name()` on `grid` with `args`; buffers are
// copied back after the run. Throws UserError (naming the kernel) on any
// CUDA error, and when no GPU is present.
GpuRunResult runOnGpu(const std::string& ptx, const ir::Function& fn, const interp::Grid& grid,
                      const std::vector<interp::KernelArg>& args, const GpuLaunchOptions& opts);

// "sm_90a" for the GPU present, or "" with the reason when there is none.
std::string gpuArch(std::string* whyNot = nullptr);

}  // namespace tritonc::nvptx
