#include "lang/ssa_builder.h"

namespace tritonc::lang {

int SsaBuilder::newVariable(const ir::Type& t, const std::string& name) {
  varTypes_.push_back(t);
  varNames_.push_back(name);
  return int(varTypes_.size()) - 1;
}

void SsaBuilder::write(int var, ir::BasicBlock* bb, ir::Value* v) { defs_[bb][var] = v; }

ir::Value* SsaBuilder::read(int var, ir::BasicBlock* bb) {
  auto& blockDefs = defs_[bb];
  auto it = blockDefs.find(var);
  if (it != blockDefs.end()) return resolve(it->second);
  return resolve(readRecursive(var, bb));
}

ir::Instruction* SsaBuilder::newPhi(int var, ir::BasicBlock* bb) {
  ir::Builder b(module_);
  b.setInsertPoint(bb, 0);
  ir::Instruction* phi = b.phi(varTypes_[var]);
  phi->setName(varNames_[var]);
  return phi;
}

ir::Value* SsaBuilder::readRecursive(int var, ir::BasicBlock* bb) {
  ir::Value* v;
  const auto& preds = preds_[bb];
  if (!sealed(bb)) {
    ir::Instruction* phi = newPhi(var, bb);
    incomplete_[bb][var] = phi;
    v = phi;
  } else if (preds.size() == 1) {
    v = read(var, preds[0]);
  } else if (preds.empty()) {
    // Read of a variable with no definition on any path (unreachable code):
    // any value will do; zero keeps the IR well typed.
    v = zeroOf(varTypes_[var], bb);
  } else {
    ir::Instruction* phi = newPhi(var, bb);
    write(var, bb, phi);  // breaks cycles through loops
    v = addPhiOperands(var, phi);
  }
  write(var, bb, v);
  return v;
}

ir::Value* SsaBuilder::addPhiOperands(int var, ir::Instruction* phi) {
  for (ir::BasicBlock* pred : preds_[phi->parent]) {
    phi->addOperand(read(var, pred));
    phi->blocks.push_back(pred);
  }
  return tryRemoveTrivialPhi(phi);
}

ir::Value* SsaBuilder::tryRemoveTrivialPhi(ir::Instruction* phi) {
  ir::Value* same = nullptr;
  for (ir::Value* op : phi->operands()) {
    if (op == same || op == phi) continue;
    if (same) return phi;  // merges at least two values: not trivial
    same = op;
  }
  if (!same) same = zeroOf(phi->type(), phi->parent);
  std::vector<ir::Instruction*> users;
  for (ir::Instruction* u : phi->users())
    if (u != phi) users.push_back(u);
  phi->replaceAllUsesWith(same);
  for (auto& [bb, vars] : defs_)
    for (auto& [var, v] : vars)
      if (v == phi) v = same;
  for (auto& [bb, vars] : incomplete_)
    for (auto& [var, p] : vars)
      if (p == phi) p = nullptr;
  phi->dropAllOperands();
  replacedBy_[phi] = same;
  for (ir::Instruction* u : users)
    if (u->opcode() == ir::Opcode::Phi && u != same && !replacedBy_.count(u)) tryRemoveTrivialPhi(u);
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
