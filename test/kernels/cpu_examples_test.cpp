// Every example case on the CPU back end, differentially: fresh random
// inputs, outputs poisoned, the kernel specialized and optimized as a launch
// would, run on the CPU (every core) and on the interpreter from the same
// optimized IR. Both must pass the C++ reference; the CPU's outputs must be
// the interpreter's bit for bit (the back end follows its element semantics
// exactly; a NaN matches any NaN), except where programs race with atomics (their float sums may
// round differently), which must agree within the case's tolerance. Inputs
// must come back unchanged. Skipped when the build has no CPU back end.
#include <cstring>

#include "ir/verifier.h"
#include "kernel_test_util.h"
#include "runtime/optimize_for_launch.h"
#include "target/cpu/cpu_backend.h"
#include "transform/pass_manager.h"

namespace kernel_test {
namespace {

bool hasAtomics(const ir::Module& m) {
  for (auto& f : m.functions())
    for (auto& bb : f->blocks())
      for (auto& i : bb->instructions())
        if (i->opcode() == ir::Opcode::AtomicRmw || i->opcode() == ir::Opcode::AtomicCas) return true;
  return false;
}

class CpuExampleTest : public ::testing::TestWithParam<const Case*> {};

TEST_P(CpuExampleTest, MatchesInterpreterAndReference) {
  if (!cpu::available()) GTEST_SKIP() << "built without the CPU back end (TRITONC_CPU needs LLVM 19)";
  const Case& c = *GetParam();
  const uint64_t seed = freshSeed();
  SCOPED_TRACE(seedTrace(c.name, seed));

  lang::CompileResult compiled = compileOrThrow(c);
  std::mt19937_64 rng(caseSeed(seed, c.name));
  Launch onCpu = c.build(paramsFor(c, Preset::Test, compiled), rng);
  Launch onInterp = onCpu.clone();
  ir::Function& fn = *compiled.module->functions()[0];
  runtime::specializeAndOptimize(*compiled.module, fn, runtime::factsOf(onCpu.args),
                                 transform::PipelineOptions::kDefaultNumStages, /*forGpu=*/false);
  ASSERT_EQ(ir::verifyModule(*compiled.module), "");
  ASSERT_FALSE(compareOutputs(onCpu).passed(onCpu.tolerance)) << "the outputs pass the check before the kernel ran";

  std::vector<std::vector<uint8_t>> inputs;
  for (auto& b : onCpu.buffers) inputs.push_back(b->data);

  std::unique_ptr<cpu::CpuKernel> kernel;
  try {
    cpu::CompileOptions exact;  // compared with the interpreter byte for byte below
    exact.exactMath = true;
    kernel = cpu::CpuKernel::compile(fn, exact);
    kernel->run(onCpu.grid, onCpu.args);
  } catch (const UserError& e) {
    FAIL() << e.loc().line << ":" << e.loc().col << ": " << e.what();
  }
  runOrThrow(fn, onInterp);
  RecordProperty("cpu_compile_ms", std::to_string(kernel->compileMs()));

  const Comparison cpuRef = compareOutputs(onCpu);
  EXPECT_TRUE(cpuRef.passed(onCpu.tolerance)) << "CPU: max error " << cpuRef.maxError << " above the tolerance "
                                              << onCpu.tolerance << "; worst: " << cpuRef.worst << " ("
                                              << onCpu.sizes << ")";
  EXPECT_TRUE(compareOutputs(onInterp).passed(onInterp.tolerance)) << "interpreter: " << compareOutputs(onInterp).worst;

  const bool exact = !hasAtomics(*compiled.module);
  for (size_t k = 0; k < onCpu.buffers.size(); ++k) {
    const interp::Buffer& x = *onCpu.buffers[k];
    const interp::Buffer& y = *onInterp.buffers[k];
    if (!onCpu.isOutput(&x)) {
      EXPECT_TRUE(x.data == inputs[k]) << "input buffer '" << x.name << "' was modified on the CPU";
      continue;
    }
    if (exact) {
      int64_t firstDiff = -1;
      for (int64_t i = 0; i < x.numElements() && firstDiff < 0; ++i) {
        const int size = ir::byteSize(x.elem);
        if (std::memcmp(x.data.data() + i * size, y.data.data() + i * size, size_t(size)) != 0 &&
            !(ir::isFloatKind(x.elem) && std::isnan(readElement(x, i)) && std::isnan(readElement(y, i))))
          firstDiff = i;
      }
      EXPECT_EQ(firstDiff, -1) << "buffer '" << x.name << "' differs from the interpreter's at element " << firstDiff
                               << ": " << readElement(x, firstDiff) << " (CPU) vs " << readElement(y, firstDiff)
                               << " (interpreter)";
      continue;
    }
    double scale = 1, worst = 0;
    for (int64_t i = 0; i < y.numElements(); ++i)
      if (!std::isnan(readElement(y, i))) scale = std::max(scale, std::fabs(readElement(y, i)));
    for (int64_t i = 0; i < x.numElements(); ++i) {
      const double u = readElement(x, i), v = readElement(y, i);
      if (std::isnan(u) && std::isnan(v)) continue;
      worst = std::max(worst, std::isnan(u) || std::isnan(v) ? INFINITY : std::fabs(u - v) / scale);
    }
    EXPECT_LE(worst, onCpu.tolerance) << "buffer '" << x.name << "' differs from the interpreter's";
  }

  // The default math (exp in f32 within 2 units in the last place), as
  // users run it: from the same inputs, within the example's tolerance of
  // the reference.
  for (size_t k = 0; k < onCpu.buffers.size(); ++k) onCpu.buffers[k]->data = inputs[k];
  try {
    cpu::CpuKernel::compile(fn)->run(onCpu.grid, onCpu.args);
  } catch (const UserError& e) {
    FAIL() << e.loc().line << ":" << e.loc().col << ": " << e.what();
  }
  const Comparison fastRef = compareOutputs(onCpu);
  EXPECT_TRUE(fastRef.passed(onCpu.tolerance)) << "CPU, default math: max error " << fastRef.maxError
                                               << " above the tolerance " << onCpu.tolerance << "; worst: "
                                               << fastRef.worst;
}

INSTANTIATE_TEST_SUITE_P(Examples, CpuExampleTest, ::testing::ValuesIn(casePointers()), caseTestName);

}  // namespace
}  // namespace kernel_test
