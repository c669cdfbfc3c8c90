// Every example's IR survives print -> parse -> verify -> print unchanged, and
// the reparsed module computes bit-identical results.
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "kernel_test_util.h"

namespace kernel_test {
namespace {

// Parses printed IR; a parse error is rendered against the printed text.
std::unique_ptr<ir::Module> reparse(const std::string& text) {
  try {
    return ir::parseModule(text);
  } catch (const UserError& e) {
    throw std::runtime_error(formatDiagnostic("<printed IR>", text, e.loc(), e.what()));
  }
}

class RoundTripTest : public ::testing::TestWithParam<const Case*> {};

TEST_P(RoundTripTest, PrintParsePrintIsIdentical) {
  const Case& c = *GetParam();
  lang::CompileResult compiled = compileOrThrow(c);
  for (bool locations : {false, true}) {
    SCOPED_TRACE(locations ? "with locations" : "without locations");
    ir::PrintOptions po;
    po.locations = locations;
    const std::string first = ir::printModule(*compiled.module, po);
    std::unique_ptr<ir::Module> again = reparse(first);
    EXPECT_EQ(ir::verifyModule(*again), "");
    EXPECT_EQ(ir::printModule(*again, po), first);
  }
}

TEST_P(RoundTripTest, ReparsedModuleRunsBitIdentically) {
  const Case& c = *GetParam();
  const uint64_t seed = freshSeed();
  SCOPED_TRACE(seedTrace(c.name, seed));
  RecordProperty("seed", std::to_string(seed));
  lang::CompileResult compiled = compileOrThrow(c);
  ir::PrintOptions po;
  po.locations = true;
  std::unique_ptr<ir::Module> again = reparse(ir::printModule(*compiled.module, po));
  ASSERT_EQ(ir::verifyModule(*again), "");

  std::mt19937_64 rng(caseSeed(seed, c.name));
  Launch original = c.build(paramsFor(c, Preset::Test, compiled), rng);
  Launch copy = original.clone();
  runOrThrow(kernelOf(*compiled.module), original);
  runOrThrow(kernelOf(*again), copy);

  ASSERT_EQ(original.buffers.size(), copy.buffers.size());
  for (size_t i = 0; i < original.buffers.size(); ++i)
    EXPECT_TRUE(original.buffers[i]->data == copy.buffers[i]->data)
        << "buffer '" << original.buffers[i]->name << "' differs between the original and the reparsed module";
  const Comparison cmp = compareOutputs(copy);
  EXPECT_TRUE(cmp.passed(copy.tolerance)) << "max error " << cmp.maxError << "; worst: " << cmp.worst;
}

INSTANTIATE_TEST_SUITE_P(Examples, RoundTripTest, ::testing::ValuesIn(casePointers()), caseTestName);

}  // namespace
}  // namespace kernel_test
