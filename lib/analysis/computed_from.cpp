#include "analysis/computed_from.h"

namespace tritonc::analysis {

std::unordered_set<const ir::Value*> computedFrom(const ir::Function& f,
                                                  const std::function<bool(const ir::Instruction&)>& isSource) {
  std::unordered_set<const ir::Value*> out;
  for (bool again = true; again;) {
    again = false;
    for (auto& bb : f.blocks())
      for (auto& inst : bb->instructions()) {
        if (out.count(inst.get())) continue;
        bool reached = isSource(*inst);
        for (const ir::Value* op : inst->operands()) reached = reached || out.count(op);
        if (reached) {
          out.insert(inst.get());
          again = true;  // phis can reach back to earlier blocks
        }
      }
  }
  return out;
}

}  // namespace tritonc::analysis
