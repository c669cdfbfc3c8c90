// What the executor assumes of each instruction (operand counts, element
// counts, kinds), checked once before a run. The verifier checks more; this
// only guards the interpreter's own memory safety and the meaning of its
// element loops, so that unverified IR gives an InternalError, not a crash.
#pragma once
#include "ir/ir.h"

namespace tritonc::interp::detail {

void checkWellFormed(const ir::Instruction& inst);

}  // namespace tritonc::interp::detail
