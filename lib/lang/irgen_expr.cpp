// IR generation: expressions.
#include <cmath>
#include <tuple>
#include <limits>

#include "lang/irgen.h"

namespace tritonc::lang {

using ir::Opcode;
using ir::Scalar;

namespace {
// A float literal (or INFINITY), possibly negated: it takes the float type of
// the other operand instead of forcing f32 (so `x * 0.5` stays f16 for f16 x).
bool isWeakFloat(const Expr* e) {
  if (!e) return false;
  if (e->kind == ExprKind::Unary && (e->op == "-" || e->op == "+")) return isWeakFloat(e->args[0].get());
  return e->kind == ExprKind::FloatLit || (e->kind == ExprKind::Ident && (e->op == "INFINITY" || e->op == "NAN"));
}
bool isComparison(const std::string& op) {
  return op == "<" || op == ">" || op == "<=" || op == ">=" || op == "==" || op == "!=";
}
ir::CmpPred cmpPred(const std::string& op) {
  if (op == "<") return ir::CmpPred::Lt;
  if (op == ">") return ir::CmpPred::Gt;
  if (op == "<=") return ir::CmpPred::Le;
  if (op == ">=") return ir::CmpPred::Ge;
  if (op == "==") return ir::CmpPred::Eq;
  return ir::CmpPred::Ne;
}
}  // namespace

ir::Value* IRGen::expr(const Expr& e) {
  switch (e.kind) {
    case ExprKind::IntLit:
      return e.intValue >= INT32_MIN && e.intValue <= INT32_MAX ? b_.i32(e.intValue) : b_.i64(e.intValue);
    case ExprKind::FloatLit: return module_.constFloat(Scalar::F32, e.floatValue);
    case ExprKind::StringLit:
      throw UserError(e.loc, "a string is only the prefix of __debug_print or the message of __debug_assert");
    case ExprKind::Ident: return identifier(e);
    case ExprKind::Unary: return unary(e);
    case ExprKind::Binary: return binaryChain(e);
    case ExprKind::Assign: return assign(e);
    case ExprKind::Ternary: return ternary(e);
    case ExprKind::Call: return call(e);
    case ExprKind::Subscript: return subscript(e);
    case ExprKind::Cast: return cast(e);
    case ExprKind::Range: return range(e);
    case ExprKind::Deref: return deref(e);
    case ExprKind::IncDec: return incDec(e);
    case ExprKind::InitList:
      throw UserError(e.loc, "an initializer list '{...}' is only allowed in a tunable declaration");
    case ExprKind::AllocConst:
      throw UserError(e.loc, "alloc_const is only allowed to initialize a global __constant__ table");
  }
  throw InternalError("unknown expression kind");
}

ir::Value* IRGen::identifier(const Expr& e) {
  Symbol* s = lookup(e.op);
  if (!s) {
    if (e.op == "INFINITY") return module_.constFloat(Scalar::F32, std::numeric_limits<double>::infinity());
    if (e.op == "NAN") return module_.constFloat(Scalar::F32, std::numeric_limits<double>::quiet_NaN());
    if (e.op == "true" || e.op == "false") return b_.boolean(e.op == "true");
    if (e.op == "newaxis") throw UserError(e.loc, "'newaxis' is only allowed inside a subscript");
    throw UserError(e.loc, "use of undeclared identifier '" + e.op + "'");
  }
  if (s->kind == Symbol::Constant) return module_.constInt(s->type.kind, s->value);
  if (s->kind == Symbol::Table) throw InternalError("table symbol read outside a function");
  return ssa_.read(s->var, b_.block());
}

ir::Value* IRGen::binaryChain(const Expr& e) {
  // The left spine by a loop (left operands first, as C evaluates them); only
  // right operands recurse, so `x + x + ... + x` of any length is no deeper
  // than one `+`.
  std::vector<const Expr*> spine = binarySpine(e);
  ir::Value* v = expr(*spine.back()->args[0]);
  for (auto it = spine.rbegin(); it != spine.rend(); ++it) v = binary(**it, v);
  return v;
}

ir::Value* IRGen::binary(const Expr& e, ir::Value* a) {
  if (e.op == "&&" || e.op == "||") return logical(e, a);
  ir::Value* b = expr(*e.args[1]);
  if (e.op == "@") return matmul(a, b, nullptr, e.loc);
  return arith(e.op, a, b, e.args[0].get(), e.args[1].get(), e.loc);
}

ir::Value* IRGen::arith(const std::string& op, ir::Value* a, ir::Value* b, const Expr* ea, const Expr* eb,
                        SourceLoc loc) {
  b_.setLoc(loc);
  const ir::Type& ta = a->type();
  const ir::Type& tb = b->type();
  ir::Shape shape = broadcastShapes(ta.shape, tb.shape, loc, ("'" + op + "'").c_str());
  // Pointer arithmetic: pointer +/- integer.
  if (ta.isPtr() || tb.isPtr()) {
    if (isComparison(op)) {
      if (!(ta.isPtr() && tb.isPtr() && ta.pointee == tb.pointee))
        throw UserError(loc, "cannot compare " + typeName(ta) + " with " + typeName(tb));
      return b_.cmp(cmpPred(op), broadcastTo(a, shape, loc), broadcastTo(b, shape, loc));
    }
    if (ta.isPtr() && tb.isPtr())
      throw UserError(loc, "invalid operands to '" + op + "': two pointers (" + typeName(ta) + " and " +
                               typeName(tb) + ")");
    bool ptrLeft = ta.isPtr();
    ir::Value* p = ptrLeft ? a : b;
    ir::Value* off = ptrLeft ? b : a;
    if (!(op == "+" || (op == "-" && ptrLeft)))
      throw UserError(loc, "invalid operands to '" + op + "': " + typeName(ta) + " and " + typeName(tb));
    if (!off->type().isInt())
      throw UserError(loc, "pointer offset must be an integer, not " + typeName(off->type()));
    if (ir::bitWidth(off->type().kind) < 32) off = convertKind(off, Scalar::I32);
    off = broadcastTo(off, shape, loc);
    if (op == "-") off = b_.unary(Opcode::Neg, off);
    return b_.gep(broadcastTo(p, shape, loc), off);
  }
  bool bitwise = op == "&" || op == "|" || op == "^" || op == "<<" || op == ">>";
  std::tie(a, b) = unifyOperands(a, b, ea, eb, loc, op, bitwise);
  if (isComparison(op)) return b_.cmp(cmpPred(op), a, b);
  static const std::pair<const char*, Opcode> ops[] = {
      {"+", Opcode::Add}, {"-", Opcode::Sub}, {"*", Opcode::Mul}, {"/", Opcode::Div},
      {"%", Opcode::Rem}, {"&", Opcode::And}, {"|", Opcode::Or},  {"^", Opcode::Xor},
      {"<<", Opcode::Shl}, {">>", Opcode::Shr}};
  for (auto& [s, opc] : ops)
    if (op == s) return b_.binary(opc, a, b);
  throw UserError(loc, "unknown operator '" + op + "'");
}

std::pair<ir::Value*, ir::Value*> IRGen::unifyOperands(ir::Value* a, ir::Value* b, const Expr* ea, const Expr* eb,
                                                       SourceLoc loc, const std::string& op, bool bitwise) {
  const ir::Type& ta = a->type();
  const ir::Type& tb = b->type();
  if (ta.isPtr() || tb.isPtr() || ta.isVoid() || tb.isVoid())
    throw UserError(loc, "invalid operands to '" + op + "': " + typeName(ta) + " and " + typeName(tb));
  ir::Shape shape = broadcastShapes(ta.shape, tb.shape, loc, ("'" + op + "'").c_str());
  Scalar k = commonKind(ta.kind, tb.kind);
  if (isWeakFloat(ea) && tb.isFloat()) k = tb.kind;
  if (isWeakFloat(eb) && ta.isFloat()) k = ta.kind;
  if (bitwise && ir::isFloatKind(k))
    throw UserError(loc, "invalid operands to '" + op + "': " + typeName(ta) + " and " + typeName(tb) +
                             " (bitwise operators need integers)");
  // Bitwise and/or/xor on two bools stay bool.
  if ((op == "&" || op == "|" || op == "^") && ta.isBool() && tb.isBool()) k = Scalar::I1;
  return {broadcastTo(convertKind(a, k), shape, loc), broadcastTo(convertKind(b, k), shape, loc)};
}

ir::Value* IRGen::logical(const Expr& e, ir::Value* left) {
  // The right operand is evaluated under the left one (as a mask), so that
  // `i < n && *p > 0` never loads where `i < n` is false.
  ir::Value* a = toBool(left, e.loc);
  b_.setLoc(e.loc);
  ir::Value* guard = e.op == "&&" ? a : b_.cmp(ir::CmpPred::Eq, a, zero(a->type()));
  pushMask(guard, e.loc);
  ir::Value* b = toBool(expr(*e.args[1]), e.loc);
  popMask();
  b_.setLoc(e.loc);
  ir::Shape shape = broadcastShapes(a->type().shape, b->type().shape, e.loc, ("'" + e.op + "'").c_str());
  a = broadcastTo(a, shape, e.loc);
  b = broadcastTo(b, shape, e.loc);
  return b_.binary(e.op == "&&" ? Opcode::And : Opcode::Or, a, b);
}

ir::Value* IRGen::unary(const Expr& e) {
  ir::Value* v = expr(*e.args[0]);
  b_.setLoc(e.loc);
  const ir::Type& t = v->type();
  if (e.op == "^") {
    if (t.shape.size() != 2)
      throw UserError(e.loc, "transposition '^' needs a 2-D tile, got " +
                                 (t.isTile() ? "shape " + ir::shapeToString(t.shape) : "a scalar"));
    return b_.trans(v);
  }
  if (t.isPtr() || t.isVoid()) throw UserError(e.loc, "invalid operand to unary '" + e.op + "': " + typeName(t));
  if (e.op == "!") return b_.cmp(ir::CmpPred::Eq, v, zero(t));
  if (e.op == "~" && t.isFloat()) throw UserError(e.loc, "'~' needs an integer operand, not " + typeName(t));
  // Integer promotion, as in C.
  if (t.isInt() && ir::bitWidth(t.kind) < 32) v = convertKind(v, Scalar::I32);
  if (e.op == "+") return v;
  return b_.unary(e.op == "-" ? Opcode::Neg : Opcode::Not, v);
}

ir::Value* IRGen::ternary(const Expr& e) {
  ir::Value* c = toBool(expr(*e.args[0]), e.loc);
  b_.setLoc(e.loc);
  ir::Value* notC = b_.cmp(ir::CmpPred::Eq, c, zero(c->type()));
  // Each arm is evaluated under its condition: `check ? *p : 0` is a masked load.
  pushMask(c, e.loc);
  ir::Value* a = expr(*e.args[1]);
  popMask();
  pushMask(notC, e.loc);
  ir::Value* b = expr(*e.args[2]);
  popMask();
  b_.setLoc(e.loc);
  const ir::Type& ta = a->type();
  const ir::Type& tb = b->type();
  if (ta.isVoid() || tb.isVoid()) throw UserError(e.loc, "an arm of '?:' has no value (void)");
  ir::Shape shape = broadcastShapes(broadcastShapes(c->type().shape, ta.shape, e.loc, "'?:'"), tb.shape, e.loc,
                                    "'?:'");
  ir::Type result;
  if (ta.isPtr() || tb.isPtr()) {
    if (!(ta.isPtr() && tb.isPtr() && ta.pointee == tb.pointee))
      throw UserError(e.loc, "the arms of '?:' have incompatible types " + typeName(ta) + " and " + typeName(tb));
    result = ta.withShape(shape);
  } else {
    Scalar k = commonKind(ta.kind, tb.kind);
    if (ta.isBool() && tb.isBool()) k = Scalar::I1;
    if (isWeakFloat(e.args[1].get()) && tb.isFloat()) k = tb.kind;
    if (isWeakFloat(e.args[2].get()) && ta.isFloat()) k = ta.kind;
    // `check ? *p : 0` keeps the loaded type, as C does not (f16 stays f16).
    if (e.args[2]->kind == ExprKind::IntLit && ta.isFloat()) k = ta.kind;
    if (e.args[1]->kind == ExprKind::IntLit && tb.isFloat()) k = tb.kind;
    a = convertKind(a, k);
    b = convertKind(b, k);
    result = ir::Type::scalar(k).withShape(shape);
  }
  a = broadcastTo(a, shape, e.loc);
  b = broadcastTo(b, shape, e.loc);
  if (c->type().isTile()) c = broadcastTo(c, shape, e.loc);
  return b_.select(c, a, b);
}

ir::Value* IRGen::subscript(const Expr& e) {
  ir::Value* v = expr(*e.args[0]);
  b_.setLoc(e.loc);
  const ir::Shape in = v->type().shape;
  std::vector<const SliceItem*> axisItems;  // one per dimension of the value, in order
  for (auto& s : e.slices)
    if (s.kind != SliceItem::NewAxis) axisItems.push_back(&s);
  if (axisItems.size() != in.size())
    throw UserError(e.loc, "subscript has " + std::to_string(axisItems.size()) +
                               " axis item(s) (':', an index, a slice or a reduction) but the " +
                               (in.empty() ? std::string("value is a scalar") :
                                             "tile has " + std::to_string(in.size()) + " dimension(s), shape " +
                                                 ir::shapeToString(in)));
  // Element indices and slices first (beyond Triton, SPEC R27: irgen_tiles.cpp),
  // last dimension first, so that the others keep their numbers.
  auto bound = [&](int arg, const char* what) { return requireConst(*e.args[size_t(arg)], what); };
  for (size_t d = axisItems.size(); d-- > 0;) {
    const SliceItem& s = *axisItems[d];
    const int64_t n = in[d];
    if (s.kind == SliceItem::Index) {
      const int64_t i = bound(s.first, "a tile index");
      if (i < 0 || i >= n)
        throw UserError(s.loc, "index " + std::to_string(i) + " is out of range for a dimension of " + std::to_string(n));
      b_.setLoc(s.loc);
      v = indexAxis(v, d, i);
    } else if (s.kind == SliceItem::Bounds) {
      const int64_t lo = s.first >= 0 ? bound(s.first, "a slice bound") : 0;
      const int64_t hi = s.last >= 0 ? bound(s.last, "a slice bound") : n;
      const int64_t length = hi - lo;
      if (lo < 0 || hi > n || length <= 0 || (length & (length - 1)))
        throw UserError(s.loc, "slice " + std::to_string(lo) + ":" + std::to_string(hi) + " of a dimension of " +
                                   std::to_string(n) + ": slices need constant bounds within the dimension and a "
                                   "power-of-two length");
      b_.setLoc(s.loc);
      v = sliceAxis(v, d, lo, length);
    }
  }
  b_.setLoc(e.loc);
  const ir::Shape cur = v->type().shape;  // the dimensions left, in order
  // Then insert the new axes, and reduce (highest axis first, so that the
  // remaining axis numbers stay valid).
  ir::Shape reshaped;
  std::vector<std::pair<int, const SliceItem*>> reductions;
  size_t src = 0;
  for (auto& s : e.slices) {
    if (s.kind == SliceItem::NewAxis) {
      reshaped.push_back(1);
      continue;
    }
    if (s.kind == SliceItem::Index) continue;
    if (s.kind == SliceItem::Reduce) reductions.push_back({int(reshaped.size()), &s});
    reshaped.push_back(cur[src++]);
  }
  if (reshaped.size() > 4) throw UserError(e.loc, "tiles have at most 4 dimensions");
  if (reshaped != cur) v = cur.empty() ? b_.splat(v, reshaped) : b_.reshape(v, reshaped);
  for (auto it = reductions.rbegin(); it != reductions.rend(); ++it) {
    const SliceItem& s = *it->second;
    b_.setLoc(s.loc);
    if (v->type().isPtr()) throw UserError(s.loc, "cannot reduce a tile of pointers");
    ir::ReduceKind k = s.reduceOp == "+" ? ir::ReduceKind::Add
                       : s.reduceOp == "max" ? ir::ReduceKind::Max : ir::ReduceKind::Min;
    if (k == ir::ReduceKind::Add && v->type().isInt() && ir::bitWidth(v->type().kind) < 32)
      v = convertKind(v, Scalar::I32);
    v = b_.reduce(k, it->first, v);
  }
  return v;
}

ir::Value* IRGen::range(const Expr& e) {
  auto lo = constEval(*e.args[0]);
  auto hi = constEval(*e.args[1]);
  if (!lo || !hi)
    throw UserError(e.loc, "the bounds of a range 'a ... b' must be compile-time constants (write 'x + 0 ... N' "
                           "for an offset range)");
  if (*lo < INT32_MIN || *lo > INT32_MAX || *hi < INT32_MIN || *hi > INT32_MAX)
    throw UserError(e.loc, "range bounds " + std::to_string(*lo) + " ... " + std::to_string(*hi) + " do not fit in int");
  if (*hi <= *lo) throw UserError(e.loc, "empty range " + std::to_string(*lo) + " ... " + std::to_string(*hi));
  int64_t n = *hi - *lo;
  if (n & (n - 1))
    throw UserError(e.loc, "range " + std::to_string(*lo) + " ... " + std::to_string(*hi) + " has " +
                               std::to_string(n) + " elements, which is not a power of two");
  if (n > (int64_t(1) << 20)) throw UserError(e.loc, "range of " + std::to_string(n) + " elements is too large");
  b_.setLoc(e.loc);
  return b_.range(*lo, n);
}

ir::Value* IRGen::cast(const Expr& e) {
  ir::Value* v = expr(*e.args[0]);
  b_.setLoc(e.loc);
  ir::Type to = declaredType(e.castType, 0, e.castShape, e.loc);
  const ir::Type& from = v->type();
  if (from.isVoid()) throw UserError(e.loc, "cannot cast a void value");
  if (to.isPtr()) {
    if (!from.isPtr()) throw UserError(e.loc, "cannot cast " + typeName(from) + " to a pointer");
    v = b_.cast(v, ir::Type::pointer(to.pointee, from.shape));
  } else if (from.isPtr()) {
    if (to.kind != Scalar::I64) throw UserError(e.loc, "a pointer can only be cast to long (int64)");
    v = b_.cast(v, ir::Type::scalar(Scalar::I64).withShape(from.shape));
  } else {
    v = convertKind(v, to.kind);
  }
  if (!e.castShape.empty()) v = convertForAssign(v, to, e.loc, "the cast type");
  return v;
}

ir::Value* IRGen::deref(const Expr& e) {
  ir::Value* explicitMask = nullptr;
  if (e.masked) explicitMask = toBool(expr(*e.args[0]), e.args[0]->loc);
  ir::Value* p = expr(*e.args.back());
  b_.setLoc(e.loc);
  if (!p->type().isPtr())
    throw UserError(e.loc, "cannot dereference a value of type " + typeName(p->type()) + " (not a pointer)");
  ir::Value* mask = maskFor(p->type(), explicitMask, e.loc);
  if (!mask) return b_.load(p);
  return b_.load(p, mask, zero(p->type().pointeeType()));
}

void IRGen::storeTo(const Expr& target, ir::Value* v, SourceLoc loc) {
  ir::Value* explicitMask = nullptr;
  if (target.masked) explicitMask = toBool(expr(*target.args[0]), target.args[0]->loc);
  ir::Value* p = expr(*target.args.back());
  b_.setLoc(target.loc);
  if (!p->type().isPtr())
    throw UserError(target.loc, "cannot store through a value of type " + typeName(p->type()) + " (not a pointer)");
  v = convertForAssign(v, p->type().pointeeType(), loc, "the memory pointed to");
  ir::Value* mask = maskFor(p->type(), explicitMask, target.loc);
  b_.setLoc(target.loc);
  b_.store(p, v, mask);
}

void IRGen::writeVariable(const Expr& target, ir::Value* v, SourceLoc loc) {
  Symbol* s = lookup(target.op);
  if (!s) throw UserError(target.loc, "use of undeclared identifier '" + target.op + "'");
  if (s->kind != Symbol::Variable || s->isConst)
    throw UserError(target.loc, "cannot assign to constant '" + target.op + "'");
  b_.setLoc(loc);
  v = convertForAssign(v, s->type, loc, "'" + target.op + "'");
  if (ir::Value* m = currentMask()) {
    // `@m x = y` keeps x where m is false: the psi function, as a select.
    if (m->type().isTile() && !s->type.isTile())
      throw UserError(loc, "a tile predicate cannot guard an assignment to scalar '" + target.op + "'");
    ir::Value* old = ssa_.read(s->var, b_.block());
    if (s->type.isTile()) m = maskFor(s->type, nullptr, loc);
    v = b_.select(m, v, old);
  }
  if (s->multipleOf) v = b_.multipleOf(v, s->multipleOf);
  if (v->valueKind() == ir::ValueKind::Instruction && v->name().empty()) v->setName(target.op);
  ssa_.write(s->var, b_.block(), v);
}

ir::Value* IRGen::assign(const Expr& e) {
  const Expr& target = *e.args[0];
  if (target.kind != ExprKind::Ident && target.kind != ExprKind::Deref)
    throw UserError(leftmost(target), "cannot assign to this expression (expected a variable or '*pointer')");
  ir::Value* v = expr(*e.args[1]);
  if (e.op != "=") {
    std::string op = e.op.substr(0, e.op.size() - 1);
    ir::Value* old = expr(target);  // for *p op= v this loads (under the same masks)
    v = arith(op, old, v, &target, e.args[1].get(), e.loc);
  }
  if (target.kind == ExprKind::Ident) writeVariable(target, v, e.loc);
  else storeTo(target, v, e.loc);
  return v;
}

ir::Value* IRGen::incDec(const Expr& e) {
  const Expr& target = *e.args[0];
  if (target.kind != ExprKind::Ident) throw UserError(e.loc, "'" + e.op + "' needs a variable");
  ir::Value* old = expr(target);
  ir::Value* one = b_.i32(1);
  ir::Value* v = arith(e.op == "++" ? "+" : "-", old, one, &target, nullptr, e.loc);
  writeVariable(target, v, e.loc);
  return e.prefix ? v : old;
}

ir::Value* IRGen::matmul(ir::Value* a, ir::Value* b, ir::Value* acc, SourceLoc loc) {
  b_.setLoc(loc);
  const ir::Type& ta = a->type();
  const ir::Type& tb = b->type();
  if (ta.shape.size() != 2 || tb.shape.size() != 2)
    throw UserError(loc, "matrix multiplication needs 2-D tiles, got " + typeName(ta) + " and " + typeName(tb));
  if (ta.isPtr() || tb.isPtr() || ta.isBool() || tb.isBool())
    throw UserError(loc, "matrix multiplication needs numeric tiles, got " + typeName(ta) + " and " + typeName(tb));
  if (ta.shape[1] != tb.shape[0])
    throw UserError(loc, "inner dimensions of the matrix multiplication differ: " + ir::shapeToString(ta.shape) +
                             " @ " + ir::shapeToString(tb.shape));
  Scalar k = ta.kind == tb.kind ? ta.kind : commonKind(ta.kind, tb.kind);
  a = convertKind(a, k);
  b = convertKind(b, k);
  // Products accumulate in f32 for 16- and 32-bit floats, f64 for f64, i32 for integers.
  Scalar accKind = k == Scalar::F64 ? Scalar::F64 : ir::isFloatKind(k) ? Scalar::F32
                   : k == Scalar::I64 ? Scalar::I64 : Scalar::I32;
  if (acc) accKind = commonKind(accKind, acc->type().kind);
  checkTileSize({ta.shape[0], tb.shape[1]}, loc);
  ir::Type out = ir::Type::scalar(accKind).withShape({ta.shape[0], tb.shape[1]});
  acc = acc ? convertForAssign(acc, out, loc, "the accumulator") : zero(out);
  b_.setLoc(loc);
  return b_.dot(a, b, acc);
}

}  // namespace tritonc::lang
