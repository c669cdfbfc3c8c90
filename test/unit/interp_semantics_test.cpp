// Element semantics of the interpreter: casts, integer wrap-around and edge
// cases, float rounding and NaN rules, reductions, atomics, argument
// conversion. Scalar results are checked one by one through a Probe.
#include <cmath>
#include <functional>

#include "interp_helpers.h"
#include "support/float16.h"

using namespace interp_test;
using ir::CmpPred;

namespace {

// A kernel whose scalar results are stored, one slot each, into an output
// buffer per element kind, then compared with the expected values.
class Probe {
 public:
  Kernel k{"probe"};

  ir::Value* c(Scalar kind, double v) {
    return ir::isFloatKind(kind) ? static_cast<ir::Value*>(k.module.constFloat(kind, v))
                                 : k.module.constInt(kind, int64_t(v));
  }
  ir::Value* ci(Scalar kind, int64_t v) { return k.module.constInt(kind, v); }

  void expectInt(ir::Value* v, int64_t expected) {
    const Slot s = record(v);
    checks_.push_back([this, s, expected] { EXPECT_EQ(readInt(s), expected) << s.what; });
  }
  // Exact, sign of zero included; a NaN expects a NaN.
  void expectFloat(ir::Value* v, double expected) {
    const Slot s = record(v);
    checks_.push_back([this, s, expected] {
      const double got = readFloat(s);
      if (std::isnan(expected)) {
        EXPECT_TRUE(std::isnan(got)) << s.what << " gave " << got;
      } else {
        EXPECT_EQ(got, expected) << s.what;
        EXPECT_EQ(std::signbit(got), std::signbit(expected)) << s.what << " (sign of zero)";
      }
    });
  }

  void runAndCheck() {
    k.b.ret();
    std::vector<interp::KernelArg> args;
    for (Out& o : outs_) {
      o.buffer = poisoned("out_" + std::string(ir::scalarName(o.kind)), o.kind, size_t(o.count));
      args.push_back(buf(o.buffer));
    }
    k.run({1}, args);
    for (auto& check : checks_) check();
  }

 private:
  struct Out {
    Scalar kind;
    ir::Value* param;
    int64_t count = 0;
    interp::Buffer buffer;
  };
  struct Slot {
    size_t out;
    int64_t index;
    std::string what;
  };

  Slot record(ir::Value* v) {
    const Scalar kind = v->type().kind;
    size_t o = 0;
    while (o < outs_.size() && outs_[o].kind != kind) ++o;
    if (o == outs_.size()) outs_.push_back(Out{kind, k.ptrParam(kind, std::string("out_") + ir::scalarName(kind)), 0, {}});
    const int64_t index = outs_[o].count++;
    k.b.store(k.at(outs_[o].param, index), v);
    std::string what = v->valueKind() == ir::ValueKind::Instruction
                           ? ir::printInstruction(*static_cast<ir::Instruction*>(v))
                           : "a constant";
    return Slot{o, index, what + " (slot " + std::to_string(index) + ")"};
  }
  const uint8_t* bytes(const Slot& s) const {
    const Out& o = outs_[s.out];
    return o.buffer.data.data() + s.index * ir::byteSize(o.kind);
  }
  int64_t readInt(const Slot& s) const {
    const uint8_t* p = bytes(s);
    switch (outs_[s.out].kind) {
      case Scalar::I1: return p[0];
      case Scalar::I8: return int8_t(p[0]);
      case Scalar::I16: { int16_t v; std::memcpy(&v, p, 2); return v; }
      case Scalar::I32: { int32_t v; std::memcpy(&v, p, 4); return v; }
      default: { int64_t v; std::memcpy(&v, p, 8); return v; }
    }
  }
  double readFloat(const Slot& s) const {
    const uint8_t* p = bytes(s);
    uint16_t h;
    std::memcpy(&h, p, 2);
    switch (outs_[s.out].kind) {
      case Scalar::F16: return halfToFloat(h);
      case Scalar::BF16: return bf16ToFloat(h);
      case Scalar::F32: { float v; std::memcpy(&v, p, 4); return v; }
      default: { double v; std::memcpy(&v, p, 8); return v; }
    }
  }

  std::vector<Out> outs_;
  std::vector<std::function<void()>> checks_;
};

const double kNaN = std::nan("");

}  // namespace

