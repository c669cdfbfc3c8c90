// gpu-expand-f32-math: float32 log, log2, sin and cos as the GPU computes
// them (arithmetic instead of PTX's approximations), run on the interpreter
// against libm's double functions rounded to float (fresh random inputs
// each run, every binade, subnormals, values next to powers of two, large
// angles and the special values), in units in the last place; and
// ceil(log2 x) as exact as a correctly rounded log2 where x is a power of
// two or its neighbours.
#include <cmath>
#include <limits>

#include "interp_helpers.h"
#include "ir/printer.h"
#include "transform/pass_manager.h"

using namespace interp_test;

namespace {

constexpr int64_t kN = 4096;

double ulpsOff(float got, float want) {
  if (std::isnan(want) || std::isnan(got)) return std::isnan(want) == std::isnan(got) ? 0 : 1e30;
  if (std::isinf(want) || std::isinf(got)) return got == want ? 0 : 1e30;
  if (got == want) return 0;
  const float ulp = std::nextafter(std::fabs(want), INFINITY) - std::fabs(want);
  return std::fabs(double(got) - double(want)) / ulp;
}

// op(x) over `xs` after the pass for sm_90a (nothing of `op` left), as floats.
std::vector<float> run(Opcode op, const std::vector<float>& xs) {
  Kernel k("f32log");
  ir::Value* x = k.ptrParam(Scalar::F32, "x");
  ir::Value* y = k.ptrParam(Scalar::F32, "y");
  ir::Value* offs = k.b.range(0, kN);
  k.b.store(k.pointers(y, offs), k.b.unary(op, k.b.load(k.pointers(x, offs))));
  k.b.ret();
  transform::PipelineOptions o;
  o.target = "sm_90a";
  transform::runPasses(k.module, {"gpu-expand-f32-math"}, o);
  for (auto& bb : k.fn->blocks())
    for (auto& inst : bb->instructions())
      EXPECT_NE(inst->opcode(), op) << "not expanded:\n" << ir::printFunction(*k.fn);
  std::vector<float> in = xs;
  in.resize(size_t(kN), 1.0f);
  interp::Buffer X = makeBuffer("x", in), Y = poisoned("y", Scalar::F32, size_t(kN));
  k.run({1}, {buf(X), buf(Y)});
  std::vector<float> got = contents<float>(Y);
  got.resize(xs.size());
  return got;
}

std::vector<float> inputs(std::mt19937& rng) {
  std::vector<float> v;
  std::uniform_real_distribution<double> exponent(-45.0, 38.5), near(0.5, 2.0);
  for (int n = 0; n < 1500; ++n) v.push_back(float(std::pow(10.0, exponent(rng))));
  for (int n = 0; n < 1000; ++n) v.push_back(float(near(rng)));
  for (int e = -149; e <= 127; e += 3) {  // powers of two and their neighbours
    const float p = std::ldexp(1.0f, e);
    v.insert(v.end(), {p, std::nextafter(p, 0.0f), std::nextafter(p, INFINITY)});
  }
  const float inf = std::numeric_limits<float>::infinity();
  v.insert(v.end(), {0.0f, -0.0f, inf, -inf, std::numeric_limits<float>::quiet_NaN(), 1.0f, -1.0f, 0.70710677f,
                     1.4142135f, 1.4142137f, std::numeric_limits<float>::max(), std::numeric_limits<float>::denorm_min()});
  return v;
}

}  // namespace

TEST(ExpandF32Math, LogAndLog2WithinTwoUlps) {
  INTERP_TEST_RNG();
  std::mt19937 r2(rng());
  const std::vector<float> xs = inputs(r2);
  for (Opcode op : {Opcode::Log, Opcode::Log2}) {
    const std::vector<float> got = run(op, xs);
    double worst = 0;
    float worstAt = 0;
    int ceilingsOff = 0;
    for (size_t n = 0; n < xs.size(); ++n) {
      const double x = xs[n];
      const float want = float(op == Opcode::Log ? std::log(x) : std::log2(x));
      const double u = ulpsOff(got[n], want);
      if (u > worst) worst = u, worstAt = xs[n];
      if (op == Opcode::Log2 && std::isfinite(want) && std::ceil(got[n]) != std::ceil(want)) ++ceilingsOff;
    }
    EXPECT_LE(worst, 2) << (op == Opcode::Log ? "log" : "log2") << " at " << worstAt;
    EXPECT_EQ(ceilingsOff, 0) << "ceil(log2 x) off where a correctly rounded log2 gives it";
  }
}

