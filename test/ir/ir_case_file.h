// The case files of test/ir/cases: IR text (`*.tir`) or Triton-C (`*.tc`),
// several cases per file separated by a line `; -----` (`// -----` in .tc).
// Each case has, in comment lines:
//   RUN: passes=a,b | passes=default | analysis=axis|liveness | num_stages=N | target=sm_90a | num_warps=N
//        | num_ctas=1|2|4 | tf32=1 | env=NAME=VALUE
//        (once; keys may be combined; target, num_warps, num_ctas and tf32 (allow_tf32) are the GPU passes';
//        env sets a compiler switch of the environment while the case's passes run;
//        with a target, `prefetch` pre-fetches as for the GPU: asyncCopies)
//   DEFINES: TM=16 TYPE=float       (.tc only: the -D values)
//   LAUNCH: grid=X[,Y[,Z]] NAME=VALUE...   (optional, repeatable: an interpreter run
//                                          for pass_semantics_test, see there)
//   CHECK...: the FileCheck directives (test/support/filecheck.h)
// Shared by ir_passes_test.cpp and pass_semantics_test.cpp.
#pragma once
#include <algorithm>
#include <cstdlib>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <memory>
#include <ostream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "ir/ir.h"
#include "ir/parser.h"
#include "ir/verifier.h"
#include "lang/compile.h"
#include "support/diagnostic.h"
#include "transform/pass_manager.h"

