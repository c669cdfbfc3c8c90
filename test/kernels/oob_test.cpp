// Out-of-bounds accesses of real kernels are reported by the interpreter with
// the kernel, the source location, the program, the tile element and the buffer.
#include "kernel_test_util.h"

namespace kernel_test {
namespace {

// 1-based line and column of the first occurrence of `needle` at or after
// line `fromLine`, plus `offset` characters.
SourceLoc locate(const std::string& text, const std::string& needle, size_t offset, uint32_t fromLine = 1) {
  uint32_t line = 1;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    size_t at = text.substr(start, end - start).find(needle);
    if (line >= fromLine && at != std::string::npos) return SourceLoc{line, uint32_t(at + offset + 1)};
    start = end + 1;
    ++line;
  }
  throw std::invalid_argument("'" + needle + "' not found");
}

// Runs and returns the UserError it must raise.
UserError expectUserError(const ir::Function& fn, const Launch& launch) {
  try {
    interp::runKernel(fn, launch.grid, launch.args);
  } catch (const UserError& e) {
    return e;
  }
  throw std::runtime_error("the launch of '" + fn.name() + "' succeeded, but it accesses memory out of bounds");
}

// The tutorial's fused-transposition kernel, verbatim, pre-fetches past the
// end of its operands on the last iteration. With A transposed (stored K x M)
// the first bad access is the loop's `a = *pa` in program (0, 0, 0), at the
// first element of the tile: A + K*lda is one past the end of A.
TEST(OutOfBounds, VerbatimFusedMatmulPrefetch) {
  const uint64_t seed = freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  Case verbatim = findCase("matmul_fused_tn_f32");  // its macros, sizes and layout
  verbatim.file = "test/kernels/data/matmul_fused_verbatim.tc";
  const std::string source = readTextFile(std::string(TRITONC_SOURCE_DIR) + "/" + verbatim.file);
  lang::CompileResult compiled = compileOrThrow(verbatim);
  std::mt19937_64 rng(seed);
  Launch launch = verbatim.build(paramsFor(verbatim, Preset::Test, compiled), rng);
  Launch copy = launch.clone();

  UserError e = expectUserError(kernelOf(*compiled.module), launch);
  const std::string msg = e.what();
  const SourceLoc loop = locate(source, "for(int k = K;", 0);
  const SourceLoc deref = locate(source, "a = *pa;", 4, loop.line);  // the '*' of the loop's load
  EXPECT_EQ(e.loc().line, deref.line) << msg;
  EXPECT_EQ(e.loc().col, deref.col) << msg;
  EXPECT_NE(msg.find("out-of-bounds load"), std::string::npos) << msg;
  EXPECT_NE(msg.find("kernel 'dot'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("program (0, 0, 0)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("tile element [0, 0]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'A'"), std::string::npos) << msg;
  const std::string rendered = formatDiagnostic(verbatim.file, source, e.loc(), msg);
  EXPECT_NE(rendered.find("matmul_fused_verbatim.tc:" + std::to_string(deref.line) + ":" +
                          std::to_string(deref.col) + ": error: out-of-bounds load"),
            std::string::npos)
      << rendered;
  EXPECT_NE(rendered.find("    a = *pa;\n"), std::string::npos) << rendered;

  // The example's masked pre-fetch runs the same launch cleanly and correctly.
  lang::CompileResult fixed = compileOrThrow(findCase("matmul_fused_tn_f32"));
  runOrThrow(kernelOf(*fixed.module), copy);
  const Comparison cmp = compareOutputs(copy);
  EXPECT_TRUE(cmp.passed(copy.tolerance)) << cmp.worst;
}

// One program too many: the first bad program is N / 32, at element [0] of
// the first load; the programs before it ran and wrote their results.
TEST(OutOfBounds, VectorAddOneProgramTooMany) {
  const uint64_t seed = freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const Case& c = findCase("vector_add");
  const std::string source = readTextFile(std::string(TRITONC_SOURCE_DIR) + "/" + c.file);
  lang::CompileResult compiled = compileOrThrow(c);
  std::mt19937_64 rng(seed);
  Params p = paramsFor(c, Preset::Test, compiled);
  const int64_t n = p("N");
  Launch launch = c.build(p, rng);
  ASSERT_EQ(launch.grid.x, n / 32);
  launch.grid.x += 1;

  UserError e = expectUserError(kernelOf(*compiled.module), launch);
  const std::string msg = e.what();
  const SourceLoc load = locate(source, "*(a + off)", 0);
  EXPECT_EQ(e.loc().line, load.line) << msg;
  EXPECT_EQ(e.loc().col, load.col) << msg;
  EXPECT_NE(msg.find("out-of-bounds load in kernel 'add'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("program (" + std::to_string(n / 32) + ", 0, 0)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("tile element [0]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'a'"), std::string::npos) << msg;
  const Comparison cmp = compareOutputs(launch);
  EXPECT_TRUE(cmp.passed(launch.tolerance)) << "programs before the bad one: " << cmp.worst;
}

// The tutorial's first transposition assumes M, N multiples of the tiles; on
// a ragged shape it reads and writes out of bounds, while the bounds-checked
// version transposes the same data correctly.
TEST(OutOfBounds, UncheckedTransposeFailsOnRaggedShape) {
  const uint64_t seed = freshSeed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  Case unchecked = findCase("transpose_f32_16x16");
  ASSERT_EQ(unchecked.file, "examples/transpose.tc");
  Case checked = unchecked;
  checked.file = "examples/transpose_checked.tc";
  Params p;
  p.values = {{"M", 45}, {"N", 77}, {"TM", 16}, {"TN", 16}};  // tight buffers: ldx = M, ldy = N
  std::mt19937_64 rng(seed);
  Launch launch = unchecked.build(p, rng);
  Launch copy = launch.clone();

  lang::CompileResult bad = compileOrThrow(unchecked);
  UserError e = expectUserError(kernelOf(*bad.module), launch);
  EXPECT_NE(std::string(e.what()).find("out-of-bounds"), std::string::npos) << e.what();
  EXPECT_NE(std::string(e.what()).find("kernel 'transpose'"), std::string::npos) << e.what();
  EXPECT_TRUE(e.loc().known());

  lang::CompileResult good = compileOrThrow(checked);
  runOrThrow(kernelOf(*good.module), copy);
  const Comparison cmp = compareOutputs(copy);
  EXPECT_TRUE(cmp.passed(copy.tolerance)) << cmp.worst;
}

}  // namespace
}  // namespace kernel_test
