// Control-flow graph utilities shared by IR generation and the passes.
#pragma once
#include <unordered_map>
#include <vector>

#include "ir/ir.h"

namespace tritonc::ir {

// Removes the blocks that the entry block does not reach (code after a
// `return`, `break` or a folded branch), and their entries in the phis of the
// blocks that remain. Returns whether anything was removed.
bool removeUnreachableBlocks(Function& f);

// Every block's predecessors, each as Function::predecessors lists them (in
// block order, each once), in one pass over the function: asking
// Function::predecessors for each block costs the function's size each time.
using PredecessorMap = std::unordered_map<const BasicBlock*, std::vector<BasicBlock*>>;
PredecessorMap predecessorMap(const Function& f);

}  // namespace tritonc::ir
