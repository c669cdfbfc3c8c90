// print and assert (docs/IR.md): their text form and its errors, the
// verifier's rules, the optimizer keeping them, the lines they print and
// the errors they raise on the interpreter and the CPU back end (the same
// text on both), and Triton-C's __debug_print / __debug_assert.
#include <gtest/gtest.h>

#include <cstdio>

#include "ir/debug_output.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "lang/compile.h"
#include "runtime/optimize_for_launch.h"
#include "target/cpu/cpu_backend.h"
#include "target/interp/interpreter.h"

namespace {

using namespace tritonc;
using ir::Scalar;

// ---- text form ----------------------------------------------------------------

const char* const kDebugKernel = R"(source "k.py"

kernel @k(%a: i32, %p: f32*) {
entry:
  %r = range 0 : i32<4>
  %x = load %p : f32
  print " x: ", %r, %x
  print hex " bits: ", %r
  print "only \"text\" \\ here\x0a"
  print ""
  %three = splat i32 3 : i32<4>
  %c = cmp lt %r, %three : i1<4>
  assert %c, "r < 3 \"quoted\""
  assert i1 1, ""
  ret
}
)";

TEST(DebugOpsText, PrintsUnchangedAndRoundTrips) {
  auto m = ir::parseModule(kDebugKernel);
  EXPECT_EQ(ir::verifyModule(*m), "");
  EXPECT_EQ(ir::printModule(*m), kDebugKernel);
  const auto& insts = m->function("k")->entry()->instructions();
  const ir::Instruction& print = *insts[2];
  EXPECT_EQ(print.opcode(), ir::Opcode::Print);
  EXPECT_EQ(print.text, " x: ");
  EXPECT_EQ(print.numOperands(), 2u);
  EXPECT_EQ(insts[3]->sub, ir::kPrintHex);
  EXPECT_EQ(insts[4]->text, "only \"text\" \\ here\n");
  EXPECT_EQ(insts[4]->numOperands(), 0u);
  const ir::Instruction& assertion = *insts[8];
  EXPECT_EQ(assertion.opcode(), ir::Opcode::Assert);
  EXPECT_EQ(assertion.text, "r < 3 \"quoted\"");
  ir::PrintOptions withLocs;
  withLocs.locations = true;
  std::string located = ir::printModule(*ir::parseModule("kernel @k(%c: i1) {\nentry:\n  assert %c, \"m\" loc(7:5)\n  "
                                                         "print \"p\", %c loc(8:1)\n  ret\n}\n"),
                                         withLocs);
  EXPECT_NE(located.find("assert %c, \"m\" loc(7:5)"), std::string::npos) << located;
  EXPECT_NE(located.find("print \"p\", %c loc(8:1)"), std::string::npos) << located;
}

void expectParseError(const std::string& body, uint32_t line, uint32_t col, const std::string& message) {
  std::string text = "kernel @k(%a: i32, %c: i1) {\nentry:\n" + body + "}\n";
  try {
    ir::parseModule(text);
    ADD_FAILURE() << "no error for:\n" << text;
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    EXPECT_EQ(e.loc().line, line) << e.what();
    EXPECT_EQ(e.loc().col, col) << e.what();
  }
}

TEST(DebugOpsText, MalformedFormsAreLocatedErrors) {
  expectParseError("  print %a\n  ret\n", 3, 9, "expected the prefix string of 'print'");
  expectParseError("  print hex\n  ret\n", 3, 12, "expected the prefix string of 'print'");
  expectParseError("  assert %c\n  ret\n", 3, 12, "expected ',' after the condition of 'assert'");
  expectParseError("  assert %c, %a\n  ret\n", 3, 14, "expected the message string of 'assert'");
  expectParseError("  %x = print \"p\"\n  ret\n", 3, 8, "'print' does not produce a value");
  expectParseError("  assert %c, \"m\" : i1\n  ret\n", 3, 18, "'assert' has no result type");
}

