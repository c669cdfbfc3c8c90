// Divisions that PTX does badly or not at all: integer division and
// remainder by a constant (shifts or a multiply-high), and float remainder.
//
// ptxas expands every div.s32/rem.s32 into the generic sequence (a
// reciprocal through the float unit, then a dozen dependent integer
// instructions), even when the divisor is an immediate 4. C's division
// truncates toward zero, the remainder takes the dividend's sign; for a
// divisor d > 0:
//   - d = 2^k: add d - 1 to a negative dividend, then shift right by k
//     (arithmetic); the remainder is a - ((a + bias) & -d);
//   - otherwise: the quotient is mulhi(a, M) (+ a when M is negative as a
//     signed number) shifted right by s, plus 1 for a negative dividend,
//     with M and s from the divisor (Warren, Hacker's Delight, section 10-4:
//     the least s for which M = ceil(2^(W-1+s) / d) is exact for every
//     dividend of W bits); the remainder is a - q * d.
// Other divisors (negative, zero) keep the generic instruction.
//
// Float remainder (C's fmod, the result with the dividend's sign): in f64,
// the quotient truncated, then x - q * y in one fma, which is exact when q
// is the truncated quotient; where the division rounded q up past it, the
// result's sign differs from x's and one |y| (with x's sign) puts it back.
// f32 (and f16, bf16, computed in f32) is exact for quotients below 2^53,
// f64 too; beyond that q itself is rounded and so is the result.
#include "target/nvptx/lowering.h"

namespace tritonc::nvptx {

namespace {

template <typename U>
SignedMagic magicOf(U d) {
  constexpr int kBits = int(sizeof(U) * 8);
  const U top = U(1) << (kBits - 1);     // 2^(W-1)
  const U anc = top - 1 - top % d;       // the largest dividend with remainder d - 1, below 2^(W-1)
  int p = kBits - 1;
  U q1 = top / anc, r1 = top - q1 * anc;  // 2^p = q1 * anc + r1
  U q2 = top / d, r2 = top - q2 * d;      // 2^p = q2 * d + r2
  U delta;
  do {
    ++p;
    q1 *= 2, r1 *= 2;
    if (r1 >= anc) ++q1, r1 -= anc;
    q2 *= 2, r2 *= 2;
    if (r2 >= d) ++q2, r2 -= d;
    delta = d - r2;  // ceil(2^p / d) * d - 2^p
  } while (q1 < delta || (q1 == delta && r1 == 0));
  SignedMagic m;
  m.multiplier = kBits == 32 ? int64_t(int32_t(uint32_t(q2 + 1))) : int64_t(uint64_t(q2 + 1));
  m.shift = p - kBits;
  return m;
}

bool isPowerOfTwo(int64_t d) { return d > 0 && (d & (d - 1)) == 0; }


}  // namespace

SignedMagic signedMagic(int64_t d, int bits) {
  return bits == 32 ? magicOf<uint32_t>(uint32_t(d)) : magicOf<uint64_t>(uint64_t(d));
}

bool FunctionLowering::lowerDivideByConstant(bool remainder, int bits, const std::string& a, int64_t d,
                                             const std::string& r) {
  const int64_t limit = bits == 32 ? (int64_t(1) << 31) : INT64_MAX;
  if (d <= 0 || d >= limit) return false;
  const std::string w = std::to_string(bits);
  const std::string s = ".s" + w + " ", u = ".u" + w + " ", b = ".b" + w + " ";
  RegClass c = bits == 32 ? RegClass::B32 : RegClass::B64;
  if (d == 1) {
    emit("mov" + b + r + ", " + (remainder ? std::string("0") : a) + ";");
    return true;
  }
  if (isPowerOfTwo(d)) {
    int k = log2Of(d);
    std::string sign = newReg(c), biased = newReg(c);
    emit("shr" + s + sign + ", " + a + ", " + std::to_string(bits - 1) + ";");  // -1 or 0
    emit("shr" + u + sign + ", " + sign + ", " + std::to_string(bits - k) + ";");  // d - 1 or 0
    emit("add" + s + biased + ", " + a + ", " + sign + ";");
    if (!remainder) {
      emit("shr" + s + r + ", " + biased + ", " + std::to_string(k) + ";");
    } else {
      std::string rounded = newReg(c);
      emit("and" + b + rounded + ", " + biased + ", " + std::to_string(-d) + ";");
      emit("sub" + s + r + ", " + a + ", " + rounded + ";");
    }
    return true;
  }
  SignedMagic m = signedMagic(d, bits);
  std::string q = newReg(c), negative = newReg(c);
  emit("mul.hi" + s + q + ", " + a + ", " + std::to_string(m.multiplier) + ";");
  if (m.multiplier < 0) emit("add" + s + q + ", " + q + ", " + a + ";");
  if (m.shift > 0) emit("shr" + s + q + ", " + q + ", " + std::to_string(m.shift) + ";");
  emit("shr" + u + negative + ", " + a + ", " + std::to_string(bits - 1) + ";");
  if (!remainder) {
    emit("add" + s + r + ", " + q + ", " + negative + ";");
  } else {
    std::string quotient = newReg(c), product = newReg(c);
    emit("add" + s + quotient + ", " + q + ", " + negative + ";");
    emit("mul.lo" + s + product + ", " + quotient + ", " + std::to_string(d) + ";");
    emit("sub" + s + r + ", " + a + ", " + product + ";");
  }
  return true;
}

void FunctionLowering::lowerFloatRemainder(ir::Scalar k, const std::string& a, const std::string& b,
                                           const std::string& r) {
  const bool single = k == ir::Scalar::F32;
  std::string x = a, y = b;
  if (single) {
    x = newReg(RegClass::F64), y = newReg(RegClass::F64);
    emit("cvt.f64.f32 " + x + ", " + a + ";");
    emit("cvt.f64.f32 " + y + ", " + b + ";");
  }
  std::string q = newReg(RegClass::F64), rem = newReg(RegClass::F64), sign = newReg(RegClass::F64);
  std::string magnitude = newReg(RegClass::F64), back = newReg(RegClass::F64);
  std::string over = newReg(RegClass::Pred);
  emit("div.rn.f64 " + q + ", " + x + ", " + y + ";");
  emit("cvt.rzi.f64.f64 " + q + ", " + q + ";");
  emit("neg.f64 " + q + ", " + q + ";");
  emit("fma.rn.f64 " + rem + ", " + q + ", " + y + ", " + x + ";");
  emit("mul.f64 " + sign + ", " + rem + ", " + x + ";");
  emit("setp.lt.f64 " + over + ", " + sign + ", 0d0000000000000000;");
  emit("abs.f64 " + magnitude + ", " + y + ";");
  emit("copysign.f64 " + back + ", " + x + ", " + magnitude + ";");
  emit("@" + over + " add.f64 " + rem + ", " + rem + ", " + back + ";");
  if (single) emit("cvt.rn.f32.f64 " + r + ", " + rem + ";");
  else emit("mov.f64 " + r + ", " + rem + ";");
}

}  // namespace tritonc::nvptx
