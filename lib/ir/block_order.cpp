#include "ir/block_order.h"

#include <set>
#include <utility>

namespace tritonc::ir {

std::vector<const BasicBlock*> definitionOrder(const Function& f, const DominatorTree& dom) {
  std::vector<const BasicBlock*> layout;
  std::set<const BasicBlock*> seen;
  bool dominatorsFirst = true;
  for (auto& bb : f.blocks()) {
    if (!dom.isReachable(bb.get())) continue;
    const BasicBlock* up = dom.idom(bb.get());
    if (up && !seen.count(up)) dominatorsFirst = false;
    seen.insert(bb.get());
    layout.push_back(bb.get());
  }
  if (dominatorsFirst || layout.empty()) return layout;
  // Post-order of a depth-first walk taking successors last to first.
  std::vector<const BasicBlock*> post;
  std::set<const BasicBlock*> visited{f.entry()};
  std::vector<std::pair<const BasicBlock*, size_t>> stack{{f.entry(), 0}};
  while (!stack.empty()) {
    auto& [bb, done] = stack.back();
    const Instruction* t = bb->terminator();
    size_t n = t ? t->blocks.size() : 0;
    if (done == n) {
      post.push_back(bb);
      stack.pop_back();
      continue;
    }
    const BasicBlock* s = t->blocks[n - 1 - done++];
    if (dom.isReachable(s) && visited.insert(s).second) stack.emplace_back(s, 0);
  }
  return std::vector<const BasicBlock*>(post.rbegin(), post.rend());
}

}  // namespace tritonc::ir