TEST(DebugOpsText, VerifierChecksTheCondition) {
  auto m = ir::parseModule("kernel @k(%a: i32) {\nentry:\n  assert %a, \"m\"\n  ret\n}\n");
  EXPECT_NE(ir::verifyModule(*m).find("'assert' condition must be i1 (a scalar or a tile), not i32"), std::string::npos)
      << ir::verifyModule(*m);
  auto nul = ir::parseModule("kernel @k(%c: i1) {\nentry:\n  print \"a\\x00b\", %c\n  ret\n}\n");
  EXPECT_NE(ir::verifyModule(*nul).find("'print' text must not contain a NUL byte"), std::string::npos);
}

// ---- the lines and messages ----------------------------------------------------

TEST(DebugOutput, PrefixFollowsTritonsRule) {
  EXPECT_EQ(ir::devicePrintPrefix("x", true), " x: ");
  EXPECT_EQ(ir::devicePrintPrefix("x:", true), " x: ");
  EXPECT_EQ(ir::devicePrintPrefix("value: ", true), " value: ");
  EXPECT_EQ(ir::devicePrintPrefix(" y ", true), " y: ");
  EXPECT_EQ(ir::devicePrintPrefix("", true), ": ");
  EXPECT_EQ(ir::devicePrintPrefix("hello", false), " hello");
  EXPECT_EQ(ir::devicePrintPrefix("hi", false), "hi");
}

TEST(DebugOutput, IndexWidthsAreTritons) {
  // ceil(log10(size)): the digits of the largest index.
  EXPECT_EQ(ir::printIndexWidth(1), 0);
  EXPECT_EQ(ir::printIndexWidth(8), 1);
  EXPECT_EQ(ir::printIndexWidth(10), 1);
  EXPECT_EQ(ir::printIndexWidth(16), 2);
  EXPECT_EQ(ir::printIndexWidth(100), 2);
  EXPECT_EQ(ir::printIndexWidth(128), 3);
}

// The host's lines are what printf makes of the GPU's formats.
TEST(DebugOutput, HostLinesMatchThePrintfFormats) {
  auto m = ir::parseModule(R"(kernel @k(%p: f32*, %q: i64*, %h: f16*) {
entry:
  %r = range 0 : i32<16>
  %t = reshape %r : i32<2, 8>
  %x = load %p : f32
  %y = load %q : i64
  %z = load %h : f16
  %four = splat i32 4 : i32<16>
  %b = cmp lt %r, %four : i1<16>
  print " v: ", %t, %x, %y, %b
  print hex " h: ", %t, %z, %y
  print " 100% done"
  ret
}
)");
  const auto& insts = m->function("k")->entry()->instructions();
  const ir::Instruction& plain = *insts[7];
  const ir::Instruction& hex = *insts[8];
  const int64_t pid[3] = {3, 1, 0};
  char expected[256];
  auto line = [&](const ir::Instruction& p, int k, std::vector<int64_t> index, ir::PrintedElement v) {
    return ir::printLine(p.text, p.sub == ir::kPrintHex, k, int(p.numOperands()), p.operand(size_t(k))->type(), pid,
                         index, v);
  };
  std::snprintf(expected, sizeof expected, ir::printLineFormat(plain, 0).c_str(), 3, 1, 0, 1, 5, -7);
  EXPECT_EQ(line(plain, 0, {1, 5}, {-7, 0}), expected);
  EXPECT_EQ(std::string(expected), "pid (3, 1, 0) idx (1, 5) v: (operand 0) -7\n");
  std::snprintf(expected, sizeof expected, ir::printLineFormat(plain, 1).c_str(), 3, 1, 0, 1.5);
  EXPECT_EQ(line(plain, 1, {}, {0, 1.5}), expected);
  EXPECT_EQ(std::string(expected), "pid (3, 1, 0) idx () v: (operand 1) 1.500000\n");
  std::snprintf(expected, sizeof expected, ir::printLineFormat(plain, 2).c_str(), 3, 1, 0, -5000000000LL);
  EXPECT_EQ(line(plain, 2, {}, {-5000000000LL, 0}), expected);
  std::snprintf(expected, sizeof expected, ir::printLineFormat(plain, 3).c_str(), 3, 1, 0, 3, 1);
  EXPECT_EQ(line(plain, 3, {3}, {1, 0}), expected);
  EXPECT_EQ(std::string(expected), "pid (3, 1, 0) idx ( 3) v: (operand 3) 1\n");
  std::snprintf(expected, sizeof expected, ir::printLineFormat(hex, 0).c_str(), 3, 1, 0, 0, 2, 0xfffffff9u);
  EXPECT_EQ(line(hex, 0, {0, 2}, {-7, 0}), expected);
  EXPECT_EQ(std::string(expected), "pid (3, 1, 0) idx (0, 2) h: (operand 0) 0xfffffff9\n");
  std::snprintf(expected, sizeof expected, ir::printLineFormat(hex, 1).c_str(), 3, 1, 0, 0x3e00u);  // f16 1.5
  EXPECT_EQ(line(hex, 1, {}, {0, 1.5}), expected);
  EXPECT_EQ(std::string(expected), "pid (3, 1, 0) idx () h: (operand 1) 0x3e00\n");
  std::snprintf(expected, sizeof expected, ir::printLineFormat(hex, 2).c_str(), 3, 1, 0, 0xffffffffffffffffULL);
  EXPECT_EQ(line(hex, 2, {}, {-1, 0}), expected);
  const ir::Instruction& text = *insts[9];
  std::snprintf(expected, sizeof expected, ir::printLineFormat(text, -1).c_str(), 3, 1, 0);
  EXPECT_EQ(ir::printLine(text.text, false, -1, 0, ir::Type::voidTy(), pid, {}, {}), expected);
  EXPECT_EQ(std::string(expected), "pid (3, 1, 0) 100% done\n");
}

