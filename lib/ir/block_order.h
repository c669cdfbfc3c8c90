// The order in which a back end (and the liveness numbering) walks a
// function's blocks: every reachable block after its immediate dominator, so
// that values are defined before their uses outside phis. That is the
// layout order when it already is (Triton-C's kernels, whose PTX keeps its
// shape); otherwise (the Python DSL lays out an inlined call's return block
// before the loops that reach it) a reverse post-order whose depth-first
// walk takes successors last to first, so a loop's body comes right after
// its header and before its exit. Unreachable blocks are left out.
#pragma once
#include <vector>

#include "ir/dominators.h"
#include "ir/ir.h"

namespace tritonc::ir {

std::vector<const BasicBlock*> definitionOrder(const Function& f, const DominatorTree& dom);

}  // namespace tritonc::ir
