// The report of a GPU fault (CUDA_ERROR_ILLEGAL_ADDRESS and the other errors
// that leave the process's CUDA context unusable): said once, naming the
// kernel and the configuration, with the command line that runs the same
// launch on the interpreter, which checks every access and names the line
// and column of the one out of bounds.
#pragma once
#include <string>
#include <vector>

#include "runtime/config.h"
#include "target/interp/interpreter.h"

namespace tritonc::runtime {

// `tritonc run SOURCE -DNAME=VALUE... --num-warps W --num-stages S --kernel
// NAME --backend interp --grid X,Y,Z --arg NAME=SPEC...`: integers and floats
// as given, buffers as `rand:DTYPE:ELEMENTS` of their size. `sourceFile`
// may be a placeholder ("<python>"): then KERNEL.tc stands in for it.
std::string interpreterCommand(const std::string& sourceFile, const std::string& kernel, const Config& config,
                               const std::vector<Param>& params, const std::vector<interp::KernelArg>& args,
                               const interp::Grid& grid);

// "kernel 'dot' faulted on the GPU in configuration TM=128 ...: <cuda error>
// ...": what happened, that the context is lost, and `command`.
std::string gpuFaultReport(const std::string& kernel, const Config& config, const std::string& cudaError,
                           const std::string& command, bool whileTuning);

}  // namespace tritonc::runtime
