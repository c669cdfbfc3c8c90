// Loop-invariant code motion: hoists instructions whose operands are all
// defined outside a loop into the loop's pre-header, innermost loops first.
#include <algorithm>

#include "ir/dominators.h"
#include "transform/loops.h"
#include "transform/passes.h"

namespace tritonc::transform {

namespace {

// Instructions that may fault (or read memory a store in the loop may change)
// only move when they run on every entry into the loop: when their block
// dominates every exit of the loop.
bool mayFault(const ir::Instruction& i) {
  // multiple_of is a promise the interpreter checks: moved before a loop that
  // runs zero times, it would be checked on values the program never has.
  if (i.opcode() == ir::Opcode::Load || i.opcode() == ir::Opcode::MultipleOf) return true;
  return ir::isIntegerDivision(i);
}

bool hoistable(const ir::Instruction& i) {
  // (GPU IR: a buffer's contents change inside loops that copy into it.)
  return !i.hasSideEffects() && i.opcode() != ir::Opcode::Phi && i.opcode() != ir::Opcode::LocalLoad;
}

bool runOnLoop(const Loop& loop, const ir::DominatorTree& dom) {
  if (!loop.preheader) return false;
  std::vector<ir::BasicBlock*> exits = loop.exitingBlocks();
  bool writes = loop.hasMemoryWrites();
  bool changed = false;
  // The loop's blocks in reverse post-order (not the function's: a function
  // of many loops would cost its size per loop).
  std::vector<ir::BasicBlock*> order(loop.blocks.begin(), loop.blocks.end());
  std::sort(order.begin(), order.end(),
            [&](ir::BasicBlock* a, ir::BasicBlock* b) { return dom.rpoIndex(a) < dom.rpoIndex(b); });
  for (bool again = true; again;) {
    again = false;
    for (ir::BasicBlock* bb : order) {
      if (dom.rpoIndex(bb) < 0) continue;  // unreachable
      for (size_t idx = 0; idx < bb->instructions().size();) {
        ir::Instruction* inst = bb->instructions()[idx].get();
        bool invariant = hoistable(*inst);
        for (ir::Value* op : inst->operands()) invariant = invariant && !loop.definedInside(op);
        if (invariant && mayFault(*inst)) {
          if (inst->opcode() == ir::Opcode::Load && writes) invariant = false;
          for (ir::BasicBlock* e : exits) invariant = invariant && dom.dominates(bb, e);
        }
        if (!invariant) {
          ++idx;
          continue;
        }
        std::unique_ptr<ir::Instruction> moved = bb->detach(inst);
        ir::BasicBlock* pre = loop.preheader;
        pre->insert(pre->instructions().size() - 1, std::move(moved));  // before the terminator
        changed = again = true;
      }
    }
  }
  return changed;
}

}  // namespace

bool runLoopInvariantCodeMotion(ir::Function& f) {
  ir::DominatorTree dom(f);
  bool changed = false;
  // Inner loops first: what leaves an inner loop may then leave the outer one.
  for (const Loop& loop : findLoops(f, dom)) changed = runOnLoop(loop, dom) || changed;
  return changed;
}

}  // namespace tritonc::transform
