// Dead-code elimination: mark what is live (side effects and terminators, and
// transitively their operands), then delete the rest. Marking from the roots
// removes dead cycles of phis, which a use-count worklist would keep.
#include <set>

#include "ir/cfg.h"
#include "transform/passes.h"

namespace tritonc::transform {

bool runDeadCodeElimination(ir::Function& f) {
  bool changed = ir::removeUnreachableBlocks(f);
  std::set<const ir::Instruction*> live;
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
  // Dead instructions may use each other: drop all operands before erasing.
  for (ir::Instruction* inst : dead) inst->dropAllOperands();
  for (ir::Instruction* inst : dead) inst->parent->erase(inst);
  return changed || !dead.empty();
}

}  // namespace tritonc::transform
