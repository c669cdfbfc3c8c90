// The CPU back end's vectorized f32 exp (exact_exp.cpp) must give what the
// interpreter gives, bit for bit: exp in double by libm, rounded to f32.
// Checked on random bit patterns of every exponent (NaNs, infinities,
// subnormals included) and on every float of the ranges where the vector
// path hands lanes back (|x| near 87) and where results are near 1. With
// TRITONC_CPU_EXP_EXHAUSTIVE=1 it checks all 2^32 inputs (a minute or so).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>

#include "unit/cpu_test_helpers.h"

namespace {

using namespace tritonc;
using namespace tritonc::cpu_test;
using ir::Scalar;

const char* kExp = R"(
__global__ void k(float* x, float* y) {
  int i[1024] = get_program_id(0) * 1024 + 0 ... 1024;
  *(y + i) = exp(*(x + i));
})";

class ExpOnCpu {
 public:
  explicit ExpOnCpu(int64_t n) : x_(buffer("x", Scalar::F32, size_t(n))), y_(buffer("y", Scalar::F32, size_t(n))) {
    std::vector<interp::KernelArg> args{buf(x_), buf(y_)};
    Compiled c = compile(kExp, args);
    kernel_ = cpu::CpuKernel::compile(*c.fn);
  }
  // Checks exp of `bits` (one pattern per element); returns the mismatches.
  int64_t check(const std::vector<uint32_t>& bits) {
    std::memcpy(x_.data.data(), bits.data(), bits.size() * 4);
    kernel_->run({int64_t(bits.size()) / 1024, 1, 1}, {buf(x_), buf(y_)});
    int64_t bad = 0;
    for (size_t i = 0; i < bits.size(); ++i) {
      float x, y;
      std::memcpy(&x, &bits[i], 4);
      std::memcpy(&y, y_.data.data() + i * 4, 4);
      const float want = float(std::exp(double(x)));
      if (std::isnan(want) ? std::isnan(y) : std::memcmp(&want, &y, 4) == 0) continue;
      if (++bad <= 5)
        ADD_FAILURE() << "exp(" << x << " = 0x" << std::hex << bits[i] << std::dec << ") = " << y << ", libm "
                      << want;
    }
    return bad;
  }

 private:
  interp::Buffer x_, y_;
  std::unique_ptr<cpu::CpuKernel> kernel_;
};

// Every float from `lo` to `hi` (by bit pattern, same sign), padded to whole programs.
void appendRange(std::vector<uint32_t>& out, float lo, float hi) {
  uint32_t a, b;
  std::memcpy(&a, &lo, 4);
  std::memcpy(&b, &hi, 4);
  if (a > b) std::swap(a, b);
  for (uint32_t v = a; v <= b; ++v) out.push_back(v);
}

TEST(CpuExp, MatchesLibmRoundedToFloat) {
  REQUIRE_CPU();
  FRESH_RNG();
  std::vector<uint32_t> bits;
  for (int i = 0; i < (1 << 20); ++i) bits.push_back(uint32_t(rng()));
  appendRange(bits, 86.0f, 89.0f);      // the overflow edge and the vector path's limit
  appendRange(bits, -86.0f, -104.0f);   // the subnormal results and the limit
  appendRange(bits, -0.01f, -0.0f);     // results near 1 (below)
  appendRange(bits, 0.0f, 0.01f);       // and above
  bits.resize((bits.size() + 1023) / 1024 * 1024, 0x7fc00000u);
  ExpOnCpu e(int64_t(bits.size()));
  EXPECT_EQ(e.check(bits), 0);
}

TEST(CpuExp, EveryInputWhenAsked) {
  REQUIRE_CPU();
  if (!std::getenv("TRITONC_CPU_EXP_EXHAUSTIVE")) GTEST_SKIP() << "set TRITONC_CPU_EXP_EXHAUSTIVE=1 to check all 2^32";
  const int64_t chunk = int64_t(1) << 24;
  ExpOnCpu e(chunk);
  std::vector<uint32_t> bits(static_cast<size_t>(chunk));
  int64_t bad = 0;
  for (uint64_t start = 0; start < (uint64_t(1) << 32); start += uint64_t(chunk)) {
    for (int64_t i = 0; i < chunk; ++i) bits[size_t(i)] = uint32_t(start + uint64_t(i));
    bad += e.check(bits);
  }
  EXPECT_EQ(bad, 0);
}

}  // namespace
