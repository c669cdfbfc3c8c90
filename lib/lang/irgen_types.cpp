// Type and shape rules of Triton-C: C's usual arithmetic conversions on the
// element kinds, numpy broadcasting on the shapes, and compile-time constants.
#include <cmath>

#include "lang/irgen.h"

namespace tritonc::lang {

using ir::Scalar;

namespace {
// Rank of a kind in C's conversion order; floats above all integers.
int rank(Scalar k) {
  switch (k) {
    case Scalar::I1: return 0;
    case Scalar::I8: return 1;
    case Scalar::I16: return 2;
    case Scalar::I32: return 3;
    case Scalar::I64: return 4;
    case Scalar::F16: case Scalar::BF16: return 5;
    case Scalar::F32: return 6;
    case Scalar::F64: return 7;
    default: return -1;
  }
}
bool isPowerOfTwo(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }
}  // namespace

// User-facing type names are Triton-C's (int, float*, half[16, 8]), not the IR's.
static const char* cName(Scalar k) {
  switch (k) {
    case Scalar::I1: return "bool";
    case Scalar::I8: return "char";
    case Scalar::I16: return "short";
    case Scalar::I32: return "int";
    case Scalar::I64: return "long";
    case Scalar::F16: return "half";
    case Scalar::BF16: return "bf16";
    case Scalar::F32: return "float";
    case Scalar::F64: return "double";
    default: return "void";
  }
}

std::string IRGen::typeName(const ir::Type& t) const {
  std::string s = t.isPtr() ? std::string(cName(t.pointee)) + "*" : cName(t.kind);
  if (t.isTile()) s += ir::shapeToString(t.shape);
  return s;
}

SourceLoc IRGen::leftmost(const Expr& e) {
  const Expr* x = &e;
  while (!x->parenthesized) {
    bool leftOperand = x->kind == ExprKind::Binary || x->kind == ExprKind::Assign || x->kind == ExprKind::Ternary ||
                       x->kind == ExprKind::Range || x->kind == ExprKind::Subscript ||
                       (x->kind == ExprKind::IncDec && !x->prefix);
    if (!leftOperand || x->args.empty()) break;
    x = x->args[0].get();
  }
  return x->loc;
}

Scalar IRGen::commonKind(Scalar a, Scalar b) const {
  // f16 with bf16 has no common 16-bit type: both go to f32.
  if ((a == Scalar::F16 && b == Scalar::BF16) || (a == Scalar::BF16 && b == Scalar::F16)) return Scalar::F32;
  Scalar k = rank(a) >= rank(b) ? a : b;
  // Integer promotion: arithmetic on bool, i8, i16 happens in i32, as in C.
  if (rank(k) < rank(Scalar::I32)) k = Scalar::I32;
  return k;
}

void IRGen::checkTileSize(const ir::Shape& s, SourceLoc loc) const {
  int64_t elems = 1;
  for (int64_t d : s) {
    if (d > kMaxTileElements / elems)
      throw UserError(loc, "the result tile of shape " + ir::shapeToString(s) + " is too large (more than " +
                               std::to_string(kMaxTileElements) + " elements)");
    elems *= d;
  }
  if (s.size() > 4) throw UserError(loc, "tiles have at most 4 dimensions");
}

ir::Shape IRGen::broadcastShapes(const ir::Shape& a, const ir::Shape& b, SourceLoc loc,
                                 const char* what) const {
  size_t n = std::max(a.size(), b.size());
  ir::Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    // Left-pad the shorter shape with ones.
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1)
      throw UserError(loc, std::string("incompatible shapes ") + ir::shapeToString(a) + " and " +
                               ir::shapeToString(b) + " in " + what + " (dimension " + std::to_string(i) +
                               ": " + std::to_string(da) + " vs " + std::to_string(db) + ")");
    out[i] = std::max(da, db);
  }
  checkTileSize(out, loc);
  return out;
}

