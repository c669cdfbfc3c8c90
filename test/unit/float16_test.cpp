// float <-> half / bfloat16 conversions (support/float16.h), checked
// exhaustively where the space is small and against a brute-force
// nearest-value oracle elsewhere.
#include "support/float16.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

using namespace tritonc;

namespace {

uint32_t bitsOf(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float floatOf(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
bool halfIsNan(uint16_t h) { return (h & 0x7c00) == 0x7c00 && (h & 0x3ff) != 0; }
bool bf16IsNan(uint16_t b) { return (b & 0x7f80) == 0x7f80 && (b & 0x7f) != 0; }

// The correctly rounded 16-bit pattern of `x`, by search over every finite
// non-negative value of the format (patterns are ordered like their values).
struct Oracle {
  std::vector<double> values;  // value of pattern p, for p = 0 .. largest finite
  uint16_t infBits;
  uint16_t signBit = 0x8000;

  template <class Decode>
  Oracle(Decode decode, uint16_t largestFinite, uint16_t inf) : infBits(inf) {
    for (uint32_t p = 0; p <= largestFinite; ++p) values.push_back(double(decode(uint16_t(p))));
  }
  uint16_t round(double x) const {
    const uint16_t sign = std::signbit(x) ? signBit : 0;
    const double a = std::fabs(x);
    const double maxv = values.back(), ulp = maxv - values[values.size() - 2];
    if (a >= maxv + ulp / 2) return uint16_t(sign | infBits);  // ties at the top go to inf (even)
    if (a >= maxv) return uint16_t(sign | (values.size() - 1));
    size_t i = size_t(std::upper_bound(values.begin(), values.end(), a) - values.begin()) - 1;
    const double down = a - values[i], up = values[i + 1] - a;
    size_t pick = down < up ? i : up < down ? i + 1 : (i % 2 == 0 ? i : i + 1);
    return uint16_t(sign | pick);
  }
};

const Oracle& halfOracle() {
  static const Oracle o(halfToFloat, 0x7bff, 0x7c00);
  return o;
}
const Oracle& bf16Oracle() {
  static const Oracle o(bf16ToFloat, 0x7f7f, 0x7f80);
  return o;
}

}  // namespace

TEST(Float16, HalfRoundTripIsExactForAllPatterns) {
  for (uint32_t p = 0; p < 0x10000; ++p) {
    const uint16_t h = uint16_t(p);
    const float f = halfToFloat(h);
    if (halfIsNan(h)) {
      ASSERT_TRUE(std::isnan(f)) << std::hex << p;
      ASSERT_TRUE(halfIsNan(floatToHalf(f))) << std::hex << p;
      ASSERT_TRUE(halfIsNan(doubleToHalf(double(f)))) << std::hex << p;
      ASSERT_EQ(floatToHalf(f) & 0x8000, h & 0x8000) << "NaN sign kept";
      if (h & 0x200) {
        ASSERT_EQ(floatToHalf(f), h) << "quiet NaN payload kept";
      }
      continue;
    }
    ASSERT_EQ(floatToHalf(f), h) << std::hex << p;
    ASSERT_EQ(doubleToHalf(double(f)), h) << std::hex << p;
  }
}

TEST(Float16, Bf16RoundTripIsExactForAllPatterns) {
  for (uint32_t p = 0; p < 0x10000; ++p) {
    const uint16_t b = uint16_t(p);
    const float f = bf16ToFloat(b);
    ASSERT_EQ(bitsOf(f), p << 16);
    if (bf16IsNan(b)) {
      ASSERT_TRUE(bf16IsNan(floatToBf16(f))) << std::hex << p;
      if (b & 0x40) {
        ASSERT_EQ(floatToBf16(f), b) << "quiet NaN payload kept";
      }
      continue;
    }
    ASSERT_EQ(floatToBf16(f), b) << std::hex << p;
    ASSERT_EQ(doubleToBf16(double(f)), b) << std::hex << p;
  }
}

TEST(Float16, KnownHalfValues) {
  EXPECT_EQ(floatToHalf(1.0f), 0x3c00);
  EXPECT_EQ(floatToHalf(-2.0f), 0xc000);
  EXPECT_EQ(floatToHalf(0.1f), 0x2e66);
  EXPECT_EQ(floatToHalf(1.0f / 3), 0x3555);
  EXPECT_EQ(floatToHalf(65504.0f), 0x7bff);    // largest finite
  EXPECT_EQ(floatToHalf(65519.99f), 0x7bff);   // just below the tie with inf
  EXPECT_EQ(floatToHalf(65520.0f), 0x7c00);    // the tie rounds to even: inf
  EXPECT_EQ(floatToHalf(1e30f), 0x7c00);
  EXPECT_EQ(floatToHalf(-INFINITY), 0xfc00);
  EXPECT_EQ(floatToHalf(-0.0f), 0x8000);
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -24)), 0x0001);           // smallest subnormal
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -25)), 0x0000);           // half of it: tie to even 0
  EXPECT_EQ(floatToHalf(std::ldexp(1.5f, -25)), 0x0001);           // above the tie
  EXPECT_EQ(floatToHalf(std::ldexp(3.0f, -25)), 0x0002);           // 1.5 quanta: tie to even 2
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -14) - std::ldexp(1.0f, -24)), 0x03ff);  // largest subnormal
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -14)), 0x0400);           // smallest normal
  EXPECT_EQ(floatToHalf(FLT_MIN), 0x0000);
  EXPECT_EQ(floatToHalf(-FLT_MIN), 0x8000);
  EXPECT_EQ(floatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3c00);    // tie: even
  EXPECT_EQ(floatToHalf(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);  // tie: even (up)
  EXPECT_EQ(halfToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(halfToFloat(0x8001), -std::ldexp(1.0f, -24));
  EXPECT_EQ(halfToFloat(0x7c00), INFINITY);
  EXPECT_TRUE(std::signbit(halfToFloat(0x8000)));
  EXPECT_TRUE(std::isnan(halfToFloat(0x7e00)));
  EXPECT_TRUE(halfIsNan(floatToHalf(NAN)));
  EXPECT_TRUE(halfIsNan(floatToHalf(floatOf(0x7f800001))));  // signalling NaN, payload only in low bits
}

TEST(Float16, KnownBf16Values) {
  EXPECT_EQ(floatToBf16(1.0f), 0x3f80);
  EXPECT_EQ(floatToBf16(3.14159274f), 0x4049);
  EXPECT_EQ(floatToBf16(1.0f + std::ldexp(1.0f, -8)), 0x3f80);      // tie: even
  EXPECT_EQ(floatToBf16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);  // tie: even (up)
  EXPECT_EQ(floatToBf16(FLT_MAX), 0x7f80);                          // rounds up to inf
  EXPECT_EQ(floatToBf16(floatOf(0x7f7f7fff)), 0x7f7f);
  EXPECT_EQ(floatToBf16(floatOf(0x00000001)), 0x0000);              // float subnormals round
  EXPECT_EQ(floatToBf16(floatOf(0x00008000)), 0x0000);              // tie to even
  EXPECT_EQ(floatToBf16(floatOf(0x00018000)), 0x0002);              // tie to even (up)
  EXPECT_EQ(floatToBf16(-0.0f), 0x8000);
  EXPECT_TRUE(bf16IsNan(floatToBf16(floatOf(0x7f800001))));         // NaN must not become inf
  EXPECT_EQ(doubleToBf16(1e300), 0x7f80);
  EXPECT_EQ(doubleToBf16(1e-300), 0x0000);
}

// Every midpoint between adjacent finite values: exactly on it rounds to the
// even pattern, one double (or float) ulp off it rounds to the nearer side.
TEST(Float16, EveryTieAndItsNeighbours) {
  struct Case {
    float (*decode)(uint16_t);
    uint16_t (*fromDouble)(double);
    uint16_t (*fromFloat)(float);
    uint16_t largest;
  } cases[] = {{halfToFloat, doubleToHalf, floatToHalf, 0x7bff}, {bf16ToFloat, doubleToBf16, floatToBf16, 0x7f7f}};
  for (const Case& c : cases) {
    for (uint32_t p = 0; p < c.largest; ++p) {
      const double lo = c.decode(uint16_t(p)), hi = c.decode(uint16_t(p + 1));
      const double mid = (lo + hi) / 2;
      const uint16_t even = uint16_t(p % 2 == 0 ? p : p + 1);
      ASSERT_EQ(c.fromDouble(mid), even) << std::hex << p;
      ASSERT_EQ(c.fromDouble(-mid), even | 0x8000) << std::hex << p;
      ASSERT_EQ(c.fromDouble(std::nextafter(mid, 0.0)), p) << std::hex << p;
      ASSERT_EQ(c.fromDouble(std::nextafter(mid, INFINITY)), p + 1) << std::hex << p;
      const float fm = float(mid);
      ASSERT_EQ(double(fm), mid) << "midpoints of 16-bit formats are floats";
      ASSERT_EQ(c.fromFloat(fm), even) << std::hex << p;
      ASSERT_EQ(c.fromFloat(std::nextafter(fm, 0.0f)), p) << std::hex << p;
      ASSERT_EQ(c.fromFloat(std::nextafter(fm, INFINITY)), p + 1) << std::hex << p;
    }
  }
}

TEST(Float16, RandomFloatsMatchTheNearestValueOracle) {
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  std::uniform_int_distribution<uint32_t> bits;
  std::uniform_int_distribution<int> exponent(-30, 20);
  for (int n = 0; n < 300000; ++n) {
    float x;
    if (n % 2 == 0) {
      x = floatOf(bits(rng));  // anything, including NaNs and huge values
    } else {
      // Mostly the interesting range of half: subnormals through overflow.
      uint32_t u = (bits(rng) & 0x807fffff) | (uint32_t(exponent(rng) + 127) << 23);
      x = floatOf(u);
    }
    if (std::isnan(x)) {
      ASSERT_TRUE(halfIsNan(floatToHalf(x)));
      ASSERT_TRUE(bf16IsNan(floatToBf16(x)));
      continue;
    }
    ASSERT_EQ(floatToHalf(x), halfOracle().round(x)) << std::hexfloat << x;
    ASSERT_EQ(floatToBf16(x), bf16Oracle().round(x)) << std::hexfloat << x;
    // A double that float cannot hold: must still be rounded once, correctly.
    const double d = double(x) * (1.0 + std::ldexp(1.0, -40));
    if (std::isfinite(d)) {
      ASSERT_EQ(doubleToHalf(d), halfOracle().round(d)) << std::hexfloat << d;
      ASSERT_EQ(doubleToBf16(d), bf16Oracle().round(d)) << std::hexfloat << d;
    }
  }
}