TEST(InterpSemantics, Casts) {
  Probe p;
  auto cast = [&](Scalar from, double v, Scalar to) { return p.k.b.cast(p.c(from, v), Type::scalar(to)); };
  auto castI = [&](Scalar from, int64_t v, Scalar to) { return p.k.b.cast(p.ci(from, v), Type::scalar(to)); };
  // float -> int: truncate toward zero, saturate, NaN -> 0; to i1: != 0
  p.expectInt(cast(Scalar::F32, 1e10, Scalar::I32), INT32_MAX);
  p.expectInt(cast(Scalar::F32, -1e10, Scalar::I32), INT32_MIN);
  p.expectInt(cast(Scalar::F32, kNaN, Scalar::I32), 0);
  p.expectInt(cast(Scalar::F32, -2.7, Scalar::I32), -2);
  p.expectInt(cast(Scalar::F32, 2.7, Scalar::I32), 2);
  p.expectInt(cast(Scalar::F32, 300, Scalar::I8), 127);
  p.expectInt(cast(Scalar::F32, -300, Scalar::I8), -128);
  p.expectInt(cast(Scalar::F64, 1e300, Scalar::I64), INT64_MAX);
  p.expectInt(cast(Scalar::F64, -INFINITY, Scalar::I64), INT64_MIN);
  p.expectInt(cast(Scalar::F64, 9007199254740993.0, Scalar::I64), 9007199254740992);
  p.expectInt(cast(Scalar::F32, 0.5, Scalar::I1), 1);
  p.expectInt(cast(Scalar::F32, 0.0, Scalar::I1), 0);
  // int -> int: truncate / sign-extend; to i1: != 0; i1 is 0 or 1
  p.expectInt(castI(Scalar::I32, 300, Scalar::I8), 44);
  p.expectInt(castI(Scalar::I32, -129, Scalar::I8), 127);
  p.expectInt(castI(Scalar::I32, 2, Scalar::I1), 1);
  p.expectInt(castI(Scalar::I32, 0, Scalar::I1), 0);
  p.expectInt(castI(Scalar::I1, 1, Scalar::I32), 1);
  p.expectInt(castI(Scalar::I8, -1, Scalar::I64), -1);
  p.expectInt(castI(Scalar::I64, 0x12345, Scalar::I16), 0x2345);
  // int -> float: one rounding (the i64 -> bf16 case needs the sticky bit)
  p.expectFloat(castI(Scalar::I64, 70000, Scalar::F16), INFINITY);
  p.expectFloat(castI(Scalar::I32, 16777217, Scalar::F32), 16777216.0);
  p.expectFloat(castI(Scalar::I64, (int64_t(1) << 62) + (int64_t(1) << 54) + 1, Scalar::BF16),
                std::ldexp(1.0 + 1.0 / 128, 62));
  p.expectFloat(castI(Scalar::I64, -((int64_t(1) << 62) + (int64_t(1) << 54)), Scalar::BF16), -std::ldexp(1.0, 62));
  p.expectFloat(castI(Scalar::I1, 1, Scalar::F32), 1.0);
  // float -> float: round to nearest even, once
  p.expectFloat(cast(Scalar::F64, 1 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40), Scalar::F16),
                1 + std::ldexp(1.0, -10));
  p.expectFloat(cast(Scalar::F64, 0.1, Scalar::F32), double(0.1f));
  p.expectFloat(cast(Scalar::F64, 1e300, Scalar::F32), INFINITY);
  p.expectFloat(cast(Scalar::F32, 0.1, Scalar::F64), double(0.1f));
  p.expectFloat(cast(Scalar::F16, 65504, Scalar::BF16), 65536.0);
  p.expectFloat(cast(Scalar::F32, 1e-8, Scalar::F16), 0.0);
  p.expectFloat(cast(Scalar::F32, 6e-8, Scalar::F16), std::ldexp(1.0, -24));
  p.expectFloat(cast(Scalar::F32, -kNaN, Scalar::BF16), kNaN);
  p.runAndCheck();
}

