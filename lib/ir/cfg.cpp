#include "ir/cfg.h"

#include <algorithm>
#include <set>

namespace tritonc::ir {

bool removeUnreachableBlocks(Function& f) {
  if (!f.entry()) return false;
  std::set<BasicBlock*> reached;
  std::vector<BasicBlock*> work{f.entry()};
  while (!work.empty()) {
    BasicBlock* bb = work.back();
    work.pop_back();
    if (!reached.insert(bb).second) continue;
    for (BasicBlock* s : bb->successors()) work.push_back(s);
  }
  std::vector<BasicBlock*> dead;
  for (auto& bb : f.blocks())
    if (!reached.count(bb.get())) dead.push_back(bb.get());
  if (dead.empty()) return false;
  std::set<BasicBlock*> deadSet(dead.begin(), dead.end());
  for (BasicBlock* bb : reached)
    for (auto& inst : bb->instructions()) {
      if (inst->opcode() != Opcode::Phi) continue;
      for (size_t i = inst->blocks.size(); i-- > 0;)
        if (deadSet.count(inst->blocks[i])) {
          inst->removeOperand(i);
          inst->blocks.erase(inst->blocks.begin() + long(i));
        }
    }
  f.eraseBlocks(dead);
  return true;
}

PredecessorMap predecessorMap(const Function& f) {
  PredecessorMap preds;
  for (auto& bb : f.blocks())
    if (Instruction* t = bb->terminator())
      for (BasicBlock* s : t->blocks) {
        std::vector<BasicBlock*>& p = preds[s];
        if (std::find(p.begin(), p.end(), bb.get()) == p.end()) p.push_back(bb.get());
      }
  return preds;
}

}  // namespace tritonc::ir
