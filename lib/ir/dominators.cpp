#include "ir/dominators.h"

#include <algorithm>
#include <utility>

#include "ir/pointer_index.h"

namespace tritonc::ir {

DominatorTree::DominatorTree(const Function& f) {
  const BasicBlock* entry = f.entry();
  if (!entry) return;
  // Blocks by their position in the function; successors as positions, only
  // those in the function (a malformed branch may name a block of another
  // function, or none). Vectors, not sets: a function may have many blocks.
  const size_t n = f.blocks().size();
  PointerIndex<BasicBlock, int> position;
  position.reserve(n);
  for (size_t i = 0; i < n; ++i) position.add(f.blocks()[i].get(), int(i));
  position.seal();
  std::vector<size_t> succBegin(n + 1, 0);
  std::vector<int> succ;
  for (size_t i = 0; i < n; ++i) {
    if (const Instruction* t = f.blocks()[i]->terminator())
      for (const BasicBlock* s : t->blocks) {
        if (const int* at = position.find(s)) succ.push_back(*at);
      }
    succBegin[i + 1] = succ.size();
  }

  // Post-order by an explicit-stack depth-first search (no recursion: a
  // function may have many blocks), successors in branch order.
  std::vector<int> postOrder;
  std::vector<char> visited(n, 0);
  std::vector<std::pair<int, size_t>> stack;  // (block, next successor edge)
  const int entryPos = *position.find(entry);
  visited[size_t(entryPos)] = 1;
  stack.emplace_back(entryPos, succBegin[size_t(entryPos)]);
  while (!stack.empty()) {
    auto& [bb, next] = stack.back();
    if (next == succBegin[size_t(bb) + 1]) {
      postOrder.push_back(bb);
      stack.pop_back();
      continue;
    }
    int s = succ[next++];
    if (!visited[size_t(s)]) {
      visited[size_t(s)] = 1;
      stack.emplace_back(s, succBegin[size_t(s)]);
    }
  }
  std::vector<int> rpoOf(n, -1);  // by position
  rpo_.reserve(postOrder.size());
  rpoIndex_.reserve(postOrder.size());
  for (auto it = postOrder.rbegin(); it != postOrder.rend(); ++it) {
    rpoOf[size_t(*it)] = int(rpo_.size());
    rpoIndex_.add(f.blocks()[size_t(*it)].get(), int(rpo_.size()));
    rpo_.push_back(f.blocks()[size_t(*it)].get());
  }
  rpoIndex_.seal();

  // Predecessors by reverse post-order index, in that order, as one array
  // (predBegin[b] .. predBegin[b + 1]).
  std::vector<size_t> predBegin(rpo_.size() + 1, 0);
  std::vector<int> preds(succ.size());
  for (int p : postOrder)
    for (size_t e = succBegin[size_t(p)]; e < succBegin[size_t(p) + 1]; ++e) ++predBegin[size_t(rpoOf[size_t(succ[e])]) + 1];
  for (size_t b = 0; b < rpo_.size(); ++b) predBegin[b + 1] += predBegin[b];
  std::vector<size_t> fill(predBegin.begin(), predBegin.end() - 1);
  for (size_t i = 0; i < rpo_.size(); ++i) {
    size_t p = size_t(postOrder[postOrder.size() - 1 - i]);  // rpo_[i]'s position
    for (size_t e = succBegin[p]; e < succBegin[p + 1]; ++e) preds[fill[size_t(rpoOf[size_t(succ[e])])]++] = int(i);
  }

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
      for (size_t k = predBegin[b]; k < predBegin[b + 1]; ++k) {
        int p = preds[k];
        if (idom_[p] < 0) continue;  // not processed yet
        newIdom = newIdom < 0 ? p : intersect(p, newIdom);
      }
      if (idom_[b] != newIdom) {
        idom_[b] = newIdom;
        changed = true;
      }
    }
  }
  numberTree();
}

void DominatorTree::numberTree() {
  // Entry and exit times of a depth-first walk of the tree (an explicit
  // stack: the tree of a long chain of blocks is as deep as the chain).
  const size_t n = rpo_.size();
  enter_.assign(n, -1);
  exit_.assign(n, -1);
  if (n == 0) return;
  // Children as one array: those of b are children[childBegin[b] .. childBegin[b + 1]).
  std::vector<size_t> childBegin(n + 1, 0);
  std::vector<int> children(n);
  for (size_t b = 1; b < n; ++b) ++childBegin[size_t(idom_[b]) + 1];
  for (size_t b = 0; b < n; ++b) childBegin[b + 1] += childBegin[b];
  std::vector<size_t> fill(childBegin.begin(), childBegin.end() - 1);
  for (size_t b = 1; b < n; ++b) children[fill[size_t(idom_[b])]++] = int(b);
  int clock = 0;
  std::vector<std::pair<int, size_t>> stack{{0, childBegin[0]}};  // (node, next child)
  enter_[0] = clock++;
  while (!stack.empty()) {
    auto& [node, next] = stack.back();
    if (next < childBegin[size_t(node) + 1]) {
      int child = children[next++];
      enter_[size_t(child)] = clock++;
      stack.emplace_back(child, childBegin[size_t(child)]);
    } else {
      exit_[size_t(node)] = clock++;
      stack.pop_back();
    }
  }
}

const BasicBlock* DominatorTree::idom(const BasicBlock* bb) const {
  const int* at = rpoIndex_.find(bb);
  if (!at || *at == 0) return nullptr;
  return rpo_[size_t(idom_[size_t(*at)])];
}

bool DominatorTree::dominates(const BasicBlock* a, const BasicBlock* b) const {
  const int* ia = rpoIndex_.find(a);
  const int* ib = rpoIndex_.find(b);
  if (!ia || !ib) return false;
  // a's subtree of the dominator tree holds b: b's walk times nest in a's.
  size_t x = size_t(*ia), y = size_t(*ib);
  return enter_[x] <= enter_[y] && exit_[y] <= exit_[x];
}

}  // namespace tritonc::ir
