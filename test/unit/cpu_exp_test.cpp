// The CPU back end's exact-math f32 exp (exact_exp.cpp) must give what the
// interpreter gives, bit for bit: exp in double by libm, rounded to f32; the
// default math's (fast_exp.cpp) must be within 2 units in the last place.
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
  // `exact`: the exact math (the interpreter's bits); else the default, whose
  // results may be `allowedUlps` from libm's rounded to float.
  ExpOnCpu(int64_t n, bool exact, int64_t allowedUlps = 0)
      : x_(buffer("x", Scalar::F32, size_t(n))), y_(buffer("y", Scalar::F32, size_t(n))), allowed_(allowedUlps) {
    std::vector<interp::KernelArg> args{buf(x_), buf(y_)};
    Compiled c = compile(kExp, args);
    cpu::CompileOptions o;
    o.exactMath = exact;
    kernel_ = cpu::CpuKernel::compile(*c.fn, o);
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
      // Within the allowance, for results that are normal floats (the
      // subnormals' absolute error is below 2^-149 anyway) or infinite alike.
      if (allowed_ > 0 && !std::isnan(y) && std::isfinite(want) == std::isfinite(y) &&
          (std::fabs(want) < 0x1p-126f ? std::fabs(double(want) - double(y)) <= 0x1p-148
                                        : ulps(want, y) <= allowed_))
        continue;
      if (++bad <= 5)
        ADD_FAILURE() << "exp(" << x << " = 0x" << std::hex << bits[i] << std::dec << ") = " << y << ", libm "
                      << want;
    }
    return bad;
  }

 private:
  interp::Buffer x_, y_;
  int64_t allowed_;
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

// Checks `first`, then every pattern of `ranges` (by bit pattern, both ends
// included), a chunk at a time (the last one padded with a NaN): the ranges
// near 0 hold a billion floats each, 8 GB with their results if held at once.
int64_t checkInChunks(ExpOnCpu& e, int64_t chunk, const std::vector<uint32_t>& first,
                      const std::vector<std::pair<float, float>>& ranges) {
  std::vector<uint32_t> bits;
  int64_t bad = 0;
  auto push = [&](uint32_t v) {
    bits.push_back(v);
    if (int64_t(bits.size()) == chunk) {
      bad += e.check(bits);
      bits.clear();
    }
  };
  for (uint32_t v : first) push(v);
  for (auto [lo, hi] : ranges) {
    uint32_t a, b;
    std::memcpy(&a, &lo, 4);
    std::memcpy(&b, &hi, 4);
    if (a > b) std::swap(a, b);
    for (uint64_t v = a; v <= b; ++v) push(uint32_t(v));
  }
  if (!bits.empty()) {
    bits.resize(size_t(chunk), 0x7fc00000u);
    bad += e.check(bits);
  }
  return bad;
}

TEST(CpuExp, MatchesLibmRoundedToFloat) {
  REQUIRE_CPU();
  FRESH_RNG();
  std::vector<uint32_t> bits;
  for (int i = 0; i < (1 << 20); ++i) bits.push_back(uint32_t(rng()));
  const int64_t chunk = int64_t(1) << 24;
  ExpOnCpu e(chunk, /*exact=*/true);
  EXPECT_EQ(checkInChunks(e, chunk, bits,
                          {{86.0f, 89.0f},      // the overflow edge and the vector path's limit
                           {-86.0f, -104.0f},   // the subnormal results and the limit
                           {-0.01f, -0.0f},     // results near 1 (below)
                           {0.0f, 0.01f}}),     // and above
            0);
}

// The default math's exp (fast_exp.cpp, in f32): within 2 units in the last
// place of libm's result rounded to float, on random bit patterns of every
// exponent, random floats near 0 and over the whole range, and every float
// near the overflow and underflow edges; exp(-inf) = 0, exp(+inf) = inf,
// exp(NaN) = NaN, exp(0) = 1.
TEST(CpuExp, DefaultMathWithinTwoUlps) {
  REQUIRE_CPU();
  FRESH_RNG();
  std::vector<uint32_t> bits;
  for (int i = 0; i < (1 << 20); ++i) bits.push_back(uint32_t(rng()));
  appendRange(bits, 88.0f, 89.0f);
  appendRange(bits, -100.0f, -104.0f);
  std::uniform_real_distribution<float> nearZero(-0.01f, 0.01f), anywhere(-104.0f, 89.0f);
  for (int i = 0; i < (1 << 20); ++i)
    for (float v : {nearZero(rng), anywhere(rng)}) {
      uint32_t b;
      std::memcpy(&b, &v, 4);
      bits.push_back(b);
    }
  for (float special : {-INFINITY, INFINITY, 0.0f, -0.0f, 1.0f, -1.0f, 88.7f, -103.9f}) {
    uint32_t b;
    std::memcpy(&b, &special, 4);
    bits.push_back(b);
  }
  bits.resize((bits.size() + 1023) / 1024 * 1024, 0x7fc00000u);
  ExpOnCpu e(int64_t(bits.size()), /*exact=*/false, /*allowedUlps=*/2);
  EXPECT_EQ(e.check(bits), 0);
}

// With AVX-512 the default exp's loop multiplies by 2^n with vscalefps, in
// its inlined 16-lane variant: the optimized IR calls the intrinsic and no
// longer the scalar function (whose results the test above checks alike).
// Without AVX-512, neither appears: the exp is element-wise code.
TEST(CpuExp, DefaultMathScalesWithVscalefOnAvx512) {
  REQUIRE_CPU();
  interp::Buffer x = buffer("x", Scalar::F32, 1024), y = buffer("y", Scalar::F32, 1024);
  std::vector<interp::KernelArg> args{buf(x), buf(y)};
  Compiled c = compile(kExp, args);
  cpu::CompileOptions o;
  o.exactMath = false;
  o.keepLlvmIr = true;
  const std::string ir = cpu::CpuKernel::compile(*c.fn, o)->llvmIr();
  const bool avx512 = (cpu::hostDescription() + ",").find("+avx512f,") != std::string::npos;
  EXPECT_EQ(ir.find("@llvm.x86.avx512.mask.scalef.ps.512(") != std::string::npos, avx512) << ir;
  EXPECT_EQ(ir.find("call float @tritonc_cpu_fast_exp_f32("), std::string::npos) << ir;
}

TEST(CpuExp, EveryInputWhenAsked) {
  REQUIRE_CPU();
  if (!std::getenv("TRITONC_CPU_EXP_EXHAUSTIVE")) GTEST_SKIP() << "set TRITONC_CPU_EXP_EXHAUSTIVE=1 to check all 2^32";
  const int64_t chunk = int64_t(1) << 24;
  ExpOnCpu e(chunk, /*exact=*/true);
  std::vector<uint32_t> bits(static_cast<size_t>(chunk));
  int64_t bad = 0;
  for (uint64_t start = 0; start < (uint64_t(1) << 32); start += uint64_t(chunk)) {
    for (int64_t i = 0; i < chunk; ++i) bits[size_t(i)] = uint32_t(start + uint64_t(i));
    bad += e.check(bits);
  }
  EXPECT_EQ(bad, 0);
}

}  // namespace
