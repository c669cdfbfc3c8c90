// The command line never crashes (issue 15): help and version, very long and
// very deep expressions, many loops, grids beyond the GPU's limits. Every
// run must end with an exit status (no signal) within 10 seconds.
#include <cstdint>
#include <regex>

#include "cli_fixture.h"
#include "runtime/version.h"

namespace kernel_test {
namespace {

constexpr double kSeconds = 10;

class CliLimits : public CliTest {};

// A run that ended by itself, in time, with `status`.
void expectClean(const Result& r, int status, const std::string& what, double seconds = kSeconds) {
  EXPECT_EQ(r.status, status) << what << "\nstderr: " << r.err.substr(0, 2000);
  EXPECT_LT(r.seconds, seconds) << what;
}

TEST_F(CliLimits, HelpOfEveryCommandGoesToStdoutWithStatusZero) {
  // Each command's usage names the command and its own options.
  const std::vector<std::pair<std::vector<std::string>, std::vector<std::string>>> cases = {
      {{"--help"}, {"tritonc emit FILE", "tritonc run  FILE", "tritonc tune FILE", "tritonc passes", "--version"}},
      {{"-h"}, {"tritonc emit FILE", "tritonc passes"}},
      {{"help"}, {"tritonc emit FILE", "tritonc passes"}},
      {{"emit", "--help"}, {"tritonc emit FILE", "--stage ast|ir|opt-ir|gpu-ir|ptx"}},
      {{"emit", "x.tc", "--stage", "ir", "--help"}, {"tritonc emit FILE"}},
      {{"run", "--help"}, {"tritonc run  FILE", "--grid X[,Y[,Z]]"}},
      {{"tune", "-h"}, {"tritonc tune FILE", "--quiet"}},
      {{"passes", "--help"}, {"tritonc passes"}},
  };
  for (const auto& [args, expected] : cases) {
    std::string cmd;
    for (auto& a : args) cmd += " " + a;
    Result r = run(args);
    expectClean(r, 0, "tritonc" + cmd);
    EXPECT_EQ(r.err, "") << "tritonc" << cmd;
    EXPECT_EQ(r.out.rfind("usage:\n", 0), 0u) << "tritonc" << cmd << ":\n" << r.out;
    for (const std::string& e : expected) EXPECT_NE(r.out.find(e), std::string::npos) << "tritonc" << cmd << ": no '" << e << "' in\n" << r.out;
  }
  // One command's help leaves the others out.
  Result emit = run({"emit", "--help"});
  EXPECT_EQ(emit.out.find("tritonc run "), std::string::npos) << emit.out;
}

TEST_F(CliLimits, VersionIsTheLibrarysVersionString) {
  for (const char* flag : {"--version", "version"}) {
    Result r = run({flag});
    expectClean(r, 0, flag);
    EXPECT_EQ(r.out, tritonc::runtime::versionString() + "\n");
    EXPECT_TRUE(std::regex_match(r.out, std::regex("tritonc [0-9]+\\.[0-9]+ \\([^ ,()]+\\)\n"))) << r.out;
  }
}

TEST_F(CliLimits, UnknownOptionsAndCommandsStillFail) {
  Result r = run({"emit", "--hepl"});
  expectClean(r, 1, "emit --hepl");
  EXPECT_NE(r.err.find("unknown option '--hepl'"), std::string::npos) << r.err;
  r = run({"passes", "extra"});
  expectClean(r, 1, "passes extra");
  EXPECT_NE(r.err.find("passes takes no arguments"), std::string::npos) << r.err;
  r = run({"frobnicate"});
  expectClean(r, 1, "frobnicate");
  EXPECT_NE(r.err.find("unknown command 'frobnicate'"), std::string::npos) << r.err;
}

// ---- long chains and deep nesting -----------------------------------------

// `term op term op ... term` (n terms).
std::string chain(const std::string& term, const std::string& op, size_t n) {
  std::string out = term;
  out.reserve(n * (term.size() + op.size()));
  for (size_t i = 1; i < n; ++i) out += op + term;
  return out;
}

// A kernel that stores `expr` (over `int x = *p`) into *p.
std::string storeKernel(const std::string& expr) {
  return "__global__ void k(int* p) {\n  int x = *p;\n  *p = " + expr + ";\n}\n";
}

class Chains : public CliTest {
 protected:
  // Compiles `source` to optimized IR and runs it on the interpreter with
  // *p = x; returns the value stored.
  int32_t emitAndRun(const std::string& source, int32_t x) {
    std::string file = write("chain.tc", source);
    Result e = run({"emit", file, "--stage", "opt-ir"});
    expectClean(e, 0, "emit --stage opt-ir");
    Result a = run({"emit", file, "--stage", "ast"});
    expectClean(a, 0, "emit --stage ast");
    NpyArray in;
    in.descr = "<i4";
    in.shape = {1};
    in.data.resize(4);
    std::memcpy(in.data.data(), &x, 4);
    writeNpy(path("p.npy"), in);
    Result r = run({"run", file, "--backend", "interp", "--grid", "1", "--arg", "p=@p.npy", "--save", "p=out.npy"});
    expectClean(r, 0, "run --backend interp");
    if (r.status != 0) return INT32_MIN;
    NpyArray out = readNpy(path("out.npy"));
    int32_t v;
    std::memcpy(&v, out.data.data(), 4);
    last_ = e.out;
    ast_ = a.out;
    return v;
  }
  std::string last_, ast_;  // the optimized IR and the AST of the last chain
};

size_t countOf(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

TEST_F(Chains, HundredThousandOnesFoldToTheirSum) {
  EXPECT_EQ(emitAndRun(storeKernel(chain("1", "+", 100000)), 7), 100000);
  EXPECT_NE(last_.find("store %p, i32 100000"), std::string::npos) << last_.substr(0, 2000);
  // The AST prints a chain as one node over its operands.
  EXPECT_NE(ast_.find("Binary" + chain("", " +", 100000)), std::string::npos);
  EXPECT_EQ(countOf(ast_, "Int 1  <3:"), 100000u);
}

TEST_F(Chains, ThreeHundredThousandTermSum) {
  EXPECT_EQ(emitAndRun(storeKernel(chain("x", "+", 300000)), 3), 900000);
  EXPECT_EQ(countOf(last_, " = add "), 299999u);
}

TEST_F(Chains, HundredThousandTermLogicalAnd) {
  std::string src = storeKernel(chain("x", "&&", 100000));
  EXPECT_EQ(emitAndRun(src, 3), 1);
  EXPECT_EQ(countOf(last_, " = and "), 99999u);
  EXPECT_EQ(emitAndRun(src, 0), 0);
}

TEST_F(Chains, HundredThousandTermComparison) {
  // ((x < x) < x) < ...: computed here the same way.
  for (int32_t x : {1, 3}) {
    int32_t expected = x;
    for (int i = 1; i < 100000; ++i) expected = expected < x;
    EXPECT_EQ(emitAndRun(storeKernel(chain("x", "<", 100000)), x), expected) << "x = " << x;
  }
}

TEST_F(Chains, HundredThousandTermProduct) {
  uint32_t expected = 3;  // 3^100000, wrapping at 32 bits as int does
  for (int i = 1; i < 100000; ++i) expected *= 3u;
  EXPECT_EQ(emitAndRun(storeKernel(chain("x", "*", 100000)), 3), int32_t(expected));
}

TEST_F(Chains, HundredThousandTermDifference) {
  EXPECT_EQ(emitAndRun(storeKernel(chain("x", "-", 100000)), 3), 3 - 3 * 99999);
}

TEST_F(Chains, MixedPrecedenceChain) {
  // x * 2 + x * 2 + ... with parenthesized groups: (x + 1) * 2 ...
  std::string expr = chain("x * 2", " + ", 50000) + " - " + chain("(x + 1)", " * 1 - ", 1000);
  int64_t expected = int64_t(3) * 2 * 50000 - 4 - int64_t(4) * 999;
  EXPECT_EQ(emitAndRun(storeKernel(expr), 3), int32_t(expected));
}

// A located error: FILE:3:COL: error: MESSAGE, the source line (a window of
// it) and a caret under a character of `at`.
void expectNestingError(const Result& r, const std::string& file, const std::string& message, const std::string& at) {
  expectClean(r, 1, message);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.err, m, std::regex("^" + file + ":3:([0-9]+): error: " + message + "\n([^\n]*)\n( *)\\^\n")))
      << r.err.substr(0, 1000);
  const std::string shown = m[2];
  const size_t caret = m[3].length();
  ASSERT_LT(caret, shown.size());
  EXPECT_NE(at.find(shown[caret]), std::string::npos) << "caret under '" << shown[caret] << "' in\n" << shown;
  EXPECT_LT(shown.size(), 200u) << "the whole line was printed";
}

TEST_F(CliLimits, DeepNestingIsRefusedWithALocatedError) {
  const std::string nested = "expression nested deeper than 200 levels";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {std::string(100000, '(') + "x" + std::string(100000, ')'), "("},
      {chain("-", " ", 100000) + " x", "-"},
      {std::string(100000, '!') + "x", "!"},
      {chain("~", " ", 50000) + " x", "~"},
      {chain("(int)", " ", 50000) + " x", "("},
      {chain("x ?", " ", 100000) + " x" + chain(" : x", "", 100000), "?"},  // middle arms
      {chain("x ? x :", " ", 100000) + " x", "?"},                          // else arms
      {"x" + chain("[:]", "", 40000), "["},
      {chain("exp(", "", 100000) + "x" + std::string(100000, ')'), "("},
      {chain("x = ", "", 100000) + "x", "="},
  };
  for (const auto& [expr, at] : cases) {
    SCOPED_TRACE(expr.substr(0, 40));
    std::string file = write("deep.tc", storeKernel(expr));
    for (const char* stage : {"ast", "ir"}) expectNestingError(run({"emit", file, "--stage", stage}), file, nested, at);
  }
  // Statements nest too; the error names the statement.
  std::string ifs = "__global__ void k(int* p) {\n  int x = *p;\n  " + chain("if (x)", " ", 100000) + " *p = 1;\n}\n";
  std::string file = write("ifs.tc", ifs);
  expectNestingError(run({"emit", file, "--stage", "ir"}), file, "statement nested deeper than 200 levels", "i");
  std::string braces = "__global__ void k(int* p) {\n  int x = *p;\n  " + std::string(100000, '{') + std::string(100000, '}') + "\n}\n";
  file = write("braces.tc", braces);
  expectNestingError(run({"emit", file, "--stage", "ir"}), file, "statement nested deeper than 200 levels", "{");
  // #if expressions.
  std::string ifdef = "__global__ void k(int* p) {\n#if " + chain("1 ? 1 :", " ", 100000) + " 1\n  *p = 1;\n#endif\n}\n";
  file = write("hashif.tc", ifdef);
  Result r = run({"emit", file, "--stage", "ir"});
  expectClean(r, 1, "#if");
  EXPECT_NE(r.err.find(file + ":2:"), std::string::npos) << r.err.substr(0, 500);
  EXPECT_NE(r.err.find("'#if' expression nested deeper than 256 levels"), std::string::npos) << r.err.substr(0, 500);
}

