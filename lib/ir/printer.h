// Textual form of Triton-IR (docs/IR.md). parse(print(m)) prints identically.
#pragma once
#include <string>

#include "ir/ir.h"

namespace tritonc::ir {

struct PrintOptions {
  bool locations = false;  // append loc(LINE:COL) to instructions with a known location
};

std::string printModule(const Module& m, PrintOptions opts = {});
std::string printFunction(const Function& f, PrintOptions opts = {});
// One instruction on one line, names as the enclosing function prints them.
std::string printInstruction(const Instruction& inst);

}  // namespace tritonc::ir
