// Natural loops of a function's CFG, found from back edges (an edge to a
// block that dominates its source). Shared by LICM and pre-fetching.
#pragma once
#include <set>
#include <vector>

#include "ir/dominators.h"
#include "ir/ir.h"

namespace tritonc::transform {

struct Loop {
  ir::BasicBlock* header = nullptr;
  ir::BasicBlock* preheader = nullptr;  // the single predecessor outside the loop, or null
  ir::BasicBlock* latch = nullptr;      // the single block branching back to the header, or null
  std::set<ir::BasicBlock*> blocks;
  bool contains(const ir::BasicBlock* bb) const { return blocks.count(const_cast<ir::BasicBlock*>(bb)) != 0; }
  bool definedInside(const ir::Value* v) const;
  // Blocks of the loop with a successor outside it.
  std::vector<ir::BasicBlock*> exitingBlocks() const;
  bool hasMemoryWrites() const;  // a store or an atomic anywhere in the loop
};

// Innermost loops first (fewer blocks first).
std::vector<Loop> findLoops(ir::Function& f, const ir::DominatorTree& dom);

}  // namespace tritonc::transform
