#include "support/float16.h"

#include <cmath>
#include <cstring>

namespace tritonc {

namespace {

// A binary floating-point format narrower than double.
struct Format {
  int fracBits;  // stored fraction bits
  int expBits;
  int bias() const { return (1 << (expBits - 1)) - 1; }
  uint32_t expMask() const { return ((1u << expBits) - 1) << fracBits; }
};
constexpr Format kHalf{10, 5};
constexpr Format kBf16{7, 8};

uint64_t bitsOf(double d) {
  uint64_t u;
  std::memcpy(&u, &d, sizeof u);
  return u;
}

// Encodes `d` in format `fmt` with one round-to-nearest-even step. Every
// double is m * 2^(e-52) with a 53-bit integer m; the target's quantum at
// exponent E = max(e, emin) is 2^(E - fracBits), so the encoded magnitude is
// m / 2^shift rounded, placed above the biased exponent field. A carry out of
// the fraction bumps the exponent (and turns the largest finite into inf).
uint16_t encode(double d, Format fmt) {
  const uint64_t bits = bitsOf(d);
  const uint32_t sign = uint32_t(bits >> 63) << (fmt.expBits + fmt.fracBits);
  const int rawExp = int((bits >> 52) & 0x7ff);
  const uint64_t frac = bits & ((uint64_t(1) << 52) - 1);
  if (rawExp == 0x7ff) {
    if (frac == 0) return uint16_t(sign | fmt.expMask());
    // NaN: keep the top payload bits and force the quiet bit so it stays NaN.
    uint32_t payload = uint32_t(frac >> (52 - fmt.fracBits));
    return uint16_t(sign | fmt.expMask() | payload | (1u << (fmt.fracBits - 1)));
  }
  // Double subnormals (< 2^-1022) are far below half a quantum of both
  // formats: they round to a signed zero, like zero itself.
  if (rawExp == 0) return uint16_t(sign);
  const int e = rawExp - 1023;
  const uint64_t m = frac | (uint64_t(1) << 52);
  const int emin = 1 - fmt.bias();
  if (e > fmt.bias()) return uint16_t(sign | fmt.expMask());  // beyond any rounding
  const int E = e < emin ? emin : e;
  const int shift = 52 - fmt.fracBits + (E - e);
  uint64_t q = 0;
  if (shift < 64) {
    q = m >> shift;
    const uint64_t rest = m & ((uint64_t(1) << shift) - 1);
    const uint64_t halfway = uint64_t(1) << (shift - 1);
    if (rest > halfway || (rest == halfway && (q & 1))) ++q;
  }
  uint64_t magnitude = (uint64_t(E + fmt.bias() - 1) << fmt.fracBits) + q;
  if (magnitude >= fmt.expMask()) magnitude = fmt.expMask();  // rounded up to inf
  return uint16_t(sign | uint32_t(magnitude));
}

float floatFromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

}  // namespace

uint16_t doubleToHalf(double d) { return encode(d, kHalf); }
uint16_t doubleToBf16(double d) { return encode(d, kBf16); }
// float -> double is exact, so this is still a single rounding.
uint16_t floatToHalf(float f) { return encode(double(f), kHalf); }
uint16_t floatToBf16(float f) { return encode(double(f), kBf16); }

float halfToFloat(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000) << 16;
  const uint32_t exp = (h >> 10) & 0x1f;
  const uint32_t frac = h & 0x3ff;
  if (exp == 0x1f) return floatFromBits(sign | 0x7f800000u | (frac << 13));
  if (exp == 0) {
    // Subnormal (or zero): frac * 2^-24 is exact in float.
    float mag = std::ldexp(float(frac), -24);
    return sign ? -mag : mag;
  }
  return floatFromBits(sign | ((exp - 15 + 127) << 23) | (frac << 13));
}

// bfloat16 is the top half of a float.
float bf16ToFloat(uint16_t b) { return floatFromBits(uint32_t(b) << 16); }

}  // namespace tritonc