TEST(InterpSemantics, IntegerArithmeticWrapsAndNeverTraps) {
  Probe p;
  auto bin = [&](Opcode op, Scalar k, int64_t a, int64_t b) { return p.k.b.binary(op, p.ci(k, a), p.ci(k, b)); };
  auto un = [&](Opcode op, Scalar k, int64_t a) { return p.k.b.unary(op, p.ci(k, a)); };
  p.expectInt(bin(Opcode::Add, Scalar::I8, 100, 100), -56);
  p.expectInt(bin(Opcode::Mul, Scalar::I8, 16, 16), 0);
  p.expectInt(bin(Opcode::Sub, Scalar::I16, -32768, 1), 32767);
  p.expectInt(bin(Opcode::Div, Scalar::I32, INT32_MIN, -1), INT32_MIN);
  p.expectInt(bin(Opcode::Rem, Scalar::I32, INT32_MIN, -1), 0);
  p.expectInt(bin(Opcode::Div, Scalar::I64, INT64_MIN, -1), INT64_MIN);
  p.expectInt(bin(Opcode::Rem, Scalar::I64, INT64_MIN, -1), 0);
  p.expectInt(bin(Opcode::Add, Scalar::I64, INT64_MAX, 1), INT64_MIN);
  p.expectInt(bin(Opcode::Mul, Scalar::I64, INT64_MIN, -1), INT64_MIN);
  p.expectInt(bin(Opcode::Div, Scalar::I32, -7, 2), -3);
  p.expectInt(bin(Opcode::Rem, Scalar::I32, -7, 2), -1);
  p.expectInt(bin(Opcode::Rem, Scalar::I32, 7, -2), 1);
  // by zero: -1 and the dividend (docs/IR.md)
  p.expectInt(bin(Opcode::Div, Scalar::I32, 7, 0), -1);
  p.expectInt(bin(Opcode::Div, Scalar::I8, -100, 0), -1);
  p.expectInt(bin(Opcode::Div, Scalar::I64, INT64_MIN, 0), -1);
  p.expectInt(bin(Opcode::Rem, Scalar::I32, -7, 0), -7);
  p.expectInt(bin(Opcode::Rem, Scalar::I16, 1234, 0), 1234);
  // shift amounts of the bit width or more (read unsigned) shift every bit
  // out: 0, or the sign for shr (PTX's and numpy's shifts, so Triton's)
  p.expectInt(bin(Opcode::Shl, Scalar::I32, 1, 33), 0);
  p.expectInt(bin(Opcode::Shl, Scalar::I32, 1, 32), 0);
  p.expectInt(bin(Opcode::Shl, Scalar::I32, 1, 31), INT32_MIN);
  p.expectInt(bin(Opcode::Shl, Scalar::I32, 1, -1), 0);
  p.expectInt(bin(Opcode::Shl, Scalar::I64, 1, 65), 0);
  p.expectInt(bin(Opcode::Shl, Scalar::I64, 3, 64), 0);
  p.expectInt(bin(Opcode::Shl, Scalar::I8, 3, 7), -128);
  p.expectInt(bin(Opcode::Shl, Scalar::I8, 3, 8), 0);
  p.expectInt(bin(Opcode::Shr, Scalar::I32, -8, 1), -4);
  p.expectInt(bin(Opcode::Shr, Scalar::I32, -1, 31), -1);
  p.expectInt(bin(Opcode::Shr, Scalar::I32, -5, 32), -1);
  p.expectInt(bin(Opcode::Shr, Scalar::I32, 5, 40), 0);
  p.expectInt(bin(Opcode::Shr, Scalar::I64, INT64_MIN, 63), -1);
  p.expectInt(bin(Opcode::Shr, Scalar::I64, INT64_MIN, 200), -1);
  p.expectInt(bin(Opcode::Shr, Scalar::I8, -128, 9), -1);
  p.expectInt(bin(Opcode::Shr, Scalar::I8, 100, -3), 0);
  p.expectInt(bin(Opcode::Max, Scalar::I32, -3, 2), 2);
  p.expectInt(bin(Opcode::Min, Scalar::I32, -3, 2), -3);
  p.expectInt(bin(Opcode::And, Scalar::I32, -1, 0xf0), 0xf0);
  p.expectInt(bin(Opcode::Or, Scalar::I8, 0x70, -128), -16);
  p.expectInt(bin(Opcode::Xor, Scalar::I32, -1, 5), -6);
  p.expectInt(un(Opcode::Neg, Scalar::I32, INT32_MIN), INT32_MIN);
  p.expectInt(un(Opcode::Abs, Scalar::I32, INT32_MIN), INT32_MIN);
  p.expectInt(un(Opcode::Abs, Scalar::I64, -5), 5);
  p.expectInt(un(Opcode::Not, Scalar::I32, 5), -6);
  p.expectInt(un(Opcode::Not, Scalar::I1, 1), 0);
  p.expectInt(bin(Opcode::Add, Scalar::I1, 1, 1), 0);
  p.expectInt(bin(Opcode::And, Scalar::I1, 1, 1), 1);
  p.expectInt(p.k.b.cmp(CmpPred::Lt, p.ci(Scalar::I32, -1), p.ci(Scalar::I32, 1)), 1);  // signed
  p.expectInt(p.k.b.cmp(CmpPred::Gt, p.ci(Scalar::I8, 127), p.ci(Scalar::I8, -128)), 1);
  p.expectInt(p.k.b.cmp(CmpPred::Le, p.ci(Scalar::I64, 4), p.ci(Scalar::I64, 4)), 1);
  p.runAndCheck();
}

