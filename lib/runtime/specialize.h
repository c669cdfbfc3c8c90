// Launch specialization: what the launch's actual arguments promise about
// alignment, recorded on the kernel's parameters so that the axis analysis
// (and so vectorization) can use it, as Triton does. A pointer whose address
// is a multiple of 16 bytes gets aligned(16); an integer divisible by 16 gets
// multipleof(16). The key says which, so that each combination compiles once.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ir/ir.h"
#include "target/interp/interpreter.h"

namespace tritonc::runtime {

struct ArgFacts {
  bool isPointer = false;
  uint64_t address = 0;  // pointers
  int64_t value = 0;     // integers
  bool isInt = false;
};

// The key, one letter per parameter ("AAND"): A pointer aligned to 16 bytes,
// P other pointer, D integer divisible by 16, N other integer, F float.
std::string specializationKey(const ir::Function& fn, const std::vector<ArgFacts>& args);
std::string specializationKey(const std::vector<ArgFacts>& args);

// Facts of host-side launch arguments: a buffer is passed at its start, which
// every allocator (host or device) aligns to at least 16 bytes.
std::vector<ArgFacts> factsOf(const std::vector<interp::KernelArg>& args);

// Adds the facts to the parameters of `fn` (never weakens what the source said).
void applySpecialization(ir::Function& fn, const std::vector<ArgFacts>& args);

}  // namespace tritonc::runtime
