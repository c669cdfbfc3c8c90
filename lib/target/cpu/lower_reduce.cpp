// reduce KIND AXIS: folds the axis in index order starting from its first
// element, exactly as the interpreter (so float sums round identically).
// For a tile result the axis is the outer loop and the kept dimensions the
// inner loop nest, which vectorizes across the independent accumulators.
#include "target/cpu/lowering.h"

namespace tritonc::cpu::detail {

void Lowering::lowerReduce(const ir::Instruction& inst) {
  const ir::Type& t = inst.type();
  Tile a = get(inst.operand(0));
  if (!a.hasBase()) a = contiguous(a);  // a uniform tile (rare): fold it like any other
  const size_t axis = size_t(inst.imm);
  const int64_t n = a.shape.at(axis);
  ir::Opcode op = ir::Opcode::Add;
  switch (ir::ReduceKind(inst.sub)) {
    case ir::ReduceKind::Add: op = ir::Opcode::Add; break;
    case ir::ReduceKind::Max: op = ir::Opcode::Max; break;
    case ir::ReduceKind::Min: op = ir::Opcode::Min; break;
  }
  const Stride axisStride = a.strides[axis];
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

}  // namespace tritonc::cpu::detail
