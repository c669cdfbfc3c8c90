#include "frontend_check.h"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <set>
#include <vector>

#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "lang/compile.h"
#include "support/diagnostic.h"

namespace tritonc::fuzz {

namespace {

[[noreturn]] void die(const std::string& what, const std::string& detail) {
  std::fprintf(stderr, "frontend fuzzer: %s\n%s\n", what.c_str(), detail.c_str());
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

// The IR's text, after checking that it verifies and round-trips.
std::string checkModule(const ir::Module& m) {
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
  return text;
}

// "error: bad -D list for '_': unbalanced brackets" from a message with names and numbers.
std::string blanked(const std::string& message) {
  std::string out;
  bool quoted = false;
  for (char c : message.substr(0, message.find('\n'))) {
    if (c == '\'') {
      quoted = !quoted;
      out += quoted ? "'_" : "'";
    } else if (!quoted) {
      out += (c >= '0' && c <= '9') ? '#' : c;
    }
  }
  return out;
}

// "ok: add dot load ..." : the opcodes of the IR text, sorted.
std::string opcodesOf(const std::string& ir) {
  std::set<std::string> ops;
  for (size_t at = ir.find(" = "); at != std::string::npos; at = ir.find(" = ", at + 3)) {
    size_t end = ir.find_first_of(" \n", at + 3);
    if (end != std::string::npos) ops.insert(ir.substr(at + 3, end - at - 3));
  }
  std::string out = "ok:";
  for (const std::string& op : ops) out += " " + op;
  return out;
}

}  // namespace

std::string checkFrontEnd(const std::string& source) {
  lang::CompileOptions opts;
  opts.filename = "fuzz.tc";
  opts.defines = {{"TYPE", "float"}, {"TM", "16"}, {"TN", "16"}, {"TK", "8"}, {"BLOCK", "32"}, {"SIZE", "32"}};
  try {
    for (const std::string& d : headerDefines(source)) opts.defines.push_back(lang::parseDefineOption(d));
    lang::CompileResult r = lang::compileSource(source, opts);
    if (!r.module) die("compileSource returned no module", "");
    return opcodesOf(checkModule(*r.module));
  } catch (const UserError& e) {
    // The diagnostic must also render (the caret logic reads the source line).
    std::string text = formatDiagnostic(opts.filename, source, e.loc(), e.what());
    if (text.empty()) die("empty diagnostic", e.what());
    return "error: " + blanked(e.what());
  } catch (const InternalError& e) {
    die("internal compiler error on user input", e.what());
  } catch (const std::exception& e) {
    die("unexpected exception (not a UserError)", e.what());
  }
}

}  // namespace tritonc::fuzz
