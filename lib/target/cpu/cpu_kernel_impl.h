// What a compiled CPU kernel holds (internal to the CPU back end): its
// parameters as the launch checks them, the error sites its code reports
// by number, the frame size, the object code and where it is linked.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include <llvm/ExecutionEngine/Orc/Core.h>
#include <llvm/Support/MemoryBuffer.h>

#include "target/cpu/cpu_backend.h"
#include "target/cpu/lowering.h"

namespace tritonc::cpu {

// The grid function's signature (lowering.h).
using GridEntry = int32_t (*)(const uint64_t* args, int64_t begin, int64_t end, int32_t gx, int32_t gy, int32_t gz,
                              void* frame, int64_t* failed);

struct ParamInfo {
  std::string name;
  ir::Type type;
  ir::ParamAttrs attrs;  // aligned, multipleOf and nonNegative are checked at launch
};

struct CpuKernel::Impl {
  std::string name;
  std::vector<ParamInfo> params;
  std::vector<detail::ErrorSite> errors;
  SourceLoc loc;
  size_t frameBytes = 0;
  int64_t assertElementOffset = -1;  // where a failed assertion leaves its element in the frame (-1: none)
  double compileMs = 0;
  std::string llvmIr;
  std::string object;  // the relocatable object file, as linked
  llvm::orc::JITDylib* dylib = nullptr;
  GridEntry entry = nullptr;

  // Links `code` into a JITDylib of its own and finds the grid function.
  void link(std::unique_ptr<llvm::MemoryBuffer> code);
  ~Impl();
};

}  // namespace tritonc::cpu
