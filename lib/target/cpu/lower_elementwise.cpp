// Element-wise instructions: arithmetic, cmp, cast, select. Uniform
// operands make a uniform result, computed once; otherwise one loop nest
// over the result's elements (operands read through their strides).
#include "target/cpu/lowering.h"

namespace tritonc::cpu::detail {

using ir::Opcode;

void Lowering::lowerElementwise(const ir::Instruction& inst) {
  const Opcode op = inst.opcode();
  const ir::Type& t = inst.type();
  const ir::OpCategory cat = ir::opcodeCategory(op);
  if (cat != ir::OpCategory::Binary && cat != ir::OpCategory::Unary && op != Opcode::Cmp && op != Opcode::Cast &&
      op != Opcode::Select)
    throw UserError(inst.loc, std::string("the CPU back end cannot lower '") + ir::opcodeName(op) + "' yet");
  std::vector<Tile> ops;
  for (const ir::Value* v : inst.operands()) ops.push_back(get(v));
  // A pointer cast reinterprets the pointee: the same elements (an affine
  // tile's strides count pointees, so only for one of the same size).
  if (op == Opcode::Cast && t.isPtr() && ops[0].kind == ir::Scalar::Ptr &&
      (!ops[0].affine || ir::byteSize(ops[0].pointee) == ir::byteSize(t.pointee))) {
    Tile r = ops[0];
    r.pointee = t.pointee;
    set(&inst, r);
    return;
  }
  if (std::optional<Tile> r = affineArithmetic(inst, ops)) {
    set(&inst, *r);
    return;
  }
  int code = 0;
  if ((op == Opcode::Div || op == Opcode::Rem) && !ir::isFloatKind(t.kind))
    code = addErrorSite(inst, op == Opcode::Div ? "integer division by zero" : "integer remainder by zero");
  auto element = [&](const std::vector<llvm::Value*>& v) -> llvm::Value* {
    switch (op) {
      case Opcode::Cmp: return compare(ir::CmpPred(inst.sub), ops[0].kind, v[0], v[1]);
      case Opcode::Cast: return convert(ops[0].kind, t.kind, v[0]);
      case Opcode::Select: return b_.CreateSelect(v[0], v[1], v[2]);
      default: break;
    }
    if (cat == ir::OpCategory::Binary) return binary(op, t.kind, v[0], v[1], code);
    return unary(op, t.kind, v[0]);
  };
  bool uniform = true;
  for (const Tile& o : ops) uniform = uniform && !o.hasBase();
  if (uniform) {
    std::vector<llvm::Value*> v;
    for (const Tile& o : ops) v.push_back(o.scalar);
    llvm::Value* r = element(v);
    Tile out = uniformTile(t, r);
    set(&inst, out);
  } else {
    Tile out = newTile(t);
    std::vector<Strides> strides{out.strides};
    for (const Tile& o : ops) strides.push_back(o.strides);
    forEach(t.shape, strides, [&](const std::vector<llvm::Value*>& offsets) {
      std::vector<llvm::Value*> v;
      for (size_t k = 0; k < ops.size(); ++k) v.push_back(loadElement(ops[k], offsets[k + 1]));
      storeElement(out, offsets[0], element(v));
    });
    set(&inst, out);
  }
  if (code) checkStatus();
}

// Integer add and sub of uniform and affine tiles, and mul of an affine tile
// by a uniform one, stay affine: base and strides follow (exact in the
// ring of the element's width, like the wrapping arithmetic they replace).
std::optional<Tile> Lowering::affineArithmetic(const ir::Instruction& inst, const std::vector<Tile>& ops) {
  const Opcode op = inst.opcode();
  const ir::Type& t = inst.type();
  if (!t.isTile() || !ir::isIntKind(t.kind) || t.kind == ir::Scalar::I1) return std::nullopt;
  if (op != Opcode::Add && op != Opcode::Sub && op != Opcode::Mul) return std::nullopt;
  const Tile &a = ops[0], &b = ops[1];
  auto usable = [](const Tile& x) { return x.affine || x.isUniform(); };
  if (!usable(a) || !usable(b) || (!a.affine && !b.affine)) return std::nullopt;
  Tile r;
  r.kind = t.kind;
  r.shape = t.shape;
  r.affine = true;
  if (op == Opcode::Mul) {
    if (a.affine && b.affine) return std::nullopt;
    const Tile& x = a.affine ? a : b;
    llvm::Value* s = (a.affine ? b : a).scalar;
    r.base = b_.CreateMul(x.base, s);
    llvm::Value* factor = b_.CreateSExtOrTrunc(s, b_.getInt64Ty());
    for (const Stride& st : x.strides) r.strides.push_back(mulStride(st, factor));
    return r;
  }
  llvm::Value* baseA = a.affine ? a.base : a.scalar;
  llvm::Value* baseB = b.affine ? b.base : b.scalar;
  r.base = op == Opcode::Add ? b_.CreateAdd(baseA, baseB) : b_.CreateSub(baseA, baseB);
  for (size_t d = 0; d < t.shape.size(); ++d)
    r.strides.push_back(addStride(a.affine ? a.strides[d] : Stride(0), b.affine ? b.strides[d] : Stride(0),
                                  op == Opcode::Sub));
  return r;
}

}  // namespace tritonc::cpu::detail