namespace ir_cases {

using namespace tritonc;

struct IrCase {
  std::string file;       // relative to the repository root, for messages
  std::string group;      // the file's stem: the pass or analysis it tests
  std::string name;       // a gtest name: "<stem>_<index>" (.tc: "<stem>_tc_<index>")
  int index = 0;          // 1-based within the file
  int firstLine = 1;      // line of the case's first line in the file
  int runLine = 0;        // line of its RUN: (where messages point)
  std::string text;       // the case's lines
  bool tritonC = false;   // .tc rather than .tir
  std::string passes;     // RUN: passes=
  std::string analysis;   // RUN: analysis=
  int numStages = transform::PipelineOptions::kDefaultNumStages;  // RUN: num_stages=
  std::string target;     // RUN: target= (the GPU passes' target; pre-fetching as for the GPU)
  int numWarps = 4;       // RUN: num_warps=
  int numCtas = 2;        // RUN: num_ctas= (gpu-multicast: 2 pairs along x, as PipelineOptions' default; 4 along y too)
  bool allowTf32 = false; // RUN: tf32=1 (f32 dots on the tensor cores with tf32 inputs)
  std::vector<std::pair<std::string, std::string>> env;  // RUN: env=NAME=VALUE (repeatable)
  std::vector<lang::Define> defines;
  std::vector<std::string> launches;  // LAUNCH: lines (their text after the colon)
  std::string error;      // a malformed header, reported by the tests
};

// Sets a case's env= switches for its lifetime, then unsets them.
struct CaseEnvironment {
  const IrCase& c;
  explicit CaseEnvironment(const IrCase& ic) : c(ic) {
    for (auto& [name, value] : c.env) setenv(name.c_str(), value.c_str(), 1);
  }
  ~CaseEnvironment() {
    for (auto& [name, value] : c.env) unsetenv(name.c_str());
  }
};

// gtest prints a failing parameter with this instead of its bytes.
inline void PrintTo(const IrCase& c, std::ostream* os) {
  *os << c.file << ":" << (c.runLine ? c.runLine : c.firstLine) << " (case " << c.index << ")";
}

inline std::string casesDir() { return std::string(TRITONC_SOURCE_DIR) + "/test/ir/cases"; }

inline std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::vector<std::string> splitWords(const std::string& s) {
  std::istringstream is(s);
  std::vector<std::string> out;
  for (std::string w; is >> w;) out.push_back(w);
  return out;
}

// Reads the header directives of one case.
inline void parseHeader(IrCase& c) {
  static const std::regex header(R"(^\s*(;|//)\s*(RUN|DEFINES|LAUNCH):(.*)$)");
  std::istringstream is(c.text);
  int line = c.firstLine - 1;
  int runs = 0;
  auto bad = [&](const std::string& what) {
    if (c.error.empty()) c.error = c.file + ":" + std::to_string(line) + ": " + what;
  };
  for (std::string s; std::getline(is, s);) {
    ++line;
    std::smatch m;
    if (!std::regex_match(s, m, header)) continue;
    std::string key = m[2].str(), rest = m[3].str();
    if (key == "LAUNCH") {
      c.launches.push_back(rest);
    } else if (key == "DEFINES") {
      if (!c.tritonC) bad("DEFINES: only applies to Triton-C cases");
      for (const std::string& w : splitWords(rest)) {
        try {
          c.defines.push_back(lang::parseDefineOption(w));
        } catch (const std::exception& e) {
          bad(std::string("bad DEFINES entry '") + w + "': " + e.what());
        }
      }
    } else {  // RUN
      if (++runs > 1) bad("more than one RUN: line in a case");
      c.runLine = line;
      for (const std::string& w : splitWords(rest)) {
        size_t eq = w.find('=');
        std::string k = w.substr(0, eq), v = eq == std::string::npos ? "" : w.substr(eq + 1);
        if (k == "passes" && !v.empty()) c.passes = v;
        else if (k == "analysis" && (v == "axis" || v == "liveness")) c.analysis = v;
        else if (k == "num_stages" && v.size() == 1 && v[0] >= '1' && v[0] <= '8') c.numStages = v[0] - '0';
        else if (k == "target" && (v == "sm_80" || v == "sm_90a")) c.target = v;
        else if (k == "num_warps" && (v == "1" || v == "2" || v == "4" || v == "8" || v == "16")) c.numWarps = std::stoi(v);
        else if (k == "num_ctas" && (v == "1" || v == "2" || v == "4")) c.numCtas = std::stoi(v);
        else if (k == "tf32" && v == "1") c.allowTf32 = true;
        else if (k == "env" && v.find('=') != std::string::npos && v.find('=') > 0)
          c.env.push_back({v.substr(0, v.find('=')), v.substr(v.find('=') + 1)});
        else bad("bad RUN: entry '" + w + "' (expected passes=a,b, analysis=axis|liveness, num_stages=N, target=sm_80|sm_90a, "
                 "num_warps=N, num_ctas=1|2|4, tf32=1 or env=NAME=VALUE)");
      }
    }
  }
  if (runs == 0) bad("case without a RUN: line");
}

// Splits one file into its cases.
inline std::vector<IrCase> casesOfFile(const std::filesystem::path& path) {
  static const std::regex separator(R"(^\s*(;|//)\s*-----+\s*$)");
  std::string rel = "test/ir/cases/" + path.filename().string();
  const std::string group = path.stem().string();  // the pass or analysis: gpu-pipeline
  std::string stem = group;                          // as a gtest name: gpu_pipeline
  for (char& ch : stem)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  std::vector<IrCase> out;
  IrCase cur;
  auto flush = [&](int nextFirstLine) {
    bool hasContent = std::any_of(cur.text.begin(), cur.text.end(), [](char ch) { return !std::isspace(ch); });
    if (hasContent) {
      cur.file = rel;
      cur.index = int(out.size()) + 1;
      cur.tritonC = path.extension() == ".tc";
      cur.group = group;
      cur.name = stem + (cur.tritonC ? "_tc_" : "_") + std::to_string(cur.index);
      parseHeader(cur);
      out.push_back(cur);
    }
    cur = IrCase{};
    cur.firstLine = nextFirstLine;
  };
  std::istringstream is(readFile(path.string()));
  int line = 0;
  cur.firstLine = 1;
  for (std::string s; std::getline(is, s);) {
    ++line;
    if (std::regex_match(s, separator)) {
      flush(line + 1);
      continue;
    }
    cur.text += s + "\n";
  }
  flush(line + 1);
  return out;
}

// Every case of every file, files in name order. Runs while tests are being
// registered, so a failure becomes a case that reports it instead of a crash.
inline std::vector<IrCase> loadAllCases() {
  std::vector<IrCase> all;
  try {
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(casesDir())) {
      std::string ext = e.path().extension().string();
      if (e.is_regular_file() && (ext == ".tir" || ext == ".tc")) files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files)
      for (IrCase& c : casesOfFile(f)) all.push_back(std::move(c));
  } catch (const std::exception& e) {
    IrCase bad;
    bad.name = bad.group = "unreadable_cases";
    bad.error = std::string("cannot load the cases of ") + casesDir() + ": " + e.what();
    all.push_back(bad);
  }
  return all;
}

// The case's text preceded by blank lines, so that parser and front-end
// errors give line numbers of the file.
inline std::string sourceOf(const IrCase& c) { return std::string(size_t(c.firstLine - 1), '\n') + c.text; }

// Parses (or compiles) and verifies the case's input; errors become
// std::runtime_error with file:line:col.
inline std::unique_ptr<ir::Module> buildModule(const IrCase& c) {
  std::string src = sourceOf(c);
  std::unique_ptr<ir::Module> m;
  try {
    if (c.tritonC) {
      lang::CompileOptions opts;
      opts.filename = c.file;
      opts.defines = c.defines;
      m = lang::compileSource(src, opts).module;
    } else {
      m = ir::parseModule(src);
    }
  } catch (const UserError& e) {
    throw std::runtime_error(formatDiagnostic(c.file, src, e.loc(), e.what()));
  }
  std::string err = ir::verifyModule(*m);
  if (!err.empty()) throw std::runtime_error(c.file + ":" + std::to_string(c.firstLine) + ": invalid input IR:\n" + err);
  return m;
}

}  // namespace ir_cases
