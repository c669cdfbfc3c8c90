// gpu-expand-f64-math (passes.h): PTX's transcendental instructions
// (ex2, lg2, sin, cos, tanh, rsqrt approximations) are float32 only, so on
// the GPU each float64 exp, exp2, log, log2, sin, cos, tanh and rsqrt of the
// Triton-IR becomes arithmetic the GPU has in float64 (add, mul, fma,
// division, floor, integer operations on the bits), before layouts are
// assigned. The interpreter and the CPU back end keep their own (libm's).
//   exp x   2^k e^r: k = rint(x log2 e), r = x - k ln 2 with ln 2 in two parts
//           (k ln2_hi is exact), e^r Taylor's polynomial of degree 13
//           (|r| <= ln2/2: the rest is under 1e-17); 2^k as two factors made
//           from bits, so that neither exponent field overflows and a
//           subnormal result is rounded once. Beyond 709.78: inf; below
//           -745.13: 0.
//   exp2 x  2^k 2^r: k = rint(x), r = x - k (exact), 2^r = e^(r ln 2).
//   log x   e ln 2 + log m, x = 2^e m with m in [sqrt(1/2), sqrt 2) read from
//           the bits (subnormals scaled by 2^54 first); log m = 2 atanh s,
//           s = (m - 1) / (m + 1), the odd series to s^23 (s^2 < 0.03).
//           0: -inf; negative: NaN; inf: inf.
//   log2 x  e + log m log2 e.
//   sin, cos  x = k pi/2 + r, pi/2 in three parts of 33 bits and a rest
//           (each product taken exactly by an fma: within a few ulps up to
//           |x| ~ 1e16, measured), then the Taylor series of sin r to r^15
//           and cos r to r^16 (|r| <= pi/4), the quadrant k mod 4 picking
//           which and its sign. From |x| = 2^56 on, NaN: k's rounding is
//           then whole periods (libraries reduce such x with Payne-Hanek's
//           many bits of 2/pi, which this does not have).
//   tanh x  sign(x) (1 - 2 / (e^(2|x|) + 1)) from |x| = 0.55 on; below,
//           where that cancels, e^(2x) - 1 by Taylor's series to degree 21
//           over itself plus 2.
//   rsqrt x 1 / sqrt x (both rounded: within an ulp).
// Measured against libm on the interpreter (test/unit/expand_f64_math_test):
// within 2 ulps; log and log2 3, tanh 4.
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

// Builds float64 functions element-wise over tiles of one shape.
class F64Math {
 public:
  F64Math(ir::Builder& b, const ir::Type& t)
      : b_(b), f64_(t.withKind(Scalar::F64)), i64_(t.withKind(Scalar::I64)) {}

  Value* exp(Value* x) {
    Value* k = rint(mul(x, f(1.4426950408889634)));  // x log2 e
    Value* r = fma(neg(k), f(kLn2Hi), x);
    r = fma(neg(k), f(kLn2Lo), r);
    Value* y = scaleByPowerOfTwo(expPolynomial(r), k);
    y = select(gt(x, f(709.782712893384)), f(INFINITY), y);
    y = select(lt(x, f(-745.1332191019412)), f(0.0), y);
    return keepNaN(x, y);
  }

  Value* exp2(Value* x) {
    Value* k = rint(x);
    Value* r = sub(x, k);  // exact
    Value* y = scaleByPowerOfTwo(expPolynomial(mul(r, f(kLn2))), k);
    y = select(ge(x, f(1024.0)), f(INFINITY), y);
    y = select(lt(x, f(-1075.0)), f(0.0), y);
    return keepNaN(x, y);
  }

  Value* log(Value* x) {
    Value* e;
    Value* logM = logOfMantissa(x, &e);
    Value* y = add(fma(e, f(kLn2Hi), logM), mul(e, f(kLn2Lo)));
    return logSpecials(x, y);
  }

  Value* log2(Value* x) {
    Value* e;
    Value* logM = logOfMantissa(x, &e);
    return logSpecials(x, fma(logM, f(1.4426950408889634), e));
  }

