#include "transform/loops.h"

#include <algorithm>
#include <map>

namespace tritonc::transform {

bool Loop::definedInside(const ir::Value* v) const {
  if (v->valueKind() != ir::ValueKind::Instruction) return false;
  return contains(static_cast<const ir::Instruction*>(v)->parent);
}

std::vector<ir::BasicBlock*> Loop::exitingBlocks() const {
  std::vector<ir::BasicBlock*> out;
  for (ir::BasicBlock* bb : blocks)
    for (ir::BasicBlock* s : bb->successors())
      if (!contains(s)) {
        out.push_back(bb);
        break;
      }
  return out;
}

bool Loop::hasMemoryWrites() const {
  for (ir::BasicBlock* bb : blocks)
    for (auto& i : bb->instructions())
      if (i->opcode() == ir::Opcode::Store || i->opcode() == ir::Opcode::AtomicRmw ||
          i->opcode() == ir::Opcode::AtomicCas)
        return true;
  return false;
}

std::vector<Loop> findLoops(ir::Function& f, const ir::DominatorTree& dom) {
  // One loop per header; several back edges to one header make one loop.
  std::map<ir::BasicBlock*, Loop> byHeader;
  std::map<ir::BasicBlock*, std::vector<ir::BasicBlock*>> latches;
  for (auto& bb : f.blocks()) {
    if (!dom.isReachable(bb.get())) continue;
    for (ir::BasicBlock* s : bb->successors())
      if (dom.dominates(s, bb.get())) latches[s].push_back(bb.get());
  }
  for (auto& [header, ls] : latches) {
    Loop& loop = byHeader[header];
    loop.header = header;
    loop.blocks.insert(header);
    std::vector<ir::BasicBlock*> work(ls.begin(), ls.end());
    while (!work.empty()) {
      ir::BasicBlock* bb = work.back();
      work.pop_back();
      if (!loop.blocks.insert(bb).second) continue;
      for (ir::BasicBlock* p : f.predecessors(bb))
        if (dom.isReachable(p)) work.push_back(p);
    }
    if (ls.size() == 1) loop.latch = ls[0];
    std::vector<ir::BasicBlock*> outside;
    for (ir::BasicBlock* p : f.predecessors(header))
      if (!loop.contains(p)) outside.push_back(p);
    // A pre-header must lead only to the header, so that code placed at its
    // end runs exactly when the loop is entered.
    if (outside.size() == 1 && outside[0]->successors().size() == 1) loop.preheader = outside[0];
  }
  std::vector<Loop> loops;
  for (auto& [h, l] : byHeader) loops.push_back(l);
  std::stable_sort(loops.begin(), loops.end(),
                   [](const Loop& a, const Loop& b) { return a.blocks.size() < b.blocks.size(); });
  return loops;
}

}  // namespace tritonc::transform