// Tiles divided by loaded divisors, some zero (lanes masked off with
// other=0 in Triton kernels as users write them): no error; -1 and the
// dividend there, C's truncating division elsewhere.
TEST(InterpSemantics, IntegerDivisionByZeroGivesMinusOneAndTheDividend) {
  INTERP_TEST_RNG();
  for (Opcode op : {Opcode::Div, Opcode::Rem, Opcode::UDiv, Opcode::URem}) {
    Kernel k("divide");
    ir::Value* x = k.ptrParam(Scalar::I32, "x");
    ir::Value* y = k.ptrParam(Scalar::I32, "y");
    ir::Value* out = k.ptrParam(Scalar::I32, "out");
    ir::Value* offs = k.b.range(0, 64);
    k.b.store(k.pointers(out, offs), k.b.binary(op, k.b.load(k.pointers(x, offs)), k.b.load(k.pointers(y, offs))));
    k.b.ret();
    std::vector<int32_t> xs = randomInts<int32_t>(rng, 64, -100000, 100000);
    std::vector<int32_t> ys = randomInts<int32_t>(rng, 64, -50, 50);
    for (size_t i = 0; i < 64; i += 5) ys[i] = 0;
    interp::Buffer X = makeBuffer("x", xs), Y = makeBuffer("y", ys), O = poisoned("out", Scalar::I32, 64);
    k.run({1}, {buf(X), buf(Y), buf(O)});
    const std::vector<int32_t> got = contents<int32_t>(O);
    for (size_t i = 0; i < 64; ++i) {
      const int32_t a = xs[i], b = ys[i];
      const uint32_t ua = uint32_t(a), ub = uint32_t(b);
      int32_t want = 0;
      switch (op) {
        case Opcode::Div: want = b == 0 ? -1 : a / b; break;
        case Opcode::Rem: want = b == 0 ? a : a % b; break;
        case Opcode::UDiv: want = b == 0 ? -1 : int32_t(ua / ub); break;
        default: want = b == 0 ? a : int32_t(ua % ub); break;
      }
      EXPECT_EQ(got[i], want) << ir::opcodeName(op) << " " << a << ", " << b;
    }
  }
}

// fma rounds x * y + z once: (1 + e)^2 - (1 + 2e) is e^2, which a multiply
// rounded before the add loses (e^2 is below half an ulp of 1).
TEST(InterpSemantics, FmaRoundsOnce) {
  Probe p;
  auto fma = [&](Scalar k, double x, double y, double z) { return p.k.b.fma(p.c(k, x), p.c(k, y), p.c(k, z)); };
  auto mulAdd = [&](Scalar k, double x, double y, double z) {
    return p.k.b.binary(Opcode::Add, p.k.b.binary(Opcode::Mul, p.c(k, x), p.c(k, y)), p.c(k, z));
  };
  const double e32 = std::ldexp(1.0, -12), e64 = std::ldexp(1.0, -27), e16 = std::ldexp(1.0, -6);
  p.expectFloat(fma(Scalar::F32, 1 + e32, 1 + e32, -(1 + 2 * e32)), e32 * e32);
  p.expectFloat(mulAdd(Scalar::F32, 1 + e32, 1 + e32, -(1 + 2 * e32)), 0.0);
  p.expectFloat(fma(Scalar::F64, 1 + e64, 1 + e64, -(1 + 2 * e64)), e64 * e64);
  p.expectFloat(fma(Scalar::F16, 1 + e16, 1 + e16, -(1 + 2 * e16)), e16 * e16);
  p.expectFloat(mulAdd(Scalar::F16, 1 + e16, 1 + e16, -(1 + 2 * e16)), 0.0);
  p.expectFloat(fma(Scalar::BF16, 3, 5, -0.5), 14.5);
  p.expectFloat(fma(Scalar::F32, 1e30, 1e30, 1), INFINITY);
  p.runAndCheck();
}

