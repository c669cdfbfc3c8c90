// Sparse pointer tiles. A vectorized access ({vec = N}: loads, stores,
// async copies) reads the address of the first element of each vector only;
// a tile of pointers that reaches nothing but such accesses (through geps and
// loop phis, all in one layout) needs its other elements never.
// Computing them anyway costs a 64-bit add per element per loop iteration and
// two registers each: for a 128 x 32 f16 operand tile, eight times what the
// cp.async copies use. This analysis finds, per pointer tile defined by a gep
// or a phi, the group width g such that only elements e with e % g == 0 (in
// the thread's element order, where a vector's elements are adjacent) are
// read; the lowering of geps and phis computes only those.
#include "target/nvptx/lowering.h"

namespace tritonc::nvptx {

using ir::Opcode;

namespace {

constexpr int kWidest = 16;  // more than any vector of elements

bool sparseCandidate(const ir::Value* v) {
  if (v->valueKind() != ir::ValueKind::Instruction || !v->type().isTile() || !v->type().isPtr()) return false;
  Opcode op = static_cast<const ir::Instruction*>(v)->opcode();
  return op == Opcode::Gep || op == Opcode::Phi;
}

}  // namespace

void FunctionLowering::planPointerGroups() {
  std::vector<const ir::Instruction*> candidates;
  for (auto& bb : f_.blocks())
    for (auto& inst : bb->instructions())
      if (sparseCandidate(inst.get())) {
        candidates.push_back(inst.get());
        pointerGroup_[inst.get()] = kWidest;
      }
  // What each use allows, lowered to a fixed point (widths only shrink).
  for (bool changed = true; changed;) {
    changed = false;
    for (const ir::Instruction* v : candidates) {
      int g = pointerGroup_[v];
      for (const ir::Instruction* u : v->users()) {
        int allowed = 1;
        if ((u->opcode() == Opcode::Load || u->opcode() == Opcode::Store) && u->operand(0) == v &&
            (u->opcode() == Opcode::Load || u->operand(1) != v)) {
          allowed = std::max(1, u->vec);
        } else if (u->opcode() == Opcode::AsyncCopy && u->operand(1) == v && (u->numOperands() < 3 || u->operand(2) != v)) {
          allowed = std::max(1, u->vec);
        } else if ((u->opcode() == Opcode::Gep && u->operand(0) == v && u->operand(1) != v) ||
                   u->opcode() == Opcode::Phi) {
          // Element e of the result needs element e of v (same shape, same layout).
          auto it = pointerGroup_.find(u);
          allowed = it == pointerGroup_.end() ? 1 : it->second;
        }
        g = std::min(g, allowed);
      }
      if (g != pointerGroup_[v]) {
        pointerGroup_[v] = g;
        changed = true;
      }
    }
  }
  for (auto it = pointerGroup_.begin(); it != pointerGroup_.end();)
    it = it->second <= 1 ? pointerGroup_.erase(it) : std::next(it);
}

bool FunctionLowering::elementNeeded(const ir::Value* v, size_t e) const {
  auto it = pointerGroup_.find(v);
  return it == pointerGroup_.end() || e % size_t(it->second) == 0;
}

}  // namespace tritonc::nvptx
