// Pointer tiles that a loop advances by one uniform step,
//
//   pre:    %p0 = gep(broadcast(gep(splat %A, %rows)), %cols)
//   header: %p = phi [%p0, pre], [%p.next, latch]
//   body:   %p.next = gep %p, splat(%s)
//
// become a scalar pointer phi and the loop-invariant offsets:
//
//   header: %q = phi [%A, pre], [%q.next, latch]
//           %p = gep(broadcast(gep(splat %q, %rows)), %cols)
//   body:   %q.next = gep %q, %s
//           %p.next = gep(broadcast(gep(splat %q.next, %rows)), %cols)
//
// The loop then carries one pointer instead of a tile of them (two
// registers per element on the GPU, where a 128 x 32 tile read element by
// element held 32 of a thread's registers), and what it keeps across
// iterations are the offsets, narrower and often fewer (a row offset per
// row). Every element is the same sum of the same 64-bit terms: the
// rewrite changes no address.
#include "ir/builder.h"
#include "transform/loops.h"
#include "transform/pattern.h"
#include "transform/passes.h"

namespace tritonc::transform {

namespace {

using ir::Opcode;

constexpr size_t kMaxChain = 16;  // geps, broadcasts and reshapes above the splat

// The scalar a tile of one value is made from (splat, then broadcasts and
// reshapes), or null.
ir::Value* uniformScalar(ir::Value* v) {
  for (size_t n = 0; n < kMaxChain; ++n) {
    ir::Instruction* i = asInst(v);
    if (!i) return nullptr;
    if (i->opcode() == Opcode::Splat) return i->operand(0)->type().isTile() ? nullptr : i->operand(0);
    if (i->opcode() != Opcode::Broadcast && i->opcode() != Opcode::Reshape) return nullptr;
    v = i->operand(0);
  }
  return nullptr;
}

// The chain from a splat of a scalar pointer up to `v` through geps (of
// their pointer operand), broadcasts and reshapes, splat first; empty when
// `v` is not built that way.
std::vector<ir::Instruction*> chainFromScalar(ir::Value* v) {
  std::vector<ir::Instruction*> chain;
  for (ir::Instruction* i = asInst(v); i && chain.size() <= kMaxChain; i = asInst(i->operand(0))) {
    chain.push_back(i);
    if (i->opcode() == Opcode::Splat) {
      if (i->operand(0)->type().isTile()) break;
      return {chain.rbegin(), chain.rend()};
    }
    if (i->opcode() != Opcode::Gep && i->opcode() != Opcode::Broadcast && i->opcode() != Opcode::Reshape) break;
  }
  return {};
}

// `chain` again with `root` in place of its splat's scalar, at `pos` of `bb`.
ir::Value* rebuild(ir::Builder& b, const std::vector<ir::Instruction*>& chain, ir::Value* root, ir::BasicBlock* bb,
                   size_t pos) {
  ir::Value* v = root;
  for (ir::Instruction* i : chain) {
    std::vector<ir::Value*> ops = i->operands();
    ops[0] = v;
    b.setInsertPoint(bb, pos++);
    b.setLoc(i->loc);
    ir::Instruction* c = b.create(i->opcode(), i->type(), ops);
    c->imm = i->imm;
    c->sub = i->sub;
    c->text = i->text;
    v = c;
  }
  return v;
}

bool runOnLoop(ir::Function& f, const Loop& loop) {
  if (!loop.preheader || !loop.latch || loop.headerPredecessors.size() != 2) return false;
  ir::Builder b(*f.parent());
  bool changed = false;
  std::vector<ir::Instruction*> phis;
  for (auto& inst : loop.header->instructions())
    if (inst->opcode() == Opcode::Phi && inst->type().isTile() && inst->type().isPtr()) phis.push_back(inst.get());
  for (ir::Instruction* phi : phis) {
    if (phi->numOperands() != 2) continue;
    size_t pre = phi->blocks[0] == loop.preheader ? 0 : 1;
    if (phi->blocks[pre] != loop.preheader || phi->blocks[1 - pre] != loop.latch) continue;
    ir::Instruction* next = asInst(phi->operand(1 - pre));
    if (!next || next->opcode() != Opcode::Gep || next->operand(0) != phi) continue;
    ir::Value* step = uniformScalar(next->operand(1));
    std::vector<ir::Instruction*> chain = chainFromScalar(phi->operand(pre));
    if (!step || chain.empty()) continue;
    ir::Value* base = chain[0]->operand(0);
    // The scalar phi, its step, and the tile rebuilt from each.
    b.setInsertPoint(loop.header, 0);
    b.setLoc(phi->loc);
    ir::Instruction* q = b.phi(base->type());
    q->setName(phi->name());
    ir::BasicBlock* nextBlock = next->parent;
    b.setInsertPoint(nextBlock, nextBlock->indexOf(next));
    b.setLoc(next->loc);
    ir::Value* qNext = b.gep(q, step);
    for (ir::BasicBlock* p : loop.headerPredecessors) {
      q->addOperand(p == loop.preheader ? base : qNext);
      q->blocks.push_back(p);
    }
    ir::Value* tileHere = rebuild(b, chain, q, loop.header, loop.header->firstNonPhi());
    ir::Value* tileNext = rebuild(b, chain, qNext, nextBlock, nextBlock->indexOf(next));
    tileHere->setName(phi->name());
    tileNext->setName(next->name());
    phi->replaceAllUsesWith(tileHere);
    next->replaceAllUsesWith(tileNext);
    phi->dropAllOperands();
    loop.header->erase(phi);
    nextBlock->erase(next);
    changed = true;
  }
  return changed;
}

}  // namespace

bool runRebasePointerPhis(ir::Function& f) {
  // The pass adds no blocks and no loops: the loops found up front stay valid.
  ir::DominatorTree dom(f);
  bool changed = false;
  for (const Loop& loop : findLoops(f, dom)) changed = runOnLoop(f, loop) || changed;
  return changed;
}

}  // namespace tritonc::transform
