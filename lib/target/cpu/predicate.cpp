// Predicates: an i1 tile that compares affine and uniform tiles (`cols < n`,
// `rm[:, None] < M && rk[None, :] < K`) is kept as an expression over those
// leaves rather than computed into a buffer of bytes. Its leaves are SSA
// values, so the expression holds anywhere after them. Where every lane is
// on, which the leaves' ranges tell at the cost of a few scalar operations
// (allSetInClosedForm), a masked access runs unmasked and the mask costs
// nothing; otherwise the access computes each lane's bit in its own loop.
#include "target/cpu/lowering.h"

namespace tritonc::cpu::detail {

using ir::Opcode;

bool Lowering::lowerAsPredicate(const ir::Instruction& inst) {
  const ir::Type& t = inst.type();
  const Opcode op = inst.opcode();
  const bool logic = op == Opcode::And || op == Opcode::Or || op == Opcode::Xor || op == Opcode::Not;
  if (!t.isTile() || t.kind != ir::Scalar::I1 || (op != Opcode::Cmp && !logic)) return false;
  std::vector<Tile> operands;
  bool varies = false;
  for (const ir::Value* v : inst.operands()) {
    if (auto it = values_.find(v); it != values_.end() && it->second.lazy) return false;  // left deferred
    Tile o = getMask(v);
    if (o.predicate) {
      if (!logic) return false;
      varies = true;
    } else if (o.affine) {
      if (logic || o.kind == ir::Scalar::I1 || ir::isFloatKind(o.kind)) return false;
      varies = true;
    } else if (o.hasBase() || o.lazy) {
      return false;  // elements in memory: an ordinary element-wise instruction
    } else {
      o.shape = t.shape;  // uniform (or a constant): the same value in every lane
      o.strides.assign(t.shape.size(), Stride(0));
    }
    operands.push_back(std::move(o));
  }
  if (!varies) return false;  // uniform: computed once by the caller
  Tile r;
  r.kind = ir::Scalar::I1;
  r.shape = t.shape;
  r.strides = rowMajorStrides(t.shape);
  r.predicate = std::make_shared<Predicate>(Predicate{&inst, std::move(operands)});
  set(&inst, r);
  return true;
}

std::optional<Tile> Lowering::predicateView(const Tile& p, const ir::Instruction& view) {
  Predicate q{p.predicate->inst, {}};
  for (const Tile& o : p.predicate->operands) {
    std::optional<Tile> v = o.predicate ? predicateView(o, view) : viewOf(o, view);
    if (!v) return std::nullopt;
    q.operands.push_back(std::move(*v));
  }
  Tile r = p;
  r.shape = view.type().shape;
  r.strides = rowMajorStrides(r.shape);
  r.predicate = std::make_shared<Predicate>(std::move(q));
  return r;
}

void Lowering::elementStrides(const Tile& t, std::vector<Strides>& out) {
  if (!t.predicate) {
    out.push_back(t.strides);
    return;
  }
  for (const Tile& o : t.predicate->operands) elementStrides(o, out);
}

llvm::Value* Lowering::readElement(const Tile& t, const std::vector<llvm::Value*>& offsets, size_t at) {
  std::function<llvm::Value*(const Tile&)> read = [&](const Tile& x) -> llvm::Value* {
    if (!x.predicate) return loadElement(x, offsets.at(at++));
    std::vector<llvm::Value*> v;
    for (const Tile& o : x.predicate->operands) v.push_back(read(o));
    return elementwiseValue(*x.predicate->inst, x.predicate->operands, v);
  };
  return read(t);
}

Tile Lowering::materialize(const Tile& p) {
  Tile out = newTile(ir::Type::scalar(ir::Scalar::I1).withShape(p.shape));
  std::vector<Strides> strides{out.strides};
  elementStrides(p, strides);
  forEach(out.shape, strides, [&](const std::vector<llvm::Value*>& o) { storeElement(out, o[0], readElement(p, o, 1)); });
  return out;
}

// A comparison a <op> b of integer leaves holds in every lane when, computed
// exactly (in i128), neither side leaves its element type's range (so the
// wrapping arithmetic of the lanes gave the exact values) and the range of
// a - b over the tile (itself affine: base_a - base_b + sum of index times
// stride_a - stride_b) lies on the right side of 0. And and or combine the
// conditions; anything else is not claimed.
llvm::Value* Lowering::allSetInClosedForm(const Tile& p) {
  const Predicate& q = *p.predicate;
  auto ofOperand = [&](const Tile& o) { return o.predicate ? allSetInClosedForm(o) : o.scalar; };
  switch (q.inst->opcode()) {
    case Opcode::And: return b_.CreateAnd(ofOperand(q.operands[0]), ofOperand(q.operands[1]));
    case Opcode::Or: return b_.CreateOr(ofOperand(q.operands[0]), ofOperand(q.operands[1]));
    case Opcode::Cmp:
      if (ir::isUnsignedPred(ir::CmpPred(q.inst->sub))) return b_.getFalse();  // not claimed
      break;
    default: return b_.getFalse();
  }
  const Tile &a = q.operands[0], &b = q.operands[1];
  const ir::Scalar kind = a.kind;
  if (kind == ir::Scalar::Ptr || kind == ir::Scalar::I1 || ir::isFloatKind(kind) || b.kind != kind) return b_.getFalse();
  llvm::Type* i128 = b_.getInt128Ty();
  auto constant = [&](__int128 v) {
    return llvm::ConstantInt::get(i128, llvm::APInt(128, {uint64_t(v), uint64_t(v >> 64)}));
  };
  auto base = [&](const Tile& x) { return b_.CreateSExt(x.affine ? x.base : x.scalar, i128); };
  auto stride = [&](const Tile& x, size_t d) -> llvm::Value* {
    if (!x.affine) return constant(0);
    const Stride& s = x.strides[d];
    return s.isConst() ? constant(s.c) : b_.CreateSExt(s.v, i128);
  };
  struct Range {
    llvm::Value *lo, *hi;
  };
  // The least and greatest of base + sum of index_d * stride_d.
  auto range = [&](llvm::Value* start, const std::function<llvm::Value*(size_t)>& strideOf) {
    Range r{start, start};
    llvm::Value* zero = constant(0);
    for (size_t d = 0; d < p.shape.size(); ++d) {
      if (p.shape[d] <= 1) continue;
      llvm::Value* span = b_.CreateMul(strideOf(d), constant(p.shape[d] - 1));
      r.lo = b_.CreateAdd(r.lo, b_.CreateSelect(b_.CreateICmpSLT(span, zero), span, zero));
      r.hi = b_.CreateAdd(r.hi, b_.CreateSelect(b_.CreateICmpSGT(span, zero), span, zero));
    }
    return r;
  };
  const int bits = ir::bitWidth(kind);
  llvm::Value* least = constant(-(__int128(1) << (bits - 1)));
  llvm::Value* greatest = constant((__int128(1) << (bits - 1)) - 1);
  llvm::Value* exact = b_.getTrue();
  for (const Tile* x : {&a, &b}) {
    if (!x->affine) continue;
    Range r = range(base(*x), [&](size_t d) { return stride(*x, d); });
    exact = b_.CreateAnd(exact, b_.CreateAnd(b_.CreateICmpSGE(r.lo, least), b_.CreateICmpSLE(r.hi, greatest)));
  }
  Range diff = range(b_.CreateSub(base(a), base(b)), [&](size_t d) { return b_.CreateSub(stride(a, d), stride(b, d)); });
  llvm::Value* zero = constant(0);
  llvm::Value* holds = nullptr;
  switch (ir::CmpPred(q.inst->sub)) {
    case ir::CmpPred::Lt: holds = b_.CreateICmpSLT(diff.hi, zero); break;
    case ir::CmpPred::Le: holds = b_.CreateICmpSLE(diff.hi, zero); break;
    case ir::CmpPred::Gt: holds = b_.CreateICmpSGT(diff.lo, zero); break;
    case ir::CmpPred::Ge: holds = b_.CreateICmpSGE(diff.lo, zero); break;
    case ir::CmpPred::Eq: holds = b_.CreateAnd(b_.CreateICmpEQ(diff.lo, zero), b_.CreateICmpEQ(diff.hi, zero)); break;
    case ir::CmpPred::Ne: holds = b_.CreateOr(b_.CreateICmpSGT(diff.lo, zero), b_.CreateICmpSLT(diff.hi, zero)); break;
    default: return b_.getFalse();
  }
  return b_.CreateAnd(exact, holds);
}

}  // namespace tritonc::cpu::detail
