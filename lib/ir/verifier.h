// Verifier: checks that a module is well-formed Triton-IR (docs/IR.md, "Verifier").
#pragma once
#include <string>

#include "ir/ir.h"

namespace tritonc::ir {

// Returns "" when `m` is well formed, otherwise a message naming the function,
// block and (printed) instruction at fault, one problem per line.
std::string verifyModule(const Module& m);
std::string verifyFunction(const Function& f);

}  // namespace tritonc::ir
