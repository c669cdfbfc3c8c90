// gpu-expand-f64-math: float64 exp, exp2, log, log2, sin, cos, tanh and
// rsqrt as the GPU computes them (float64 arithmetic), run on the
// interpreter against libm's long double functions rounded to double (fresh
// random inputs each run, and the special values), in units in the last
// place. Seen over ~50 runs: exp, exp2, sin, cos, rsqrt 2; log, log2 3; tanh
// 4; sin and cos to 1e15 5 (the bounds leave one more).
#include <cmath>
#include <limits>

#include "interp_helpers.h"
#include "ir/printer.h"
#include "transform/pass_manager.h"

using namespace interp_test;

namespace {

constexpr int64_t kN = 4096;

// |got - want| in ulps of want (0 where both are the same NaN-ness or the same infinity).
double ulpsOff(double got, double want) {
  if (std::isnan(want) || std::isnan(got)) return std::isnan(want) == std::isnan(got) ? 0 : 1e300;
  if (std::isinf(want) || std::isinf(got)) return got == want ? 0 : 1e300;
  if (got == want) return std::signbit(got) == std::signbit(want) ? 0 : 1e300;
  const double ulp = std::nextafter(std::fabs(want), INFINITY) - std::fabs(want);
  return std::fabs(got - want) / ulp;
}

struct Result {
  double worstUlps = 0;
  double worstAt = 0;
};

// y = op(x) over `xs`, the pass applied for sm_80; checks nothing of `op` is left.
Result run(Opcode op, const std::vector<double>& xs, double (*ref)(double)) {
  Kernel k("f64math");
  ir::Value* x = k.ptrParam(Scalar::F64, "x");
  ir::Value* y = k.ptrParam(Scalar::F64, "y");
  ir::Value* offs = k.b.range(0, kN);
  k.b.store(k.pointers(y, offs), k.b.unary(op, k.b.load(k.pointers(x, offs))));
  k.b.ret();
  transform::PipelineOptions o;
  o.target = "sm_80";
  transform::runPasses(k.module, {"gpu-expand-f64-math"}, o);
  for (auto& bb : k.fn->blocks())
    for (auto& inst : bb->instructions())
      EXPECT_NE(inst->opcode(), op) << "not expanded:\n" << ir::printFunction(*k.fn);
  std::vector<double> in = xs;
  in.resize(size_t(kN), 1.0);
  interp::Buffer X = makeBuffer("x", in), Y = poisoned("y", Scalar::F64, size_t(kN));
  k.run({1}, {buf(X), buf(Y)});
  const std::vector<double> got = contents<double>(Y);
  Result r;
  for (size_t i = 0; i < xs.size(); ++i) {
    const double u = ulpsOff(got[i], ref(xs[i]));
    if (u > r.worstUlps) r = {u, xs[i]};
  }
  return r;
}

std::vector<double> uniform(std::mt19937& rng, size_t n, double lo, double hi) {
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<double> v(n);
  for (double& x : v) x = d(rng);
  return v;
}

// 10^u, u uniform in [lo, hi): every binade.
std::vector<double> magnitudes(std::mt19937& rng, size_t n, double lo, double hi) {
  std::vector<double> v = uniform(rng, n, lo, hi);
  for (double& x : v) x = std::pow(10.0, x);
  return v;
}

std::vector<double> join(std::initializer_list<std::vector<double>> parts) {
  std::vector<double> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

const double kInf = std::numeric_limits<double>::infinity();
const double kNan = std::numeric_limits<double>::quiet_NaN();
const std::vector<double> kSpecials = {0.0, -0.0, kInf, -kInf, kNan, 1.0, -1.0, 0.5, 2.0};

}  // namespace

TEST(ExpandF64Math, ExpAndExp2) {
  INTERP_TEST_RNG();
  std::mt19937 r2(rng());
  Result e = run(Opcode::Exp, join({uniform(r2, 2000, -750, 715), uniform(r2, 1000, -1, 1), kSpecials,
                                    {709.78, 709.79, -745.1, -745.2, 1e-300, -1e-300}}),
                 [](double v) { return double(std::exp((long double)v)); });
  EXPECT_LE(e.worstUlps, 3) << "exp at " << e.worstAt;
  Result e2 = run(Opcode::Exp2, join({uniform(r2, 2000, -1080, 1030), uniform(r2, 1000, -1, 1), kSpecials,
                                      {1023.99, 1024.0, -1074.0, -1075.0, -1022.5}}),
                  [](double v) { return double(std::exp2((long double)v)); });
  EXPECT_LE(e2.worstUlps, 3) << "exp2 at " << e2.worstAt;
}

TEST(ExpandF64Math, LogAndLog2) {
  INTERP_TEST_RNG();
  std::mt19937 r2(rng());
  const std::vector<double> xs = join({magnitudes(r2, 2000, -310, 308), uniform(r2, 1000, 0.5, 2.0), kSpecials,
                                       {4.9e-324, 1e-310, -2.0, 1.0 + 1e-12, 1.0 - 1e-12, 1.7976931348623157e308}});
  Result l = run(Opcode::Log, xs, [](double v) { return double(std::log((long double)v)); });
  EXPECT_LE(l.worstUlps, 4) << "log at " << l.worstAt;
  Result l2 = run(Opcode::Log2, xs, [](double v) { return double(std::log2((long double)v)); });
  EXPECT_LE(l2.worstUlps, 4) << "log2 at " << l2.worstAt;
}

TEST(ExpandF64Math, SinAndCos) {
  INTERP_TEST_RNG();
  std::mt19937 r2(rng());
  const std::vector<double> xs = join({uniform(r2, 2000, -10, 10), uniform(r2, 1000, -1e5, 1e5),
                                       uniform(r2, 500, -1e-3, 1e-3), kSpecials, {M_PI, M_PI / 2, 1e-300}});
  Result s = run(Opcode::Sin, xs, [](double v) { return double(std::sin((long double)v)); });
  EXPECT_LE(s.worstUlps, 3) << "sin at " << s.worstAt;
  Result c = run(Opcode::Cos, xs, [](double v) { return double(std::cos((long double)v)); });
  EXPECT_LE(c.worstUlps, 3) << "cos at " << c.worstAt;
  // Far out the reduction's last bits go: a few ulps more up to 1e15.
  const std::vector<double> far = uniform(r2, 2000, -1e15, 1e15);
  Result fs = run(Opcode::Sin, far, [](double v) { return double(std::sin((long double)v)); });
  EXPECT_LE(fs.worstUlps, 16) << "sin at " << fs.worstAt;
  Result fc = run(Opcode::Cos, far, [](double v) { return double(std::cos((long double)v)); });
  EXPECT_LE(fc.worstUlps, 16) << "cos at " << fc.worstAt;
  // From 2^56 on the reduction would be off by whole periods: NaN, not a wrong number.
  const std::vector<double> huge = {0x1p56, -0x1p60, 1e18, 1e100, 1e300};
  Result hs = run(Opcode::Sin, huge, [](double) { return std::numeric_limits<double>::quiet_NaN(); });
  EXPECT_EQ(hs.worstUlps, 0) << "sin at " << hs.worstAt;
  Result hc = run(Opcode::Cos, huge, [](double) { return std::numeric_limits<double>::quiet_NaN(); });
  EXPECT_EQ(hc.worstUlps, 0) << "cos at " << hc.worstAt;
}

TEST(ExpandF64Math, TanhAndRsqrt) {
  INTERP_TEST_RNG();
  std::mt19937 r2(rng());
  Result t = run(Opcode::Tanh, join({uniform(r2, 2000, -25, 25), uniform(r2, 1000, -0.6, 0.6), kSpecials,
                                     {0.549, 0.551, 19.0, 1e-300, -1e-10}}),
                 [](double v) { return double(std::tanh((long double)v)); });
  EXPECT_LE(t.worstUlps, 5) << "tanh at " << t.worstAt;
  Result q = run(Opcode::Rsqrt, join({magnitudes(r2, 2000, -308, 308), kSpecials, {4.9e-324}}),
                 [](double v) { return double(1.0L / std::sqrt((long double)v)); });
  EXPECT_LE(q.worstUlps, 3) << "rsqrt at " << q.worstAt;
}
