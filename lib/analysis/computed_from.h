// The values of a function computed from chosen sources: every instruction
// that is a source or has an operand in the set, to a fixed point (phis
// carry values back to earlier blocks). gpu-multicast asks what may differ
// between two programs, gpu-program-order what depends on a program id.
#pragma once
#include <functional>
#include <unordered_set>

#include "ir/ir.h"

namespace tritonc::analysis {

std::unordered_set<const ir::Value*> computedFrom(const ir::Function& f,
                                                  const std::function<bool(const ir::Instruction&)>& isSource);

}  // namespace tritonc::analysis
