// Sparse pointer tiles. A vectorized access reads the address of the first
// element of each vector only; a tile of pointers that reaches nothing but
// such accesses (through geps and loop phis) needs its other elements never.
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

size_t FunctionLowering::accessWidth(const ir::Instruction& i) {
  const ir::Value* ptr = i.operand(0);
  const ir::Type& pt = ptr->type();
  int64_t size = ir::byteSize(pt.pointee);
  if (!pt.isTile() || (i.opcode() != Opcode::Load && i.opcode() != Opcode::Store) || size < 2) return 1;
  // Contiguous along the layout's fastest dimension, aligned, and with a
  // mask that is constant over each vector.
  const BlockedLayout& l = layoutOf(pt);
  size_t dim = 0;
  int64_t w = axis().vectorWidth(ptr, 16, &dim);
  int fast = l.order[0];
  if (int(dim) != fast) return 1;
  w = std::min<int64_t>(w, std::min(l.sizePerThread[size_t(fast)], pt.shape[size_t(fast)]));
  if (const ir::Value* mask = i.mask()) w = std::min<int64_t>(w, axis().get(mask).constancy[size_t(fast)]);
  if (size == 8) w = std::min<int64_t>(w, 2);
  size_t vec = size_t(std::max<int64_t>(1, w));
  while (vec > 1 && (vec & (vec - 1))) vec /= 2;
  return vec;
}

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
          allowed = isAsyncLoad(u) ? 8 : int(accessWidth(*u));
        } else if ((u->opcode() == Opcode::Gep && u->operand(0) == v && u->operand(1) != v) ||
                   (u->opcode() == Opcode::Phi && !isAsyncPhi(u))) {
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
