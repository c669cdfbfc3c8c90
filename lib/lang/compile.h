// The front-end driver: Triton-C source + options -> Triton-IR module.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ir/ir.h"
#include "lang/ast.h"
#include "lang/define.h"

namespace tritonc::lang {

// A tuning parameter: a -D list or a `tunable` declaration. A plain compile
// uses values[chosen]; the runtime's tuner compiles each value.
struct TuningParam {
  std::string name;
  std::vector<std::string> values;
  size_t chosen = 0;
  bool fromSource = false;  // `tunable` in the source rather than -D
};

// What a kernel's source text is written in: Triton-C, or Triton-IR text
// made by another front end (the Python DSL builds it with FunctionBuilder;
// its locations point into the Python file).
enum class Language { TritonC, TritonIr };

struct CompileOptions {
  std::string filename = "<input>";
  std::vector<Define> defines;  // Triton-C only
  Language language = Language::TritonC;
};

struct CompileResult {
  std::unique_ptr<ir::Module> module;
  std::vector<TuningParam> tuning;   // the tuning space found
  std::vector<std::string> notes;    // e.g. "TM is tuned over [32, 64]; using 32"
  std::vector<Warning> warnings;     // located: e.g. a store through a __readonly parameter
};

// Parses "NAME" (defined as 1, as by C compilers) or "NAME=VALUE"; throws
// UserError (no location) if malformed.
Define parseDefineOption(const std::string& text);
// Splits a list value "[32, 64, 128]" into its items; a plain value is a
// one-item list. Throws UserError (no location) on a malformed list.
std::vector<std::string> defineValues(const Define& d);

// Preprocesses and parses (for `--stage ast`). -D values for names that the
// source declares `tunable` are not macros: they go to `tunableOverrides`.
TranslationUnit parseSource(const std::string& source, const CompileOptions& opts,
                            std::vector<TuningParam>* tuning = nullptr,
                            std::map<std::string, std::vector<std::string>>* tunableOverrides = nullptr);

// The whole front end. Throws UserError (location in the source) on any error.
// Triton-IR text is parsed and verified (its module keeps the `source` file
// it names; it has no macros or tuning lists).
CompileResult compileSource(const std::string& source, const CompileOptions& opts);

// Prints the AST as an indented tree (for `--stage ast`).
std::string printAst(const TranslationUnit& tu);

}  // namespace tritonc::lang