TEST(InterpSemantics, FloatRoundingAndNaNs) {
  Probe p;
  auto bin = [&](Opcode op, Scalar k, double a, double b) { return p.k.b.binary(op, p.c(k, a), p.c(k, b)); };
  auto un = [&](Opcode op, Scalar k, double a) { return p.k.b.unary(op, p.c(k, a)); };
  auto cmp = [&](CmpPred pr, double a, double b) { return p.k.b.cmp(pr, p.c(Scalar::F32, a), p.c(Scalar::F32, b)); };
  p.expectFloat(bin(Opcode::Add, Scalar::F32, 0.1, 0.2), double(0.1f + 0.2f));
  p.expectFloat(bin(Opcode::Mul, Scalar::F32, 0.1, 3), double(0.1f * 3.0f));
  p.expectFloat(bin(Opcode::Div, Scalar::F32, 1, 3), double(1.0f / 3.0f));
  p.expectFloat(bin(Opcode::Add, Scalar::F64, 0.1, 0.2), 0.1 + 0.2);
  const float h1 = halfToFloat(floatToHalf(0.1f)), h2 = halfToFloat(floatToHalf(0.2f));
  p.expectFloat(bin(Opcode::Add, Scalar::F16, 0.1, 0.2), halfToFloat(floatToHalf(h1 + h2)));
  p.expectFloat(bin(Opcode::Add, Scalar::F16, 65504, 65504), INFINITY);
  p.expectFloat(bin(Opcode::Mul, Scalar::F32, 1e30, -1e30), -INFINITY);
  const float b1 = bf16ToFloat(floatToBf16(1.1f)), b2 = bf16ToFloat(floatToBf16(3.3f));
  p.expectFloat(bin(Opcode::Mul, Scalar::BF16, 1.1, 3.3), bf16ToFloat(floatToBf16(b1 * b2)));
  p.expectFloat(bin(Opcode::Div, Scalar::F32, 1, 0), INFINITY);
  p.expectFloat(bin(Opcode::Div, Scalar::F32, -1, 0), -INFINITY);
  p.expectFloat(bin(Opcode::Div, Scalar::F32, 0, 0), kNaN);
  p.expectFloat(bin(Opcode::Rem, Scalar::F32, 5.5, 2), 1.5);
  p.expectFloat(bin(Opcode::Rem, Scalar::F32, -5.5, 2), -1.5);
  p.expectFloat(bin(Opcode::Max, Scalar::F32, kNaN, 1), kNaN);
  p.expectFloat(bin(Opcode::Max, Scalar::F32, 1, kNaN), kNaN);
  p.expectFloat(bin(Opcode::Min, Scalar::F32, 1, kNaN), kNaN);
  p.expectFloat(bin(Opcode::Max, Scalar::F32, -0.0, 0.0), 0.0);
  p.expectFloat(bin(Opcode::Max, Scalar::F32, 0.0, -0.0), 0.0);
  p.expectFloat(bin(Opcode::Min, Scalar::F32, 0.0, -0.0), -0.0);
  p.expectFloat(bin(Opcode::Min, Scalar::F64, -2, 3), -2.0);
  // maxnum/minnum ignore a NaN operand, and order -0 < +0 too
  p.expectFloat(bin(Opcode::MaxNum, Scalar::F32, kNaN, 1), 1.0);
  p.expectFloat(bin(Opcode::MaxNum, Scalar::F32, 1, kNaN), 1.0);
  p.expectFloat(bin(Opcode::MinNum, Scalar::F16, kNaN, -3), -3.0);
  p.expectFloat(bin(Opcode::MaxNum, Scalar::F32, kNaN, kNaN), kNaN);
  p.expectFloat(bin(Opcode::MaxNum, Scalar::F32, -0.0, 0.0), 0.0);
  p.expectFloat(bin(Opcode::MinNum, Scalar::F64, 0.0, -0.0), -0.0);
  p.expectFloat(bin(Opcode::MinNum, Scalar::F32, 2, -5), -5.0);
  p.expectFloat(un(Opcode::Neg, Scalar::F32, 0.0), -0.0);
  p.expectFloat(un(Opcode::Abs, Scalar::F32, -3), 3.0);
  p.expectFloat(un(Opcode::Floor, Scalar::F32, -1.5), -2.0);
  p.expectFloat(un(Opcode::Ceil, Scalar::F32, -1.5), -1.0);
  p.expectFloat(un(Opcode::Rsqrt, Scalar::F32, 4), 0.5);
  p.expectFloat(un(Opcode::Sqrt, Scalar::F32, 2), double(float(std::sqrt(2.0))));
  p.expectFloat(un(Opcode::Sqrt, Scalar::F32, -1), kNaN);
  p.expectFloat(un(Opcode::Exp, Scalar::F32, 1), double(float(std::exp(1.0))));
  p.expectFloat(un(Opcode::Exp, Scalar::F16, 1), halfToFloat(doubleToHalf(std::exp(1.0))));
  p.expectFloat(un(Opcode::Log, Scalar::F32, 0), -INFINITY);
  p.expectFloat(un(Opcode::Tanh, Scalar::F64, 0.5), std::tanh(0.5));
  p.expectFloat(un(Opcode::Sin, Scalar::F32, 1), double(float(std::sin(1.0))));
  p.expectFloat(un(Opcode::Cos, Scalar::F32, 1), double(float(std::cos(1.0))));
  // ordered comparisons are false on NaN; ne is true
  p.expectInt(cmp(CmpPred::Ne, kNaN, kNaN), 1);
  p.expectInt(cmp(CmpPred::Eq, kNaN, kNaN), 0);
  p.expectInt(cmp(CmpPred::Lt, kNaN, 1), 0);
  p.expectInt(cmp(CmpPred::Ge, kNaN, 1), 0);
  p.expectInt(cmp(CmpPred::Lt, 1, 2), 1);
  p.expectInt(cmp(CmpPred::Eq, -0.0, 0.0), 1);
  p.expectInt(p.k.b.select(p.k.module.constBool(true), p.ci(Scalar::I32, 7), p.ci(Scalar::I32, 9)), 7);
  p.expectInt(p.k.b.select(p.k.module.constBool(false), p.ci(Scalar::I32, 7), p.ci(Scalar::I32, 9)), 9);
  p.runAndCheck();
}

