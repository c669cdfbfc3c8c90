// Tile-shaped instructions, none of which moves data when it can help it:
// splat makes a uniform tile, range an affine one (start + index);
// broadcast, trans, reshape (where strides can express it) and multiple_of
// are views (new shape and strides over the same elements).
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
      if (!a.hasBase()) {
        set(&inst, uniformTile(t, a.scalar));
        return;
      }
      // A dimension of size 1 repeats: stride 0 along it.
      Tile r = a;
      r.shape = t.shape;
      for (size_t d = 0; d < a.shape.size(); ++d)
        if (a.shape[d] == 1) r.strides[d] = Stride(0);
      set(&inst, r);
      return;
    }
    case Opcode::Trans: {
      Tile a = get(inst.operand(0));
      if (!a.hasBase()) {
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
      if (std::optional<Tile> view = reshaped(a, t.shape)) {
        set(&inst, *view);
        return;
      }
      Tile r = *reshaped(contiguous(a), t.shape);  // a copy in row-major order reshapes as a view
      set(&inst, r);
      return;
    }
    case Opcode::Range: {
      // START + index, along the only dimension.
      Tile r;
      r.kind = t.kind;
      r.shape = t.shape;
      r.affine = true;
      r.base = llvm::ConstantInt::getSigned(valueType(t.kind), inst.imm);
      r.strides = {Stride(1)};
      set(&inst, r);
      return;
    }
    default: break;
  }
  throw InternalError(std::string("lowerTileOp: '") + ir::opcodeName(inst.opcode()) + "'");
}

}  // namespace tritonc::cpu::detail
