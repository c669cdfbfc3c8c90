#include "ir/dominators.h"

#include <unordered_set>
#include <utility>

namespace tritonc::ir {

namespace {

// Successors of `bb` that belong to the function (a malformed branch may name
// a block of another function, or none).
std::vector<const BasicBlock*> successorsIn(const BasicBlock* bb,
                                            const std::unordered_set<const BasicBlock*>& inFunction) {
  std::vector<const BasicBlock*> out;
  for (BasicBlock* s : bb->successors())
    if (s && inFunction.count(s)) out.push_back(s);
  return out;
}

}  // namespace

DominatorTree::DominatorTree(const Function& f) {
  const BasicBlock* entry = f.entry();
  if (!entry) return;
  std::unordered_set<const BasicBlock*> inFunction;
  for (auto& bb : f.blocks()) inFunction.insert(bb.get());

  // Post-order by an explicit-stack depth-first search (no recursion: a
  // function may have many blocks).
  std::vector<const BasicBlock*> postOrder;
  std::unordered_set<const BasicBlock*> visited{entry};
  std::vector<std::pair<const BasicBlock*, std::vector<const BasicBlock*>>> stack;
  stack.emplace_back(entry, successorsIn(entry, inFunction));
  while (!stack.empty()) {
    auto& [bb, pending] = stack.back();
    if (pending.empty()) {
      postOrder.push_back(bb);
      stack.pop_back();
      continue;
    }
    const BasicBlock* next = pending.front();
    pending.erase(pending.begin());
    if (visited.insert(next).second) stack.emplace_back(next, successorsIn(next, inFunction));
  }
  rpo_.assign(postOrder.rbegin(), postOrder.rend());
  for (size_t i = 0; i < rpo_.size(); ++i) rpoIndex_[rpo_[i]] = int(i);

  std::vector<std::vector<int>> preds(rpo_.size());
  for (size_t i = 0; i < rpo_.size(); ++i)
    for (const BasicBlock* s : successorsIn(rpo_[i], inFunction)) preds[rpoIndex_[s]].push_back(int(i));

  // A block's dominators are its idom's plus itself; iterate to a fixed point.
  idom_.assign(rpo_.size(), -1);
  idom_[0] = 0;
  auto intersect = [&](int a, int b) {
    while (a != b) {
      while (a > b) a = idom_[a];
      while (b > a) b = idom_[b];
    }
    return a;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t b = 1; b < rpo_.size(); ++b) {
      int newIdom = -1;
      for (int p : preds[b]) {
        if (idom_[p] < 0) continue;  // not processed yet
        newIdom = newIdom < 0 ? p : intersect(p, newIdom);
      }
      if (idom_[b] != newIdom) {
        idom_[b] = newIdom;
        changed = true;
      }
    }
  }
}

const BasicBlock* DominatorTree::idom(const BasicBlock* bb) const {
  auto it = rpoIndex_.find(bb);
  if (it == rpoIndex_.end() || it->second == 0) return nullptr;
  return rpo_[idom_[it->second]];
}

bool DominatorTree::dominates(const BasicBlock* a, const BasicBlock* b) const {
  auto ia = rpoIndex_.find(a), ib = rpoIndex_.find(b);
  if (ia == rpoIndex_.end() || ib == rpoIndex_.end()) return false;
  // Immediate dominators come earlier in reverse post-order: walk up from b.
  int x = ib->second;
  while (x > ia->second) x = idom_[x];
  return x == ia->second;
}

}  // namespace tritonc::ir
