// Dead-code elimination: mark what is live (side effects and terminators, and
// transitively their operands), then delete the rest. Marking from the roots
// removes dead cycles of phis, which a use-count worklist would keep.
#include <unordered_map>
#include <unordered_set>

#include "ir/cfg.h"
#include "transform/passes.h"

namespace tritonc::transform {

bool runDeadCodeElimination(ir::Function& f) {
  bool changed = ir::removeUnreachableBlocks(f);
  size_t numInsts = 0;
  for (auto& bb : f.blocks()) numInsts += bb->instructions().size();
  std::unordered_set<const ir::Instruction*> live;
  live.reserve(numInsts);
  std::vector<const ir::Instruction*> work;
  for (auto& bb : f.blocks())
    for (auto& inst : bb->instructions())
      if (inst->hasSideEffects()) {
        live.insert(inst.get());
        work.push_back(inst.get());
      }
  while (!work.empty()) {
    const ir::Instruction* inst = work.back();
    work.pop_back();
    for (ir::Value* op : inst->operands()) {
      if (op->valueKind() != ir::ValueKind::Instruction) continue;
      auto* def = static_cast<const ir::Instruction*>(op);
      if (live.insert(def).second) work.push_back(def);
    }
  }
  std::vector<ir::Instruction*> dead;
  for (auto& bb : f.blocks())
    for (auto& inst : bb->instructions())
      if (!live.count(inst.get())) dead.push_back(inst.get());
  // Dead instructions may use each other, across blocks too: drop all
  // operands (last first, see dropUse) before erasing.
  for (auto it = dead.rbegin(); it != dead.rend(); ++it) (*it)->dropAllOperands();
  std::unordered_map<ir::BasicBlock*, std::unordered_set<const ir::Instruction*>> byBlock;
  for (ir::Instruction* inst : dead) byBlock[inst->parent].insert(inst);
  for (auto& [bb, insts] : byBlock) bb->eraseAll(insts);
  return changed || !dead.empty();
}

}  // namespace tritonc::transform
