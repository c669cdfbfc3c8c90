// sort and argsort ORDER AXIS: a bitonic network over a tile of the frame,
// one loop over the axis's pairs per stage (log2(n) (log2(n) + 1) / 2 of
// them, written out) around a loop nest over the other dimensions.
// Elements compare by their key: integers as they are (signed), floats by
// their bits as a signed integer with the magnitude flipped below zero
// (IEEE totalOrder). sort sorts a copy of the operand: elements of equal
// keys are equal bits, so the network's instability cannot show. argsort
// sorts 64-bit keys, the element's key above its position (equal elements
// keep the order of their positions) and keeps the positions: the
// interpreter's stable sort either way. A result shorter along the axis
// (a top-k) takes the first of the sorted elements.
#include "target/cpu/lowering.h"

namespace tritonc::cpu::detail {

void Lowering::lowerSort(const ir::Instruction& inst) {
  const ir::Type& t = inst.type();
  const ir::Type& from = inst.operand(0)->type();
  const bool indices = inst.opcode() == ir::Opcode::ArgSort;
  Tile a = get(inst.operand(0));
  if (indices && !a.hasBase()) a = contiguous(a);  // a uniform tile (rare): read like any other
  const size_t axis = size_t(inst.imm);
  const int64_t n = from.shape.at(axis);
  const bool descending = ir::SortOrder(inst.sub) == ir::SortOrder::Descending;
  const bool isFloat = ir::isFloatKind(from.kind);
  const unsigned bits = unsigned(ir::bitWidth(from.kind));
  auto key = [&](llvm::Value* v) {
    llvm::Value* k = b_.CreateBitCast(v, b_.getIntNTy(bits));
    if (isFloat) k = b_.CreateXor(k, b_.CreateLShr(b_.CreateAShr(k, bits - 1), 1));
    return k;
  };
  // The tile the network sorts: a copy of the operand, or the packed keys.
  const ir::Type full = from.withKind(indices ? ir::Scalar::I64 : from.kind);
  Tile work = newTile(full);
  if (!indices) copyInto(work, a);

  ir::Shape kept = full.shape;
  Strides keptWork = work.strides, keptIn = a.strides, keptOut;
  kept.erase(kept.begin() + long(axis));
  keptWork.erase(keptWork.begin() + long(axis));
  keptIn.erase(keptIn.begin() + long(axis));
  if (kept.empty()) {
    kept = {1};
    keptWork = keptIn = {Stride(0)};
  }
  const Stride step = work.strides[axis];
  if (indices)
    loop(n, [&](llvm::Value* i) {
      forEach(kept, {keptWork, keptIn}, [&](const std::vector<llvm::Value*>& o) {
        llvm::Value* k = key(loadElement(a, b_.CreateAdd(o[1], scaled(i, a.strides[axis]))));
        if (descending) k = b_.CreateNot(k);
        llvm::Value* packed = b_.CreateOr(b_.CreateShl(b_.CreateSExt(k, b_.getInt64Ty()), 32), i);
        storeElement(work, b_.CreateAdd(o[0], scaled(i, step)), packed);
      });
    });
  for (int64_t size = 2; size <= n; size *= 2)
    for (int64_t s = size / 2; s >= 1; s /= 2) {
      // Pair q: i = its block's start plus its place in the lower half, j = i + s.
      loop(n / 2, [&](llvm::Value* q) {
        llvm::Value* i = b_.CreateOr(b_.CreateMul(b_.CreateUDiv(q, i64(s)), i64(2 * s)), b_.CreateURem(q, i64(s)));
        llvm::Value* j = b_.CreateAdd(i, i64(s));
        // Ascending where i's bit `size` is clear (the whole axis: always),
        // flipped for a descending sort (argsort's keys are inverted instead).
        llvm::Value* up = b_.CreateICmpEQ(b_.CreateAnd(i, i64(size)), i64(0));
        if (descending && !indices) up = b_.CreateNot(up);
        llvm::Value* iAt = scaled(i, step);
        llvm::Value* jAt = scaled(j, step);
        forEach(kept, {keptWork}, [&](const std::vector<llvm::Value*>& o) {
          llvm::Value* x = loadElement(work, b_.CreateAdd(o[0], iAt));
          llvm::Value* y = loadElement(work, b_.CreateAdd(o[0], jAt));
          llvm::Value* kx = indices ? x : key(x);
          llvm::Value* ky = indices ? y : key(y);
          llvm::Value* swap = b_.CreateSelect(up, b_.CreateICmpSGT(kx, ky), b_.CreateICmpSLT(kx, ky));
          storeElement(work, b_.CreateAdd(o[0], iAt), b_.CreateSelect(swap, y, x));
          storeElement(work, b_.CreateAdd(o[0], jAt), b_.CreateSelect(swap, x, y));
        });
      });
    }
  if (!indices && t.shape == full.shape) {
    set(&inst, work);
    return;
  }
  // The first of the sorted elements (or positions: the low half of the keys).
  Tile out = newTile(t);
  forEach(t.shape, {out.strides, work.strides}, [&](const std::vector<llvm::Value*>& o) {
    llvm::Value* v = loadElement(work, o[1]);
    storeElement(out, o[0], indices ? b_.CreateTrunc(v, b_.getInt32Ty()) : v);
  });
  set(&inst, out);
}

}  // namespace tritonc::cpu::detail
