// Dominator tree of a function's control-flow graph, computed with the
// iterative algorithm of Cooper, Harvey and Kennedy ("A Simple, Fast
// Dominance Algorithm", 2001) over a reverse post-order of the blocks.
#pragma once
#include <unordered_map>
#include <vector>

#include "ir/ir.h"

namespace tritonc::ir {

class DominatorTree {
 public:
  // Edges come from each block's terminator; targets outside `f` are ignored.
  explicit DominatorTree(const Function& f);

  bool isReachable(const BasicBlock* bb) const { return rpoIndex_.count(bb) != 0; }
  // nullptr for the entry block and for unreachable blocks.
  const BasicBlock* idom(const BasicBlock* bb) const;
  // Whether every path from the entry to `b` passes through `a`; a block
  // dominates itself. False when either block is unreachable.
  bool dominates(const BasicBlock* a, const BasicBlock* b) const;
  // The reachable blocks, entry first, each before its successors except
  // along back edges.
  const std::vector<const BasicBlock*>& reversePostOrder() const { return rpo_; }

 private:
  std::vector<const BasicBlock*> rpo_;
  std::unordered_map<const BasicBlock*, int> rpoIndex_;
  std::vector<int> idom_;  // by reverse post-order index; the entry is its own
};

}  // namespace tritonc::ir