ir::Value* IRGen::convertKind(ir::Value* v, Scalar k) {
  if (v->type().kind == k && !v->type().isPtr()) return v;
  // Literals convert at compile time: `float x = 0` needs no cast instruction.
  if (v->valueKind() == ir::ValueKind::Constant && !v->type().isPtr()) {
    auto* c = static_cast<ir::Constant*>(v);
    bool fromFloat = v->type().isFloat();
    if (ir::isFloatKind(k)) return module_.constFloat(k, fromFloat ? c->f : double(c->i));
    if (k == Scalar::I1) return module_.constBool(fromFloat ? c->f != 0 : c->i != 0);
    if (!fromFloat) return module_.constInt(k, c->i);
  }
  return b_.cast(v, ir::Type::scalar(k).withShape(v->type().shape));
}

ir::Value* IRGen::broadcastTo(ir::Value* v, const ir::Shape& s, SourceLoc loc) {
  const ir::Shape& from = v->type().shape;
  if (from == s) return v;
  if (from.empty()) return b_.splat(v, s);
  ir::Shape out = broadcastShapes(from, s, loc, "broadcast");
  if (out != s)
    throw UserError(loc, "cannot broadcast a tile of shape " + ir::shapeToString(from) + " to shape " +
                             ir::shapeToString(s));
  if (from.size() < s.size()) {
    ir::Shape padded(s.size() - from.size(), 1);
    padded.insert(padded.end(), from.begin(), from.end());
    v = b_.reshape(v, padded);
  }
  return v->type().shape == s ? v : b_.broadcast(v, s);
}

ir::Value* IRGen::convertForAssign(ir::Value* v, const ir::Type& t, SourceLoc loc, const std::string& what) {
  const ir::Type& from = v->type();
  if (t.isPtr() != from.isPtr()) {
    throw UserError(loc, "cannot assign a value of type " + typeName(from) + " to " + what + " of type " +
                             typeName(t));
  }
  if (t.isPtr()) {
    if (from.pointee != t.pointee)
      throw UserError(loc, "cannot assign a value of type " + typeName(from) + " to " + what + " of type " +
                               typeName(t) + " (different pointee types; use a cast)");
  } else {
    v = convertKind(v, t.kind);
  }
  if (from.shape.size() > t.shape.size() && !t.shape.empty())
    throw UserError(loc, "cannot assign a tile of shape " + ir::shapeToString(from.shape) + " to " + what +
                             " of shape " + ir::shapeToString(t.shape));
  if (!from.shape.empty() && t.shape.empty())
    throw UserError(loc, "cannot assign a tile of shape " + ir::shapeToString(from.shape) + " to scalar " +
                             what + "; reduce it first (e.g. x[+])");
  if (from.shape != t.shape) {
    ir::Shape out = from.shape.empty() ? t.shape : broadcastShapes(from.shape, t.shape, loc, "assignment");
    if (out != t.shape)
      throw UserError(loc, "cannot assign a tile of shape " + ir::shapeToString(from.shape) + " to " + what +
                               " of shape " + ir::shapeToString(t.shape));
    v = broadcastTo(v, t.shape, loc);
  }
  return v;
}

ir::Value* IRGen::toBool(ir::Value* v, SourceLoc loc) {
  const ir::Type& t = v->type();
  if (t.isVoid()) throw UserError(loc, "a void value (such as __debug_barrier()'s) is neither true nor false");
  if (t.isBool()) return v;
  if (t.isPtr()) {
    ir::Value* asInt = b_.cast(v, ir::Type::scalar(Scalar::I64).withShape(t.shape));
    return b_.cmp(ir::CmpPred::Ne, asInt, zero(asInt->type()));
  }
  return b_.cmp(ir::CmpPred::Ne, v, zero(t));
}

ir::Value* IRGen::zero(const ir::Type& t) { return b_.constant(t, 0); }