// Integers read as unsigned (udiv ... umin, cmp ult ..., ucast) and
// bitcasts: the expected values are the unsigned arithmetic of C++.
TEST(InterpSemantics, UnsignedIntegersAndBitcasts) {
  Probe p;
  auto bin = [&](Opcode op, Scalar k, int64_t a, int64_t b) { return p.k.b.binary(op, p.ci(k, a), p.ci(k, b)); };
  auto cmp = [&](CmpPred pr, Scalar k, int64_t a, int64_t b) { return p.k.b.cmp(pr, p.ci(k, a), p.ci(k, b)); };
  auto ucast = [&](Scalar from, int64_t v, Scalar to) { return p.k.b.unsignedCast(p.ci(from, v), Type::scalar(to)); };
  auto ucastF = [&](Scalar from, double v, Scalar to) { return p.k.b.unsignedCast(p.c(from, v), Type::scalar(to)); };
  // Results are held as the bits of their width (an i8 of 200 reads as -56).
  p.expectInt(bin(Opcode::UDiv, Scalar::I8, -1, 3), int8_t(uint8_t(255 / 3)));
  p.expectInt(bin(Opcode::URem, Scalar::I8, -56, 7), int8_t(uint8_t(200 % 7)));
  p.expectInt(bin(Opcode::UDiv, Scalar::I32, -2, 2), int32_t(0xFFFFFFFEu / 2));
  p.expectInt(bin(Opcode::URem, Scalar::I32, -1, 10), int32_t(0xFFFFFFFFu % 10));
  p.expectInt(bin(Opcode::UDiv, Scalar::I64, -1, 3), int64_t(UINT64_MAX / 3));
  p.expectInt(bin(Opcode::URem, Scalar::I64, INT64_MIN, 7), int64_t((uint64_t(1) << 63) % 7));
  p.expectInt(bin(Opcode::UDiv, Scalar::I16, 7, -1), 0);  // 7 / 65535
  p.expectInt(bin(Opcode::UDiv, Scalar::I8, 5, 0), -1);   // by zero: every bit set
  p.expectInt(bin(Opcode::UDiv, Scalar::I64, 5, 0), -1);
  p.expectInt(bin(Opcode::URem, Scalar::I32, -9, 0), -9);  // and the dividend
  p.expectInt(bin(Opcode::UShr, Scalar::I32, -8, 1), int32_t(0xFFFFFFF8u >> 1));
  p.expectInt(bin(Opcode::UShr, Scalar::I8, -128, 7), 1);
  p.expectInt(bin(Opcode::UShr, Scalar::I8, -128, 9), 0);  // 9 >= 8: every bit out
  p.expectInt(bin(Opcode::UShr, Scalar::I32, -1, 32), 0);
  p.expectInt(bin(Opcode::UShr, Scalar::I64, -1, -3), 0);
  p.expectInt(bin(Opcode::UShr, Scalar::I64, -1, 60), 15);
  p.expectInt(bin(Opcode::UMax, Scalar::I32, -1, 5), -1);
  p.expectInt(bin(Opcode::UMin, Scalar::I32, -1, 5), 5);
  p.expectInt(bin(Opcode::UMax, Scalar::I8, 127, -128), -128);
  p.expectInt(bin(Opcode::UMin, Scalar::I64, INT64_MIN, INT64_MAX), INT64_MAX);
  p.expectInt(cmp(CmpPred::Ult, Scalar::I32, 1, -1), 1);
  p.expectInt(cmp(CmpPred::Lt, Scalar::I32, 1, -1), 0);
  p.expectInt(cmp(CmpPred::Uge, Scalar::I8, -128, 127), 1);
  p.expectInt(cmp(CmpPred::Ugt, Scalar::I64, 0, -1), 0);
  p.expectInt(cmp(CmpPred::Ule, Scalar::I16, 5, 5), 1);
  // ucast: integers zero-extend; to floats as unsigned; floats saturate to [0, 2^n - 1]
  p.expectInt(ucast(Scalar::I8, -1, Scalar::I32), 255);
  p.expectInt(ucast(Scalar::I32, -1, Scalar::I64), int64_t(0xFFFFFFFFu));
  p.expectInt(ucast(Scalar::I16, -2, Scalar::I8), -2);  // narrowing truncates, as cast
  p.expectInt(ucast(Scalar::I1, 1, Scalar::I32), 1);
  p.expectFloat(ucast(Scalar::I32, -1, Scalar::F64), 4294967295.0);
  p.expectFloat(ucast(Scalar::I32, -1, Scalar::F32), 4294967296.0);
  p.expectFloat(ucast(Scalar::I64, -1, Scalar::F64), 18446744073709551616.0);
  p.expectFloat(ucast(Scalar::I8, -1, Scalar::F16), 255.0);
  p.expectFloat(ucast(Scalar::I64, int64_t((uint64_t(1) << 63) + (uint64_t(1) << 55) + 1), Scalar::BF16),
                std::ldexp(1.0 + 1.0 / 128, 63));  // one rounding, the sticky bit counted
  p.expectInt(ucastF(Scalar::F32, -3.5, Scalar::I32), 0);
  p.expectInt(ucastF(Scalar::F32, 3e9, Scalar::I32), int32_t(3000000000u));
  p.expectInt(ucastF(Scalar::F32, 1e10, Scalar::I32), -1);  // 2^32 - 1
  p.expectInt(ucastF(Scalar::F32, 300.7, Scalar::I8), -1);  // 255
  p.expectInt(ucastF(Scalar::F64, 1e30, Scalar::I64), -1);
  p.expectInt(ucastF(Scalar::F64, 1.8e19, Scalar::I64), int64_t(uint64_t(1.8e19)));
  p.expectInt(ucastF(Scalar::F32, kNaN, Scalar::I16), 0);
  p.expectInt(ucastF(Scalar::F16, 200.5, Scalar::I8), int8_t(uint8_t(200)));
  // bitcast: the same bits
  float f = -2.5f;
  int32_t fbits;
  std::memcpy(&fbits, &f, 4);
  p.expectInt(p.k.b.bitcast(p.c(Scalar::F32, -2.5), Type::scalar(Scalar::I32)), fbits);
  p.expectFloat(p.k.b.bitcast(p.ci(Scalar::I32, fbits), Type::scalar(Scalar::F32)), -2.5);
  p.expectInt(p.k.b.bitcast(p.c(Scalar::F16, 1.0), Type::scalar(Scalar::I16)), 0x3C00);
  p.expectFloat(p.k.b.bitcast(p.ci(Scalar::I16, -16384), Type::scalar(Scalar::F16)), -2.0);  // 0xC000
  p.expectFloat(p.k.b.bitcast(p.c(Scalar::F16, 1.0), Type::scalar(Scalar::BF16)), bf16ToFloat(0x3C00));
  p.expectInt(p.k.b.bitcast(p.c(Scalar::F64, 1.0), Type::scalar(Scalar::I64)), int64_t(0x3FF0000000000000));
  p.runAndCheck();
}

