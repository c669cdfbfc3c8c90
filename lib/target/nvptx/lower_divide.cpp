// Integer division and remainder by a constant, as shifts or a multiply-high.
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

int log2Of(int64_t d) {
  int k = 0;
  while ((int64_t(1) << k) < d) ++k;
  return k;
}

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

}  // namespace tritonc::nvptx
