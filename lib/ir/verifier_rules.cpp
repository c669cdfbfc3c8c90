// Per-opcode operand and result type rules of the verifier (docs/IR.md,
// "Instructions"). Each check returns "" or the first problem, phrased to
// follow the printed instruction in an error message.
#include <limits>

#include "ir/memory_hints.h"
#include "ir/op_rules.h"

namespace tritonc::ir {

namespace {

std::string str(const Type& t) { return typeToString(t); }
std::string quoted(Opcode op) { return std::string("'") + opcodeName(op) + "'"; }

bool isIntOnly(Opcode op) {
  return op == Opcode::And || op == Opcode::Or || op == Opcode::Xor || op == Opcode::Shl ||
         op == Opcode::Shr || op == Opcode::Not || op == Opcode::UDiv || op == Opcode::URem ||
         op == Opcode::UShr || op == Opcode::UMax || op == Opcode::UMin;
}
bool isFloatOnly(Opcode op) {
  if (op == Opcode::MaxNum || op == Opcode::MinNum) return true;
  return opcodeCategory(op) == OpCategory::Unary && op != Opcode::Neg && op != Opcode::Not &&
         op != Opcode::Abs;
}

std::string checkMask(const Type& mask, const Type& ptr) {
  Type expected = Type::scalar(Scalar::I1).withShape(ptr.shape).withLayout(ptr.layout);
  if (mask != expected) return "mask must be " + str(expected) + " (the pointer's shape), not " + str(mask);
  return "";
}

std::string checkArithmetic(const Instruction& inst) {
  Opcode op = inst.opcode();
  const Type& r = inst.type();
  const Type& a = inst.operand(0)->type();
  if (opcodeCategory(op) == OpCategory::Binary && a != inst.operand(1)->type())
    return "operand types differ (" + str(a) + " vs " + str(inst.operand(1)->type()) + ")";
  if (r != a) return "result type " + str(r) + " differs from operand type " + str(a);
  if (a.isPtr())
    return quoted(op) + " does not apply to pointers" +
           (op == Opcode::Add || op == Opcode::Sub ? "; use 'gep'" : "");
  if (isIntOnly(op) && !a.isInt()) return quoted(op) + " requires integer operands, not " + str(a);
  if (isFloatOnly(op) && !a.isFloat()) return quoted(op) + " requires a float operand, not " + str(a);
  return "";
}

std::string checkCmp(const Instruction& inst) {
  const Type& a = inst.operand(0)->type();
  const Type& b = inst.operand(1)->type();
  if (inst.sub >= kNumCmpPreds) return "unknown comparison predicate " + std::to_string(inst.sub);
  if (a != b) return "operand types differ (" + str(a) + " vs " + str(b) + ")";
  if (!a.isInt() && !a.isFloat()) return "'cmp' compares integers or floats, not " + str(a);
  if (isUnsignedPred(CmpPred(inst.sub)) && !a.isInt())
    return std::string("'cmp ") + cmpPredName(CmpPred(inst.sub)) + "' compares integers, not " + str(a);
  Type expected = Type::scalar(Scalar::I1).withShape(a.shape).withLayout(a.layout);
  if (inst.type() != expected) return "result type must be " + str(expected) + ", not " + str(inst.type());
  return "";
}

std::string checkCast(const Type& from, const Type& to) {
  if (from.shape != to.shape || from.layout != to.layout)
    return "'cast' must keep the shape and layout (" + str(from) + " to " + str(to) + ")";
  if ((from.isFp8() && to.isInt()) || (from.isInt() && to.isFp8()))
    return "'cast' converts fp8 to and from floats only, not " + str(from) + " to " + str(to);
  bool numeric = (from.isInt() || from.isFloat()) && (to.isInt() || to.isFloat());
  bool pointers = from.isPtr() && to.isPtr();
  bool ptrInt = (from.isPtr() && to.kind == Scalar::I64) || (from.kind == Scalar::I64 && to.isPtr());
  if (!numeric && !pointers && !ptrInt) return "cannot cast " + str(from) + " to " + str(to);
  return "";
}

// ucast: a cast whose integer side is unsigned, so an integer on one side.
std::string checkUnsignedCast(const Type& from, const Type& to) {
  if (from.shape != to.shape || from.layout != to.layout)
    return "'ucast' must keep the shape and layout (" + str(from) + " to " + str(to) + ")";
  bool numeric = (from.isInt() || from.isFloat()) && (to.isInt() || to.isFloat());
  if (!numeric || (from.isFloat() && to.isFloat()))
    return "'ucast' converts between integers, or integers and floats, not " + str(from) + " to " + str(to);
  return "";
}

// bitcast: the same bits in another numeric type of the same width.
std::string checkBitcast(const Type& from, const Type& to) {
  if (from.shape != to.shape || from.layout != to.layout)
    return "'bitcast' must keep the shape and layout (" + str(from) + " to " + str(to) + ")";
  bool numeric = (from.isInt() || from.isFloat()) && (to.isInt() || to.isFloat());
  if (!numeric || from.kind == Scalar::I1 || to.kind == Scalar::I1 || bitWidth(from.kind) != bitWidth(to.kind))
    return "'bitcast' reinterprets numbers of one bit width (not i1), not " + str(from) + " as " + str(to);
  return "";
}

std::string checkShapeOp(const Instruction& inst) {
  Opcode op = inst.opcode();
  const Type& a = inst.operand(0)->type();
  const Type& r = inst.type();
  if (op == Opcode::Splat) {
    if (a.isTile()) return "'splat' operand must be a scalar, not " + str(a);
    if (!r.isTile()) return "'splat' result must be a tile, not " + str(r);
    if (inst.sub > kSplatIterationGuard) return "unknown splat flag " + std::to_string(inst.sub);
    if (inst.sub && !a.isBool()) return "a guard 'splat' splats a condition (i1), not " + str(a);
  }
  if (r.element() != a.element())
    return quoted(op) + " must keep the element type (" + str(a) + " to " + str(r) + ")";
  if (op == Opcode::Reshape && a.numElements() != r.numElements())
    return "'reshape' must keep the number of elements (" + str(a) + " to " + str(r) + ")";
  if (op == Opcode::Broadcast) {
    if (a.shape.size() != r.shape.size())
      return "'broadcast' must keep the rank (" + str(a) + " to " + str(r) + ")";
    for (size_t i = 0; i < a.shape.size(); ++i)
      if (a.shape[i] != r.shape[i] && a.shape[i] != 1)
        return "'broadcast' can only grow dimensions of size 1 (" + str(a) + " to " + str(r) + ")";
  }
  if (op == Opcode::Trans) {
    if (inst.imm == 0 && a.shape.size() != 2)
      return "'trans' without a permutation needs a 2-D tile, not " + str(a);
    std::vector<int> perm = transPermutation(inst);
    if (perm.empty())
      return "'trans' permutation is not one of the " + std::to_string(a.shape.size()) + " dimensions of " + str(a);
    Shape want(perm.size());
    for (size_t d = 0; d < perm.size(); ++d) want[d] = a.shape[size_t(perm[d])];
    if (r.shape != want) return "'trans' result must be " + str(a.withShape(want)) + ", not " + str(r);
  }
  return "";
}

std::string checkMemory(const Instruction& inst) {
  Opcode op = inst.opcode();
  const Type& p = inst.operand(0)->type();
  if (!p.isPtr()) return quoted(op) + " needs a pointer operand, not " + str(p);
  Type pointee = p.pointeeType();
  size_t n = inst.numOperands();
  const Type& r = inst.type();
  if (op == Opcode::Load || op == Opcode::Store) {
    const uint8_t bits = (op == Opcode::Load ? kLoadCacheMask | kLoadVolatile : kLoadCacheMask) | kEvictMask;
    if ((inst.sub & ~bits) || !cacheOpAllowed(op, CacheOp(inst.sub & kLoadCacheMask)))
      return quoted(op) + " has a cache operator it cannot take";
    if (uint8_t(evictOf(inst.sub)) > uint8_t(Evict::Last)) return quoted(op) + " has an unknown eviction priority";
  }
  if (op == Opcode::Load) {
    if (r != pointee) return "'load' result must be " + str(pointee) + ", not " + str(r);
    if (n == 3) {
      std::string mask = checkMask(inst.operand(1)->type(), p);
      if (!mask.empty()) return mask;
      if (inst.operand(2)->type() != r)
        return "'other' must have the result type " + str(r) + ", not " + str(inst.operand(2)->type());
    }
    return "";
  }
  // store / atomic_rmw: (ptr, value [, mask]); atomic_cas: (ptr, cmp, value [, mask])
  size_t valueCount = op == Opcode::AtomicCas ? 2 : 1;
  for (size_t i = 1; i <= valueCount; ++i)
    if (inst.operand(i)->type() != pointee)
      return std::string(op == Opcode::AtomicCas && i == 1 ? "compared" : "stored") + " value must be " +
             str(pointee) + " (the pointee type), not " + str(inst.operand(i)->type());
  if (n > valueCount + 1) {
    std::string mask = checkMask(inst.mask()->type(), p);
    if (!mask.empty()) return mask;
  }
  if (op == Opcode::Store) return "";
  if (r != pointee) return quoted(op) + " result must be " + str(pointee) + ", not " + str(r);
  if (inst.imm < 0 || inst.imm > atomicOrder(MemSem::AcqRel, MemScope::Sys))
    return quoted(op) + " has an unknown memory order " + std::to_string(inst.imm);
  if (op == Opcode::AtomicRmw) {
    if (inst.sub >= kNumAtomicKinds) return "unknown atomic kind " + std::to_string(inst.sub);
    auto kind = AtomicKind(inst.sub);
    if ((kind == AtomicKind::And || kind == AtomicKind::Or || kind == AtomicKind::Xor || kind == AtomicKind::UMax ||
         kind == AtomicKind::UMin) &&
        !pointee.isInt())
      return std::string("'atomic_rmw ") + atomicKindName(kind) + "' requires integers, not " + str(pointee);
  }
  return "";
}

std::string checkDot(const Instruction& inst) {
  const Type& a = inst.operand(0)->type();
  const Type& b = inst.operand(1)->type();
  const Type& acc = inst.operand(2)->type();
  const Type& r = inst.type();
  if (a.shape.size() != 2 || b.shape.size() != 2)
    return "'dot' operands must be 2-D tiles (" + str(a) + ", " + str(b) + ")";
  if (a.isPtr() || (a.element() != b.element() && !(a.isFp8() && b.isFp8())))
    return "'dot' operands must be integer or float tiles of one element type, or both fp8 (" + str(a) + ", " +
           str(b) + ")";
  if (a.shape[1] != b.shape[0])
    return "'dot' inner dimensions differ (" + str(a) + " @ " + str(b) + ")";
  if (acc != r) return "'dot' accumulator must have the result type " + str(r) + ", not " + str(acc);
  Shape mn{a.shape[0], b.shape[1]};
  if (r.shape != mn) return "'dot' result shape must be " + shapeToString(mn) + ", not " + shapeToString(r.shape);
  if (r.isPtr()) return "'dot' result must be an integer or float tile, not " + str(r);
  return "";
}

// A kernel's ret has no operands; a combine function's gives one value per
// tuple element, of the types of its first arguments.
std::string checkRet(const Instruction& inst) {
  const Function* f = inst.parent ? inst.parent->parent() : nullptr;
  if (!f || !f->isCombiner()) return inst.numOperands() ? "a kernel's 'ret' has no operands" : "";
  const size_t k = f->arguments().size() / 2;
  if (inst.numOperands() != k)
    return "'ret' of a combine function of " + std::to_string(2 * k) + " arguments gives " + std::to_string(k) +
           " values, not " + std::to_string(inst.numOperands());
  for (size_t i = 0; i < k; ++i)
    if (inst.operand(i)->type() != f->argument(i)->type())
      return "'ret' value " + std::to_string(i) + " must be " + str(f->argument(i)->type()) + " (argument " +
             std::to_string(i) + "'s type), not " + str(inst.operand(i)->type());
  return "";
}

// scan_fn (reduce_fn) @F R AXIS %a, %b, ...: tiles of one shape (no
// booleans or pointers), F a combine function of the module taking two of
// each element, R one of the tuple's positions; the result is operand R's
// type (without the axis: a 1-D tile reduces to a scalar).
std::string checkCombining(const Instruction& inst) {
  const std::string name = quoted(inst.opcode());
  const bool scan = inst.opcode() == Opcode::ScanFn;
  if (inst.numOperands() == 0) return name + " needs at least one tile to " + (scan ? "scan" : "reduce");
  const Type& a = inst.operand(0)->type();
  for (size_t i = 0; i < inst.numOperands(); ++i) {
    const Type& t = inst.operand(i)->type();
    if (!t.isTile()) return name + " " + (scan ? "scans" : "reduces") + " tiles, not " + str(t);
    if (t.shape != a.shape) return name + " operands must have one shape (" + str(a) + " vs " + str(t) + ")";
    if (t.kind == Scalar::I1 || t.isPtr() || t.kind == Scalar::F8E4M3 || t.kind == Scalar::F8E5M2)
      return name + " combines integers and f16, bf16, f32, f64, not " + str(t);
  }
  if (inst.imm < 0 || inst.imm >= int64_t(a.shape.size()))
    return (scan ? "scan axis " : "reduction axis ") + std::to_string(inst.imm) + " is out of range for " + str(a);
  if (inst.sub >= inst.numOperands())
    return name + " result " + std::to_string(inst.sub) + " is not among its " +
           std::to_string(inst.numOperands()) + " operands";
  Type want = inst.operand(inst.sub)->type();
  if (!scan) {
    Shape s = want.shape;
    s.erase(s.begin() + inst.imm);
    want = want.withShape(s).withLayout(nullptr);  // (the layout: the GPU rules' business)
  }
  if ((scan ? inst.type() : inst.type().withLayout(nullptr)) != want)
    return name + " result must be " + str(want) + " (operand " + std::to_string(inst.sub) + "'s type" +
           (scan ? "" : " without the axis") + "), not " + str(inst.type());
  if (!inst.parent || !inst.parent->parent() || !inst.parent->parent()->parent()) return "";  // not in a module yet
  const Function* f = combinerOf(inst);
  if (!f) return name + " names no combine function of the module: '@" + inst.text + "'";
  const size_t k = inst.numOperands();
  if (f->arguments().size() != 2 * k)
    return name + " of " + std::to_string(k) + " tiles needs a combine function of " + std::to_string(2 * k) +
           " arguments; @" + f->name() + " has " + std::to_string(f->arguments().size());
  for (size_t i = 0; i < 2 * k; ++i)
    if (f->argument(i)->type() != Type::scalar(inst.operand(i % k)->type().kind))
      return "argument " + std::to_string(i) + " of @" + f->name() + " is " + str(f->argument(i)->type()) +
             ", where " + name + " combines elements of " + str(inst.operand(i % k)->type());
  return "";
}

std::string checkReduce(const Instruction& inst) {
  const Type& a = inst.operand(0)->type();
  const std::string name = opcodeName(inst.opcode());
  if (inst.sub >= kNumReduceKinds) return "unknown reduction kind " + std::to_string(inst.sub);
  if (!a.isTile()) return "'" + name + "' needs a tile operand, not " + str(a);
  if (a.isPtr()) return "'" + name + "' does not apply to pointers";
  if (a.kind == Scalar::I1 && inst.opcode() == Opcode::Scan) return "'scan' does not apply to booleans";
  auto kind = ReduceKind(inst.sub);
  if (kind == ReduceKind::Mul && inst.opcode() == Opcode::Reduce) return "'reduce mul' does not exist (scans only)";
  if ((kind == ReduceKind::UMax || kind == ReduceKind::UMin) && !a.isInt())
    return "'" + name + " " + reduceKindName(kind) + "' requires integers, not " + str(a);
  if ((kind == ReduceKind::MaxNum || kind == ReduceKind::MinNum) && !a.isFloat())
    return "'" + name + " " + reduceKindName(kind) + "' requires floats, not " + str(a);
  if (inst.imm < 0 || inst.imm >= int64_t(a.shape.size()))
    return (inst.opcode() == Opcode::Scan ? "scan axis " : "reduction axis ") + std::to_string(inst.imm) +
           " is out of range for " + str(a);
  if (inst.opcode() == Opcode::Scan) {
    if (inst.type() != a) return "'scan' result must be " + str(a) + ", not " + str(inst.type());
    return "";
  }
  Shape s = a.shape;
  s.erase(s.begin() + inst.imm);
  // (The result's layout is the GPU rules' business: a slice of the operand's.)
  Type expected = a.withShape(s).withLayout(nullptr);
  if (inst.type().withLayout(nullptr) != expected)
    return "'reduce' result must be " + str(expected) + ", not " + str(inst.type());
  return "";
}

std::string checkNoOperandOp(const Instruction& inst) {
  const Type& r = inst.type();
  if (inst.opcode() == Opcode::Range) {
    if (r.kind != Scalar::I32 || r.shape.size() != 1) return "'range' result must be a 1-D i32 tile, not " + str(r);
    constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
    if (inst.imm < std::numeric_limits<int32_t>::min() || inst.imm > kMax - (r.shape[0] - 1))
      return "'range' values do not fit in i32";
    return "";
  }
  if (r != Type::scalar(Scalar::I32)) return quoted(inst.opcode()) + " result must be i32, not " + str(r);
  if (inst.imm < 0 || inst.imm > 2) return "axis must be 0, 1 or 2, not " + std::to_string(inst.imm);
  return "";
}

// print: values of any element type (a buffer in shared memory is the GPU
// rules' business); assert: an i1 condition. Both keep their text for the
// back ends, which emit it as a C string.
std::string checkDebugOp(const Instruction& inst) {
  if (inst.text.find('\0') != std::string::npos) return quoted(inst.opcode()) + " text must not contain a NUL byte";
  if (inst.opcode() == Opcode::Print) {
    if (inst.sub > kPrintHex) return "unknown print flag " + std::to_string(inst.sub);
    return "";
  }
  const Type& c = inst.operand(0)->type();
  if (c.kind != Scalar::I1) return "'assert' condition must be i1 (a scalar or a tile), not " + str(c);
  return "";
}

// fp8 is a storage type: loaded, stored, moved, selected and converted,
// never computed on (the front ends compute in f16 or f32 and convert back).
std::string checkStorageOnly(const Instruction& inst) {
  Opcode op = inst.opcode();
  OpCategory c = opcodeCategory(op);
  bool computes = c == OpCategory::Binary || c == OpCategory::Unary || op == Opcode::Cmp || op == Opcode::UCast ||
                  op == Opcode::Dot || op == Opcode::DotAsync || op == Opcode::Reduce || op == Opcode::AtomicRmw ||
                  op == Opcode::AtomicCas || op == Opcode::Print || op == Opcode::InlineAsm;
  if (!computes) return "";
  // (a pointer to fp8 counts where the instruction computes on its memory)
  const bool atomic = op == Opcode::AtomicRmw || op == Opcode::AtomicCas;
  auto fp8 = [&](const Type& t) { return t.isFp8() || (atomic && t.isPtr() && isFp8Kind(t.pointee)); };
  // The one computation on fp8: a dot of two fp8 tiles into f32 (exact
  // products), which the GPU passes make for Hopper's fp8 tensor cores.
  if ((op == Opcode::Dot || op == Opcode::DotAsync) && inst.numOperands() >= 2 && inst.operand(0)->type().isFp8() &&
      inst.operand(1)->type().isFp8() && inst.type().kind == Scalar::F32)
    return "";
  for (size_t k = 0; k < inst.numOperands(); ++k)
    if (fp8(inst.operand(k)->type()))
      return quoted(op) + " does not compute on fp8 (" + str(inst.operand(k)->type()) + "): cast to f16 or f32 first";
  if (fp8(inst.type())) return quoted(op) + " does not compute on fp8 (" + str(inst.type()) + ")";
  return "";
}

std::string checkOpcodeRules(const Instruction& inst) {
  Opcode op = inst.opcode();
  const Type& r = inst.type();
  std::string storage = checkStorageOnly(inst);
  if (!storage.empty()) return storage;
  switch (op) {
    case Opcode::Cmp: return checkCmp(inst);
    case Opcode::Cast: return checkCast(inst.operand(0)->type(), r);
    case Opcode::UCast: return checkUnsignedCast(inst.operand(0)->type(), r);
    case Opcode::Bitcast: return checkBitcast(inst.operand(0)->type(), r);
    case Opcode::Select: {
      const Type& c = inst.operand(0)->type();
      const Type& a = inst.operand(1)->type();
      const Type& b = inst.operand(2)->type();
      if (a != b) return "operand types differ (" + str(a) + " vs " + str(b) + ")";
      if (r != a) return "result type " + str(r) + " differs from operand type " + str(a);
      if (c.kind != Scalar::I1 || (c.isTile() && (c.shape != r.shape || c.layout != r.layout)))
        return "condition must be i1 of the result's shape (and layout) or a scalar i1, not " + str(c);
      return "";
    }
    case Opcode::Fma: {
      for (size_t k = 0; k < 3; ++k)
        if (inst.operand(k)->type() != r)
          return "operand " + std::to_string(k + 1) + " has type " + str(inst.operand(k)->type()) +
                 ", not the result type " + str(r);
      if (!isFloatKind(r.kind) || r.isPtr()) return "'fma' takes floats, not " + str(r);
      return "";
    }
    case Opcode::Splat: case Opcode::Reshape: case Opcode::Broadcast: case Opcode::Trans:
      return checkShapeOp(inst);
    case Opcode::Range: case Opcode::ProgramId: case Opcode::NumPrograms:
      return checkNoOperandOp(inst);
    case Opcode::Gep: {
      const Type& p = inst.operand(0)->type();
      const Type& off = inst.operand(1)->type();
      if (!r.isPtr()) return "'gep' result must be a pointer, not " + str(r);
      if (p != r) return "'gep' pointer operand must have the result type " + str(r) + ", not " + str(p);
      if (!off.isInt()) return "'gep' offset must be an integer, not " + str(off);
      if (off.shape != r.shape || off.layout != r.layout)
        return "'gep' offset shape must match the result (" + str(off) + " vs " + str(r) + ")";
      return "";
    }
    case Opcode::Load: case Opcode::Store: case Opcode::AtomicRmw: case Opcode::AtomicCas:
      return checkMemory(inst);
    case Opcode::Dot: return checkDot(inst);
    case Opcode::Reduce: case Opcode::Scan: return checkReduce(inst);
    case Opcode::Sort: case Opcode::ArgSort: {
      const Type& a = inst.operand(0)->type();
      const bool indices = inst.opcode() == Opcode::ArgSort;
      const std::string name = quoted(inst.opcode());
      if (inst.sub >= kNumSortOrders) return "unknown sort order " + std::to_string(inst.sub);
      if (!a.isTile()) return name + " needs a tile operand, not " + str(a);
      if (a.kind == Scalar::I1 || a.isPtr() || a.kind == Scalar::F8E4M3 || a.kind == Scalar::F8E5M2)
        return name + " sorts integers of 8 to 64 bits and f16, bf16, f32, f64, not " + str(a);
      if (indices && byteSize(a.kind) > 4) return "'argsort' sorts elements of up to 32 bits, not " + str(a);
      if (inst.imm < 0 || inst.imm >= int64_t(a.shape.size()))
        return "sort axis " + std::to_string(inst.imm) + " is out of range for " + str(a);
      const int64_t n = a.shape[size_t(inst.imm)];
      if (n & (n - 1)) return name + " needs a power-of-two length along its axis, not " + std::to_string(n);
      // The result may keep the first K of the order (a top-k): K a power of two up to n.
      const Type want = indices ? a.withKind(Scalar::I32) : a;
      Type kept = want;
      const int64_t k = r.isTile() && r.shape.size() == a.shape.size() ? r.shape[size_t(inst.imm)] : 0;
      if (k >= 1 && k <= n && (k & (k - 1)) == 0) kept.shape[size_t(inst.imm)] = k;
      if (r != kept)
        return name + " result must be " + str(want) + " or its first K along axis " + std::to_string(inst.imm) +
               " (a power of two), not " + str(r);
      return "";
    }
    case Opcode::MultipleOf: {
      const Type& a = inst.operand(0)->type();
      if (r != a) return "result type " + str(r) + " differs from operand type " + str(a);
      if (!a.isInt() && !a.isPtr()) return "'multiple_of' applies to integers and pointers, not " + str(a);
      if (inst.imm <= 0) return "'multiple_of' divisor must be positive, not " + std::to_string(inst.imm);
      return "";
    }
    case Opcode::ExtractSlice: {
      const Type& a = inst.operand(0)->type();
      if (!a.isTile() || r.shape.size() != a.shape.size())
        return "'extract_slice' takes a tile and keeps its rank (" + str(a) + " to " + str(r) + ")";
      if (r.element() != a.element()) return "'extract_slice' must keep the element type (" + str(a) + " to " + str(r) + ")";
      const size_t axis = inst.sub;
      if (axis >= a.shape.size())
        return "'extract_slice' axis " + std::to_string(axis) + " is out of range for " + str(a);
      for (size_t d = 0; d < a.shape.size(); ++d)
        if (d != axis && r.shape[d] != a.shape[d])
          return "'extract_slice' keeps every dimension but the axis (" + str(a) + " to " + str(r) + ")";
      if (inst.imm < 0 || inst.imm + r.shape[axis] > a.shape[axis])
        return "'extract_slice' elements " + std::to_string(inst.imm) + " to " + std::to_string(inst.imm + r.shape[axis]) +
               " are not inside the " + std::to_string(a.shape[axis]) + " of axis " + std::to_string(axis) + " of " + str(a);
      return "";
    }
    case Opcode::Histogram: {
      const Type& a = inst.operand(0)->type();
      if (!a.isTile() || a.shape.size() != 1 || !a.isInt() || a.kind == Scalar::I1)
        return "'histogram' counts a 1-D tile of integers, not " + str(a);
      if (inst.numOperands() == 2 && inst.operand(1)->type().withLayout(nullptr) != a.withKind(Scalar::I1).withLayout(nullptr))
        return "'histogram' mask must be i1 of the counted tile's shape, not " + str(inst.operand(1)->type());
      if (!r.isTile() || r.shape.size() != 1 || r.kind != Scalar::I32)
        return "'histogram' result must be a 1-D i32 tile (one count per bin), not " + str(r);
      return "";
    }
    case Opcode::Gather: {
      const Type& a = inst.operand(0)->type();
      const Type& idx = inst.operand(1)->type();
      if (!a.isTile() || !idx.isTile() || a.shape.size() != idx.shape.size())
        return "'gather' takes a tile and an index tile of its rank (" + str(a) + ", " + str(idx) + ")";
      if (!idx.isInt() || idx.kind == Scalar::I1) return "'gather' indices must be integers, not " + str(idx);
      if (r.element() != a.element() || r.shape != idx.shape)
        return "'gather' result must have the source's element type and the index's shape (" + str(a) + ", " +
               str(idx) + " to " + str(r) + ")";
      const size_t axis = inst.sub;
      if (axis >= a.shape.size()) return "'gather' axis " + std::to_string(axis) + " is out of range for " + str(a);
      for (size_t d = 0; d < a.shape.size(); ++d)
        if (d != axis && idx.shape[d] != a.shape[d])
          return "'gather' index must match the source in every dimension but the axis (" + str(a) + ", " + str(idx) + ")";
      return "";
    }
    case Opcode::MaxContiguous: {
      const Type& a = inst.operand(0)->type();
      if (r != a) return "result type " + str(r) + " differs from operand type " + str(a);
      if (!a.isTile() || (!a.isInt() && !a.isPtr()))
        return "'max_contiguous' applies to tiles of integers or pointers, not " + str(a);
      if (inst.sub >= a.shape.size())
        return "'max_contiguous' axis " + std::to_string(inst.sub) + " is out of range for " + str(a);
      if (inst.imm <= 0) return "'max_contiguous' run length must be positive, not " + std::to_string(inst.imm);
      return "";
    }
    case Opcode::Print: case Opcode::Assert: return checkDebugOp(inst);
    case Opcode::InlineAsm: {
      // Element-wise: each input is a number of the result's shape (or a scalar for a scalar).
      if (inst.text.find('\0') != std::string::npos) return "'inline_asm' text must not contain a NUL byte";
      if (inst.sub > kInlineAsmPure) return "unknown inline_asm flag " + std::to_string(inst.sub);
      if (r.isPtr() || r.isVoid()) return "'inline_asm' makes a number, not " + str(r);
      for (size_t k = 0; k < inst.numOperands(); ++k) {
        const Type& a = inst.operand(k)->type();
        if (a.isPtr() || a.isVoid() || a.shape != r.shape || a.layout != r.layout)
          return "'inline_asm' input " + std::to_string(k) + " must be a number of the result's shape, not " + str(a);
      }
      return "";
    }
    case Opcode::Phi: {
      if (inst.numOperands() != inst.blocks.size())
        return "phi has " + std::to_string(inst.numOperands()) + " values but " +
               std::to_string(inst.blocks.size()) + " blocks";
      for (size_t i = 0; i < inst.numOperands(); ++i)
        if (inst.operand(i)->type() != r)
          return "incoming value " + std::to_string(i) + " has type " + str(inst.operand(i)->type()) +
                 ", not the phi's type " + str(r);
      return "";
    }
    case Opcode::CondBr: {
      const Type& c = inst.operand(0)->type();
      if (c != Type::scalar(Scalar::I1)) return "'cond_br' condition must be a scalar i1, not " + str(c);
      return "";
    }
    case Opcode::Br: return "";
    case Opcode::Ret: return checkRet(inst);
    case Opcode::ScanFn: case Opcode::ReduceFn: return checkCombining(inst);
    case Opcode::DotAsync: return checkDot(inst);
    case Opcode::DotWait: case Opcode::ConvertLayout: case Opcode::LocalAlloc: case Opcode::LocalLoad:
    case Opcode::LocalStore: case Opcode::MemIndex: case Opcode::AsyncCopy: case Opcode::AsyncCommit:
    case Opcode::AsyncWait: case Opcode::Barrier: case Opcode::FenceAsyncShared: case Opcode::TmaInit:
    case Opcode::TmaCopy: case Opcode::TmaWait: case Opcode::StageInit: case Opcode::StageRelease:
      return "";  // checkGpuInstruction
    default: return checkArithmetic(inst);  // binary and unary opcodes
  }
}

}  // namespace

std::string checkTypeWellFormed(const Type& t) {
  if (t.isPtr() && !isIntKind(t.pointee) && !isFloatKind(t.pointee))
    return "'" + str(t) + "' is not a type (pointer to " + scalarName(t.pointee) + ")";
  if (!t.isPtr() && t.pointee != Scalar::Void) return "type has a pointee but is not a pointer";
  if (t.isVoid() && t.isTile()) return "a tile of void is not a type";
  if (t.shape.size() > kMaxTileRank)
    return "'" + str(t) + "' has more than " + std::to_string(kMaxTileRank) + " dimensions";
  int64_t elements = 1;
  for (int64_t d : t.shape) {
    if (d < 1 || d > kMaxTileElements) return "'" + str(t) + "' has a dimension out of range";
    elements *= d;  // both factors <= 2^24: no overflow
    if (elements > kMaxTileElements)
      return "'" + str(t) + "' has more than " + std::to_string(kMaxTileElements) + " elements";
  }
  return "";
}

std::string checkInstructionTypes(const Instruction& inst) {
  Opcode op = inst.opcode();
  size_t n = inst.numOperands();
  if (!operandCount(op).accepts(n))
    return quoted(op) + " expects " + operandCountText(op) + " operands, got " + std::to_string(n);
  if (op != Opcode::Phi && inst.blocks.size() != blockOperandCount(op))
    return quoted(op) + " expects " + std::to_string(blockOperandCount(op)) + " block operands, got " +
           std::to_string(inst.blocks.size());
  const Type& r = inst.type();
  if (producesValue(op) && r.isVoid()) return quoted(op) + " must have a result type, not void";
  if (!producesValue(op) && !r.isVoid()) return quoted(op) + " has no result, but its type is " + str(r);
  std::string problem = checkTypeWellFormed(r);
  if (!problem.empty()) return "result type: " + problem;
  for (size_t i = 0; i < n; ++i) {
    const Value* v = inst.operand(i);
    if (v->type().isVoid()) return "operand " + std::to_string(i) + " has no value (void type)";
    problem = checkTypeWellFormed(v->type());
    if (!problem.empty()) return "operand " + std::to_string(i) + ": " + problem;
    if (v->valueKind() == ValueKind::Constant && v->type().isTile())
      return "constant operand " + std::to_string(i) + " must be a scalar";
  }
  return checkOpcodeRules(inst);
}

}  // namespace tritonc::ir
