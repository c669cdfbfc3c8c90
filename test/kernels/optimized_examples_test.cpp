// Every example case gives the same results on the interpreter before and
// after the default optimization pipeline (and with the launch's alignment
// specialization), on the same fresh random inputs; both also match the
// C++ reference. Bit-identical except where a dot's accumulation order moves
// (the peephole's c + dot(a, b, 0) = dot(a, b, c)): there within the case's
// tolerance.
#include "ir/verifier.h"
#include "kernel_test_util.h"
#include "runtime/optimize_for_launch.h"
#include "transform/pass_manager.h"

namespace kernel_test {
namespace {

bool hasDot(const ir::Module& m) {
  for (auto& f : m.functions())
    for (auto& bb : f->blocks())
      for (auto& i : bb->instructions())
        if (i->opcode() == ir::Opcode::Dot) return true;
  return false;
}

class OptimizedExampleTest : public ::testing::TestWithParam<const Case*> {};

TEST_P(OptimizedExampleTest, SameResultsAsUnoptimized) {
  const Case& c = *GetParam();
  const uint64_t seed = freshSeed();
  SCOPED_TRACE(seedTrace(c.name, seed));

  lang::CompileResult plain = compileOrThrow(c);
  lang::CompileResult optimized = compileOrThrow(c);
  std::mt19937_64 rng(caseSeed(seed, c.name));
  Launch a = c.build(paramsFor(c, Preset::Test, plain), rng);
  Launch b = a.clone();
  runtime::specializeAndOptimize(*optimized.module, *optimized.module->functions()[0], runtime::factsOf(b.args),
                                 transform::PipelineOptions::kDefaultNumStages, true);
  ASSERT_EQ(ir::verifyModule(*optimized.module), "");

  runOrThrow(kernelOf(*plain.module), a);
  runOrThrow(kernelOf(*optimized.module), b);
  EXPECT_TRUE(compareOutputs(b).passed(b.tolerance)) << "optimized: " << compareOutputs(b).worst;
  bool exact = !hasDot(*plain.module);
  for (size_t k = 0; k < a.buffers.size(); ++k) {
    const interp::Buffer& x = *a.buffers[k];
    const interp::Buffer& y = *b.buffers[k];
    if (exact) {
      EXPECT_TRUE(x.data == y.data) << "buffer '" << x.name << "' differs after optimization";
      continue;
    }
    double scale = 1, worst = 0;
    for (int64_t i = 0; i < x.numElements(); ++i) scale = std::max(scale, std::fabs(readElement(x, i)));
    for (int64_t i = 0; i < x.numElements(); ++i) {
      double u = readElement(x, i), v = readElement(y, i);
      if (std::isnan(u) && std::isnan(v)) continue;
      worst = std::max(worst, std::fabs(u - v) / scale);
    }
    EXPECT_LE(worst, a.tolerance) << "buffer '" << x.name << "' differs after optimization";
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, OptimizedExampleTest, ::testing::ValuesIn(casePointers()), caseTestName);

}  // namespace
}  // namespace kernel_test
