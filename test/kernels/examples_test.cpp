// Every example case on the interpreter: fresh random inputs, poisoned
// outputs, checked against the C++ reference; inputs must come back unchanged.
#include <filesystem>
#include <set>

#include "ir/verifier.h"
#include "kernel_test_util.h"

namespace kernel_test {
namespace {

class ExampleTest : public ::testing::TestWithParam<const Case*> {};

TEST_P(ExampleTest, MatchesReference) {
  const Case& c = *GetParam();
  const uint64_t seed = freshSeed();
  SCOPED_TRACE(seedTrace(c.name, seed));
  RecordProperty("seed", std::to_string(seed));

  lang::CompileResult compiled = compileOrThrow(c);
  ASSERT_EQ(ir::verifyModule(*compiled.module), "");
  std::mt19937_64 rng(caseSeed(seed, c.name));
  Launch launch = c.build(paramsFor(c, Preset::Test, compiled), rng);
  ASSERT_FALSE(launch.expected.empty());

  // The check must be able to fail: the outputs as they are before the launch
  // (poison, or the input of an in-place kernel) are rejected.
  const Comparison before = compareOutputs(launch);
  EXPECT_FALSE(before.passed(launch.tolerance)) << "the outputs pass the check before the kernel ran";

  std::vector<std::vector<uint8_t>> inputs;
  for (auto& b : launch.buffers) inputs.push_back(b->data);

  runOrThrow(kernelOf(*compiled.module), launch);

  const Comparison after = compareOutputs(launch);
  EXPECT_TRUE(after.passed(launch.tolerance))
      << "max error " << after.maxError << " above the tolerance " << launch.tolerance << "; worst: " << after.worst
      << " (" << launch.sizes << ")";
  RecordProperty("max_error", std::to_string(after.maxError));

  for (size_t i = 0; i < launch.buffers.size(); ++i) {
    const interp::Buffer& b = *launch.buffers[i];
    if (launch.isOutput(&b)) continue;
    EXPECT_TRUE(b.data == inputs[i]) << "input buffer '" << b.name << "' was modified by the kernel";
  }

  // And a single wrong element after a correct run is caught too.
  for (Expected& e : launch.expected) {
    double scale = 1;
    for (double r : e.ref)
      if (!std::isnan(r)) scale = std::max(scale, std::fabs(r));
    for (size_t i = 0; i < e.ref.size(); ++i) {
      if (std::isnan(e.ref[i])) continue;
      writeElement(*e.buffer, int64_t(i), e.ref[i] + scale);
      EXPECT_FALSE(compareOutputs(launch).passed(launch.tolerance))
          << "a wrong " << e.buffer->name << "[" << i << "] passes the check";
      break;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, ExampleTest, ::testing::ValuesIn(casePointers()), caseTestName);

// The table covers every example file, and its names are unique.
TEST(ExampleTable, CoversEveryExampleFile) {
  std::set<std::string> files, names;
  for (const Case& c : allCases()) {
    files.insert(c.file);
    EXPECT_TRUE(names.insert(c.name).second) << "duplicate case name " << c.name;
  }
  const std::filesystem::path dir = std::filesystem::path(TRITONC_SOURCE_DIR) / "examples";
  int seen = 0;
  for (auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".tc") continue;
    ++seen;
    EXPECT_TRUE(files.count("examples/" + entry.path().filename().string()))
        << entry.path().filename() << " has no case in examples/cases*.cpp";
  }
  EXPECT_GT(seen, 0);
}

// The reference and the poison agree on what "untouched" means.
TEST(ExampleTable, PoisonIsDetected) {
  for (ir::Scalar k : {ir::Scalar::F16, ir::Scalar::F32, ir::Scalar::F64, ir::Scalar::I32, ir::Scalar::I8}) {
    interp::Buffer b;
    b.name = "b";
    b.elem = k;
    b.data.resize(size_t(4 * ir::byteSize(k)));
    poison(b);
    for (int64_t i = 0; i < 4; ++i) EXPECT_TRUE(isPoison(b, i)) << ir::scalarName(k);
    writeElement(b, 2, 0);
    EXPECT_FALSE(isPoison(b, 2)) << ir::scalarName(k);
  }
}

}  // namespace
}  // namespace kernel_test
