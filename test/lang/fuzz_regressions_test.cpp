// Replays what fuzz/frontend_fuzzer found (test/lang/fuzz_regressions/*.tc):
// each input must either compile to IR that verifies and round-trips, or be
// rejected with a UserError; never another exception, a crash or a hang.
// Each file runs in a child process so that one crash does not hide the rest.
// Inputs are compiled exactly as the fuzzer does: the fixed -D options below
// plus any `// define: NAME=VALUE` lines at the top of the file. A header line
// `// max-seconds: N` tightens the time limit (default 5 s) for findings that
// were slow rather than wrong.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
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

std::vector<fs::path> regressionFiles() {
  std::vector<fs::path> out;
  fs::path dir = fs::path(TRITONC_SOURCE_DIR) / "test" / "lang" / "fuzz_regressions";
  if (fs::exists(dir))
    for (auto& e : fs::directory_iterator(dir))
      if (e.path().extension() == ".tc") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

// Values of the `// KEY: value` lines at the top of `src` (as in fuzz/frontend_fuzzer.cpp).
std::vector<std::string> headerValues(const std::string& src, const std::string& key) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < src.size() && src.compare(pos, 2, "//") == 0) {
    size_t nl = src.find('\n', pos);
    std::string line = src.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    std::string prefix = "// " + key + ": ";
    if (line.compare(0, prefix.size(), prefix) == 0) out.push_back(line.substr(prefix.size()));
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  return out;
}

void onAlarm(int) {
  const char msg[] = "timed out: the front end took longer than the file's limit\n";
  (void)!write(2, msg, sizeof msg - 1);
  std::_Exit(2);
}

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "%s\n", what.c_str());
  std::fflush(stderr);
  std::_Exit(1);
}

// Runs in the child: exits 0 when the outcome is acceptable.
[[noreturn]] void replay(const fs::path& file) {
  std::string source = readFile(file);
  // A hang is a finding too (SIGALRM ends the child): 4 KB of source must
  // compile in well under a second.
  unsigned limit = 5;
  for (const std::string& v : headerValues(source, "max-seconds")) limit = unsigned(std::max(1, std::atoi(v.c_str())));
  std::signal(SIGALRM, onAlarm);
  alarm(limit);
  CompileOptions opts;
  opts.filename = file.filename().string();
  opts.defines = {{"TYPE", "float"}, {"TM", "16"}, {"TN", "16"}, {"TK", "8"}, {"BLOCK", "32"}, {"SIZE", "32"}};
  try {
    for (const std::string& d : headerValues(source, "define")) opts.defines.push_back(parseDefineOption(d));
    CompileResult r = compileSource(source, opts);
    std::string err = ir::verifyModule(*r.module);
    if (!err.empty()) fail("front-end output fails the verifier:\n" + err);
    std::string text = ir::printModule(*r.module);
    std::unique_ptr<ir::Module> back = ir::parseModule(text);  // a UserError here is caught below: wrong
    err = ir::verifyModule(*back);
    if (!err.empty()) fail("reparsed IR fails the verifier:\n" + err);
    if (ir::printModule(*back) != text) fail("IR print/parse round trip is not stable:\n" + text);
  } catch (const UserError& e) {
    formatDiagnostic(opts.filename, source, e.loc(), e.what());
  } catch (const std::exception& e) {
    fail(std::string("exception other than a front-end UserError: ") + e.what());
  }
  std::_Exit(0);
}

class FuzzRegressions : public testing::TestWithParam<fs::path> {};

TEST_P(FuzzRegressions, CompilesOrReportsUserError) {
  EXPECT_EXIT(replay(GetParam()), testing::ExitedWithCode(0), "") << GetParam();
}

std::string caseName(const testing::TestParamInfo<fs::path>& info) {
  std::string n = info.param.stem().string();
  for (char& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(FuzzRegressions);
INSTANTIATE_TEST_SUITE_P(Files, FuzzRegressions, testing::ValuesIn(regressionFiles()), caseName);

}  // namespace
}  // namespace tritonc::lang
