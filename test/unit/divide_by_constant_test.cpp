// The PTX back end divides integers by constants without a div instruction
// (lower_divide.cpp): a multiply-high by signedMagic(d)'s multiplier, then a
// shift and a correction for negative dividends. This emulates that sequence
// in C++, 32 and 64 bits, against C's division for divisors small and large
// and dividends at the edges (the most negative, multiples of d and their
// neighbours) and random ones. The emitted PTX runs on the GPU in
// python/tests/test_dsl_integer_division.py.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "target/nvptx/lowering.h"

namespace {

using tritonc::nvptx::signedMagic;

int32_t quotient32(int32_t a, int64_t d) {
  auto m = signedMagic(d, 32);
  int32_t mul = int32_t(m.multiplier);
  int32_t q = int32_t((int64_t(a) * int64_t(mul)) >> 32);  // mul.hi.s32
  if (mul < 0) q = int32_t(uint32_t(q) + uint32_t(a));    // add.s32 (wrapping)
  q >>= m.shift;                                           // shr.s32
  return q + int32_t(uint32_t(a) >> 31);                   // + 1 for a negative dividend
}

int64_t quotient64(int64_t a, int64_t d) {
  auto m = signedMagic(d, 64);
  int64_t q = int64_t((__int128(a) * __int128(m.multiplier)) >> 64);  // mul.hi.s64
  if (m.multiplier < 0) q = int64_t(uint64_t(q) + uint64_t(a));
  q >>= m.shift;
  return q + int64_t(uint64_t(a) >> 63);
}

template <typename T>
std::vector<T> dividends(T d, std::mt19937_64& rng) {
  std::vector<T> out = {std::numeric_limits<T>::min(), T(std::numeric_limits<T>::min() + 1),
                        std::numeric_limits<T>::max(), T(std::numeric_limits<T>::max() - 1), 0, 1, -1};
  for (T k : {T(1), T(2), T(3), T(1000)}) {
    if (k > std::numeric_limits<T>::max() / d) continue;
    for (T sign : {T(1), T(-1)})
      for (T off : {T(-1), T(0), T(1)})  // wrapping at the ends
        out.push_back(T(uint64_t(int64_t(sign)) * uint64_t(int64_t(k)) * uint64_t(int64_t(d)) + uint64_t(int64_t(off))));
  }
  for (int i = 0; i < 2000; ++i) out.push_back(T(rng()));
  for (int i = 0; i < 500; ++i) out.push_back(T(T(rng()) >> (rng() % (sizeof(T) * 8))));  // small magnitudes too
  return out;
}

template <typename T>
std::vector<T> divisors(std::mt19937_64& rng) {
  std::vector<T> out = {3, 5, 6, 7, 9, 10, 11, 12, 13, 24, 25, 60, 100, 125, 641, 1000, 6700417, 65537,
                        std::numeric_limits<T>::max(), T(std::numeric_limits<T>::max() - 1),
                        T(std::numeric_limits<T>::max() / 3)};
  for (int i = 0; i < 200; ++i) {
    T d = T(rng() >> (rng() % (sizeof(T) * 8)));
    if (d >= 2) out.push_back(d);
  }
  return out;
}

TEST(DivideByConstant, MagicMatchesDivision32) {
  std::mt19937_64 rng(std::random_device{}());
  for (int32_t d : divisors<int32_t>(rng))
    for (int32_t a : dividends<int32_t>(d, rng))
      ASSERT_EQ(quotient32(a, d), a / d) << a << " / " << d;
}

TEST(DivideByConstant, MagicMatchesDivision64) {
  std::mt19937_64 rng(std::random_device{}());
  for (int64_t d : divisors<int64_t>(rng))
    for (int64_t a : dividends<int64_t>(d, rng))
      ASSERT_EQ(quotient64(a, d), a / d) << a << " / " << d;
}

// The divisors above cover both forms of the multiplier, in both widths:
// with its top bit set (the sequence adds the dividend back) and without.
TEST(DivideByConstant, BothFormsOfTheMultiplierOccur) {
  for (int bits : {32, 64}) {
    bool negative = false, positive = false;
    for (int64_t d = 3; d < 100; ++d) {
      int64_t m = signedMagic(d, bits).multiplier;
      (m < 0 ? negative : positive) = true;
    }
    EXPECT_TRUE(negative && positive) << bits;
  }
  EXPECT_LT(int32_t(signedMagic(7, 32).multiplier), 0);
  EXPECT_EQ(signedMagic(3, 32).shift, 0);
}

}  // namespace
