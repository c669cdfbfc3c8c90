// Tile-shaped instructions, none of which moves data when it can help it:
// splat makes a uniform tile, range an affine one (start + index);
// broadcast, trans, reshape (where strides can express it) and multiple_of
// are views (new shape and strides over the same elements). gather copies:
// one loop over the index, each element read from the source where it points.
#include "target/cpu/lowering.h"

namespace tritonc::cpu::detail {

using ir::Opcode;

std::optional<Tile> Lowering::viewOf(const Tile& a, const ir::Instruction& view) {
  const ir::Type& t = view.type();
  // Promises for the GPU back end's analysis; nothing to do here.
  if (view.opcode() == Opcode::MultipleOf || view.opcode() == Opcode::MaxContiguous) return a;
  Tile r = a;
  if (view.opcode() == Opcode::ExtractSlice && a.hasBase()) {
    // The same strides from the slice's first element.
    const size_t axis = view.sub;
    llvm::Value* first = b_.CreateMul(i64(view.imm), strideValue(a.strides[axis]));
    r.shape = t.shape;
    if (a.affine && a.kind != ir::Scalar::Ptr)
      r.base = b_.CreateAdd(a.base, b_.CreateTrunc(first, a.base->getType()));
    else
      r.base = elementAddress(a, first);
    return r;
  }
  if (!a.hasBase()) {  // uniform: the same value in the new shape
    r.shape = t.shape;
    r.strides.assign(t.shape.size(), Stride(0));
    return r;
  }
  switch (view.opcode()) {
    case Opcode::Broadcast:
      // A dimension of size 1 repeats: stride 0 along it.
      r.shape = t.shape;
      for (size_t d = 0; d < a.shape.size(); ++d)
        if (a.shape[d] == 1) r.strides[d] = Stride(0);
      return r;
    case Opcode::Trans: {  // result dimension d is a's dimension perm[d]
      const std::vector<int> perm = ir::transPermutation(view);
      for (size_t d = 0; d < perm.size(); ++d) {
        r.shape[d] = a.shape[size_t(perm[d])];
        r.strides[d] = a.strides[size_t(perm[d])];
      }
      return r;
    }
    case Opcode::Reshape: return reshaped(a, t.shape);
    default: break;
  }
  throw InternalError(std::string("viewOf: '") + ir::opcodeName(view.opcode()) + "'");
}

void Lowering::lowerTileOp(const ir::Instruction& inst) {
  const ir::Type& t = inst.type();
  switch (inst.opcode()) {
    case Opcode::Splat:
      set(&inst, uniformTile(t, get(inst.operand(0)).scalar));
      return;
    case Opcode::MultipleOf:
    case Opcode::MaxContiguous:
    case Opcode::ExtractSlice:
    case Opcode::Broadcast:
    case Opcode::Trans:
    case Opcode::Reshape: {
      const Tile a = getMask(inst.operand(0));  // a predicate stays one: the view applies to its leaves
      if (a.predicate) {
        if (std::optional<Tile> view = predicateView(a, inst)) {
          set(&inst, *view);
          return;
        }
      }
      const Tile m = a.predicate ? get(inst.operand(0)) : a;
      if (std::optional<Tile> view = viewOf(m, inst)) {
        set(&inst, *view);
        return;
      }
      set(&inst, *reshaped(contiguous(m), t.shape));  // a copy in row-major order reshapes as a view
      return;
    }
    case Opcode::Gather: {
      const Tile src = get(inst.operand(0));
      if (!src.hasBase()) {  // every element the same: so is what it picks
        set(&inst, uniformTile(t, src.scalar));
        return;
      }
      const Tile index = get(inst.operand(1));
      const size_t axis = inst.sub;
      const int64_t n = inst.operand(0)->type().shape[axis];
      Tile r = newTile(t);
      // The source walked over the result's shape but along the axis, where
      // the index says how far to go.
      Strides along = src.strides;
      along[axis] = Stride(0);
      std::vector<Strides> strides{r.strides, along};
      elementStrides(index, strides);
      forEach(t.shape, strides, [&](const std::vector<llvm::Value*>& o) {
        llvm::Value* at = b_.CreateSExtOrTrunc(readElement(index, o, 2), b_.getInt64Ty());
        // An index outside the axis is clamped (the interpreter reports it):
        // no read outside the tile.
        at = b_.CreateSelect(b_.CreateICmpULT(at, i64(n)), at, i64(n - 1));
        storeElement(r, o[0], loadElement(src, b_.CreateAdd(o[1], scaled(at, src.strides[axis]))));
      });
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
