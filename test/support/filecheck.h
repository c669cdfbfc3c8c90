// A small FileCheck: checks a text (a printed module, an analysis report)
// against directives written in the comment lines of a test file.
//
//   CHECK: text        found after the previous match (in order)
//   CHECK-NEXT: text   found on the line right after the previous match
//   CHECK-SAME: text   found on the previous match's line, after it
//   CHECK-NOT: text    absent between the previous match and the next
//                      positive match (or the end of the checked region)
//   CHECK-LABEL: text  matched first, in order; it splits the output into
//                      regions and the directives after a label only look
//                      inside that label's region (up to the next label)
//
// A pattern matches a substring of one output line. Runs of whitespace in
// the pattern match any run of whitespace; leading and trailing whitespace
// of the pattern is ignored. `{{regex}}` inside a pattern is a std::regex
// (ECMAScript) fragment; the fragment ends at the last `}}` of a run of
// closing braces, so `{{[0-9]{2}}}` is the regex `[0-9]{2}`.
#pragma once
#include <string>
#include <vector>

namespace tritonc::test {

struct CheckDirective {
  enum class Kind { Check, Next, Same, Not, Label };
  Kind kind = Kind::Check;
  std::string pattern;  // as written, trimmed
  int line = 0;         // line of the directive in the test file
};

const char* directiveName(CheckDirective::Kind k);  // "CHECK-NEXT", ...

// Finds the directives in `text`: in every line whose first non-blank
// characters are a comment marker (`;`, `//` or `#`), a word `CHECK:` or
// `CHECK-<KIND>:`. Lines are numbered from `firstLine`. A malformed directive
// (unknown kind, empty pattern, CHECK-NEXT / CHECK-SAME with nothing before
// it, an unterminated `{{`, a bad regex) is an error: `error` is set and the
// result is empty.
std::vector<CheckDirective> parseCheckDirectives(const std::string& text, int firstLine, std::string* error);

struct CheckResult {
  bool ok = true;
  std::string message;  // on failure: directive, pattern, nearby output
  explicit operator bool() const { return ok; }
};

// Runs the directives over `output`. `checkFile` names the test file in
// messages ("cases/cse.tir:12: CHECK-NEXT: ...").
CheckResult runFileCheck(const std::vector<CheckDirective>& checks, const std::string& output,
                         const std::string& checkFile = "<checks>");

// parseCheckDirectives + runFileCheck; a text without directives fails (a
// test that checks nothing is a mistake).
CheckResult fileCheck(const std::string& checkText, const std::string& output,
                      const std::string& checkFile = "<checks>", int firstLine = 1);

}  // namespace tritonc::test