  Value* sinOrCos(Value* x, bool isSin) {
    Value* k = rint(mul(x, f(0.6366197723675814)));  // x 2/pi
    Value* r = fma(neg(k), f(kPio2Part1), x);
    r = fma(neg(k), f(kPio2Part2), r);
    r = fma(neg(k), f(kPio2Part3), r);
    r = fma(neg(k), f(kPio2Rest), r);
    Value* r2 = mul(r, r);
    // sin r = r + r^3 (-1/3! + r^2 (1/5! - ...)); cos r = 1 - r^2/2 + r^4 (1/4! - ...)
    std::vector<double> sinC, cosC;  // (-1)^(n/2) / n!: odd n from 3 to 15, even from 4 to 16
    for (int n = 3; n <= 16; ++n) (n % 2 ? sinC : cosC).push_back((n / 2 % 2 ? -1.0 : 1.0) * inverseFactorial(n));
    Value* s = fma(mul(r, r2), horner(r2, sinC), r);
    Value* c = fma(mul(r2, r2), horner(r2, cosC), fma(r2, f(-0.5), f(1.0)));
    // The quadrant: sin x is s, c, -s, -c and cos x c, -s, -c, s for k mod 4 = 0..3.
    Value* q = b_.binary(Opcode::And, b_.cast(k, i64_), i(3));
    if (!isSin) q = b_.binary(Opcode::And, b_.binary(Opcode::Add, q, i(1)), i(3));
    Value* odd = b_.cmp(CmpPred::Ne, b_.binary(Opcode::And, q, i(1)), i(0));
    Value* negative = b_.cmp(CmpPred::Ne, b_.binary(Opcode::And, q, i(2)), i(0));
    Value* y = select(odd, c, s);
    y = select(negative, neg(y), y);
    // Beyond 2^56, k carries an error of whole periods and r diverges: NaN
    // rather than a plausible wrong number (no Payne-Hanek reduction here).
    y = select(ge(abs(x), f(0x1p56)), f(NAN), y);
    return isSin ? keepZero(x, y) : y;  // sin(-0.0) is -0.0
  }

  Value* tanh(Value* x) {
    Value* ax = abs(x);
    // Far from 0: 1 - 2 / (e^(2|x|) + 1), which is 1 from |x| = 19.1 on (and for inf).
    Value* far = sub(f(1.0), div(f(2.0), add(exp(mul(ax, f(2.0))), f(1.0))));
    far = select(gt(ax, f(20.0)), f(1.0), far);
    far = select(lt(x, f(0.0)), neg(far), far);
    // Near 0: u = e^(2x) - 1 = sum (2x)^n / n!, tanh x = u / (u + 2).
    Value* t = mul(x, f(2.0));
    std::vector<double> c;
    for (int n = 2; n <= 21; ++n) c.push_back(inverseFactorial(n));
    Value* u = fma(mul(t, t), horner(t, c), t);
    Value* near = div(u, add(u, f(2.0)));
    return keepZero(x, select(lt(ax, f(0.55)), near, far));  // (NaN: the far form, NaN)
  }

  Value* rsqrt(Value* x) { return div(f(1.0), b_.unary(Opcode::Sqrt, x)); }

 private:
  static constexpr double kLn2 = 0.6931471805599453;
  static constexpr double kLn2Hi = 6.93147180369123816490e-01;  // 32 bits: k kLn2Hi is exact
  static constexpr double kLn2Lo = 1.90821492927058770002e-10;
  // pi/2 as three parts of 33 bits (k times each is exact for |k| < 2^20) and the rest.
  static constexpr double kPio2Part1 = 1.57079632673412561417e+00;
  static constexpr double kPio2Part2 = 6.07710050630396597660e-11;
  static constexpr double kPio2Part3 = 2.02226624871116645580e-21;
  static constexpr double kPio2Rest = 8.47842766036889956997e-32;

  static double inverseFactorial(int n) {
    double fact = 1.0;
    for (int k = 2; k <= n; ++k) fact *= k;
    return 1.0 / fact;
  }

  Value* f(double v) { return b_.constant(f64_, v); }
  Value* i(int64_t v) {
    Value* c = b_.module().constInt(Scalar::I64, v);
    return i64_.isTile() ? b_.splat(c, i64_.shape) : c;
  }
  Value* add(Value* a, Value* c) { return b_.binary(Opcode::Add, a, c); }
  Value* sub(Value* a, Value* c) { return b_.binary(Opcode::Sub, a, c); }
  Value* mul(Value* a, Value* c) { return b_.binary(Opcode::Mul, a, c); }
  Value* div(Value* a, Value* c) { return b_.binary(Opcode::Div, a, c); }
  Value* fma(Value* a, Value* c, Value* d) { return b_.fma(a, c, d); }
  Value* neg(Value* a) { return b_.unary(Opcode::Neg, a); }
  Value* abs(Value* a) { return b_.unary(Opcode::Abs, a); }
  Value* gt(Value* a, Value* c) { return b_.cmp(CmpPred::Gt, a, c); }
  Value* ge(Value* a, Value* c) { return b_.cmp(CmpPred::Ge, a, c); }
  Value* lt(Value* a, Value* c) { return b_.cmp(CmpPred::Lt, a, c); }
  Value* select(Value* c, Value* a, Value* d) { return b_.select(c, a, d); }
  // The nearest integer (ties up: the reductions only need one near x).
  Value* rint(Value* x) { return b_.unary(Opcode::Floor, add(x, f(0.5))); }
  Value* keepNaN(Value* x, Value* y) { return select(b_.cmp(CmpPred::Ne, x, x), x, y); }
  Value* keepZero(Value* x, Value* y) { return select(b_.cmp(CmpPred::Eq, x, f(0.0)), x, y); }  // its sign

