// Front-end diagnostics (R22, R3): every file in test/lang/cases/ is a small
// malformed Triton-C program whose header says which error it must produce:
//
//   // expect-error: LINE:COL: substring of the message
//   // define: NAME=VALUE            (one -D option, the rest of the line verbatim)
//   // defines: A=1 B="x, y"         (several -D options, split on blanks)
//
// LINE:COL 0:0 means "no source location" (a bad -D option). The error must be
// a UserError (never InternalError, another exception or a crash) at exactly
// that location, and formatDiagnostic must render it with the source line and
// a caret. The examples/ kernels are the positive side: they must compile, and
// their IR must verify and survive a print/parse round trip.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "lang/compile.h"
#include "support/diagnostic.h"

namespace tritonc::lang {
namespace {

namespace fs = std::filesystem;

std::string readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Splits "A=1 B=\"x, y\" C=[1, 2]" on blanks that are outside quotes and
// brackets; surrounding quotes of a value are dropped.
std::vector<std::string> splitDefines(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  bool quoted = false;
  auto flush = [&] {
    if (!cur.empty()) out.push_back(cur);
    cur.clear();
  };
  for (char c : s) {
    if (c == '"') { quoted = !quoted; continue; }
    if (!quoted && c == '[') ++depth;
    if (!quoted && c == ']') --depth;
    if (!quoted && depth <= 0 && (c == ' ' || c == '\t')) { flush(); continue; }
    cur += c;
  }
  flush();
  return out;
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r' || s.back() == '\t')) s.pop_back();
  size_t b = s.find_first_not_of(" \t");
  return b == std::string::npos ? "" : s.substr(b);
}

struct Case {
  std::string name;
  std::string source;
  std::vector<std::string> defines;  // raw -D texts, parsed as the CLI does
  bool hasExpectation = false;
  SourceLoc loc;
  std::string message;
};

Case loadCase(const fs::path& p) {
  Case c;
  c.name = p.stem().string();
  c.source = readFile(p);
  std::istringstream lines(c.source);
  std::string line;
  while (std::getline(lines, line) && line.rfind("//", 0) == 0) {
    std::string body = trimmed(line.substr(2));
    auto value = [&](const char* key) -> std::optional<std::string> {
      std::string k = std::string(key) + ":";
      if (body.rfind(k, 0) != 0) return std::nullopt;
      return trimmed(body.substr(k.size()));
    };
    if (auto v = value("expect-error")) {
      unsigned l = 0, col = 0;
      int used = 0;
      if (std::sscanf(v->c_str(), "%u:%u:%n", &l, &col, &used) == 2 && used > 0) {
        c.hasExpectation = true;
        c.loc = SourceLoc{l, col};
        c.message = trimmed(v->substr(used));
      }
    } else if (auto v = value("define")) {
      c.defines.push_back(*v);
    } else if (auto v = value("defines")) {
      for (auto& d : splitDefines(*v)) c.defines.push_back(d);
    }
  }
  return c;
}

std::vector<fs::path> filesIn(const fs::path& dir) {
  std::vector<fs::path> out;
  if (fs::exists(dir))
    for (auto& e : fs::directory_iterator(dir))
      if (e.path().extension() == ".tc") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

const fs::path kCases = fs::path(TRITONC_SOURCE_DIR) / "test" / "lang" / "cases";
const fs::path kExamples = fs::path(TRITONC_SOURCE_DIR) / "examples";

std::string caseName(const testing::TestParamInfo<fs::path>& info) {
  std::string n = info.param.stem().string();
  for (char& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

// ---- negative cases ----------------------------------------------------------

class Diagnostics : public testing::TestWithParam<fs::path> {};

TEST_P(Diagnostics, ReportsExpectedError) {
  Case c = loadCase(GetParam());
  ASSERT_TRUE(c.hasExpectation) << GetParam() << ": missing or malformed '// expect-error: LINE:COL: text'";
  CompileOptions opts;
  opts.filename = c.name + ".tc";
  try {
    for (const std::string& d : c.defines) opts.defines.push_back(parseDefineOption(d));
    compileSource(c.source, opts);
    FAIL() << c.name << ": compiled without error; expected " << c.loc.line << ":" << c.loc.col << ": "
           << c.message;
  } catch (const UserError& e) {
    std::string msg = e.what();
    std::string got = std::to_string(e.loc().line) + ":" + std::to_string(e.loc().col) + ": " + msg;
    EXPECT_EQ(e.loc().line, c.loc.line) << c.name << ": got " << got;
    EXPECT_EQ(e.loc().col, c.loc.col) << c.name << ": got " << got;
    EXPECT_NE(msg.find(c.message), std::string::npos)
        << c.name << ": message does not contain '" << c.message << "'; got " << got;

    // The rendered form: FILE:LINE:COL: error: MESSAGE, the line, a caret.
    std::string text = formatDiagnostic(opts.filename, c.source, e.loc(), msg);
    if (std::getenv("TRITONC_DIAG_DUMP")) std::cout << text;  // to review the wording of every case
    if (!c.loc.known()) {
      EXPECT_EQ(text, opts.filename + ": error: " + msg + "\n");
      return;
    }
    std::string head = opts.filename + ":" + std::to_string(c.loc.line) + ":" + std::to_string(c.loc.col) +
                       ": error: " + msg + "\n";
    ASSERT_EQ(text.substr(0, head.size()), head) << text;
    std::istringstream src(c.source);
    std::string srcLine;
    for (uint32_t i = 0; i < c.loc.line; ++i) std::getline(src, srcLine);
    std::string rest = text.substr(head.size());
    // An empty line (error at end of file) may be rendered without a caret.
    if (srcLine.empty() && rest.empty()) return;
    std::string caret;
    for (uint32_t i = 1; i < c.loc.col; ++i) caret += i - 1 < srcLine.size() && srcLine[i - 1] == '\t' ? '\t' : ' ';
    EXPECT_EQ(rest, srcLine + "\n" + caret + "^\n") << "rendered:\n" << text;
  } catch (const InternalError& e) {
    FAIL() << c.name << ": internal compiler error instead of a diagnostic: " << e.what();
  } catch (const std::exception& e) {
    FAIL() << c.name << ": unexpected exception instead of a UserError: " << e.what();
  } catch (...) {
    FAIL() << c.name << ": unknown exception instead of a UserError";
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, Diagnostics, testing::ValuesIn(filesIn(kCases)), caseName);

TEST(DiagnosticsSuite, HasEnoughCases) { EXPECT_GE(filesIn(kCases).size(), 45u); }

// ---- positive cases: the examples --------------------------------------------

// Macros that every parameterized example accepts; tunable names ignore them
// when their lists already hold the value.
std::vector<Define> commonDefines() {
  return {{"TYPE", "float"}, {"TM", "16"}, {"TN", "16"}, {"TK", "8"}, {"BLOCK", "32"}, {"SIZE", "32"},
          {"BM", "16"},     {"BN", "16"}, {"HEAD", "16"}, {"CAUSAL", "1"}, {"SPLIT", "2"}, {"HALF", "16"},
          {"TOPK", "4"}};
}

// The four transposition variants of matmul_fused.tc (its header comment).
std::vector<Define> fusedDefines(bool transA, bool transB) {
  std::vector<Define> d = commonDefines();
  if (!transA)
    d.insert(d.end(), {{"USE_A", "a"}, {"STRIDE_AK", "1"}, {"STRIDE_AM", "lda"}, {"BROADCAST_AK", "newaxis, :"},
                       {"BROADCAST_AM", ":, newaxis"}, {"SHAPE_A", "TM, TK"}});
  else
    d.insert(d.end(), {{"USE_A", "^a"}, {"STRIDE_AK", "lda"}, {"STRIDE_AM", "1"}, {"BROADCAST_AK", ":, newaxis"},
                       {"BROADCAST_AM", "newaxis, :"}, {"SHAPE_A", "TK, TM"}});
  if (!transB)
    d.insert(d.end(), {{"USE_B", "b"}, {"STRIDE_BK", "ldb"}, {"STRIDE_BN", "1"}, {"BROADCAST_BK", ":, newaxis"},
                       {"BROADCAST_BN", "newaxis, :"}, {"SHAPE_B", "TK, TN"}});
  else
    d.insert(d.end(), {{"USE_B", "^b"}, {"STRIDE_BK", "1"}, {"STRIDE_BN", "ldb"}, {"BROADCAST_BK", "newaxis, :"},
                       {"BROADCAST_BN", ":, newaxis"}, {"SHAPE_B", "TN, TK"}});
  return d;
}

// Compiles, verifies, and checks that the printed IR parses back to the same text.
void compileCleanly(const fs::path& file, const std::vector<Define>& defines) {
  CompileOptions opts;
  opts.filename = file.filename().string();
  opts.defines = defines;
  std::string source = readFile(file);
  CompileResult r;
  try {
    r = compileSource(source, opts);
  } catch (const UserError& e) {
    FAIL() << formatDiagnostic(opts.filename, source, e.loc(), e.what());
  }
  ASSERT_TRUE(r.module);
  EXPECT_EQ(ir::verifyModule(*r.module), "") << file;
  std::string printed = ir::printModule(*r.module);
  std::unique_ptr<ir::Module> back;
  try {
    back = ir::parseModule(printed);
  } catch (const UserError& e) {
    FAIL() << file << ": printed IR does not parse back: " << e.loc().line << ":" << e.loc().col << ": "
           << e.what() << "\n" << printed;
  }
  EXPECT_EQ(ir::verifyModule(*back), "") << file;
  EXPECT_EQ(ir::printModule(*back), printed) << file;
}

class Examples : public testing::TestWithParam<fs::path> {};

TEST_P(Examples, Compiles) {
  if (GetParam().stem() == "matmul_fused") {
    for (bool ta : {false, true})
      for (bool tb : {false, true}) {
        SCOPED_TRACE(std::string("transA=") + (ta ? "1" : "0") + " transB=" + (tb ? "1" : "0"));
        compileCleanly(GetParam(), fusedDefines(ta, tb));
      }
    return;
  }
  if (GetParam().stem() == "matmul_i8") {  // B's macros as matmul_fused.tc's (its header comment)
    for (bool tb : {false, true}) {
      SCOPED_TRACE(std::string("transB=") + (tb ? "1" : "0"));
      compileCleanly(GetParam(), fusedDefines(false, tb));
    }
    return;
  }
  compileCleanly(GetParam(), commonDefines());
}

INSTANTIATE_TEST_SUITE_P(All, Examples, testing::ValuesIn(filesIn(kExamples)), caseName);

TEST(ExamplesExtra, TuningListUsesFirstValue) {
  std::vector<Define> d = {{"TYPE", "half"}, {"SIZE", "[64, 128, 256]"}};
  CompileOptions opts;
  opts.defines = d;
  CompileResult r = compileSource(readFile(kExamples / "vector_add_param.tc"), opts);
  ASSERT_EQ(r.tuning.size(), 1u);
  EXPECT_EQ(r.tuning[0].name, "SIZE");
  EXPECT_EQ(r.tuning[0].values, (std::vector<std::string>{"64", "128", "256"}));
}

TEST(ExamplesExtra, TunableOverriddenByDefine) {
  CompileOptions opts;
  opts.defines = {{"TM", "32"}};
  CompileResult r = compileSource(readFile(kExamples / "matmul_nt.tc"), opts);
  EXPECT_EQ(ir::verifyModule(*r.module), "");
}

// Valid snippets straight from the language description (seed tutorial, SPEC
// R1-R7): the other side of each negative case above.
const char* const kValidSnippets[] = {
    // the tutorial's introduction
    R"(void f(float* out) {
  float x[16, 8] = 3.14;
  float y[16, 8] = 5.17;
  float z[16, 8] = x + y;
  float u[16] = z[:, +];
  float v[16, 32] = u[:, newaxis];
  *(out + (0 ... 16)[:, newaxis] * 32 + (0 ... 32)[newaxis, :]) = v;
})",
    // reductions, parenthesised subscripts, casts to tiles, INFINITY
    R"(__global__ void f(float* X, int M) {
  int rm[16] = get_program_id(0) * 16 + 0 ... 16;
  bool check[16] = rm < M;
  float y[16] = *?(check)(X + rm);
  float s = (check ? y : 0)[+];
  float m = y[max] + y[min];
  bool c2[16, 1] = (rm < M)[:, newaxis];
  float n[16] = (float[16])-INFINITY;
  float w[16] = (float[16])s;
  @check *(X + rm) = y + s + m + n + w;
})",
    // pointer compound assignment, empty loop body, predicated statement,
    // __multipleof on a local, atomics, dot and trans
    R"(__global__ void f(int* p, float* A, int K) {
  int inc __multipleof(8) = *p;
  int* pinc = p;
  pinc += 2;
  int i;
  for (i = 0; i < K; i++);
  float a[16, 8] = 1;
  float b[8, 16] = 2;
  float c[16, 16] = dot(a, b) + a @ b + trans(^b @ ^a);
  atomic_add(p, inc + i);
  atomic_cas(pinc, 0, 1);
  atomic_xchg(pinc, 0);
  *(A + (0 ... 16)[:, newaxis] * 16 + (0 ... 16)[newaxis, :]) = c;
})",
};

TEST(ValidSnippets, Compile) {
  for (const char* src : kValidSnippets) {
    CompileOptions opts;
    opts.filename = "snippet.tc";
    try {
      CompileResult r = compileSource(src, opts);
      EXPECT_EQ(ir::verifyModule(*r.module), "") << src;
    } catch (const UserError& e) {
      ADD_FAILURE() << formatDiagnostic(opts.filename, src, e.loc(), e.what());
    }
  }
}

}  // namespace
}  // namespace tritonc::lang
