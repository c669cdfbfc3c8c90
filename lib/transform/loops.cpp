#include "transform/loops.h"

#include <algorithm>
#include <map>

#include "ir/cfg.h"
#include "ir/pointer_index.h"

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

ir::BasicBlock* Loop::headerExit() const {
  ir::BasicBlock* exit = nullptr;
  for (ir::BasicBlock* s : header->successors())
    if (!contains(s)) exit = s;
  return exit;
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
  ir::PredecessorMap preds = ir::predecessorMap(f);
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
      for (ir::BasicBlock* p : preds[bb])
        if (dom.isReachable(p)) work.push_back(p);
    }
    if (ls.size() == 1) loop.latch = ls[0];
    std::vector<ir::BasicBlock*> outside;
    for (ir::BasicBlock* p : preds[header])
      if (!loop.contains(p)) outside.push_back(p);
    // A pre-header must lead only to the header, so that code placed at its
    // end runs exactly when the loop is entered.
    if (outside.size() == 1 && outside[0]->successors().size() == 1) loop.preheader = outside[0];
  }
  ir::PointerIndex<ir::BasicBlock, size_t> position;
  position.reserve(f.blocks().size());
  for (size_t i = 0; i < f.blocks().size(); ++i) position.add(f.blocks()[i].get(), i);
  position.seal();
  std::vector<Loop> loops;
  for (auto& [h, l] : byHeader) {
    l.blocksInOrder.assign(l.blocks.begin(), l.blocks.end());
    std::sort(l.blocksInOrder.begin(), l.blocksInOrder.end(),
              [&](ir::BasicBlock* a, ir::BasicBlock* b) { return *position.find(a) < *position.find(b); });
    l.headerPredecessors = preds[h];
    loops.push_back(std::move(l));
  }
  std::stable_sort(loops.begin(), loops.end(),
                   [](const Loop& a, const Loop& b) { return a.blocks.size() < b.blocks.size(); });
  return loops;
}

}  // namespace tritonc::transform