TEST_F(CliLimits, NestingUpToTheLimitWorks) {
  // 198 parentheses, each around a ladder of every precedence level: the
  // deepest tree the limit allows (left chains aside); it runs.
  std::string expr = "x";
  for (int i = 0; i < 198; ++i) expr = "x || x && x | x ^ x & x == x < x << x + x * (" + expr + ")";
  std::string file = write("ladder.tc", storeKernel(expr));
  for (const char* stage : {"ast", "opt-ir", "ptx"}) expectClean(run({"emit", file, "--stage", stage}), 0, stage);
  std::string hashIf = "__global__ void k(int* p) {\n#if " + chain("1", " + ", 100000) + " == 100000\n  *p = 1;\n#endif\n}\n";
  file = write("sum.tc", hashIf);
  Result r = run({"emit", file, "--stage", "ir"});
  expectClean(r, 0, "#if 1 + 1 + ...");
  EXPECT_NE(r.out.find("store %p, i32 1"), std::string::npos) << r.out;
}

// A tile mask built by a chain of 30,000 comparisons goes through the GPU
// back end to PTX in time: the register estimate (gpu/occupancy.cpp) walked
// the block once per instruction (3 s for 10,000 terms, minutes for 100,000).
TEST_F(Chains, ThirtyThousandTermTileMaskReachesPtx) {
  std::string src = "__global__ void k(int* p, int x) {\n  int i[16] = 0 ... 16;\n  bool m[16] = " +
                    chain("i == x", " || ", 30000) + ";\n  @m *(p + i) = i;\n}\n";
  std::string file = write("mask_chain.tc", src);
  Result r = run({"emit", file, "--stage", "ptx", "--target", "sm_90a"});
  expectClean(r, 0, "emit --stage ptx");
  EXPECT_NE(r.out.find(".visible .entry k("), std::string::npos) << r.out.substr(0, 2000);
}