  Value* horner(Value* t, const std::vector<double>& c) {  // c[0] + t (c[1] + t (...))
    Value* p = f(c.back());
    for (size_t n = c.size() - 1; n-- > 0;) p = fma(p, t, f(c[n]));
    return p;
  }

  Value* expPolynomial(Value* r) {  // e^r, |r| <= ln2/2: sum r^n / n!, n <= 13
    std::vector<double> c;
    for (int n = 0; n <= 13; ++n) c.push_back(inverseFactorial(n));
    return horner(r, c);
  }

  // p 2^k (k integral, in float64) as p 2^(k/2) 2^(k - k/2): each factor's
  // exponent field stays in range over the results that are neither 0 nor
  // inf (the callers select those), and only the last product rounds.
  Value* scaleByPowerOfTwo(Value* p, Value* kf) {
    Value* k = b_.cast(b_.binary(Opcode::Max, b_.binary(Opcode::Min, kf, f(2100.0)), f(-2100.0)), i64_);
    Value* k1 = b_.binary(Opcode::Shr, k, i(1));
    Value* k2 = b_.binary(Opcode::Sub, k, k1);
    auto power = [&](Value* e) {
      return b_.bitcast(b_.binary(Opcode::Shl, b_.binary(Opcode::Add, e, i(1023)), i(52)), f64_);
    };
    return mul(mul(p, power(k1)), power(k2));
  }

  // log m for x = 2^e m, m in [sqrt(1/2), sqrt 2); *e gets e (float64).
  Value* logOfMantissa(Value* x, Value** e) {
    Value* subnormal = lt(x, f(0x1p-1022));
    Value* scaled = select(subnormal, mul(x, f(0x1p54)), x);
    Value* bits = b_.bitcast(scaled, i64_);
    Value* exponent = b_.binary(Opcode::Sub, b_.binary(Opcode::UShr, bits, i(52)), i(1023));
    Value* mBits = b_.binary(Opcode::Or, b_.binary(Opcode::And, bits, i(0x000FFFFFFFFFFFFFll)),
                             i(0x3FF0000000000000ll));
    Value* m = b_.bitcast(mBits, f64_);
    Value* big = gt(m, f(1.4142135623730951));
    m = select(big, mul(m, f(0.5)), m);
    Value* ef = b_.cast(exponent, f64_);
    ef = add(ef, select(big, f(1.0), f(0.0)));
    *e = sub(ef, select(subnormal, f(54.0), f(0.0)));
    Value* g = sub(m, f(1.0));  // exact (Sterbenz)
    Value* s = div(g, add(m, f(1.0)));
    Value* z = mul(s, s);
    // 2 atanh s = 2 s + s z (2/3 + z (2/5 + ...)), to z^11.
    std::vector<double> c;
    for (int n = 1; n <= 11; ++n) c.push_back(2.0 / (2 * n + 1));
    return fma(mul(s, z), horner(z, c), mul(s, f(2.0)));
  }

  Value* logSpecials(Value* x, Value* y) {
    y = select(b_.cmp(CmpPred::Eq, x, f(0.0)), f(-INFINITY), y);
    y = select(lt(x, f(0.0)), f(NAN), y);
    y = select(b_.cmp(CmpPred::Eq, x, f(INFINITY)), f(INFINITY), y);
    return keepNaN(x, y);
  }

  ir::Builder& b_;
  ir::Type f64_, i64_;
};

}  // namespace

bool expandsF64Math(const ir::Instruction& inst) {
  if (inst.type().kind != Scalar::F64) return false;
  switch (inst.opcode()) {
    case Opcode::Exp: case Opcode::Exp2: case Opcode::Log: case Opcode::Log2: case Opcode::Sin:
    case Opcode::Cos: case Opcode::Tanh: case Opcode::Rsqrt:
      return true;
    default:
      return false;
  }
}

// The module's combine functions too (rewrite_each.h).
bool runExpandF64Math(ir::Function& f, const transform::PipelineOptions& o) {
  if (o.target.rfind("sm_", 0) != 0) return false;
  return rewriteEach(f, expandsF64Math, [](ir::Builder& b, ir::Instruction& inst) {
    F64Math math(b, inst.type());
    Value* x = inst.operand(0);
    switch (inst.opcode()) {
      case Opcode::Exp: return math.exp(x);
      case Opcode::Exp2: return math.exp2(x);
      case Opcode::Log: return math.log(x);
      case Opcode::Log2: return math.log2(x);
      case Opcode::Sin: return math.sinOrCos(x, true);
      case Opcode::Cos: return math.sinOrCos(x, false);
      case Opcode::Tanh: return math.tanh(x);
      default: return math.rsqrt(x);
    }
  });
}

}  // namespace tritonc::gpu