std::optional<int64_t> IRGen::constEval(const Expr& e) {
  switch (e.kind) {
    case ExprKind::IntLit: return e.intValue;
    case ExprKind::Ident: {
      Symbol* s = lookup(e.op);
      if (s && s->kind == Symbol::Constant) return s->value;
      return std::nullopt;
    }
    case ExprKind::Cast:
      if (!e.castShape.empty() || e.castType.pointerDepth || ir::isFloatKind(e.castType.scalar)) return std::nullopt;
      return constEval(*e.args[0]);
    case ExprKind::Unary: {
      auto v = constEval(*e.args[0]);
      if (!v) return std::nullopt;
      if (e.op == "-") return int64_t(0 - uint64_t(*v));
      if (e.op == "+") return *v;
      if (e.op == "!") return int64_t(!*v);
      if (e.op == "~") return ~*v;
      return std::nullopt;
    }
    case ExprKind::Ternary: {
      auto c = constEval(*e.args[0]);
      if (!c) return std::nullopt;
      return constEval(*e.args[*c ? 1 : 2]);
    }
    case ExprKind::Binary: {
      // The left spine by a loop: `1 + 1 + ... + 1` recurses only into `1`.
      std::vector<const Expr*> spine = binarySpine(e);
      auto v = constEval(*spine.back()->args[0]);
      for (auto it = spine.rbegin(); v && it != spine.rend(); ++it) {
        auto b = constEval(*(*it)->args[1]);
        v = b ? constBinary(**it, *v, *b) : std::nullopt;
      }
      return v;
    }
    default: return std::nullopt;
  }
}

std::optional<int64_t> IRGen::constBinary(const Expr& e, int64_t a, int64_t b) {
  uint64_t ua = uint64_t(a), ub = uint64_t(b);
  const std::string& o = e.op;
  if (o == "+") return int64_t(ua + ub);
  if (o == "-") return int64_t(ua - ub);
  if (o == "*") return int64_t(ua * ub);
  if (o == "/" || o == "%") {
    if (b == 0) throw UserError(e.loc, "division by zero in a constant expression");
    if (a == INT64_MIN && b == -1) return o == "/" ? a : 0;
    return o == "/" ? a / b : a % b;
  }
  if (o == "<<") return int64_t(ua << (ub & 63));
  if (o == ">>") return a >> (ub & 63);
  if (o == "&") return a & b;
  if (o == "|") return a | b;
  if (o == "^") return a ^ b;
  if (o == "&&") return int64_t(a && b);
  if (o == "||") return int64_t(a || b);
  if (o == "==") return int64_t(a == b);
  if (o == "!=") return int64_t(a != b);
  if (o == "<") return int64_t(a < b);
  if (o == ">") return int64_t(a > b);
  if (o == "<=") return int64_t(a <= b);
  if (o == ">=") return int64_t(a >= b);
  return std::nullopt;
}

int64_t IRGen::requireConst(const Expr& e, const char* what) {
  if (e.kind == ExprKind::Ident && !lookup(e.op))
    throw UserError(e.loc, "use of undeclared identifier '" + e.op + "' in " + what + " (is a -D" + e.op +
                               " definition missing?)");
  auto v = constEval(e);
  if (!v) throw UserError(e.loc, std::string(what) + " must be a compile-time integer constant");
  return *v;
}

int64_t IRGen::shapeDim(const Expr& e) {
  int64_t d = requireConst(e, "a tile dimension");
  if (!isPowerOfTwo(d))
    throw UserError(e.loc, "tile dimension " + std::to_string(d) + " is not a power of two");
  return d;
}

void IRGen::pushMask(ir::Value* m, SourceLoc loc) {
  ir::Value* cur = currentMask();
  if (cur) {
    ir::Shape s = broadcastShapes(cur->type().shape, m->type().shape, loc, "nested predicates");
    m = b_.binary(ir::Opcode::And, broadcastTo(cur, s, loc), broadcastTo(m, s, loc));
  }
  masks_.push_back(m);
}

ir::Value* IRGen::maskFor(const ir::Type& access, ir::Value* extra, SourceLoc loc) {
  ir::Value* m = currentMask();
  auto fit = [&](ir::Value* mask) -> ir::Value* {
    if (mask->type().isTile() && !access.isTile())
      throw UserError(loc, "a tile predicate of shape " + ir::shapeToString(mask->type().shape) +
                               " cannot guard a scalar memory access");
    if (mask->type().shape.size() > access.shape.size() ||
        broadcastShapes(mask->type().shape, access.shape, loc, "predicated access") != access.shape)
      throw UserError(loc, "predicate of shape " + ir::shapeToString(mask->type().shape) +
                               " does not fit the access of shape " + ir::shapeToString(access.shape));
    return broadcastTo(mask, access.shape, loc);
  };
  if (m) m = fit(m);
  if (extra) {
    extra = fit(extra);
    m = m ? b_.binary(ir::Opcode::And, m, extra) : extra;
  }
  return m;
}

}  // namespace tritonc::lang
