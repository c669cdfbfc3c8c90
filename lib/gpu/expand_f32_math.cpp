// gpu-expand-f32-math (passes.h): PTX's lg2, sin, cos and tanh
// approximations are not Triton's: Triton 3.6 compiles float32 log, log2,
// sin, cos and libdevice's tanh to
// libdevice's (within an ulp, sin and cos with an accurate range
// reduction), PTX's lg2.approx is off by up to ~2^-22 absolutely (near a
// power of two log2 x lands on the wrong side of an integer: ceil(log2 x),
// the power-of-two scales of fp8 and mxfp4 quantization, then differ) and
// sin/cos.approx by ~2^-21 near 0 and more with |x| (1e-4 at 1e4: a
// rotary embedding of positions computed in the kernel). On the GPU each
// float32 (and float16, bfloat16, computed in float32) log, log2, sin, cos
// and tanh of the Triton-IR becomes arithmetic, before layouts are assigned:
//   log, log2  x = 2^k m, m in [sqrt(1/2), sqrt 2) from the bits
//     (subnormals scaled by 2^23 first; k's bits are those of x - sqrt(1/2)
//     masked to the exponent field, so m is one integer subtraction away),
//     f = m - 1 (exact), log(1 + f) = f + f^2 Q(f) with Q a degree-8
//     least-squares fit (relative error 6e-9 with its coefficients rounded
//     to float32); log2 x = k + log(1 + f) log2 e, log2 e in two parts (one
//     fma each: the sum is rounded once); log x = k ln2_hi + (k ln2_lo +
//     log(1 + f)), ln2_hi of 16 bits so that k ln2_hi is exact. Specials in
//     one unsigned compare of the bits (negative, inf, NaN: x inf + inf is
//     NaN, inf, NaN) and 0: -inf.
//   sin, cos  x = k pi/2 + r reduced in float64 (k = rint(x 2/pi), pi/2 in
//     two parts, each product taken exactly by an fma: r within 1e-16 up to
//     |x| ~ 1e15), r rounded to float32, Taylor's series of sin r to r^11
//     and cos r to r^12 (|r| <= pi/4: the rest under 2e-9), the quadrant
//     k mod 4 picking which and its sign. Beyond |x| = 2^50 (k's pi/2
//     error reaches r): NaN, where libdevice reduces with Payne-Hanek's
//     many bits of 2/pi; inf: NaN.
//   tanh  of |x|: |x| + |x|^3 P(x^2) below 0.55 (a degree-3 minimax fit:
//     fewer registers than a longer series over a wider range), 1 - 2 /
//     (e^(2|x|) + 1) above with the GPU's ex2 and division, x's sign bit
//     put back (tanh.approx is off by 2^-11 relatively; libdevice's
//     __nv_tanhf by an ulp or two).
// Measured on the interpreter against libm (test/unit/expand_f32_math_test):
// within an ulp of the correctly rounded log and log2, 2 of sin and cos, 1-2
// of tanh there (the interpreter's exp2 and division are exact; the GPU's
// ex2 and div.full add 2 ulps each). The interpreter and the CPU back end
// keep libm's.
#include <cmath>
#include <vector>

#include "gpu/passes.h"
#include "gpu/rewrite_each.h"
#include "ir/builder.h"

namespace tritonc::gpu {

namespace {

using ir::CmpPred;
using ir::Opcode;
using ir::Scalar;
using ir::Value;

// Coefficients of Q (log), log(1 + f) = f + f^2 (c0 + c1 f + ...), f in [sqrt(1/2) - 1, sqrt 2 - 1].
const std::vector<double> kLog1pFit = {-4.999998808e-01, 3.333333731e-01, -2.500157654e-01,
                                       2.000117451e-01,  -1.660859585e-01, 1.419668645e-01,
                                       -1.326199472e-01, 1.281951219e-01,  -7.473210990e-02};
// tanh x = x + x^3 (c0 + c1 x^2 + c2 x^4 + c3 x^6), |x| < 0.55: a minimax
// fit of the relative error (Lawson's iteration), coefficients in float32.
const std::vector<double> kTanhFit = {-0.33332958817481995, 0.13320940732955933, -0.05268407240509987,
                                      0.01645861566066742};
constexpr double kTanhNear = 0.55;
constexpr double kLog2eHi = 1.442695022e+00;        // log2 e rounded to float32
constexpr double kLog2eLo = 1.92596298909109e-08;   // the rest
constexpr double kLn2Hi = 0.693145751953125;        // 0x3F317200: 16 bits, k ln2_hi exact for |k| < 2^8
constexpr double kLn2Lo = 1.4286068202862268e-06;   // ln 2 - ln2_hi

class F32Math {
 public:
  F32Math(ir::Builder& b, const ir::Type& t)
      : b_(b), f32_(t.withKind(Scalar::F32)), f64_(t.withKind(Scalar::F64)), i32_(t.withKind(Scalar::I32)),
        i64_(t.withKind(Scalar::I64)) {}