TEST(DebugOutput, AssertionMessages) {
  const int64_t pid[3] = {2, 0, 1};
  EXPECT_EQ(ir::assertionFailure("x > 0", "k", pid, {3, 1}),
            "device assertion failed: x > 0 (kernel 'k', program (2, 0, 1), tile element [3, 1])");
  EXPECT_EQ(ir::assertionFailure("", "k", pid, {}), "device assertion failed (kernel 'k', program (2, 0, 1))");
  std::string format = ir::assertionFailureFormat("a.py", SourceLoc{12, 5}, "100%", "k", 2);
  char line[256];
  std::snprintf(line, sizeof line, format.c_str(), 2, 0, 1, 3, 1);
  EXPECT_EQ(std::string(line),
            "a.py:12:5: error: device assertion failed: 100% (kernel 'k', program (2, 0, 1), tile element [3, 1])\n");
}

// ---- running them ----------------------------------------------------------------

interp::Buffer floats(const std::vector<float>& values) {
  interp::Buffer b;
  b.name = "x";
  b.elem = Scalar::F32;
  b.shape = {int64_t(values.size())};
  b.data.resize(values.size() * 4);
  for (size_t i = 0; i < values.size(); ++i) interp::writeElement(b, int64_t(i), values[i]);
  return b;
}

// A kernel of Triton-C, optimized as a launch would.
lang::CompileResult compile(const std::string& source, const std::vector<interp::KernelArg>& args) {
  lang::CompileOptions o;
  o.filename = "dbg.tc";
  lang::CompileResult r = lang::compileSource(source, o);
  runtime::specializeAndOptimize(*r.module, *r.module->functions()[0], runtime::factsOf(args), 3, false);
  return r;
}

// Each program prints its 4 elements and their doubles; element 2 of
// program 1 (x = 6) fails the assertion when the limit is 6.
const char* const kPrintAndAssert = R"(__global__ void k(float* x, int limit) {
  int off[4] = get_program_id(0) * 4 + (0 ... 4);
  float v[4] = *(x + off);
  __debug_print("v", v, off * 2);
  __debug_assert(v < limit, "v below the limit");
}
)";

