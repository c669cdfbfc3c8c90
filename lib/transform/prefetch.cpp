// Pre-fetching (paper 5.1.1, Listing 7). For a loop
//     header: %p = phi [%p0, pre], [%p1, latch]  ...  cond_br %c, body, exit
//     body:   %x = load %p ...
// the load of the next iteration is issued at the end of the current one and
// the first one in the pre-header, and %x becomes a phi:
//     pre:    %x0 = load %p0, c(pre) ...
//     header: %x = phi [%x0, pre], [%x1, latch]
//     latch:  %x1 = load %p1, c(next) ...
// where c(pre) and c(next) are the loop condition recomputed with the values
// the header's phis will have: the pre-fetch is masked off when there is no
// next iteration, so it never reads what the original program would not.
#include <map>

#include "ir/builder.h"
#include "transform/loops.h"
#include "transform/passes.h"

namespace tritonc::transform {

namespace {

using ir::Opcode;

constexpr size_t kMaxClonedChain = 256;

// Which successor of the header's cond_br stays in the loop (-1: unsuitable).
int continueEdge(const Loop& loop) {
  ir::Instruction* t = loop.header->terminator();
  if (!t || t->opcode() != Opcode::CondBr) return -1;
  bool in0 = loop.contains(t->blocks[0]), in1 = loop.contains(t->blocks[1]);
  if (in0 == in1) return -1;
  return in0 ? 0 : 1;
}

bool pure(const ir::Instruction& i) {
  return !i.hasSideEffects() && i.opcode() != Opcode::Load && i.opcode() != Opcode::Phi &&
         i.opcode() != Opcode::MultipleOf &&
         !((i.opcode() == Opcode::Div || i.opcode() == Opcode::Rem) && i.type().isInt());
}

// Recomputes a value of the loop for another iteration: header phis are
// replaced by their incoming value from `edge` (the pre-header or the latch),
// values defined outside the loop are used as they are, and pure instructions
// of the loop are cloned at the builder's position. With `at` (a block of the
// loop, the builder at its top), the latch's incoming values are themselves
// recomputed there from the current phis, so that the next iteration's loads
// can be issued before the current iteration's compute.
class Cloner {
 public:
  Cloner(const Loop& loop, ir::BasicBlock* edge, ir::Builder& b, const ir::DominatorTree* dom = nullptr,
         ir::BasicBlock* at = nullptr)
      : loop_(loop), edge_(edge), b_(b), dom_(dom), at_(at) {}

  // Whether `v` can be recomputed this way (no loads, no side effects).
  bool clonable(ir::Value* v, size_t& budget) const {
    if (!loop_.definedInside(v)) return true;
    auto* i = static_cast<ir::Instruction*>(v);
    if (i->opcode() == Opcode::Phi) {
      if (i->parent != loop_.header) return false;
      if (!at_) return true;
      for (size_t k = 0; k < i->blocks.size(); ++k)
        if (i->blocks[k] == edge_ && !currentClonable(i->operand(k), budget)) return false;
      return true;
    }
    if (!pure(*i) || budget-- == 0) return false;
    for (ir::Value* op : i->operands())
      if (!clonable(op, budget)) return false;
    return true;
  }

  ir::Value* clone(ir::Value* v) {
    if (!loop_.definedInside(v)) return v;
    auto it = memo_.find(v);
    if (it != memo_.end()) return it->second;
    auto* i = static_cast<ir::Instruction*>(v);
    ir::Value* out = nullptr;
    if (i->opcode() == Opcode::Phi) {
      for (size_t k = 0; k < i->blocks.size(); ++k)
        if (i->blocks[k] == edge_) out = at_ ? current(i->operand(k)) : i->operand(k);
    } else {
      out = copy(i, [this](ir::Value* op) { return clone(op); });
    }
    memo_[v] = out;
    return out;
  }

 private:
  // Available at the top of `at_`: defined outside the loop, a header phi, or
  // in a block that dominates `at_` (not `at_` itself: we are at its top).
  bool available(ir::Value* v) const {
    if (!loop_.definedInside(v)) return true;
    auto* i = static_cast<ir::Instruction*>(v);
    if (i->opcode() == Opcode::Phi && i->parent == loop_.header) return true;
    return i->parent != at_ && dom_->dominates(i->parent, at_);
  }
  bool currentClonable(ir::Value* v, size_t& budget) const {
    if (available(v)) return true;
    auto* i = static_cast<ir::Instruction*>(v);
    if (i->opcode() == Opcode::Phi || !pure(*i) || budget-- == 0) return false;
    for (ir::Value* op : i->operands())
      if (!currentClonable(op, budget)) return false;
    return true;
  }
  // The value `v` has in the current iteration, at the top of `at_`.
  ir::Value* current(ir::Value* v) {
    if (available(v)) return v;
    auto it = currentMemo_.find(v);
    if (it != currentMemo_.end()) return it->second;
    auto* i = static_cast<ir::Instruction*>(v);
    ir::Value* out = copy(i, [this](ir::Value* op) { return current(op); });
    currentMemo_[v] = out;
    return out;
  }
  template <class F>
  ir::Value* copy(ir::Instruction* i, F&& mapOperand) {
    std::vector<ir::Value*> ops;
    for (ir::Value* op : i->operands()) ops.push_back(mapOperand(op));
    b_.setLoc(i->loc);
    ir::Instruction* c = b_.create(i->opcode(), i->type(), ops);
    c->sub = i->sub;
    c->imm = i->imm;
    c->setName(i->name());
    return c;
  }

