// Constant folding. Values are computed with the interpreter's element
// semantics (target/interp/scalar_ops.h: wrapping integers, one rounding per
// float operation) so that folding never changes a result.
#include <cmath>
#include <optional>

#include "ir/builder.h"
#include "target/interp/scalar_ops.h"
#include "transform/passes.h"
#include "transform/pattern.h"

namespace tritonc::transform {

namespace {

using ir::Opcode;
using ir::Scalar;
namespace sem = interp::detail;

struct Num {
  bool isFloat;
  int64_t i;
  double f;
};

// A constant as the interpreter sees it: rounded to its type first
// (`f16 0.1` is the f16 nearest to 0.1).
Num numOf(const ir::Constant* c) {
  Scalar k = c->type().kind;
  if (c->type().isFloat()) return Num{true, 0, sem::roundTo(k, c->f)};
  return Num{false, ir::wrapInt(k, c->i), 0};
}

std::optional<Num> foldBinary(Opcode op, Scalar k, Num a, Num b) {
  if (ir::isFloatKind(k)) {
    double r;
    switch (op) {
      case Opcode::Add: r = a.f + b.f; break;
      case Opcode::Sub: r = a.f - b.f; break;
      case Opcode::Mul: r = a.f * b.f; break;
      case Opcode::Div: r = a.f / b.f; break;
      case Opcode::Rem: r = std::fmod(a.f, b.f); break;
      case Opcode::Max: r = sem::floatMax(a.f, b.f); break;
      case Opcode::Min: r = sem::floatMin(a.f, b.f); break;
      case Opcode::MaxNum: r = sem::floatMaxNum(a.f, b.f); break;
      case Opcode::MinNum: r = sem::floatMinNum(a.f, b.f); break;
      default: return std::nullopt;
    }
    return Num{true, 0, sem::roundTo(k, r)};
  }
  int64_t r;
  switch (op) {
    case Opcode::Add: r = sem::wrapAdd(k, a.i, b.i); break;
    case Opcode::Sub: r = sem::wrapSub(k, a.i, b.i); break;
    case Opcode::Mul: r = sem::wrapMul(k, a.i, b.i); break;
    // By zero too: -1 and the dividend (docs/IR.md).
    case Opcode::Div: r = sem::wrapDiv(k, a.i, b.i); break;
    case Opcode::Rem: r = sem::wrapRem(k, a.i, b.i); break;
    case Opcode::UDiv: r = sem::unsignedDiv(k, a.i, b.i); break;
    case Opcode::URem: r = sem::unsignedRem(k, a.i, b.i); break;
    case Opcode::UShr: r = sem::logicalShr(k, a.i, b.i); break;
    case Opcode::UMax: r = sem::unsignedMax(k, a.i, b.i); break;
    case Opcode::UMin: r = sem::unsignedMin(k, a.i, b.i); break;
    case Opcode::And: r = a.i & b.i; break;
    case Opcode::Or: r = a.i | b.i; break;
    case Opcode::Xor: r = a.i ^ b.i; break;
    case Opcode::Shl: r = sem::wrapShl(k, a.i, b.i); break;
    case Opcode::Shr: r = sem::arithShr(k, a.i, b.i); break;
    case Opcode::Max: r = std::max(a.i, b.i); break;
    case Opcode::Min: r = std::min(a.i, b.i); break;
    default: return std::nullopt;
  }
  return Num{false, r, 0};
}

std::optional<Num> foldUnary(Opcode op, Scalar k, Num a) {
  if (!ir::isFloatKind(k)) {
    switch (op) {
      case Opcode::Neg: return Num{false, sem::wrapSub(k, 0, a.i), 0};
      case Opcode::Abs: return Num{false, a.i < 0 ? sem::wrapSub(k, 0, a.i) : a.i, 0};
      case Opcode::Not: return Num{false, ir::wrapInt(k, ~a.i), 0};
      default: return std::nullopt;
    }
  }
  double x = a.f, r;
  switch (op) {
    case Opcode::Neg: r = -x; break;
    case Opcode::Abs: r = std::fabs(x); break;
    case Opcode::Exp: r = std::exp(x); break;
    case Opcode::Log: r = std::log(x); break;
    case Opcode::Sqrt: r = std::sqrt(x); break;
    case Opcode::Rsqrt: r = 1.0 / std::sqrt(x); break;
    case Opcode::Sin: r = std::sin(x); break;
    case Opcode::Cos: r = std::cos(x); break;
    case Opcode::Tanh: r = std::tanh(x); break;
    case Opcode::Floor: r = std::floor(x); break;
    case Opcode::Ceil: r = std::ceil(x); break;
    case Opcode::Exp2: r = std::exp2(x); break;
    case Opcode::Log2: r = std::log2(x); break;
    default: return std::nullopt;
  }
  return Num{true, 0, sem::roundTo(k, r)};
}

// `k`: the operands' kind, whose width unsigned predicates read.
bool compare(ir::CmpPred p, Scalar k, Num a, Num b) {
  auto cmp = [p](auto x, auto y) {
    switch (p) {
      case ir::CmpPred::Eq: return x == y;
      case ir::CmpPred::Ne: return x != y;
      case ir::CmpPred::Lt: case ir::CmpPred::Ult: return x < y;
      case ir::CmpPred::Le: case ir::CmpPred::Ule: return x <= y;
      case ir::CmpPred::Gt: case ir::CmpPred::Ugt: return x > y;
      case ir::CmpPred::Ge: case ir::CmpPred::Uge: return x >= y;
    }
    return false;
  };
  if (ir::isUnsignedPred(p)) return cmp(sem::asUnsigned(k, a.i), sem::asUnsigned(k, b.i));
  return a.isFloat ? cmp(a.f, b.f) : cmp(a.i, b.i);
}

Num foldCast(Scalar from, Scalar to, Num a) {
  bool fromFloat = ir::isFloatKind(from), toFloat = ir::isFloatKind(to);
  if (fromFloat && toFloat) return Num{true, 0, sem::roundTo(to, a.f)};
  if (fromFloat) return Num{false, sem::floatToInt(to, a.f), 0};
  if (toFloat) return Num{true, 0, sem::intToFloat(to, a.i)};
  return Num{false, to == Scalar::I1 ? int64_t(a.i != 0) : ir::wrapInt(to, a.i), 0};
}

Num foldUnsignedCast(Scalar from, Scalar to, Num a) {
  if (ir::isFloatKind(from)) return Num{false, sem::floatToUnsigned(to, a.f), 0};
  if (ir::isFloatKind(to)) return Num{true, 0, sem::unsignedToFloat(to, sem::asUnsigned(from, a.i))};
  return Num{false, to == Scalar::I1 ? int64_t(a.i != 0) : ir::wrapInt(to, int64_t(sem::asUnsigned(from, a.i))), 0};
}

Num foldBitcast(Scalar from, Scalar to, Num a) {
  sem::Elem x = a.isFloat ? sem::floatElem(a.f) : sem::intElem(a.i);
  sem::Elem r = sem::bitcastElem(from, to, x);
  return ir::isFloatKind(to) ? Num{true, 0, r.f} : Num{false, r.i, 0};
}

// The constant of every operand, or nothing if one is not constant.
std::optional<std::vector<Num>> constantOperands(const ir::Instruction& inst) {
  std::vector<Num> out;
  for (ir::Value* op : inst.operands()) {
    ir::Constant* c = splatConstant(op);
    if (!c) return std::nullopt;
    out.push_back(numOf(c));
  }
  return out;
}

// Folds one instruction to a scalar constant (splatted by the caller for tiles).
std::optional<Num> fold(const ir::Instruction& inst) {
  Opcode op = inst.opcode();
  ir::OpCategory cat = ir::opcodeCategory(op);
  bool elementwise = cat != ir::OpCategory::Other || op == Opcode::Cmp || op == Opcode::Cast ||
                     op == Opcode::UCast || op == Opcode::Bitcast || op == Opcode::Select;
  if (!elementwise || inst.type().isPtr()) return std::nullopt;
  if (op == Opcode::Cast && inst.operand(0)->type().isPtr()) return std::nullopt;
  auto ops = constantOperands(inst);
  if (!ops) return std::nullopt;
  Scalar k = inst.type().kind;
  switch (cat) {
    case ir::OpCategory::Binary: return foldBinary(op, k, (*ops)[0], (*ops)[1]);
    case ir::OpCategory::Unary: return foldUnary(op, k, (*ops)[0]);
    default: break;
  }
  const Scalar from = inst.operand(0)->type().kind;
  if (op == Opcode::Cmp) return Num{false, compare(ir::CmpPred(inst.sub), from, (*ops)[0], (*ops)[1]), 0};
  if (op == Opcode::Cast) return foldCast(from, k, (*ops)[0]);
  if (op == Opcode::UCast) return foldUnsignedCast(from, k, (*ops)[0]);
  if (op == Opcode::Bitcast) return foldBitcast(from, k, (*ops)[0]);
  return (*ops)[0].i ? (*ops)[1] : (*ops)[2];  // select
}

// cond_br on a constant becomes br; the untaken successor loses its phi entry.
bool foldBranch(ir::Instruction* br, ir::Builder& b) {
  ir::Constant* c = splatConstant(br->operand(0));
  if (!c) return false;
  ir::BasicBlock* taken = br->blocks[c->i ? 0 : 1];
  ir::BasicBlock* dropped = br->blocks[c->i ? 1 : 0];
  ir::BasicBlock* bb = br->parent;
  if (dropped != taken)
    for (auto& inst : dropped->instructions())
      if (inst->opcode() == Opcode::Phi)
        for (size_t i = inst->blocks.size(); i-- > 0;)
          if (inst->blocks[i] == bb) {
            inst->removeOperand(i);
            inst->blocks.erase(inst->blocks.begin() + i);
            break;
          }
  b.setInsertPoint(bb, bb->indexOf(br));
  b.setLoc(br->loc);
  b.br(taken);
  bb->erase(br);
  return true;
}

}  // namespace

bool runConstantFolding(ir::Function& f) {
  ir::Module& m = *f.parent();
  ir::Builder b(m);
  bool changed = false;
  for (auto& bb : f.blocks()) {
    for (size_t idx = 0; idx < bb->instructions().size(); ++idx) {
      ir::Instruction* inst = bb->instructions()[idx].get();
      if (inst->opcode() == Opcode::CondBr) {
        changed = foldBranch(inst, b) || changed;
        continue;
      }
      if (inst->users().empty()) continue;  // dead: DCE removes it
      if (!inst->type().isTile() && inst->numOperands() > 0) {
        auto r = fold(*inst);
        if (!r) continue;
        Scalar k = inst->type().kind;
        ir::Value* c = ir::isFloatKind(k) ? static_cast<ir::Value*>(m.constFloat(k, r->f)) : m.constInt(k, r->i);
        inst->replaceAllUsesWith(c);
        changed = true;
        continue;
      }
      if (inst->type().isTile()) {
        auto r = fold(*inst);
        if (!r) continue;
        Scalar k = inst->type().kind;
        ir::Value* c = ir::isFloatKind(k) ? static_cast<ir::Value*>(m.constFloat(k, r->f)) : m.constInt(k, r->i);
        b.setInsertPoint(bb.get(), idx);
        b.setLoc(inst->loc);
        ir::Value* s = b.splat(c, inst->type().shape);
        s->setName(inst->name());
        inst->replaceAllUsesWith(s);
        ++idx;  // skip the splat we just inserted
        changed = true;
      }
    }
  }
  return changed;
}

}  // namespace tritonc::transform