const char* const kExpectedLines =
    "pid (0, 0, 0) idx (0) v: (operand 0) 0.000000\n"
    "pid (0, 0, 0) idx (1) v: (operand 0) 1.000000\n"
    "pid (0, 0, 0) idx (2) v: (operand 0) 2.000000\n"
    "pid (0, 0, 0) idx (3) v: (operand 0) 3.500000\n"
    "pid (0, 0, 0) idx (0) v: (operand 1) 0\n"
    "pid (0, 0, 0) idx (1) v: (operand 1) 2\n"
    "pid (0, 0, 0) idx (2) v: (operand 1) 4\n"
    "pid (0, 0, 0) idx (3) v: (operand 1) 6\n"
    "pid (1, 0, 0) idx (0) v: (operand 0) 4.000000\n"
    "pid (1, 0, 0) idx (1) v: (operand 0) 5.000000\n"
    "pid (1, 0, 0) idx (2) v: (operand 0) 6.000000\n"
    "pid (1, 0, 0) idx (3) v: (operand 0) -7.250000\n"
    "pid (1, 0, 0) idx (0) v: (operand 1) 8\n"
    "pid (1, 0, 0) idx (1) v: (operand 1) 10\n"
    "pid (1, 0, 0) idx (2) v: (operand 1) 12\n"
    "pid (1, 0, 0) idx (3) v: (operand 1) 14\n";

enum class Backend { Interp, Cpu };

// Runs the kernel on `backend` (the CPU on one thread, in the interpreter's
// program order); returns what it printed, and the error it raised in `error`.
std::string runCapturing(Backend backend, int limit, std::string* error, SourceLoc* where = nullptr) {
  interp::Buffer x = floats({0, 1, 2, 3.5, 4, 5, 6, -7.25});
  std::vector<interp::KernelArg> args{interp::KernelArg::ofBuffer(&x), interp::KernelArg::ofInt(limit)};
  lang::CompileResult r = compile(kPrintAndAssert, args);
  const ir::Function& fn = *r.module->functions()[0];
  std::unique_ptr<cpu::CpuKernel> kernel;
  if (backend == Backend::Cpu) kernel = cpu::CpuKernel::compile(fn);
  ::testing::internal::CaptureStdout();
  try {
    if (backend == Backend::Cpu) {
      cpu::RunOptions one;
      one.threads = 1;
      kernel->run({2}, args, one);
    } else {
      interp::runKernel(fn, {2}, args);
    }
  } catch (const UserError& e) {
    *error = e.what();
    if (where) *where = e.loc();
  }
  return ::testing::internal::GetCapturedStdout();
}

void expectPrintsAndPasses(Backend backend) {
  std::string error;
  EXPECT_EQ(runCapturing(backend, 100, &error), kExpectedLines);
  EXPECT_EQ(error, "");
}

void expectAssertionFails(Backend backend) {
  std::string error;
  SourceLoc where;
  std::string printed = runCapturing(backend, 6, &error, &where);
  EXPECT_EQ(error, "device assertion failed: v below the limit (kernel 'k', program (1, 0, 0), tile element [2])");
  EXPECT_EQ(where.line, 5u);
  EXPECT_EQ(where.col, 3u);
  // Program 1 printed before it failed (its print comes first).
  EXPECT_EQ(printed, kExpectedLines);
}

TEST(DebugOpsInterp, PrintsEveryElementPerProgram) { expectPrintsAndPasses(Backend::Interp); }
TEST(DebugOpsInterp, FailedAssertionIsLocated) { expectAssertionFails(Backend::Interp); }

#define REQUIRE_CPU() \
  if (!cpu::available()) GTEST_SKIP() << "built without the CPU back end (TRITONC_CPU needs LLVM 19)"

TEST(DebugOpsCpu, PrintsWhatTheInterpreterPrints) {
  REQUIRE_CPU();
  expectPrintsAndPasses(Backend::Cpu);
}
TEST(DebugOpsCpu, FailedAssertionIsLocated) {
  REQUIRE_CPU();
  expectAssertionFails(Backend::Cpu);
}

