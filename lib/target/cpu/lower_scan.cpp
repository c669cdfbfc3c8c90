// scan KIND AXIS, in the interpreter's order (so float sums round
// identically): element i along the axis is element i - 1's result combined
// with the operand's element i, one loop over the axis around a loop nest
// over the other dimensions (which vectorizes across them).
#include "target/cpu/lowering.h"

namespace tritonc::cpu::detail {

void Lowering::lowerScan(const ir::Instruction& inst) {
  const ir::Type& t = inst.type();
  Tile a = get(inst.operand(0));
  if (!a.hasBase()) a = contiguous(a);  // a uniform tile (rare): scanned like any other
  const size_t axis = size_t(inst.imm);
  const int64_t n = t.shape.at(axis);
  const ir::Opcode op = combineOpcode(ir::ReduceKind(inst.sub));
  Tile out = newTile(t);
  // The other dimensions (one of size 1 where the tile has no other).
  ir::Shape kept = t.shape;
  Strides keptIn = a.strides, keptOut = out.strides;
  kept.erase(kept.begin() + long(axis));
  keptIn.erase(keptIn.begin() + long(axis));
  keptOut.erase(keptOut.begin() + long(axis));
  if (kept.empty()) {
    kept = {1};
    keptIn = {Stride(0)};
    keptOut = {Stride(0)};
  }
  const Stride inStep = a.strides[axis], outStep = out.strides[axis];
  forEach(kept, {keptOut, keptIn}, [&](const std::vector<llvm::Value*>& o) {
    storeElement(out, o[0], loadElement(a, o[1]));
  });
  if (n > 1)
    loop(n - 1, [&](llvm::Value* i) {
      llvm::Value* next = b_.CreateAdd(i, i64(1));
      llvm::Value* inAt = scaled(next, inStep);
      llvm::Value* outAt = scaled(next, outStep);
      llvm::Value* prevAt = scaled(i, outStep);
      forEach(kept, {keptOut, keptIn}, [&](const std::vector<llvm::Value*>& o) {
        llvm::Value* prev = loadElement(out, b_.CreateAdd(o[0], prevAt));
        llvm::Value* x = loadElement(a, b_.CreateAdd(o[1], inAt));
        storeElement(out, b_.CreateAdd(o[0], outAt), binary(op, t.kind, prev, x));
      });
    });
  set(&inst, out);
}

}  // namespace tritonc::cpu::detail