  const Loop& loop_;
  ir::BasicBlock* edge_;
  ir::Builder& b_;
  const ir::DominatorTree* dom_;
  ir::BasicBlock* at_;
  std::map<ir::Value*, ir::Value*> memo_, currentMemo_;
};

// Emits the load `l` as it would run on the iteration entered through `edge`,
// masked by that iteration's loop condition: at the end of the pre-header for
// the first iteration, and at the top of the load's own block for the next
// one (before the current iteration's compute, so its latency overlaps it).
// `*top` is where the block's next early pre-fetch goes (after the previous
// ones, so that they keep the order of the loads).
ir::Value* emitPrefetch(const Loop& loop, ir::Instruction* l, ir::BasicBlock* edge, int contEdge, ir::Builder& b,
                        const ir::DominatorTree& dom, size_t* top) {
  bool early = edge == loop.latch;
  if (early) {
    b.setInsertPoint(l->parent, *top);
  } else {
    b.setInsertPoint(edge, edge->instructions().size() - 1);
  }
  Cloner cl(loop, edge, b, early ? &dom : nullptr, early ? l->parent : nullptr);
  ir::Value* cond = cl.clone(loop.header->terminator()->operand(0));
  b.setLoc(l->loc);
  if (contEdge == 1) cond = b.cmp(ir::CmpPred::Eq, cond, b.boolean(false));
  ir::Value* ptr = cl.clone(l->operand(0));
  const ir::Type& t = l->type();
  ir::Value* mask = t.isTile() ? b.splat(cond, t.shape) : cond;
  ir::Value* other;
  if (l->numOperands() == 3) {
    mask = b.binary(Opcode::And, cl.clone(l->operand(1)), mask);
    other = cl.clone(l->operand(2));
  } else {
    other = b.constant(t, 0);
  }
  b.setLoc(l->loc);
  ir::Value* x = b.load(ptr, mask, other);
  x->setName(l->name().empty() ? "prefetch" : l->name() + ".next");
  if (early) *top = l->parent->indexOf(static_cast<ir::Instruction*>(x)) + 1;
  return x;
}

bool runOnLoop(ir::Function& f, const Loop& loop, const ir::DominatorTree& dom) {
  if (!loop.preheader || !loop.latch || loop.hasMemoryWrites()) return false;
  int contEdge = continueEdge(loop);
  if (contEdge < 0) return false;
  // The header's condition must be the only way out: with a `break`, the next
  // iteration may not run even when the condition holds.
  std::vector<ir::BasicBlock*> exiting = loop.exitingBlocks();
  if (exiting.size() != 1 || exiting[0] != loop.header) return false;
  for (auto& inst : loop.header->instructions())
    if (inst->opcode() != Opcode::Phi && !inst->isTerminator() && !pure(*inst)) return false;
  ir::Builder probe(*f.parent());
  Cloner check(loop, loop.preheader, probe);
  size_t budget = kMaxClonedChain;
  if (!check.clonable(loop.header->terminator()->operand(0), budget)) return false;

  std::vector<ir::Instruction*> loads;
  for (auto& owned : f.blocks()) {  // in function order, for a stable result
    ir::BasicBlock* bb = owned.get();
    if (!loop.contains(bb)) continue;
    if (bb == loop.header || !dom.dominates(bb, loop.latch)) continue;  // must run on every iteration
    for (auto& inst : bb->instructions()) {
      if (inst->opcode() != Opcode::Load) continue;
      size_t b2 = kMaxClonedChain;
      bool ok = true;
      // Clonable for the first iteration (pre-header) and for the next one,
      // recomputed at the top of the load's block.
      Cloner next(loop, loop.latch, probe, &dom, bb);
      for (ir::Value* op : inst->operands()) ok = ok && check.clonable(op, b2) && next.clonable(op, b2);
      ok = ok && next.clonable(loop.header->terminator()->operand(0), b2);
      // Loop-invariant loads are LICM's business, not ours.
      bool variant = false;
      for (ir::Value* op : inst->operands()) variant = variant || loop.definedInside(op);
      if (ok && variant) loads.push_back(inst.get());
    }
  }
  ir::Builder b(*f.parent());
  std::map<ir::BasicBlock*, size_t> tops;
  for (ir::Instruction* l : loads) {
    if (!tops.count(l->parent)) {
      size_t pos = 0;
      while (pos < l->parent->instructions().size() && l->parent->instructions()[pos]->opcode() == Opcode::Phi) ++pos;
      tops[l->parent] = pos;
    }
    ir::Value* first = emitPrefetch(loop, l, loop.preheader, contEdge, b, dom, nullptr);
    ir::Value* next = emitPrefetch(loop, l, loop.latch, contEdge, b, dom, &tops[l->parent]);
    b.setInsertPoint(loop.header, 0);
    b.setLoc(l->loc);
    ir::Instruction* phi = b.phi(l->type());
    phi->setName(l->name());
    for (ir::BasicBlock* p : f.predecessors(loop.header)) {
      phi->addOperand(p == loop.preheader ? first : next);
      phi->blocks.push_back(p);
    }
    l->replaceAllUsesWith(phi);
    l->parent->erase(l);
  }
  return !loads.empty();
}

}  // namespace

bool runPrefetch(ir::Function& f) {
  bool changed = false;
  // The pass adds no blocks, so the loops found up front stay valid.
  ir::DominatorTree dom(f);
  for (const Loop& loop : findLoops(f, dom)) changed = runOnLoop(f, loop, dom) || changed;
  return changed;
}

}  // namespace tritonc::transform