// Scalars, uniform tiles, i1/i8/i64/f16/bf16/f64/pointer values, hex, and a
// print without values: the CPU prints exactly what the interpreter does.
TEST(DebugOpsCpu, EveryKindPrintsAsOnTheInterpreter) {
  REQUIRE_CPU();
  const char* src = R"(kernel @k(%p: f32*, %n: i32) {
entry:
  %pid = program_id 0 : i32
  %r = range 0 : i32<4>
  %s = splat %n : i32<2, 2>
  %two = splat i32 2 : i32<4>
  %b = cmp lt %r, %two : i1<4>
  %i8 = cast %r : i8<4>
  %neg = neg %i8 : i8<4>
  %big = cast %pid : i64
  %big2 = mul %big, i64 -3000000000 : i64
  %f = cast %r : f32<4>
  %half = cast %f : f16<4>
  %bf = cast %f : bf16<4>
  %d = cast %f : f64<4>
  print " a: ", %pid, %s, %b, %neg, %big2
  print hex " h: ", %neg, %half, %bf, %d, %f, %big2, %b
  print " f: ", %half, %bf, %d
  print " done"
  ret
}
)";
  auto m = ir::parseModule(src);
  ASSERT_EQ(ir::verifyModule(*m), "");
  const ir::Function& fn = *m->functions()[0];
  interp::Buffer x = floats({1, 2, 3, 4});
  std::vector<interp::KernelArg> args{interp::KernelArg::ofBuffer(&x), interp::KernelArg::ofInt(-9)};
  ::testing::internal::CaptureStdout();
  interp::runKernel(fn, {2}, args);
  std::string onInterp = ::testing::internal::GetCapturedStdout();
  auto kernel = cpu::CpuKernel::compile(fn);
  cpu::RunOptions one;
  one.threads = 1;
  ::testing::internal::CaptureStdout();
  kernel->run({2}, args, one);
  std::string onCpu = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(onCpu, onInterp);
  // Values computed independently of both: a few lines of program 1.
  for (const char* line : {"pid (1, 0, 0) idx () a: (operand 0) 1\n", "pid (1, 0, 0) idx (1, 0) a: (operand 1) -9\n",
                           "pid (1, 0, 0) idx (1) a: (operand 2) 1\n", "pid (1, 0, 0) idx (3) a: (operand 3) -3\n",
                           "pid (1, 0, 0) idx () a: (operand 4) -3000000000\n",
                           "pid (1, 0, 0) idx (3) h: (operand 0) 0xfd\n", "pid (1, 0, 0) idx (2) h: (operand 1) 0x4000\n",
                           "pid (1, 0, 0) idx (3) h: (operand 2) 0x4040\n",
                           "pid (1, 0, 0) idx (1) h: (operand 3) 0x3ff0000000000000\n",
                           "pid (1, 0, 0) idx (2) h: (operand 4) 0x40000000\n",
                           "pid (1, 0, 0) idx () h: (operand 5) 0xffffffff4d2fa200\n",
                           "pid (1, 0, 0) idx (0) h: (operand 6) 0x1\n", "pid (1, 0, 0) idx (3) f: (operand 1) 3.000000\n",
                           "pid (1, 0, 0) done\n"})
    EXPECT_NE(onInterp.find(line), std::string::npos) << line << "in:\n" << onInterp;
}

// Pointers print as their addresses (the interpreter's are its own).
TEST(DebugOpsCpu, PointersPrintTheirAddresses) {
  REQUIRE_CPU();
  auto m = ir::parseModule(R"(kernel @k(%p: f32*) {
entry:
  %r = range 0 : i32<2>
  %ps = splat %p : f32*<2>
  %ptrs = gep %ps, %r : f32*<2>
  print " p: ", %ptrs
  print hex " p: ", %p
  ret
}
)");
  interp::Buffer x = floats({1, 2});
  auto kernel = cpu::CpuKernel::compile(*m->functions()[0]);
  ::testing::internal::CaptureStdout();
  kernel->run({1}, {interp::KernelArg::ofBuffer(&x)});
  std::string out = ::testing::internal::GetCapturedStdout();
  const auto base = reinterpret_cast<unsigned long long>(x.data.data());
  char expected[200];
  std::snprintf(expected, sizeof expected,
                "pid (0, 0, 0) idx (0) p: 0x%llx\npid (0, 0, 0) idx (1) p: 0x%llx\npid (0, 0, 0) idx () p: 0x%016llx\n",
                base, base + 4, base);
  EXPECT_EQ(out, expected);
}

