// libFuzzer target over the whole front end (R22: bad input never crashes the
// compiler). An input is Triton-C source, compiled with fixed -D options plus
// any `// define: NAME=VALUE` lines at its top (the format of test/lang/cases,
// so those files are useful seeds and findings replay in the regression test).
// A UserError is the expected outcome for garbage; anything else is a bug:
// another exception, a crash, a sanitizer report, or front-end output that
// fails the IR verifier or the print/parse round trip. Mutations: libFuzzer's,
// and long and deep programs (long_program_mutator.cpp).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "lang/compile.h"
#include "support/diagnostic.h"

using namespace tritonc;

namespace {

[[noreturn]] void die(const std::string& what, const std::string& detail) {
  std::fprintf(stderr, "frontend_fuzzer: %s\n%s\n", what.c_str(), detail.c_str());
  std::abort();
}

// Leading `// define: X` lines, as in test/lang/cases; they go through the
// same -D parsing as the command line, so malformed ones are fair game.
std::vector<std::string> headerDefines(const std::string& src) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < src.size() && src.compare(pos, 2, "//") == 0) {
    size_t nl = src.find('\n', pos);
    std::string line = src.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    const std::string key = "// define: ";
    if (line.compare(0, key.size(), key) == 0) out.push_back(line.substr(key.size()));
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  return out;
}

void checkModule(const ir::Module& m) {
  std::string err = ir::verifyModule(m);
  if (!err.empty()) die("front-end output fails the IR verifier", err + "\n" + ir::printModule(m));
  std::string text = ir::printModule(m);
  std::unique_ptr<ir::Module> back;
  try {
    back = ir::parseModule(text);
  } catch (const UserError& e) {
    die("printed IR does not parse back",
        std::to_string(e.loc().line) + ":" + std::to_string(e.loc().col) + ": " + e.what() + "\n" + text);
  }
  err = ir::verifyModule(*back);
  if (!err.empty()) die("reparsed IR fails the verifier", err + "\n" + text);
  std::string again = ir::printModule(*back);
  if (again != text) die("IR print/parse round trip is not stable", "first:\n" + text + "\nsecond:\n" + again);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string source(reinterpret_cast<const char*>(data), size);
  lang::CompileOptions opts;
  opts.filename = "fuzz.tc";
  opts.defines = {{"TYPE", "float"}, {"TM", "16"}, {"TN", "16"}, {"TK", "8"}, {"BLOCK", "32"}, {"SIZE", "32"}};
  try {
    for (const std::string& d : headerDefines(source)) opts.defines.push_back(lang::parseDefineOption(d));
    lang::CompileResult r = lang::compileSource(source, opts);
    if (!r.module) die("compileSource returned no module", "");
    checkModule(*r.module);
  } catch (const UserError& e) {
    // The diagnostic must also render (the caret logic reads the source line).
    std::string text = formatDiagnostic(opts.filename, source, e.loc(), e.what());
    if (text.empty()) die("empty diagnostic", e.what());
  } catch (const InternalError& e) {
    die("internal compiler error on user input", e.what());
  } catch (const std::exception& e) {
    die("unexpected exception (not a UserError)", e.what());
  }
  return 0;
}
