// Natural loops of a function's CFG, found from back edges (an edge to a
// block that dominates its source). Shared by LICM and pre-fetching.
#pragma once
#include <functional>
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
  // The same blocks in the function's block order, and the header's
  // predecessors (as Function::predecessors lists them): a pass that walks
  // every block of the function, or asks for predecessors, once per loop
  // costs the function's size per loop.
  std::vector<ir::BasicBlock*> blocksInOrder;
  std::vector<ir::BasicBlock*> headerPredecessors;
  bool contains(const ir::BasicBlock* bb) const {
    // Most blocks asked about lie outside the address range of the loop's
    // blocks: rejected without searching the set.
    std::less<const ir::BasicBlock*> before;
    if (blocks.empty() || before(bb, *blocks.begin()) || before(*blocks.rbegin(), bb)) return false;
    return blocks.count(const_cast<ir::BasicBlock*>(bb)) != 0;
  }
  bool definedInside(const ir::Value* v) const;
  // Blocks of the loop with a successor outside it.
  std::vector<ir::BasicBlock*> exitingBlocks() const;
  // The header's successor outside the loop (where a loop tested at its
  // header goes when it ends), or null.
  ir::BasicBlock* headerExit() const;
  bool hasMemoryWrites() const;  // a store or an atomic anywhere in the loop
};

// Innermost loops first (fewer blocks first).
std::vector<Loop> findLoops(ir::Function& f, const ir::DominatorTree& dom);

}  // namespace tritonc::transform
