// reduce KIND AXIS, in the interpreter's order (so float sums round
// identically): max, min and integer sums fold the axis in index order
// starting from its first element (the vectorizer may reorder those: they
// are exact); float sums add kSumPartials partial sums, then pairs of them
// (ir/sum_order.h), each a loop nest over the partials and the kept
// dimensions, which vectorizes across the independent accumulators. For a
// tile result of a fold the axis is the outer loop and the kept dimensions
// the inner loop nest.
#include "ir/sum_order.h"
#include "target/cpu/lowering.h"

namespace tritonc::cpu::detail {

ir::Opcode Lowering::combineOpcode(ir::ReduceKind k) {
  switch (k) {
    case ir::ReduceKind::Add: return ir::Opcode::Add;
    case ir::ReduceKind::Max: return ir::Opcode::Max;
    case ir::ReduceKind::Min: return ir::Opcode::Min;
    case ir::ReduceKind::UMax: return ir::Opcode::UMax;
    case ir::ReduceKind::UMin: return ir::Opcode::UMin;
    case ir::ReduceKind::MaxNum: return ir::Opcode::MaxNum;
    case ir::ReduceKind::MinNum: return ir::Opcode::MinNum;
    case ir::ReduceKind::Mul: return ir::Opcode::Mul;
  }
  return ir::Opcode::Add;
}

void Lowering::lowerReduce(const ir::Instruction& inst) {
  const ir::Type& t = inst.type();
  Tile a = getLazy(inst.operand(0));  // a deferred tile is computed in the loops below
  if (!a.hasBase() && !a.lazy) a = contiguous(a);  // a uniform tile (rare): fold it like any other
  const size_t axis = size_t(inst.imm);
  const int64_t n = a.shape.at(axis);
  const ir::Opcode op = combineOpcode(ir::ReduceKind(inst.sub));
  const Stride axisStride = a.strides[axis];
  if (op == ir::Opcode::Add && ir::isFloatKind(t.kind)) {
    sumInParts(inst, a);
    return;
  }
  if (!t.isTile()) {
    llvm::AllocaInst* acc = variable(valueType(t.kind), "acc");
    b_.CreateStore(loadElement(a, i64(0)), acc);
    if (n > 1)
      loop(n - 1, [&](llvm::Value* i) {
        llvm::Value* off = scaled(b_.CreateAdd(i, i64(1)), axisStride);
        b_.CreateStore(binary(op, t.kind, b_.CreateLoad(valueType(t.kind), acc), loadElement(a, off)), acc);
      });
    Tile r;
    r.kind = t.kind;
    r.scalar = b_.CreateLoad(valueType(t.kind), acc);
    set(&inst, r);
    return;
  }
  Strides kept = a.strides;
  kept.erase(kept.begin() + long(axis));
  Tile out = newTile(t);
  forEach(t.shape, {out.strides, kept}, [&](const std::vector<llvm::Value*>& o) {
    storeElement(out, o[0], loadElement(a, o[1]));
  });
  if (n > 1)
    loop(n - 1, [&](llvm::Value* i) {
      llvm::Value* slice = scaled(b_.CreateAdd(i, i64(1)), axisStride);
      forEach(t.shape, {out.strides, kept}, [&](const std::vector<llvm::Value*>& o) {
        llvm::Value* x = loadElement(a, b_.CreateAdd(o[1], slice));
        storeElement(out, o[0], binary(op, t.kind, loadElement(out, o[0]), x));
      });
    });
  set(&inst, out);
}

// The float sum of ir/sum_order.h: partial[l, kept...] over the axis's
// elements l, l + m, ..., then partial[l] += partial[l + h], halving.
void Lowering::sumInParts(const ir::Instruction& inst, const Tile& a) {
  const ir::Type& t = inst.type();
  const size_t axis = size_t(inst.imm);
  const int64_t n = a.shape.at(axis), m = std::min<int64_t>(n, ir::kSumPartials);
  Strides kept = a.strides;
  kept.erase(kept.begin() + long(axis));
  ir::Shape shape{m};
  shape.insert(shape.end(), t.shape.begin(), t.shape.end());
  Tile partial = newTile(ir::Type::scalar(t.kind).withShape(shape));
  const Strides& ps = partial.strides;
  Strides source{a.strides[axis]};
  source.insert(source.end(), kept.begin(), kept.end());
  auto withCount = [&](int64_t count) {
    ir::Shape s = shape;
    s[0] = count;
    return s;
  };
  // partial[...] (+)= a at `offset` plus the partial's element along the axis.
  auto accumulate = [&](int64_t count, llvm::Value* offset, bool first) {
    forEach(withCount(count), {ps, source}, [&](const std::vector<llvm::Value*>& o) {
      llvm::Value* x = loadElement(a, b_.CreateAdd(o[1], offset));
      storeElement(partial, o[0], first ? x : binary(ir::Opcode::Add, t.kind, loadElement(partial, o[0]), x));
    });
  };
  accumulate(m, i64(0), true);
  const int64_t blocks = n / m, tail = n % m;
  if (blocks > 1)
    loop(blocks - 1, [&](llvm::Value* j) { accumulate(m, scaled(b_.CreateMul(b_.CreateAdd(j, i64(1)), i64(m)), source[0]), false); });
  if (tail > 0) accumulate(tail, scaled(i64(blocks * m), source[0]), false);
  for (int64_t left = m; left > 1;) {
    const int64_t h = (left + 1) / 2;
    llvm::Value* other = scaled(i64(h), ps[0]);
    forEach(withCount(left - h), {ps, ps}, [&](const std::vector<llvm::Value*>& o) {
      llvm::Value* y = loadElement(partial, b_.CreateAdd(o[1], other));
      storeElement(partial, o[0], binary(ir::Opcode::Add, t.kind, loadElement(partial, o[0]), y));
    });
    left = h;
  }
  if (!t.isTile()) {
    Tile r;
    r.kind = t.kind;
    r.scalar = loadElement(partial, i64(0));
    set(&inst, r);
    return;
  }
  Tile r = partial;  // partial 0, a view
  r.shape = t.shape;
  r.strides.assign(ps.begin() + 1, ps.end());
  set(&inst, r);
}

}  // namespace tritonc::cpu::detail
