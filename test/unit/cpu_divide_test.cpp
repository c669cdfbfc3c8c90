// The CPU back end's default math divides f32 tiles by a value that is the
// same in every lane with two multiplies (Lowering::divideByUniform): within
// 2 units in the last place of the correctly rounded quotient, with zeros,
// infinities and NaN as division gives them, for divisors of every exponent
// (subnormal, near 2^-125 and 2^125 where the reciprocal is scaled, zero,
// infinite, NaN). The exact math divides, bit for bit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <random>

#include "unit/cpu_test_helpers.h"

namespace {

using namespace tritonc;
using namespace tritonc::cpu_test;
using ir::Scalar;

const char* kDivide = R"(
__global__ void k(float* x, float* y, float d) {
  int i[1024] = get_program_id(0) * 1024 + 0 ... 1024;
  *(y + i) = *(x + i) / d;
})";

float fromBits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

// Whether `got` may stand for the correctly rounded `want`.
bool close(float want, float got, int64_t allowed) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isnan(got)) return false;
  if (std::isinf(want) || std::isinf(got)) {
    if (std::isinf(want) && std::isinf(got)) return want == got;
    // Within the allowance of the largest float, on the same side.
    const float finite = std::isinf(want) ? got : want;
    return std::signbit(want) == std::signbit(got) && ulps(std::fabs(finite), FLT_MAX) < allowed;
  }
  if (want == 0 || got == 0) return std::fabs(double(want) - double(got)) <= 0x1p-148 &&
                                    (want != 0 || got != 0 || std::signbit(want) == std::signbit(got));
  if (std::signbit(want) != std::signbit(got)) return false;
  if (std::fabs(want) < 0x1p-126f) return std::fabs(double(want) - double(got)) <= 0x1p-148;  // subnormal
  return ulps(want, got) <= allowed;
}

void checkDivisions(bool exact) {
  FRESH_RNG();
  const int64_t n = 1 << 14;
  interp::Buffer x = buffer("x", Scalar::F32, size_t(n)), y = buffer("y", Scalar::F32, size_t(n));
  std::vector<interp::KernelArg> args{buf(x), buf(y), interp::KernelArg::ofFloat(1.0)};
  Compiled c = compile(kDivide, args);
  cpu::CompileOptions o;
  o.exactMath = exact;
  auto kernel = cpu::CpuKernel::compile(*c.fn, o);

  std::vector<float> divisors{0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1.0f, -3.0f, 0x1p-149f, -0x1p-140f,
                              0x1p-126f, 0x1p-125f, 0x1.fffffep-126f, 0x1.000002p-125f, 0x1p125f, 0x1.fffffep124f,
                              0x1.000002p125f, 0x1p127f, FLT_MAX, -FLT_MAX};
  for (int i = 0; i < 200; ++i) divisors.push_back(fromBits(uint32_t(rng())));
  // Random mantissas at the exponents where the reciprocal is scaled: 2^125
  // and up, subnormal and 2^-126.
  for (uint32_t exponent : {0u, 1u, 2u, 252u, 253u, 254u})
    for (int i = 0; i < 8; ++i) divisors.push_back(fromBits(exponent << 23 | (uint32_t(rng()) & 0x807fffffu)));
  std::uniform_real_distribution<float> usual(0.5f, 4096.0f);
  for (int i = 0; i < 20; ++i) divisors.push_back(usual(rng));
  int64_t bad = 0;
  for (float d : divisors) {
    for (int64_t i = 0; i < n; ++i) {
      // Random bit patterns of every exponent, and some special values.
      const uint32_t bits = i < 8 ? std::vector<uint32_t>{0, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u,
                                                          0x00000001u, 0x7f7fffffu, 0x3f800000u}[size_t(i)]
                                  : uint32_t(rng());
      std::memcpy(x.data.data() + i * 4, &bits, 4);
    }
    std::fill(y.data.begin(), y.data.end(), uint8_t(0xAB));  // poisoned before each run
    args[2] = interp::KernelArg::ofFloat(double(d));
    kernel->run({n / 1024, 1, 1}, args);
    for (int64_t i = 0; i < n; ++i) {
      float xi, got;
      std::memcpy(&xi, x.data.data() + i * 4, 4);
      std::memcpy(&got, y.data.data() + i * 4, 4);
      const float want = xi / d;
      const bool ok = exact ? (std::isnan(want) ? std::isnan(got) : std::memcmp(&want, &got, 4) == 0)
                            : close(want, got, 2);
      if (!ok && ++bad <= 5)
        ADD_FAILURE() << xi << " / " << d << " = " << got << " on the CPU, correctly rounded " << want;
    }
  }
  EXPECT_EQ(bad, 0);
}

TEST(CpuDivide, DefaultMathWithinTwoUlps) {
  REQUIRE_CPU();
  checkDivisions(/*exact=*/false);
}

TEST(CpuDivide, ExactMathDivides) {
  REQUIRE_CPU();
  checkDivisions(/*exact=*/true);
}

}  // namespace
