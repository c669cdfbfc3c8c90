// What compiled kernels call outside themselves: libm, the C library's
// memory functions, and a few helpers of ours. The JIT defines each by its
// address (jit.cpp), so generated code never depends on the process's
// exported symbols.
#pragma once
#include <vector>

namespace tritonc::cpu::detail {

struct RuntimeSymbol {
  const char* name;
  void* address;
};

const std::vector<RuntimeSymbol>& runtimeSymbols();

}  // namespace tritonc::cpu::detail
