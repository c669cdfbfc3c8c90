// Tile-shaped instructions that move no data when they can: splat makes a
// uniform tile; broadcast, trans, reshape (of a contiguous tile) and
// multiple_of are views (new shape and strides over the same elements);
// range fills a buffer.
#include "target/cpu/lowering.h"

namespace tritonc::cpu::detail {

using ir::Opcode;

void Lowering::lowerTileOp(const ir::Instruction& inst) {
  const ir::Type& t = inst.type();
  switch (inst.opcode()) {
    case Opcode::Splat:
      set(&inst, uniformTile(t, get(inst.operand(0)).scalar));
      return;
    case Opcode::MultipleOf:  // a promise the interpreter checks; nothing to do here
      set(&inst, get(inst.operand(0)));
      return;
    case Opcode::Broadcast: {
      Tile a = get(inst.operand(0));
      if (!a.inMemory()) {
        set(&inst, uniformTile(t, a.scalar));
        return;
      }
      // A dimension of size 1 repeats: stride 0 along it.
      Tile r = a;
      r.shape = t.shape;
      for (size_t d = 0; d < a.shape.size(); ++d)
        if (a.shape[d] == 1) r.strides[d] = 0;
      set(&inst, r);
      return;
    }
    case Opcode::Trans: {
      Tile a = get(inst.operand(0));
      if (!a.inMemory()) {
        set(&inst, uniformTile(t, a.scalar));
        return;
      }
      Tile r = a;  // dimensions reversed (for 2-D, the transpose)
      r.shape.assign(a.shape.rbegin(), a.shape.rend());
      r.strides.assign(a.strides.rbegin(), a.strides.rend());
      set(&inst, r);
      return;
    }
    case Opcode::Reshape: {
      Tile a = get(inst.operand(0));
      if (!a.inMemory()) {
        set(&inst, uniformTile(t, a.scalar));
        return;
      }
      Tile r = contiguous(a);  // row-major order is what reshape keeps
      r.shape = t.shape;
      r.strides = rowMajorStrides(t.shape);
      set(&inst, r);
      return;
    }
    case Opcode::Range: {
      Tile r = newTile(t);
      llvm::Type* et = valueType(t.kind);
      forEach(t.shape, {r.strides}, [&](const std::vector<llvm::Value*>& o) {
        storeElement(r, o[0], b_.CreateAdd(llvm::ConstantInt::getSigned(et, inst.imm), b_.CreateTrunc(o[0], et)));
      });
      set(&inst, r);
      return;
    }
    default: break;
  }
  throw InternalError(std::string("lowerTileOp: '") + ir::opcodeName(inst.opcode()) + "'");
}

}  // namespace tritonc::cpu::detail