// Pointers: reinterpreting casts, and byte arithmetic through i64.
TEST(InterpSemantics, PointerCasts) {
  Kernel k("ptrs");
  ir::Value* a = k.ptrParam(Scalar::F32, "a");
  ir::Value* bits = k.ptrParam(Scalar::I32, "bits");
  ir::Value* third = k.ptrParam(Scalar::F32, "third");
  ir::Value* asInt = k.b.cast(a, Type::pointer(Scalar::I32));
  k.b.store(bits, k.b.load(k.b.gep(asInt, k.b.i32(1))));
  ir::Value* addr = k.b.binary(Opcode::Add, k.b.cast(a, Type::scalar(Scalar::I64)), k.b.i64(8));
  k.b.store(third, k.b.load(k.b.cast(addr, Type::pointer(Scalar::F32))));
  k.b.ret();
  interp::Buffer A = makeBuffer<float>("a", {1.0f, -2.5f, 7.25f});
  interp::Buffer B = poisoned("bits", Scalar::I32, 1), T = poisoned("third", Scalar::F32, 1);
  k.run({1}, {buf(A), buf(B), buf(T)});
  float f = -2.5f;
  int32_t expectedBits;
  std::memcpy(&expectedBits, &f, 4);
  EXPECT_EQ(contents<int32_t>(B)[0], expectedBits);
  EXPECT_EQ(contents<float>(T)[0], 7.25f);
}

