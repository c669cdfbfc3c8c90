// Element-wise instructions: arithmetic, cmp, cast, select. Uniform
// operands make a uniform result, computed once; otherwise one loop nest
// over the result's elements (operands read through their strides).
#include "target/cpu/lowering.h"

namespace tritonc::cpu::detail {

using ir::Opcode;

namespace {

bool elementwiseOp(const ir::Instruction& i) {
  const Opcode op = i.opcode();
  const ir::OpCategory cat = ir::opcodeCategory(op);
  return cat == ir::OpCategory::Binary || cat == ir::OpCategory::Unary || op == Opcode::Cmp || op == Opcode::Cast ||
         op == Opcode::UCast || op == Opcode::Bitcast || op == Opcode::Select || op == Opcode::Fma;
}

// Writes memory that a deferred tile's operands may be (a store, an atomic,
// a dot accumulating into a phi's buffer) or reports (print, assert).
bool writes(const ir::Instruction& i) {
  switch (i.opcode()) {
    case Opcode::Store: case Opcode::AtomicRmw: case Opcode::AtomicCas: case Opcode::Dot: case Opcode::Print:
    case Opcode::Assert:
      return true;
    default:
      return false;
  }
}

// Whether computing `i` element by element may read a load of its block
// where it lies (a load may be read in place, Lowering::readInPlace): the
// loads among its operands and those of the operands that may be deferred
// into it (element-wise, read once); a tile read twice is computed into the
// frame first, and reading it is safe.
bool readsLoadOfItsBlock(const ir::Instruction& i, std::set<const ir::Instruction*>& seen) {
  for (const ir::Value* v : i.operands()) {
    if (v->valueKind() != ir::ValueKind::Instruction) continue;
    const auto* o = static_cast<const ir::Instruction*>(v);
    if (o->parent != i.parent || !seen.insert(o).second) continue;
    if (o->opcode() == Opcode::Load) return true;
    if (elementwiseOp(*o) && o->users().size() == 1 && readsLoadOfItsBlock(*o, seen)) return true;
  }
  return false;
}

}  // namespace

// A tile is deferred when an element-wise instruction computes it, with no
// fault to report (integer division), and its one user reads it element by
// element later in the block (an element-wise instruction, a reduction, or a
// store of it) with nothing between that writes memory: its operands hold
// the same values when the user's loop computes it. `x - m` then costs no
// loop of its own inside `exp(x - m)`, nor `e / s` before the store of it.
// Not into a store when it reads a load of the block: the load may be read
// in place, from memory the store may be writing (`x[i + 1] = 2 x[i]`, or
// two arguments over the same memory), so the expression is computed into
// the frame first, as the interpreter's load-then-store order has it.
void Lowering::findDeferrable(const ir::BasicBlock& bb) {
  deferrable_.clear();
  const auto& insts = bb.instructions();
  for (size_t k = 0; k < insts.size(); ++k) {
    const ir::Instruction& i = *insts[k];
    const ir::Type& t = i.type();
    if (!elementwiseOp(i) || !t.isTile() || t.isPtr() || i.users().size() != 1) continue;
    if (ir::isIntegerDivision(i)) continue;
    bool pointers = false;
    for (const ir::Value* v : i.operands()) pointers = pointers || v->type().isPtr();
    if (pointers) continue;
    const ir::Instruction* user = i.users().front();
    if (user->parent != &bb) continue;
    const bool reads = (elementwiseOp(*user) && !user->type().isPtr()) || user->opcode() == Opcode::Reduce ||
                       (user->opcode() == Opcode::Store && user->operand(1) == &i && user->operand(0) != &i &&
                        (user->numOperands() < 3 || user->operand(2) != &i));
    if (!reads) continue;
    std::set<const ir::Instruction*> seen;
    if (user->opcode() == Opcode::Store && readsLoadOfItsBlock(i, seen)) continue;
    bool clear = true;
    size_t j = k + 1;
    for (; j < insts.size() && insts[j].get() != user; ++j) clear = clear && !writes(*insts[j]);
    if (clear && j < insts.size()) deferrable_.insert(&i);
  }
}

llvm::Value* Lowering::elementwiseValue(const ir::Instruction& inst, const std::vector<Tile>& ops,
                                        const std::vector<llvm::Value*>& v) {
  const ir::Type& t = inst.type();
  switch (inst.opcode()) {
    case Opcode::Cmp: return compare(ir::CmpPred(inst.sub), ops[0].kind, v[0], v[1]);
    case Opcode::Cast: return convert(ops[0].kind, t.kind, v[0]);
    case Opcode::UCast: return convertUnsigned(ops[0].kind, t.kind, v[0]);
    case Opcode::Bitcast: return reinterpret(ops[0].kind, t.kind, v[0]);
    case Opcode::Select: return b_.CreateSelect(v[0], v[1], v[2]);
    case Opcode::Fma: return fusedMultiplyAdd(t.kind, v[0], v[1], v[2]);
    default: break;
  }
  if (inst.opcode() == Opcode::Div && t.kind == ir::Scalar::F32 && t.isTile() && !exactMath_ &&
      (ops[1].isUniform() || ops[1].isScalar()))
    return divideByUniform(v[0], v[1]);  // `e / s` of a softmax: no divide per element
  if (ir::opcodeCategory(inst.opcode()) == ir::OpCategory::Binary) return binary(inst.opcode(), t.kind, v[0], v[1]);
  return unary(inst.opcode(), t.kind, v[0]);
}

void Lowering::lowerElementwise(const ir::Instruction& inst) {
  const Opcode op = inst.opcode();
  const ir::Type& t = inst.type();
  if (!elementwiseOp(inst))
    throw UserError(inst.loc, std::string("the CPU back end cannot lower '") + ir::opcodeName(op) + "' yet");
  if (lowerAsPredicate(inst)) return;  // a mask over indices: nothing computed here (predicate.cpp)
  std::vector<Tile> ops;
  for (const ir::Value* v : inst.operands()) ops.push_back(getLazy(v));
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
  bool uniform = true;
  for (const Tile& o : ops) uniform = uniform && !o.hasBase() && !o.lazy;
  if (uniform) {
    std::vector<llvm::Value*> v;
    for (const Tile& o : ops) v.push_back(o.scalar);
    set(&inst, uniformTile(t, elementwiseValue(inst, ops, v)));
  } else if (deferrable_.count(&inst)) {
    // Deferred when every operand is read at the result's own row-major
    // offset (uniform, row-major, or deferred itself).
    const Strides rm = rowMajorStrides(t.shape);
    bool rowMajor = true;
    for (const Tile& o : ops) {
      if (o.isUniform() || o.isScalar()) continue;
      for (size_t d = 0; d < t.shape.size(); ++d) rowMajor = rowMajor && (t.shape[d] == 1 || o.strides[d] == rm[d]);
    }
    if (rowMajor) {
      Tile r;
      r.kind = t.kind;
      r.shape = t.shape;
      r.strides = rm;
      r.lazy = std::make_shared<LazyElementwise>(LazyElementwise{&inst, ops});
      set(&inst, r);
      return;
    }
  }
  if (!uniform) {
    Tile out = newTile(t);
    std::vector<Strides> strides{out.strides};
    for (const Tile& o : ops) strides.push_back(o.strides);
    forEach(t.shape, strides, [&](const std::vector<llvm::Value*>& offsets) {
      std::vector<llvm::Value*> v;
      for (size_t k = 0; k < ops.size(); ++k) v.push_back(loadElement(ops[k], offsets[k + 1]));
      storeElement(out, offsets[0], elementwiseValue(inst, ops, v));
    });
    set(&inst, out);
  }
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
