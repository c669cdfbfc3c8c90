// IR generation: built-in functions.
#include "ir/debug_output.h"
#include "lang/irgen.h"

namespace tritonc::lang {

using ir::Opcode;
using ir::Scalar;

namespace {
struct MathFn {
  const char* name;
  Opcode op;
  bool intsToo;  // also defined on integers (abs)
};
const MathFn kMath[] = {{"exp", Opcode::Exp, false},     {"log", Opcode::Log, false},
                        {"sqrt", Opcode::Sqrt, false},   {"rsqrt", Opcode::Rsqrt, false},
                        {"abs", Opcode::Abs, true},      {"fabs", Opcode::Abs, false},
                        {"sin", Opcode::Sin, false},     {"cos", Opcode::Cos, false},
                        {"tanh", Opcode::Tanh, false},   {"exp2", Opcode::Exp2, false},
                        {"log2", Opcode::Log2, false},   {"floor", Opcode::Floor, false},
                        {"ceil", Opcode::Ceil, false}};
}  // namespace

ir::Value* IRGen::call(const Expr& e) {
  const std::string& f = e.op;
  auto arity = [&](size_t lo, size_t hi) {
    if (e.args.size() < lo || e.args.size() > hi) {
      std::string n = lo == hi ? std::to_string(lo) : std::to_string(lo) + " or " + std::to_string(hi);
      throw UserError(e.loc, "'" + f + "' takes " + n + " argument(s), " + std::to_string(e.args.size()) + " given");
    }
  };
  auto axisArg = [&](const Expr& a) {
    int64_t axis = requireConst(a, ("the axis of " + f).c_str());
    if (axis < 0 || axis > 2) throw UserError(a.loc, "axis " + std::to_string(axis) + " is out of range (0, 1 or 2)");
    return int(axis);
  };

  if (f == "__debug_barrier") {
    // A barrier among the program's threads: bar.sync on the GPU. The
    // interpreter runs a program's threads as one, so there it orders nothing.
    arity(0, 0);
    if (&e != statementExpr_) throw UserError(e.loc, "__debug_barrier() is a statement of its own: it has no value");
    b_.setLoc(e.loc);
    return b_.create(Opcode::Barrier, ir::Type::voidTy(), {});
  }
  if (f == "__debug_print" || f == "__debug_assert") {
    // __debug_print("x", v, ...) prints every element of each value, per
    // program, as Triton's device_print; __debug_assert(cond, "message")
    // fails the launch where an element of cond is false. Statements only.
    if (&e != statementExpr_) throw UserError(e.loc, f + "() is a statement of its own: it has no value");
    auto text = [&](const Expr& a, const char* what) {
      if (a.kind != ExprKind::StringLit) throw UserError(a.loc, std::string("expected ") + what + " (a string literal)");
      if (a.op.find('\0') != std::string::npos) throw UserError(a.loc, std::string(what) + " must not contain \\0");
      return a.op;
    };
    auto value = [&](const Expr& a) {
      ir::Value* v = expr(a);
      if (v->type().isVoid()) throw UserError(a.loc, "a void value cannot be printed");
      return v;
    };
    if (f == "__debug_print") {
      if (currentMask())
        throw UserError(e.loc, "__debug_print under a predicate '@m' is not supported (it would print every element)");
      if (e.args.empty()) throw UserError(e.loc, "'__debug_print' takes a prefix string, then the values to print");
      std::string prefix = text(*e.args[0], "the prefix of __debug_print");
      std::vector<ir::Value*> values;
      for (size_t k = 1; k < e.args.size(); ++k) values.push_back(value(*e.args[k]));
      b_.setLoc(e.loc);
      return b_.print(ir::devicePrintPrefix(prefix, !values.empty()), values);
    }
    arity(1, 2);
    ir::Value* cond = toBool(value(*e.args[0]), e.args[0]->loc);
    std::string message = e.args.size() == 2 ? text(*e.args[1], "the message of __debug_assert") : "";
    b_.setLoc(e.loc);
    // `@m __debug_assert(c)` checks c where m holds.
    if (ir::Value* m = currentMask()) {
      if (m->type().isTile() && !cond->type().isTile()) cond = b_.splat(cond, m->type().shape);
      cond = b_.select(maskFor(cond->type(), nullptr, e.loc), cond, b_.constant(cond->type(), 1));
    }
    return b_.assertTrue(cond, message);
  }
  if (f == "get_program_id" || f == "get_num_programs") {
    arity(1, 1);
    int axis = axisArg(*e.args[0]);
    b_.setLoc(e.loc);
    return f == "get_program_id" ? b_.programId(axis) : b_.numPrograms(axis);
  }
  if (f == "get_global_range") {
    // get_global_range[N](axis) == get_program_id(axis) * N + (0 ... N); the
    // size may also come from the declaration: `int rm[TM] = get_global_range(0);`
    arity(1, 1);
    int axis = axisArg(*e.args[0]);
    int64_t n;
    if (e.sizeArg) {
      n = shapeDim(*e.sizeArg);
    } else if (rangeHint_) {
      n = (*rangeHint_)[0];
    } else {
      throw UserError(e.loc, "cannot infer the size of get_global_range(" + std::to_string(axis) +
                                 "); write get_global_range[N](" + std::to_string(axis) + ")");
    }
    if (n > kMaxTileElements) throw UserError(e.loc, "get_global_range of " + std::to_string(n) + " elements is too large");
    b_.setLoc(e.loc);
    ir::Value* start = b_.binary(Opcode::Mul, b_.programId(axis), b_.i32(n));
    return b_.binary(Opcode::Add, b_.splat(start, {n}), b_.range(0, n));
  }
  if (f == "dot") {
    arity(2, 3);
    ir::Value* a = expr(*e.args[0]);
    ir::Value* b = expr(*e.args[1]);
    ir::Value* c = e.args.size() == 3 ? expr(*e.args[2]) : nullptr;
    return matmul(a, b, c, e.loc);
  }
  if (f == "trans") {
    arity(1, 1);
    ir::Value* v = expr(*e.args[0]);
    b_.setLoc(e.loc);
    if (v->type().shape.size() != 2)
      throw UserError(e.loc, "trans needs a 2-D tile, got " + typeName(v->type()));
    return b_.trans(v);
  }
  for (const MathFn& m : kMath) {
    if (f != m.name) continue;
    arity(1, 1);
    ir::Value* v = expr(*e.args[0]);
    b_.setLoc(e.loc);
    if (v->type().isPtr()) throw UserError(e.loc, "'" + f + "' needs a number, not " + typeName(v->type()));
    if (v->type().isInt()) v = convertKind(v, m.intsToo ? commonKind(v->type().kind, Scalar::I32) : Scalar::F32);
    return b_.unary(m.op, v);
  }
  if (f == "sigmoid") {
    arity(1, 1);
    ir::Value* v = expr(*e.args[0]);
    b_.setLoc(e.loc);
    if (v->type().isPtr()) throw UserError(e.loc, "'sigmoid' needs a number, not " + typeName(v->type()));
    if (v->type().isInt()) v = convertKind(v, Scalar::F32);
    ir::Value* one = b_.constant(v->type(), 1.0);
    ir::Value* ex = b_.unary(Opcode::Exp, b_.unary(Opcode::Neg, v));
    return b_.binary(Opcode::Div, one, b_.binary(Opcode::Add, one, ex));
  }
  if (f == "max" || f == "min") {
    arity(2, 2);
    ir::Value* a = expr(*e.args[0]);
    ir::Value* b = expr(*e.args[1]);
    auto [x, y] = unifyOperands(a, b, e.args[0].get(), e.args[1].get(), e.loc, f);
    b_.setLoc(e.loc);
    return b_.binary(f == "max" ? Opcode::Max : Opcode::Min, x, y);
  }
  if (f == "select") {
    arity(3, 3);
    // select(c, a, b) evaluates both arms unmasked, unlike ?:.
    ir::Value* c = toBool(expr(*e.args[0]), e.loc);
    ir::Value* a = expr(*e.args[1]);
    ir::Value* b = expr(*e.args[2]);
    auto [x, y] = unifyOperands(a, b, e.args[1].get(), e.args[2].get(), e.loc, f);
    b_.setLoc(e.loc);
    ir::Shape s = broadcastShapes(c->type().shape, x->type().shape, e.loc, "select");
    return b_.select(broadcastTo(c, s, e.loc), broadcastTo(x, s, e.loc), broadcastTo(y, s, e.loc));
  }
  if (f == "atomic_add" || f == "atomic_xchg" || f == "atomic_max" || f == "atomic_min" || f == "atomic_cas") {
    bool cas = f == "atomic_cas";
    arity(cas ? 3 : 2, cas ? 3 : 2);
    ir::Value* p = expr(*e.args[0]);
    b_.setLoc(e.loc);
    if (!p->type().isPtr())
      throw UserError(e.args[0]->loc, "the first argument of '" + f + "' must be a pointer, not " + typeName(p->type()));
    ir::Type valType = p->type().pointeeType();
    ir::Value* cmp = cas ? convertForAssign(expr(*e.args[1]), valType, e.args[1]->loc, "the compared value") : nullptr;
    ir::Value* v = convertForAssign(expr(*e.args[cas ? 2 : 1]), valType, e.args[cas ? 2 : 1]->loc, "the stored value");
    b_.setLoc(e.loc);
    ir::Value* mask = maskFor(p->type(), nullptr, e.loc);
    if (cas) return b_.atomicCas(p, cmp, v, mask);
    ir::AtomicKind k = f == "atomic_add" ? ir::AtomicKind::Add
                       : f == "atomic_xchg" ? ir::AtomicKind::Xchg
                       : f == "atomic_max" ? ir::AtomicKind::Max : ir::AtomicKind::Min;
    return b_.atomicRmw(k, p, v, mask);
  }
  if (f == "sort" || f == "topk" || f == "topk_indices") return tileAlgorithm(e);  // irgen_tiles.cpp
  if (f == "gather") {
    // gather(x, index, axis): r[..., i, ...] = x[..., index[..., i, ...], ...].
    arity(3, 3);
    ir::Value* x = expr(*e.args[0]);
    ir::Value* index = expr(*e.args[1]);
    const int64_t axis = requireConst(*e.args[2], "the axis of gather");
    b_.setLoc(e.loc);
    const ir::Type &xt = x->type(), &it = index->type();
    if (!xt.isTile()) throw UserError(leftmost(*e.args[0]), "'gather' takes a tile, not " + typeName(xt));
    if (!it.isTile() || !it.isInt() || it.kind == Scalar::I1 || it.shape.size() != xt.shape.size())
      throw UserError(leftmost(*e.args[1]), "the index of 'gather' must be a tile of integers of the rank of " +
                                                typeName(xt) + ", not " + typeName(it));
    if (axis < 0 || axis >= int64_t(xt.shape.size()))
      throw UserError(e.args[2]->loc, "the axis of 'gather' must be between 0 and " +
                                          std::to_string(xt.shape.size() - 1) + ", not " + std::to_string(axis));
    for (size_t d = 0; d < xt.shape.size(); ++d)
      if (int64_t(d) != axis && xt.shape[d] != it.shape[d])
        throw UserError(e.loc, "the index of 'gather' must match " + typeName(xt) + " in every dimension but axis " +
                                   std::to_string(axis) + ", not " + typeName(it));
    return b_.gather(x, index, size_t(axis));
  }
  throw UserError(e.loc, "call to unknown function '" + f + "'");
}

}  // namespace tritonc::lang
