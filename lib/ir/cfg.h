// Control-flow graph utilities shared by IR generation and the passes.
#pragma once
#include "ir/ir.h"

namespace tritonc::ir {

// Removes the blocks that the entry block does not reach (code after a
// `return`, `break` or a folded branch), and their entries in the phis of the
// blocks that remain. Returns whether anything was removed.
bool removeUnreachableBlocks(Function& f);

}  // namespace tritonc::ir