// ---- many loops -------------------------------------------------------------

TEST_F(CliLimits, TenThousandSequentialLoops) {
  std::string src = "__global__ void k(int* p, int n) {\n  int s = 0;\n";
  for (int i = 0; i < 10000; ++i)
    src += "  for (int i" + std::to_string(i) + " = 0; i" + std::to_string(i) + " < n; i" + std::to_string(i) +
           "++) s += i" + std::to_string(i) + " + " + std::to_string(i % 7) + ";\n";
  src += "  *p = s;\n}\n";
  std::string file = write("loops.tc", src);
  Result e = run({"emit", file, "--stage", "opt-ir"});
  expectClean(e, 0, "emit --stage opt-ir");
  EXPECT_EQ(countOf(e.out, "  cond_br "), 10000u);
  // Through the GPU passes too (gpu-tma and gpu-defer-dot-waits walked the
  // function's blocks, or all loops, for every loop: 34 s). 30,000 blocks
  // through some fifty passes, each with its own analyses: 5.6 s when this
  // was written, 11-13 s alone on the 2-core VM in session 43 (2.2 s at
  // 2,500 loops, 5.0 at 5,000), 24 s beside another test in CI; 8.6 s in
  // session 44, once erasing unreachable blocks took one sweep (it moved
  // the block list once per block): allowed 60 (a bound against hangs, not
  // a measure).
  Result p = run({"emit", file, "--stage", "ptx", "--target", "sm_90a"});
  expectClean(p, 0, "emit --stage ptx", 60);
  EXPECT_EQ(countOf(p.out, "\n$L_for_cond_"), 10000u);  // the labels
  Result r = run({"run", file, "--backend", "interp", "--grid", "1", "--arg", "n=3", "--arg", "p=zeros:i32:1",
                  "--save", "p=out.npy"});
  expectClean(r, 0, "run");
  int64_t expected = 0;
  for (int i = 0; i < 10000; ++i) expected += 3 + 3 * (i % 7);  // 0 + 1 + 2, plus 3 times i % 7
  NpyArray out = readNpy(path("out.npy"));
  int32_t v;
  std::memcpy(&v, out.data.data(), 4);
  EXPECT_EQ(v, expected);
}