  // log2 x (`base2`) or log x, x float32.
  Value* log(Value* x, bool base2) {
    Value* subnormal = lt(x, f(0x1p-126));
    Value* scaled = select(subnormal, mul(x, f(0x1p23)), x);
    Value* bits = b_.bitcast(scaled, i32_);
    // 2^k's bits, k with m = x 2^-k in [sqrt(1/2), sqrt 2): the exponent
    // field of x / sqrt(1/2); k itself is those bits 2^-23 (exact).
    Value* kBits = b_.binary(Opcode::And, b_.binary(Opcode::Sub, bits, i(0x3F3504F3)), i(-0x800000));
    Value* m = b_.bitcast(b_.binary(Opcode::Sub, bits, kBits), f32_);
    Value* kf = fma(b_.cast(kBits, f32_), f(0x1p-23), select(subnormal, f(-23.0), f(0.0)));
    Value* g = sub(m, f(1.0));  // exact (Sterbenz)
    Value* q = f(kLog1pFit.back());
    for (size_t n = kLog1pFit.size() - 1; n-- > 0;) q = fma(q, g, f(kLog1pFit[n]));
    Value* l = fma(mul(g, g), q, g);  // log(1 + g)
    Value* y = base2 ? fma(l, f(kLog2eHi), fma(l, f(kLog2eLo), kf)) : fma(kf, f(kLn2Hi), fma(kf, f(kLn2Lo), l));
    // Negative (-0.0 too), inf and NaN have bits from inf's up, unsigned:
    // x inf + inf is then NaN, inf and NaN; zero is -inf.
    Value* special = b_.cmp(CmpPred::Uge, b_.bitcast(x, i32_), i(0x7F800000));
    y = select(special, fma(x, f(INFINITY), f(INFINITY)), y);
    return select(b_.cmp(CmpPred::Eq, x, f(0.0)), f(-INFINITY), y);
  }

  // sin x or cos x, x float32.
  Value* sinOrCos(Value* x, bool isSin) {
    Value* xd = b_.cast(x, f64_);
    Value* k = b_.unary(Opcode::Floor, b_.binary(Opcode::Add, b_.binary(Opcode::Mul, xd, d(0.6366197723675814)), d(0.5)));
    Value* rd = fma(b_.unary(Opcode::Neg, k), d(kPio2Hi), xd);
    rd = fma(b_.unary(Opcode::Neg, k), d(kPio2Lo), rd);
    Value* r = b_.cast(rd, f32_);
    Value* r2 = mul(r, r);
    // sin r = r + r^3 (-1/3! + r^2 (1/5! - ...)) to r^11; cos r = 1 - r^2/2 + r^4 (1/4! - ...) to r^12
    Value* sinP = f(-1.0 / 39916800.0);
    for (double c : {1.0 / 362880.0, -1.0 / 5040.0, 1.0 / 120.0, -1.0 / 6.0}) sinP = fma(sinP, r2, f(c));
    Value* cosP = f(1.0 / 479001600.0);
    for (double c : {-1.0 / 3628800.0, 1.0 / 40320.0, -1.0 / 720.0, 1.0 / 24.0}) cosP = fma(cosP, r2, f(c));
    Value* sinR = fma(mul(r, r2), sinP, r);
    Value* cosR = fma(mul(r2, r2), cosP, fma(r2, f(-0.5), f(1.0)));
    // The quadrant: sin x is s, c, -s, -c and cos x c, -s, -c, s for k mod 4 = 0..3.
    Value* q = b_.binary(Opcode::And, b_.cast(k, i64_), i64c(3));
    if (!isSin) q = b_.binary(Opcode::And, b_.binary(Opcode::Add, q, i64c(1)), i64c(3));
    Value* odd = b_.cmp(CmpPred::Ne, b_.binary(Opcode::And, q, i64c(1)), i64c(0));
    Value* negative = b_.cmp(CmpPred::Ne, b_.binary(Opcode::And, q, i64c(2)), i64c(0));
    Value* y = select(odd, cosR, sinR);
    y = select(negative, b_.unary(Opcode::Neg, y), y);
    y = select(b_.cmp(CmpPred::Ge, b_.unary(Opcode::Abs, x), f(0x1p50)), f(NAN), y);  // (and inf, NaN)
    y = select(b_.cmp(CmpPred::Ne, x, x), x, y);
    return isSin ? select(b_.cmp(CmpPred::Eq, x, f(0.0)), x, y) : y;  // sin(-0.0) is -0.0
  }

