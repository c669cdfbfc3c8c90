// Parses the textual form of Triton-IR (docs/IR.md) into a Module.
#pragma once
#include <memory>
#include <string>

#include "ir/ir.h"

namespace tritonc::ir {

// Throws UserError (with the line and column in `text`) on malformed input.
// Does not verify: call verifyModule on the result.
std::unique_ptr<Module> parseModule(const std::string& text);

}  // namespace tritonc::ir
