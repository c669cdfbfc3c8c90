#include "lang/ssa_builder.h"

namespace tritonc::lang {

int SsaBuilder::newVariable(const ir::Type& t, const std::string& name) {
  varTypes_.push_back(t);
  varNames_.push_back(name);
  return int(varTypes_.size()) - 1;
}

void SsaBuilder::write(int var, ir::BasicBlock* bb, ir::Value* v) { defs_[bb][var] = v; }

ir::Instruction* SsaBuilder::newPhi(int var, ir::BasicBlock* bb) {
  ir::Builder b(module_);
  b.setInsertPoint(bb, 0);
  ir::Instruction* phi = b.phi(varTypes_[var]);
  phi->setName(varNames_[var]);
  return phi;
}

// Braun et al.'s readVariable, with an explicit stack instead of recursion:
// a read may walk back through every block before it (the blocks of a
// function with thousands of loops, one pre-header and header after another).
// The order of the walk, and so the IR built, is the recursive algorithm's.
ir::Value* SsaBuilder::read(int var, ir::BasicBlock* bb) {
  struct Frame {
    ir::BasicBlock* bb;
    ir::Instruction* phi;  // null: a block with one predecessor
    size_t next;           // the phi's next predecessor to read from
  };
  std::vector<Frame> stack;
  ir::Value* v = nullptr;
  for (;;) {
    // Down: find the value at the end of `bb`, or go on to a predecessor.
    auto& blockDefs = defs_[bb];
    auto it = blockDefs.find(var);
    const auto& preds = preds_[bb];
    if (it != blockDefs.end()) {
      v = resolve(it->second);
    } else if (!sealed(bb)) {
      ir::Instruction* phi = newPhi(var, bb);
      incomplete_[bb][var] = phi;
      write(var, bb, phi);
      v = phi;
    } else if (preds.size() == 1) {
      stack.push_back({bb, nullptr, 0});
      bb = preds[0];
      continue;
    } else if (preds.empty()) {
      // Read of a variable with no definition on any path (unreachable code):
      // any value will do; zero keeps the IR well typed.
      v = zeroOf(varTypes_[var], bb);
      write(var, bb, v);
    } else {
      ir::Instruction* phi = newPhi(var, bb);
      write(var, bb, phi);  // breaks cycles through loops
      stack.push_back({bb, phi, 0});
      bb = preds[0];
      continue;
    }
    // Up: `v` is the value at the end of the block below the top frame.
    for (;;) {
      if (stack.empty()) return v;
      Frame& top = stack.back();
      if (!top.phi) {
        write(var, top.bb, v);
        stack.pop_back();
        continue;
      }
      const auto& topPreds = preds_[top.bb];
      top.phi->addOperand(v);
      top.phi->blocks.push_back(topPreds[top.next]);
      if (++top.next < topPreds.size()) {
        bb = topPreds[top.next];
        break;  // down again, into the next predecessor
      }
      v = tryRemoveTrivialPhi(top.phi);
      write(var, top.bb, v);
      stack.pop_back();
    }
  }
}

ir::Value* SsaBuilder::addPhiOperands(int var, ir::Instruction* phi) {
  for (ir::BasicBlock* pred : preds_[phi->parent]) {
    phi->addOperand(read(var, pred));
    phi->blocks.push_back(pred);
  }
  return tryRemoveTrivialPhi(phi);
}

ir::Value* SsaBuilder::removeIfTrivial(ir::Instruction* phi, std::vector<ir::Instruction*>& users) {
  ir::Value* same = nullptr;
  for (ir::Value* op : phi->operands()) {
    if (op == same || op == phi) continue;
    if (same) return phi;  // merges at least two values: not trivial
    same = op;
  }
  if (!same) same = zeroOf(phi->type(), phi->parent);
  for (ir::Instruction* u : phi->users())
    if (u != phi) users.push_back(u);
  phi->replaceAllUsesWith(same);
  // Definitions that name the phi are resolved by read() (replacedBy_).
  auto inc = incomplete_.find(phi->parent);
  if (inc != incomplete_.end())
    for (auto& [var, p] : inc->second)
      if (p == phi) p = nullptr;
  phi->dropAllOperands();
  replacedBy_[phi] = same;
  return same;
}

ir::Value* SsaBuilder::tryRemoveTrivialPhi(ir::Instruction* phi) {
  std::vector<ir::Instruction*> users;
  ir::Value* same = removeIfTrivial(phi, users);
  if (same == phi) return phi;
  // Removing a phi may make the phis that used it trivial, and so on: a
  // depth-first walk of them with an explicit stack (the recursion's order).
  struct Frame {
    std::vector<ir::Instruction*> users;
    ir::Value* same;
    size_t next = 0;
  };
  std::vector<Frame> stack;
  stack.push_back({std::move(users), same});
  while (!stack.empty()) {
    Frame& top = stack.back();
    if (top.next == top.users.size()) {
      stack.pop_back();
      continue;
    }
    ir::Instruction* u = top.users[top.next++];
    if (u->opcode() != ir::Opcode::Phi || u == top.same || replacedBy_.count(u)) continue;
    std::vector<ir::Instruction*> next;
    ir::Value* s = removeIfTrivial(u, next);
    if (s != u) stack.push_back({std::move(next), s});  // `top` dangles from here on
  }
  return resolve(same);
}

void SsaBuilder::finalize() {
  for (auto& [phi, v] : replacedBy_) phi->parent->erase(phi);
  replacedBy_.clear();
}

ir::Value* SsaBuilder::resolve(ir::Value* v) const {
  while (v->valueKind() == ir::ValueKind::Instruction) {
    auto it = replacedBy_.find(static_cast<ir::Instruction*>(v));
    if (it == replacedBy_.end()) break;
    v = it->second;
  }
  return v;
}

ir::Value* SsaBuilder::zeroOf(const ir::Type& t, ir::BasicBlock* bb) {
  if (!t.isTile() && !t.isPtr())
    return ir::isFloatKind(t.kind) ? static_cast<ir::Value*>(module_.constFloat(t.kind, 0))
                                   : module_.constInt(t.kind, 0);
  // Tiles and pointers need an instruction; put it at the top of the entry block
  // so that it dominates every use.
  ir::BasicBlock* entry = bb->parent()->entry();
  ir::Builder b(module_);
  size_t pos = 0;
  while (pos < entry->instructions().size() && entry->instructions()[pos]->opcode() == ir::Opcode::Phi) ++pos;
  b.setInsertPoint(entry, pos);
  ir::Value* scalar = t.isPtr() ? b.cast(module_.constInt(ir::Scalar::I64, 0), t.element())
                                : b.constant(t.element(), 0);
  return t.isTile() ? b.splat(scalar, t.shape) : scalar;
}

void SsaBuilder::seal(ir::BasicBlock* bb) {
  if (sealed(bb)) return;
  sealed_.insert(bb);
  auto pending = incomplete_[bb];
  incomplete_.erase(bb);
  for (auto& [var, phi] : pending)
    if (phi) addPhiOperands(var, phi);
}

}  // namespace tritonc::lang