// f32 tiles cast to f16 / bf16 and f16 tile arithmetic, against float16.h.
TEST(InterpSemantics, HalfTilesRoundLikeFloat16) {
  INTERP_TEST_RNG();
  const int64_t n = 256;
  Kernel k("halves");
  ir::Value* x = k.ptrParam(Scalar::F32, "x");
  ir::Value* h = k.ptrParam(Scalar::F16, "h");
  ir::Value* bf = k.ptrParam(Scalar::BF16, "bf");
  ir::Value* hsum = k.ptrParam(Scalar::F16, "hsum");
  ir::Value* bprod = k.ptrParam(Scalar::BF16, "bprod");
  ir::Value* offs = k.b.range(0, n);
  ir::Value* vx = k.b.load(k.pointers(x, offs));
  ir::Value* vh = k.b.cast(vx, Type::scalar(Scalar::F16).withShape({n}));
  ir::Value* vb = k.b.cast(vx, Type::scalar(Scalar::BF16).withShape({n}));
  k.b.store(k.pointers(h, offs), vh);
  k.b.store(k.pointers(bf, offs), vb);
  // x[i] + x[n-1-i] in f16, and x[i] * x[n-1-i] in bf16
  ir::Value* rev = k.b.binary(Opcode::Sub, k.b.splat(k.b.i32(n - 1), {n}), offs);
  ir::Value* vxr = k.b.load(k.pointers(x, rev));
  k.b.store(k.pointers(hsum, offs),
            k.b.binary(Opcode::Add, vh, k.b.cast(vxr, Type::scalar(Scalar::F16).withShape({n}))));
  k.b.store(k.pointers(bprod, offs),
            k.b.binary(Opcode::Mul, vb, k.b.cast(vxr, Type::scalar(Scalar::BF16).withShape({n}))));
  k.b.ret();

  // Magnitudes from half subnormals to beyond its range.
  std::vector<float> xs;
  std::uniform_real_distribution<float> mant(1, 2);
  std::uniform_int_distribution<int> ex(-27, 17);
  for (int64_t i = 0; i < n; ++i) xs.push_back((i % 2 ? -1 : 1) * std::ldexp(mant(rng), ex(rng)));
  interp::Buffer X = makeBuffer("x", xs);
  interp::Buffer H = poisoned("h", Scalar::F16, n), BF = poisoned("bf", Scalar::BF16, n);
  interp::Buffer HS = poisoned("hsum", Scalar::F16, n), BP = poisoned("bprod", Scalar::BF16, n);
  k.run({1}, {buf(X), buf(H), buf(BF), buf(HS), buf(BP)});
  const auto hv = contents<uint16_t>(H), bv = contents<uint16_t>(BF);
  const auto hs = contents<uint16_t>(HS), bp = contents<uint16_t>(BP);
  for (size_t i = 0; i < size_t(n); ++i) {
    const size_t r = size_t(n) - 1 - i;
    ASSERT_EQ(hv[i], floatToHalf(xs[i])) << xs[i];
    ASSERT_EQ(bv[i], floatToBf16(xs[i])) << xs[i];
    const float sum = halfToFloat(floatToHalf(xs[i])) + halfToFloat(floatToHalf(xs[r]));
    if (std::isnan(sum)) {
      ASSERT_TRUE(std::isnan(halfToFloat(hs[i])));
    } else {
      ASSERT_EQ(hs[i], floatToHalf(sum)) << xs[i] << " + " << xs[r];
    }
    ASSERT_EQ(bp[i], floatToBf16(bf16ToFloat(floatToBf16(xs[i])) * bf16ToFloat(floatToBf16(xs[r]))));
  }
}
