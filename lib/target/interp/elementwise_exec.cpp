// Element-wise instructions: arithmetic, cmp, cast, select, multiple_of.
// Operands with one element are used against every element of the result.
#include <algorithm>

#include "target/interp/executor.h"

namespace tritonc::interp::detail {

namespace {

// Unsigned predicates reach here with operands made unsigned by the caller.
template <class T>
bool compare(ir::CmpPred p, T x, T y) {
  switch (p) {
    case ir::CmpPred::Eq: return x == y;
    case ir::CmpPred::Ne: return x != y;  // true on NaN: the unordered predicate
    case ir::CmpPred::Lt: case ir::CmpPred::Ult: return x < y;
    case ir::CmpPred::Le: case ir::CmpPred::Ule: return x <= y;
    case ir::CmpPred::Gt: case ir::CmpPred::Ugt: return x > y;
    case ir::CmpPred::Ge: case ir::CmpPred::Uge: return x >= y;
  }
  return false;
}

}  // namespace

void Executor::execBinary(const Step& s) {
  const ir::Opcode op = s.inst->opcode();
  if (ir::isFloatKind(s.inst->type().kind))
    execFloatBinary(s, op);
  else
    execIntBinary(s, op);
}

void Executor::execIntBinary(const Step& s, ir::Opcode op) {
  using Op = ir::Opcode;
  const ir::Scalar k = s.inst->type().kind;
  const Elem* a = in(s, 0).data();
  const Elem* b = in(s, 1).data();
  const size_t sa = strideOf(s, 0), sb = strideOf(s, 1);
  Elem* r = out(s).data();
  const size_t n = out(s).size();
  auto run = [&](auto f) {
    for (size_t j = 0; j < n; ++j) r[j].i = f(a[j * sa].i, b[j * sb].i);
  };
  switch (op) {
    case Op::Add: run([k](int64_t x, int64_t y) { return wrapAdd(k, x, y); }); return;
    case Op::Sub: run([k](int64_t x, int64_t y) { return wrapSub(k, x, y); }); return;
    case Op::Mul: run([k](int64_t x, int64_t y) { return wrapMul(k, x, y); }); return;
    // Bitwise results of sign-extended operands are sign-extended already.
    case Op::And: run([](int64_t x, int64_t y) { return x & y; }); return;
    case Op::Or: run([](int64_t x, int64_t y) { return x | y; }); return;
    case Op::Xor: run([](int64_t x, int64_t y) { return x ^ y; }); return;
    case Op::Shl: run([k](int64_t x, int64_t y) { return wrapShl(k, x, y); }); return;
    case Op::Shr: run([k](int64_t x, int64_t y) { return arithShr(k, x, y); }); return;
    case Op::Max: run([](int64_t x, int64_t y) { return std::max(x, y); }); return;
    case Op::Min: run([](int64_t x, int64_t y) { return std::min(x, y); }); return;
    case Op::UShr: run([k](int64_t x, int64_t y) { return logicalShr(k, x, y); }); return;
    case Op::UMax: run([k](int64_t x, int64_t y) { return unsignedMax(k, x, y); }); return;
    case Op::UMin: run([k](int64_t x, int64_t y) { return unsignedMin(k, x, y); }); return;
    // By zero: -1 and the dividend (scalar_ops.h), no error: masked-off
    // lanes loaded with other=0 divide by zero in kernels as users write them.
    case Op::Div: run([k](int64_t x, int64_t y) { return wrapDiv(k, x, y); }); return;
    case Op::Rem: run([k](int64_t x, int64_t y) { return wrapRem(k, x, y); }); return;
    case Op::UDiv: run([k](int64_t x, int64_t y) { return unsignedDiv(k, x, y); }); return;
    case Op::URem: run([k](int64_t x, int64_t y) { return unsignedRem(k, x, y); }); return;
    default: break;
  }
  throw InternalError(std::string("no integer '") + ir::opcodeName(op) + "'");
}

void Executor::execFloatBinary(const Step& s, ir::Opcode op) {
  using Op = ir::Opcode;
  const Elem* a = in(s, 0).data();
  const Elem* b = in(s, 1).data();
  const size_t sa = strideOf(s, 0), sb = strideOf(s, 1);
  Elem* r = out(s).data();
  const size_t n = out(s).size();
  bool done = true;
  withRounding(s.inst->type().kind, [&](auto round) {
    auto run = [&](auto f) {
      for (size_t j = 0; j < n; ++j) r[j].f = round(f(a[j * sa].f, b[j * sb].f));
    };
    switch (op) {
      case Op::Add: run([](double x, double y) { return x + y; }); return;
      case Op::Sub: run([](double x, double y) { return x - y; }); return;
      case Op::Mul: run([](double x, double y) { return x * y; }); return;
      case Op::Div: run([](double x, double y) { return x / y; }); return;
      case Op::Rem: run([](double x, double y) { return std::fmod(x, y); }); return;  // exact
      case Op::Max: run(floatMax); return;
      case Op::Min: run(floatMin); return;
      case Op::MaxNum: run(floatMaxNum); return;
      case Op::MinNum: run(floatMinNum); return;
      default: done = false;
    }
  });
  if (!done) throw InternalError(std::string("no float '") + ir::opcodeName(op) + "'");
}

void Executor::execUnary(const Step& s) {
  using Op = ir::Opcode;
  const ir::Opcode op = s.inst->opcode();
  const ir::Scalar k = s.inst->type().kind;
  const Elem* a = in(s, 0).data();
  const size_t sa = strideOf(s, 0);
  Elem* r = out(s).data();
  const size_t n = out(s).size();
  if (!ir::isFloatKind(k)) {
    for (size_t j = 0; j < n; ++j) {
      const int64_t x = a[j * sa].i;
      switch (op) {
        case Op::Neg: r[j].i = wrapSub(k, 0, x); break;
        case Op::Abs: r[j].i = x < 0 ? wrapSub(k, 0, x) : x; break;  // abs(min) wraps to min
        case Op::Not: r[j].i = ir::wrapInt(k, ~x); break;            // on i1: logical not
        default: throw InternalError(std::string("no integer '") + ir::opcodeName(op) + "'");
      }
    }
    return;
  }
  withRounding(k, [&](auto round) {
    auto run = [&](auto f) {
      for (size_t j = 0; j < n; ++j) r[j].f = round(f(a[j * sa].f));
    };
    switch (op) {
      case Op::Neg: run([](double x) { return -x; }); return;
      case Op::Abs: run([](double x) { return std::fabs(x); }); return;
      case Op::Exp: run([](double x) { return std::exp(x); }); return;
      case Op::Log: run([](double x) { return std::log(x); }); return;
      case Op::Sqrt: run([](double x) { return std::sqrt(x); }); return;
      case Op::Rsqrt: run([](double x) { return 1.0 / std::sqrt(x); }); return;
      case Op::Sin: run([](double x) { return std::sin(x); }); return;
      case Op::Cos: run([](double x) { return std::cos(x); }); return;
      case Op::Tanh: run([](double x) { return std::tanh(x); }); return;
      case Op::Floor: run([](double x) { return std::floor(x); }); return;
      case Op::Ceil: run([](double x) { return std::ceil(x); }); return;
      case Op::Exp2: run([](double x) { return std::exp2(x); }); return;
      case Op::Log2: run([](double x) { return std::log2(x); }); return;
      default: throw InternalError(std::string("no float '") + ir::opcodeName(op) + "'");
    }
  });
}

void Executor::execCmp(const Step& s) {
  const auto pred = ir::CmpPred(s.inst->sub);
  const bool isFloat = ir::isFloatKind(inType(s, 0).kind);
  const Elem* a = in(s, 0).data();
  const Elem* b = in(s, 1).data();
  const size_t sa = strideOf(s, 0), sb = strideOf(s, 1);
  Elem* r = out(s).data();
  const size_t n = out(s).size();
  if (ir::isUnsignedPred(pred)) {
    const ir::Scalar k = inType(s, 0).kind;
    for (size_t j = 0; j < n; ++j) r[j].i = compare(pred, asUnsigned(k, a[j * sa].i), asUnsigned(k, b[j * sb].i));
    return;
  }
  for (size_t j = 0; j < n; ++j)
    r[j].i = isFloat ? compare(pred, a[j * sa].f, b[j * sb].f) : compare(pred, a[j * sa].i, b[j * sb].i);
}

void Executor::execCast(const Step& s) {
  const ir::Scalar from = inType(s, 0).kind, to = s.inst->type().kind;
  const Elem* a = in(s, 0).data();
  const size_t sa = strideOf(s, 0);
  Elem* r = out(s).data();
  const size_t n = out(s).size();
  const bool fromFloat = ir::isFloatKind(from), toFloat = ir::isFloatKind(to);
  for (size_t j = 0; j < n; ++j) {
    const Elem x = a[j * sa];
    if (fromFloat && toFloat)
      r[j].f = roundTo(to, x.f);
    else if (fromFloat)
      r[j].i = floatToInt(to, x.f);
    else if (toFloat)
      r[j].f = intToFloat(to, x.i);
    else if (to == ir::Scalar::I1)
      r[j].i = x.i != 0;
    else  // int/pointer to int/pointer: truncate or sign-extend (i1 is 0/1 already)
      r[j].i = ir::wrapInt(to, x.i);
  }
}

// ucast: as cast, with the integer side unsigned: the operand zero-extends
// (and converts to floats as unsigned), a float converts to [0, 2^n - 1].
void Executor::execUnsignedCast(const Step& s) {
  const ir::Scalar from = inType(s, 0).kind, to = s.inst->type().kind;
  const Elem* a = in(s, 0).data();
  const size_t sa = strideOf(s, 0);
  Elem* r = out(s).data();
  const size_t n = out(s).size();
  const bool fromFloat = ir::isFloatKind(from), toFloat = ir::isFloatKind(to);
  for (size_t j = 0; j < n; ++j) {
    const Elem x = a[j * sa];
    if (fromFloat)
      r[j].i = floatToUnsigned(to, x.f);
    else if (toFloat)
      r[j].f = unsignedToFloat(to, asUnsigned(from, x.i));
    else if (to == ir::Scalar::I1)
      r[j].i = x.i != 0;
    else
      r[j].i = ir::wrapInt(to, int64_t(asUnsigned(from, x.i)));
  }
}

void Executor::execBitcast(const Step& s) {
  const ir::Scalar from = inType(s, 0).kind, to = s.inst->type().kind;
  const Elem* a = in(s, 0).data();
  const size_t sa = strideOf(s, 0);
  Elem* r = out(s).data();
  const size_t n = out(s).size();
  for (size_t j = 0; j < n; ++j) r[j] = bitcastElem(from, to, a[j * sa]);
}

// x * y + z rounded once: f32 by fmaf, f64 by fma; the narrower floats by
// fma in f64 (their product is exact there), then rounded to their kind.
void Executor::execFma(const Step& s) {
  const ir::Scalar k = s.inst->type().kind;
  const Elem* x = in(s, 0).data();
  const Elem* y = in(s, 1).data();
  const Elem* z = in(s, 2).data();
  const size_t sx = strideOf(s, 0), sy = strideOf(s, 1), sz = strideOf(s, 2);
  Elem* r = out(s).data();
  const size_t n = out(s).size();
  if (k == ir::Scalar::F32) {
    for (size_t j = 0; j < n; ++j)
      r[j].f = double(std::fma(float(x[j * sx].f), float(y[j * sy].f), float(z[j * sz].f)));
    return;
  }
  withRounding(k, [&](auto round) {
    for (size_t j = 0; j < n; ++j) r[j].f = round(std::fma(x[j * sx].f, y[j * sy].f, z[j * sz].f));
  });
}

void Executor::execSelect(const Step& s) {
  const Elem* c = in(s, 0).data();
  const Elem* a = in(s, 1).data();
  const Elem* b = in(s, 2).data();
  const size_t sc = strideOf(s, 0), sa = strideOf(s, 1), sb = strideOf(s, 2);
  Elem* r = out(s).data();
  const size_t n = out(s).size();
  for (size_t j = 0; j < n; ++j) r[j] = c[j * sc].i ? a[j * sa] : b[j * sb];
}

// multiple_of is a promise the compiler relies on (vectorization, alignment);
// checking it here turns a silently wrong compiled kernel into an error. As
// in Triton it is about the first value of every run of consecutive values
// (`multiple_of(pid * 64 + arange(0, 64), 64)` holds), as the axis analysis
// reads it: along each dimension where the values make runs (an element is
// its predecessor's successor; of a pointer, the next element's address),
// every element that starts one is a multiple; a scalar, or a 1-D tile
// without runs, has every element a multiple. Along the other dimensions of
// a larger tile nothing is checked (`tl.multiple_of(ptrs, [16, 16])` on rows
// of pointers): equal neighbours there may be the data's coincidence (rows
// clamped with tl.where) rather than the constant stretches the analysis
// reads, which the values cannot tell apart.
void Executor::execMultipleOf(const Step& s) {
  const Tile& a = in(s, 0);
  Tile& r = out(s);
  std::copy(a.begin(), a.end(), r.begin());
  const int64_t m = s.inst->imm;
  const ir::Type& t = s.inst->type();
  if (!options_.checkMultipleOf || m <= 0) return;
  const int64_t step = t.isPtr() ? int64_t(ir::byteSize(t.pointee)) : 1;
  const ir::Shape shape = t.shape.empty() ? ir::Shape{1} : t.shape;
  auto broken = [&](size_t j) {
    const std::string value = t.isPtr() ? memory_.describeAddress(uint64_t(r[j].i)) : std::to_string(r[j].i);
    fail(s.inst, "multiple_of " + std::to_string(m) + " does not hold in " + kernelText() + ": " + programText() +
                     elementText(t.shape, int64_t(j)) + " is " + value +
                     (t.shape.empty() ? "" : ", not a multiple where the analysis reads one"));
  };
  int64_t stride = 1;
  for (size_t d = shape.size(); d-- > 0; stride *= shape[d]) {
    if (shape[d] == 1 && shape.size() > 1) continue;
    // Whether the values make runs along d (an element its predecessor's successor).
    bool runs = false;
    for (size_t j = 0; j < r.size() && !runs; ++j) {
      if ((int64_t(j) / stride) % shape[d] == 0) continue;
      runs = r[j - size_t(stride)].i + step == r[j].i;
    }
    if (!runs && shape.size() > 1) continue;
    for (size_t j = 0; j < r.size(); ++j) {
      const bool first = (int64_t(j) / stride) % shape[d] == 0;
      const bool continues = !first && runs && r[j - size_t(stride)].i + step == r[j].i;
      if (r[j].i % m != 0 && !continues) broken(j);
    }
  }
}

}  // namespace tritonc::interp::detail