TEST(ExpandF32Math, OnlyOnTheGpuAndForHalfKindsThroughFloat32) {
  Kernel k("halflog");
  ir::Value* x = k.ptrParam(Scalar::F16, "x");
  ir::Value* offs = k.b.range(0, 64);
  ir::Value* v = k.b.load(k.pointers(x, offs));
  k.b.store(k.pointers(x, offs), k.b.unary(Opcode::Log, v));
  k.b.ret();
  transform::PipelineOptions cpu;
  cpu.target = "cpu";
  transform::runPasses(k.module, {"gpu-expand-f32-math"}, cpu);
  EXPECT_NE(ir::printFunction(*k.fn).find(" log "), std::string::npos) << ir::printFunction(*k.fn);
  transform::PipelineOptions gpu;
  gpu.target = "sm_80";
  transform::runPasses(k.module, {"gpu-expand-f32-math"}, gpu);
  const std::string text = ir::printFunction(*k.fn);
  EXPECT_EQ(text.find(" log "), std::string::npos) << text;
  EXPECT_NE(text.find("fma"), std::string::npos) << text;
}


TEST(ExpandF32Math, SinAndCosWithinThreeUlps) {
  INTERP_TEST_RNG();
  std::mt19937 r2(rng());
  std::vector<float> xs;
  std::uniform_real_distribution<double> small(-7.0, 7.0), exponent(-30.0, 15.0);
  for (int n = 0; n < 1500; ++n) xs.push_back(float(small(r2)));
  for (int n = 0; n < 1500; ++n) xs.push_back(float((n % 2 ? -1 : 1) * std::pow(10.0, exponent(r2))));
  for (int k = 1; k < 200; ++k) xs.push_back(float(k * 1.5707963267948966));  // next to the quadrants' ends
  const float inf = std::numeric_limits<float>::infinity();
  xs.insert(xs.end(), {0.0f, -0.0f, 1e-40f, 3.14159274f, 65536.0f, 1e6f, 1.5e14f});
  for (Opcode op : {Opcode::Sin, Opcode::Cos}) {
    const std::vector<float> got = run(op, xs);
    double worst = 0;
    float worstAt = 0;
    for (size_t n = 0; n < xs.size(); ++n) {
      const float want = float(op == Opcode::Sin ? std::sin(double(xs[n])) : std::cos(double(xs[n])));
      const double u = ulpsOff(got[n], want);
      if (u > worst) worst = u, worstAt = xs[n];
    }
    EXPECT_LE(worst, 3) << (op == Opcode::Sin ? "sin" : "cos") << " at " << worstAt;
  }
  // sin(-0.0) keeps its sign; inf, NaN and |x| >= 2^50 give NaN.
  const std::vector<float> specials = {-0.0f, inf, -inf, std::numeric_limits<float>::quiet_NaN(), 0x1p50f};
  const std::vector<float> s = run(Opcode::Sin, specials);
  EXPECT_TRUE(s[0] == 0.0f && std::signbit(s[0]));
  for (size_t n = 1; n < specials.size(); ++n) EXPECT_TRUE(std::isnan(s[n])) << specials[n];
  const std::vector<float> c = run(Opcode::Cos, specials);
  EXPECT_EQ(c[0], 1.0f);
  for (size_t n = 1; n < specials.size(); ++n) EXPECT_TRUE(std::isnan(c[n])) << specials[n];
}

TEST(ExpandF32Math, TanhWithinThreeUlps) {
  INTERP_TEST_RNG();
  std::mt19937 r2(rng());
  std::vector<float> xs;
  std::uniform_real_distribution<double> small(-1.0, 1.0), wide(-12.0, 12.0), exponent(-40.0, 0.0);
  for (int n = 0; n < 1500; ++n) xs.push_back(float(small(r2)));
  for (int n = 0; n < 1500; ++n) xs.push_back(float(wide(r2)));
  for (int n = 0; n < 500; ++n) xs.push_back(float((n % 2 ? -1 : 1) * std::pow(10.0, exponent(r2))));
  const float inf = std::numeric_limits<float>::infinity();
  xs.insert(xs.end(), {0.0f, -0.0f, 0.55f, std::nextafter(0.55f, 0.0f), -0.55f, 0.625f, 9.0f, 9.1f, 50.0f, inf, -inf,
                       1e-40f});
  const std::vector<float> got = run(Opcode::Tanh, xs);
  double worst = 0;
  float worstAt = 0;
  for (size_t n = 0; n < xs.size(); ++n) {
    const double u = ulpsOff(got[n], float(std::tanh(double(xs[n]))));
    if (u > worst) worst = u, worstAt = xs[n];
  }
  EXPECT_LE(worst, 3) << "tanh at " << worstAt;
  const std::vector<float> s = run(Opcode::Tanh, {-0.0f, std::numeric_limits<float>::quiet_NaN()});
  EXPECT_TRUE(s[0] == 0.0f && std::signbit(s[0]));
  EXPECT_TRUE(std::isnan(s[1]));
}
