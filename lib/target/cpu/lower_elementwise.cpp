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
  // A pointer cast reinterprets the pointee: the same elements.
  if (op == Opcode::Cast && t.isPtr() && ops[0].kind == ir::Scalar::Ptr) {
    Tile r = ops[0];
    r.pointee = t.pointee;
    set(&inst, r);
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
  for (const Tile& o : ops) uniform = uniform && !o.inMemory();
  if (uniform) {
    std::vector<llvm::Value*> v;
    for (const Tile& o : ops) v.push_back(o.scalar);
    llvm::Value* r = element(v);
    Tile out = uniformTile(t, r);
    set(&inst, out);
  } else {
    Tile out = newTile(t);
    std::vector<std::vector<int64_t>> strides{out.strides};
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

}  // namespace tritonc::cpu::detail
