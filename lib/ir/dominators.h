// Dominator tree of a function's control-flow graph, computed with the
// iterative algorithm of Cooper, Harvey and Kennedy ("A Simple, Fast
// Dominance Algorithm", 2001) over a reverse post-order of the blocks.
#pragma once
#include <vector>

#include "ir/ir.h"
#include "ir/pointer_index.h"

namespace tritonc::ir {

class DominatorTree {
 public:
  // Edges come from each block's terminator; targets outside `f` are ignored.
  explicit DominatorTree(const Function& f);

  bool isReachable(const BasicBlock* bb) const { return rpoIndex_.contains(bb); }
  // nullptr for the entry block and for unreachable blocks.
  const BasicBlock* idom(const BasicBlock* bb) const;
  // Whether every path from the entry to `b` passes through `a`; a block
  // dominates itself. False when either block is unreachable.
  bool dominates(const BasicBlock* a, const BasicBlock* b) const;
  // The reachable blocks, entry first, each before its successors except
  // along back edges.
  const std::vector<const BasicBlock*>& reversePostOrder() const { return rpo_; }
  // The position of a reachable block in reversePostOrder() (-1 if unreachable).
  int rpoIndex(const BasicBlock* bb) const {
    const int* at = rpoIndex_.find(bb);
    return at ? *at : -1;
  }

 private:
  std::vector<const BasicBlock*> rpo_;
  PointerIndex<BasicBlock, int> rpoIndex_;
  void numberTree();
  std::vector<int> idom_;  // by reverse post-order index; the entry is its own
  // Entry and exit times in a depth-first walk of the tree, by reverse
  // post-order index: dominance in constant time (walking up the idoms costs
  // the tree's depth, which grows with every loop of a function).
  std::vector<int> enter_, exit_;
};

}  // namespace tritonc::ir