  // tanh x, x float32: of |x|, x + x^3 P(x^2) below 0.55 (a degree-3
  // minimax fit in x^2, relative error 6e-8), 1 - 2 / (e^(2|x|) + 1) above
  // (e^ by the GPU's ex2, the quotient its division: a few ulps), then the
  // sign of x put back by its bit (-0.0 and NaN keep theirs).
  Value* tanh(Value* x) {
    Value* ax = b_.unary(Opcode::Abs, x);
    Value* z = mul(ax, ax);
    Value* p = f(kTanhFit.back());
    for (size_t n = kTanhFit.size() - 1; n-- > 0;) p = fma(p, z, f(kTanhFit[n]));
    Value* near = fma(mul(ax, z), p, ax);
    Value* e = b_.unary(Opcode::Exp2, mul(ax, f(2.0 * 1.4426950408889634)));
    Value* far = sub(f(1.0), b_.binary(Opcode::Div, f(2.0), b_.binary(Opcode::Add, e, f(1.0))));
    Value* y = b_.bitcast(select(lt(ax, f(kTanhNear)), near, far), i32_);
    Value* sign = b_.binary(Opcode::And, b_.bitcast(x, i32_), i(-0x7FFFFFFF - 1));
    return b_.bitcast(b_.binary(Opcode::Or, y, sign), f32_);
  }

 private:
  static constexpr double kPio2Hi = 1.5707963267948966;     // pi/2 rounded to double
  static constexpr double kPio2Lo = 6.123233995736766e-17;  // the rest
  Value* d(double v) { return b_.constant(f64_, v); }
  Value* i64c(int64_t v) {
    Value* c = b_.module().constInt(Scalar::I64, v);
    return i64_.isTile() ? b_.splat(c, i64_.shape) : c;
  }
  Value* f(double v) { return b_.constant(f32_, v); }
  Value* i(int64_t v) {
    Value* c = b_.module().constInt(Scalar::I32, v);
    return i32_.isTile() ? b_.splat(c, i32_.shape) : c;
  }
  Value* sub(Value* a, Value* c) { return b_.binary(Opcode::Sub, a, c); }
  Value* mul(Value* a, Value* c) { return b_.binary(Opcode::Mul, a, c); }
  Value* fma(Value* a, Value* c, Value* d) { return b_.fma(a, c, d); }
  Value* lt(Value* a, Value* c) { return b_.cmp(CmpPred::Lt, a, c); }
  Value* select(Value* c, Value* a, Value* d) { return b_.select(c, a, d); }

  ir::Builder& b_;
  ir::Type f32_, f64_, i32_, i64_;
};

}  // namespace

bool expandsF32Math(const ir::Instruction& inst) {
  const Scalar k = inst.type().kind;
  const Opcode op = inst.opcode();
  return (op == Opcode::Log || op == Opcode::Log2 || op == Opcode::Sin || op == Opcode::Cos || op == Opcode::Tanh) &&
         (k == Scalar::F32 || k == Scalar::F16 || k == Scalar::BF16);
}

bool runExpandF32Math(ir::Function& f, const transform::PipelineOptions& o) {
  if (o.target.rfind("sm_", 0) != 0) return false;
  return rewriteEach(f, expandsF32Math, [](ir::Builder& b, ir::Instruction& inst) {
    const ir::Type t = inst.type();
    Value* x = inst.operand(0);
    if (t.kind != Scalar::F32) x = b.cast(x, t.withKind(Scalar::F32));  // float16, bfloat16: in float32
    F32Math math(b, t);
    const Opcode op = inst.opcode();
    Value* r = op == Opcode::Sin || op == Opcode::Cos ? math.sinOrCos(x, op == Opcode::Sin)
               : op == Opcode::Tanh                   ? math.tanh(x)
                                                      : math.log(x, op == Opcode::Log2);
    return t.kind != Scalar::F32 ? b.cast(r, t) : r;
  });
}

}  // namespace tritonc::gpu
