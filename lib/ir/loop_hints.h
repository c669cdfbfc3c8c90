// A loop's own software-pipelining depth (Triton's tl.range(..., num_stages=N)):
// kept in the `imm` of the loop header's cond_br (0: the kernel's
// num_stages), printed and parsed `cond_br %c, body, exit {num_stages = 2}`.
// The GPU's pre-fetching (transform/prefetch.cpp) fetches that loop's loads
// N - 1 iterations ahead, and its rings get as many stages.
#pragma once

#include "ir/ir.h"

namespace tritonc::ir {

constexpr int64_t kMaxLoopStages = 8;

// The num_stages a loop with this header asks for, 0 where it does not.
inline int loopStagesOf(const BasicBlock& header) {
  const Instruction* t = header.terminator();
  return t && t->opcode() == Opcode::CondBr ? int(t->imm) : 0;
}

}  // namespace tritonc::ir
