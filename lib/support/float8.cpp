#include "support/float8.h"

#include <cmath>

namespace tritonc {

namespace {

// The format: exponent and fraction bits, bias, and whether the all-ones
// exponent holds infinities and NaNs (e5m2) or ordinary values (e4m3, whose
// only NaN is the all-ones pattern).
struct Format {
  int expBits, fracBits, bias;
  bool ieee;
  double maxFinite;
};
constexpr Format kE4m3{4, 3, 7, false, 448.0};
constexpr Format kE5m2{5, 2, 15, true, 57344.0};

double decode(uint8_t b, const Format& f) {
  const bool negative = b & 0x80;
  const int e = (b >> f.fracBits) & ((1 << f.expBits) - 1);
  const int m = b & ((1 << f.fracBits) - 1);
  const int allOnes = (1 << f.expBits) - 1;
  double v;
  if (f.ieee && e == allOnes) v = m ? NAN : INFINITY;
  else if (!f.ieee && e == allOnes && m == (1 << f.fracBits) - 1) v = NAN;
  else if (e == 0) v = std::ldexp(double(m), 1 - f.bias - f.fracBits);
  else v = std::ldexp(double((1 << f.fracBits) | m), e - f.bias - f.fracBits);
  return negative ? -v : v;
}

uint8_t encode(double d, const Format& f) {
  const uint8_t sign = std::signbit(d) ? 0x80 : 0;
  if (std::isnan(d)) return sign | 0x7f;
  double a = std::fabs(d);
  if (a >= f.maxFinite) a = f.maxFinite;  // satfinite, infinities too
  // The spacing of representable values around `a`: 2^(e - fracBits) for a
  // in [2^e, 2^(e+1)), never below the subnormals' spacing.
  const int minExp = 1 - f.bias;
  int e = a == 0 ? minExp : std::ilogb(a);
  if (e < minExp) e = minExp;
  const double ulp = std::ldexp(1.0, e - f.fracBits);
  // Round to nearest, ties to even: nearbyint in the default rounding mode.
  double q = std::nearbyint(a / ulp);  // a / ulp is exact (a power-of-two scale)
  double r = q * ulp;
  if (r > f.maxFinite) r = f.maxFinite;
  // Re-encode r, exactly representable now.
  if (r == 0) return sign;
  int re = std::ilogb(r);
  if (re < minExp) {  // subnormal: exponent field 0
    return sign | uint8_t(std::lround(r / std::ldexp(1.0, minExp - f.fracBits)));
  }
  const int frac = int(std::lround(r / std::ldexp(1.0, re - f.fracBits))) - (1 << f.fracBits);
  return sign | uint8_t((re + f.bias) << f.fracBits) | uint8_t(frac);
}

}  // namespace

uint8_t doubleToE4m3(double d) { return encode(d, kE4m3); }
uint8_t doubleToE5m2(double d) { return encode(d, kE5m2); }
double e4m3ToDouble(uint8_t b) { return decode(b, kE4m3); }
double e5m2ToDouble(uint8_t b) { return decode(b, kE5m2); }

}  // namespace tritonc
