// Straight-line blocks merged: a block whose only predecessor ends in an
// unconditional branch to it joins that predecessor (the DSL's inlined
// @jit functions leave one such block per return, `return.silu`). Analyses
// that look within one block (gpu/occupancy.cpp's element-wise chains) then
// see the whole stretch.
#include <unordered_map>
#include <vector>

#include "ir/cfg.h"
#include "transform/passes.h"

namespace tritonc::transform {

bool runMergeBlocks(ir::Function& f) {
  bool changed = false;
  ir::PredecessorMap preds = ir::predecessorMap(f);
  std::vector<ir::BasicBlock*> gone;
  // In block order: a chain a -> b -> c merges into a one block at a time
  // (b into a, then c into the grown a).
  std::unordered_map<ir::BasicBlock*, ir::BasicBlock*> mergedInto;
  auto root = [&](ir::BasicBlock* b) {
    while (mergedInto.count(b)) b = mergedInto.at(b);
    return b;
  };
  for (auto& owned : f.blocks()) {
    ir::BasicBlock* b = owned.get();
    if (b == f.entry()) continue;
    const std::vector<ir::BasicBlock*>& from = preds[b];
    if (from.size() != 1) continue;
    ir::BasicBlock* p = root(from.front());
    if (p == b) continue;  // (a block branching to itself)
    ir::Instruction* br = p->terminator();
    if (!br || br->opcode() != ir::Opcode::Br || br->blocks.size() != 1 || br->blocks.front() != b) continue;
    // Its phis have one incoming value: that value.
    while (!b->instructions().empty() && b->instructions().front()->opcode() == ir::Opcode::Phi) {
      ir::Instruction* phi = b->instructions().front().get();
      phi->replaceAllUsesWith(phi->operand(0));
      phi->dropAllOperands();
      b->erase(phi);
    }
    // The successors' phis now come from p.
    for (ir::BasicBlock* s : b->successors())
      for (auto& inst : s->instructions()) {
        if (inst->opcode() != ir::Opcode::Phi) break;
        for (ir::BasicBlock*& in : inst->blocks)
          if (in == b) in = p;
      }
    p->erase(br);
    b->moveAllTo(p);
    mergedInto[b] = p;
    gone.push_back(b);
    changed = true;
  }
  if (!gone.empty()) f.eraseBlocks(gone);
  return changed;
}

}  // namespace tritonc::transform
