// histogram %x[, %mask] (tl.histogram): the bins zeroed, then one loop over
// the elements in order, each adding 1 to its bin where it is one (read
// signed, below the number of bins) and its mask is on; elsewhere it adds 0
// to bin 0 (no branch in the loop).
#include "target/cpu/lowering.h"

namespace tritonc::cpu::detail {

void Lowering::lowerHistogram(const ir::Instruction& inst) {
  const ir::Type& t = inst.type();
  const int64_t bins = t.shape.at(0);
  Tile x = get(inst.operand(0));
  if (!x.hasBase()) x = contiguous(x);
  Tile mask;
  if (inst.numOperands() == 2) {
    mask = get(inst.operand(1));
    if (!mask.hasBase()) mask = contiguous(mask);
  }
  Tile out = newTile(t);
  llvm::Type* i32 = b_.getInt32Ty();
  loop(bins, [&](llvm::Value* b) { storeElement(out, scaled(b, out.strides[0]), b_.getInt32(0)); });
  const int64_t n = x.shape.at(0);
  loop(n, [&](llvm::Value* i) {
    llvm::Value* v = b_.CreateSExt(loadElement(x, scaled(i, x.strides[0])), b_.getInt64Ty());
    llvm::Value* counts = b_.CreateICmpULT(v, i64(bins));  // (negative: a large unsigned number)
    if (inst.numOperands() == 2) {
      llvm::Value* m = loadElement(mask, scaled(i, mask.strides[0]));
      counts = b_.CreateAnd(counts, b_.CreateICmpNE(m, llvm::Constant::getNullValue(m->getType())));
    }
    llvm::Value* at = scaled(b_.CreateSelect(counts, v, i64(0)), out.strides[0]);
    llvm::Value* old = loadElement(out, at);
    storeElement(out, at, b_.CreateAdd(old, b_.CreateZExt(counts, i32)));
  });
  set(&inst, out);
}

}  // namespace tritonc::cpu::detail