// A uniform (splatted) condition and a scalar one.
TEST(DebugOpsCpu, ScalarAndUniformConditions) {
  REQUIRE_CPU();
  for (const char* cond : {"%c = cmp ne %pid, i32 1 : i1\n  assert %c, \"scalar\"",
                           "%c = cmp ne %pid, i32 1 : i1\n  %t = splat %c : i1<2, 4>\n  assert %t, \"uniform\""}) {
    std::string text = std::string("kernel @k() {\nentry:\n  %pid = program_id 0 : i32\n  ") + cond + " loc(9:2)\n  ret\n}\n";
    auto m = ir::parseModule(text);
    ASSERT_EQ(ir::verifyModule(*m), "") << text;
    const ir::Function& fn = *m->functions()[0];
    std::string onInterp, onCpu;
    try {
      interp::runKernel(fn, {3}, {});
    } catch (const UserError& e) {
      onInterp = e.what();
      EXPECT_EQ(e.loc().line, 9u);
    }
    try {
      cpu::CpuKernel::compile(fn)->run({3}, {});
    } catch (const UserError& e) {
      onCpu = e.what();
      EXPECT_EQ(e.loc().line, 9u);
    }
    EXPECT_EQ(onCpu, onInterp);
    EXPECT_NE(onInterp.find("program (1, 0, 0)"), std::string::npos) << onInterp;
  }
}

// ---- the optimizer keeps them, in order ---------------------------------------------

TEST(DebugOpsPasses, SurviveOptimizationInOrder) {
  const char* src = R"(__global__ void k(float* x) {
  int off[4] = 0 ... 4;
  float v[4] = *(x + off);
  __debug_print("unused", v * 2);
  __debug_print("again", v * 2);
  __debug_assert(v == v, "not NaN");
  *(x + off) = v + 1;
  __debug_print("after");
}
)";
  interp::Buffer x = floats({1, 2, 3, 4});
  lang::CompileResult r = compile(src, {interp::KernelArg::ofBuffer(&x)});
  std::vector<std::string> order;
  for (auto& inst : r.module->functions()[0]->entry()->instructions())
    if (inst->hasSideEffects() && !inst->isTerminator())
      order.push_back(std::string(ir::opcodeName(inst->opcode())) + " " + inst->text);
  EXPECT_EQ(order, (std::vector<std::string>{"print  unused: ", "print  again: ", "assert not NaN", "store ",
                                             "print  after"}));
}

// ---- Triton-C ----------------------------------------------------------------------

void expectCompileError(const std::string& source, uint32_t line, const std::string& message) {
  try {
    lang::CompileOptions o;
    lang::compileSource(source, o);
    ADD_FAILURE() << "no error for:\n" << source;
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    EXPECT_EQ(e.loc().line, line) << e.what();
  }
}

TEST(DebugOpsTritonC, BuiltinsAreStatementsWithStrings) {
  expectCompileError("__global__ void k(int n) {\n  int x = __debug_print(\"a\", n);\n}\n", 2,
                     "__debug_print() is a statement of its own");
  expectCompileError("__global__ void k(int n) {\n  __debug_print(n);\n}\n", 2,
                     "expected the prefix of __debug_print (a string literal)");
  expectCompileError("__global__ void k(int n) {\n  __debug_assert(n > 0, n);\n}\n", 2,
                     "expected the message of __debug_assert (a string literal)");
  expectCompileError("__global__ void k(int n) {\n  int y = n + \"s\";\n}\n", 2,
                     "a string is only the prefix of __debug_print or the message of __debug_assert");
  expectCompileError("__global__ void k(int n) {\n  __debug_print(\"a\\q\", n);\n}\n", 2, "unknown escape sequence");
}

TEST(DebugOpsTritonC, MaskedAssertionChecksWhereThePredicateHolds) {
  const char* src = R"(__global__ void k(int n) {
  int r[8] = 0 ... 8;
  bool m[8] = r < n;
  @m __debug_assert(r < 4, "r small");
}
)";
  lang::CompileOptions o;
  lang::CompileResult ok = lang::compileSource(src, o);
  EXPECT_NO_THROW(interp::runKernel(*ok.module->functions()[0], {1}, {interp::KernelArg::ofInt(4)}));
  try {
    interp::runKernel(*ok.module->functions()[0], {1}, {interp::KernelArg::ofInt(6)});
    ADD_FAILURE() << "no assertion failure";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("r small (kernel 'k', program (0, 0, 0), tile element [4])"), std::string::npos)
        << e.what();
    EXPECT_EQ(e.loc().line, 4u);
  }
}

}  // namespace