// ---- grids ------------------------------------------------------------------

TEST_F(CliLimits, GridsBeyondTheGpuLimitsAreRefusedOnEveryBackEnd) {
  const std::string kernel = kRoot + "/examples/vector_add.tc";
  const std::vector<std::string> args = {"--arg", "N=64", "--arg", "a=zeros:f32:64", "--arg", "b=zeros:f32:64",
                                         "--arg", "c=zeros:f32:64"};
  const std::vector<std::pair<std::string, std::string>> grids = {
      {"1073741824,1073741824,1073741824", "(1073741824, 1073741824, 1073741824)"},
      {"2147483648", "(2147483648, 1, 1)"},
      {"1,65536", "(1, 65536, 1)"},
      {"1,1,65536", "(1, 1, 65536)"}};
  for (const auto& [grid, shown] : grids)
    for (const char* backend : {"interp", "gpu"}) {
      std::vector<std::string> cmd = {"run", kernel, "--backend", backend, "--grid", grid};
      cmd.insert(cmd.end(), args.begin(), args.end());
      Result r = run(cmd);
      expectClean(r, 1, grid);
      EXPECT_NE(r.err.find("--grid " + grid + ": grid " + shown + " is beyond the GPU's limits (x < 2^31, y and z <= 65535 programs)"),
                std::string::npos) << r.err;
    }
  // Through the tuner: each configuration's grid is refused, and the error says so.
  std::vector<std::string> cmd = {"run", kernel, "--backend", "interp", "--num-warps", "1,2", "--grid", "65536,65536,65536"};
  cmd.insert(cmd.end(), args.begin(), args.end());
  Result r = run(cmd);
  expectClean(r, 1, "tuned");
  EXPECT_NE(r.err.find("grid (65536, 65536, 65536) is beyond the GPU's limits"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace kernel_test
