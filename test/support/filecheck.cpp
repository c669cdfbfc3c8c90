#include "filecheck.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <regex>
#include <sstream>

namespace tritonc::test {

namespace {

using Kind = CheckDirective::Kind;

std::vector<std::string> splitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::string cur;
  for (char c : text) {
    if (c == '\n') {
      lines.push_back(cur);
      cur.clear();
    } else if (c != '\r') {
      cur += c;
    }
  }
  if (!cur.empty()) lines.push_back(cur);
  return lines;
}

bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && isBlank(s[b])) ++b;
  while (e > b && isBlank(s[e - 1])) --e;
  return s.substr(b, e - b);
}

// A pattern as a regex, and its literal words (for the "closest line" hint).
struct Compiled {
  std::regex re;
  std::vector<std::string> words;
};

// Translates a pattern to regex source; returns false with `error` set when a
// `{{` is unterminated or a fragment is not a valid regex.
bool translate(const std::string& pattern, std::string& out, std::vector<std::string>& words, std::string& error) {
  out.clear();
  std::string word;
  auto endWord = [&] {
    if (!word.empty()) words.push_back(word);
    word.clear();
  };
  for (size_t i = 0; i < pattern.size();) {
    if (pattern.compare(i, 2, "{{") == 0) {
      size_t close = pattern.find("}}", i + 2);
      if (close == std::string::npos) {
        error = "unterminated '{{' in pattern";
        return false;
      }
      // The fragment ends at the last "}}" of a run of closing braces.
      while (close + 2 < pattern.size() && pattern[close + 2] == '}') ++close;
      std::string frag = pattern.substr(i + 2, close - i - 2);
      try {
        std::regex check(frag, std::regex::ECMAScript);
      } catch (const std::regex_error& e) {
        error = "invalid regex '{{" + frag + "}}': " + e.what();
        return false;
      }
      out += "(?:" + frag + ")";
      endWord();
      i = close + 2;
      continue;
    }
    char c = pattern[i];
    if (isBlank(c)) {
      while (i < pattern.size() && isBlank(pattern[i])) ++i;
      out += "\\s+";
      endWord();
      continue;
    }
    if (std::string("\\^$.|?*+()[]{}").find(c) != std::string::npos) out += '\\';
    out += c;
    word += c;
    ++i;
  }
  endWord();
  return true;
}

std::optional<Compiled> compile(const std::string& pattern, std::string& error) {
  std::string src;
  Compiled c;
  if (!translate(pattern, src, c.words, error)) return std::nullopt;
  try {
    c.re = std::regex(src, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    error = std::string("invalid pattern: ") + e.what();
    return std::nullopt;
  }
  return c;
}

// A position in the output: line index (0-based) and column. line ==
// lines.size() is the end of the output.
struct Pos {
  size_t line = 0, col = 0;
};
bool operator<(const Pos& a, const Pos& b) { return a.line != b.line ? a.line < b.line : a.col < b.col; }

struct Match {
  Pos start, end;  // end is on the same line (patterns never span lines)
};

class Checker {
 public:
  Checker(const std::vector<CheckDirective>& checks, const std::string& output, const std::string& file)
      : checks_(checks), lines_(splitLines(output)), file_(file) {}

  CheckResult run() {
    for (const CheckDirective& d : checks_) {
      std::string err;
      auto c = compile(d.pattern, err);
      if (!c) return fail(d, err);
      compiled_.push_back(std::move(*c));
    }
    // Labels first: each one after the previous label.
    std::vector<size_t> labelIdx;
    std::vector<Match> labelMatch;
    Pos from{0, 0};
    for (size_t i = 0; i < checks_.size(); ++i) {
      if (checks_[i].kind != Kind::Label) continue;
      auto m = search(i, from, endPos());
      if (!m) return notFound(i, from, endPos(), std::nullopt, "not found after the previous label");
      labelIdx.push_back(i);
      labelMatch.push_back(*m);
      from = m->end;
    }
    // Then each region: the directives after a label, up to the next label.
    size_t begin = 0;
    for (size_t r = 0; r <= labelIdx.size(); ++r) {
      size_t endIdx = r < labelIdx.size() ? labelIdx[r] : checks_.size();
      Pos regionEnd = r < labelIdx.size() ? labelMatch[r].start : endPos();
      std::optional<Match> prev;
      if (r > 0) prev = labelMatch[r - 1];
      CheckResult res = runRegion(begin, endIdx, prev, regionEnd);
      if (!res.ok) return res;
      begin = endIdx + 1;
    }
    return {};
  }

 private:
  Pos endPos() const { return Pos{lines_.size(), 0}; }

  // The first match of directive `i` in [from, to).
  std::optional<Match> search(size_t i, Pos from, Pos to) const {
    const std::regex& re = compiled_[i].re;
    for (size_t l = from.line; l < lines_.size() && l <= to.line; ++l) {
      const std::string& s = lines_[l];
      size_t b = l == from.line ? std::min(from.col, s.size()) : 0;
      size_t e = l == to.line ? std::min(to.col, s.size()) : s.size();
      if (b > e) continue;
      auto flags = std::regex_constants::match_default;
      if (b > 0) flags |= std::regex_constants::match_prev_avail;
      if (e < s.size()) flags |= std::regex_constants::match_not_eol;
      std::smatch m;
      if (std::regex_search(s.begin() + long(b), s.begin() + long(e), m, re, flags)) {
        size_t at = b + size_t(m.position(0));
        return Match{Pos{l, at}, Pos{l, at + size_t(m.length(0))}};
      }
    }
    return std::nullopt;
  }

  CheckResult runRegion(size_t first, size_t last, std::optional<Match> prev, Pos regionEnd) {
    std::vector<size_t> nots;
    auto prevEnd = [&] { return prev ? prev->end : Pos{0, 0}; };
    // The pending CHECK-NOTs must not match in [from, to).
    auto checkNots = [&](Pos from, Pos to, std::optional<size_t> next) -> CheckResult {
      for (size_t n : nots)
        if (auto m = search(n, from, to)) return foundNot(n, *m, prev, next);
      nots.clear();
      return {};
    };
    for (size_t i = first; i < last; ++i) {
      const CheckDirective& d = checks_[i];
      if (d.kind == Kind::Not) {
        nots.push_back(i);
        continue;
      }
      std::optional<Match> m;
      if (d.kind == Kind::Check) {
        m = search(i, prevEnd(), regionEnd);
        if (!m) return notFound(i, prevEnd(), regionEnd, prev, "not found after the previous match");
      } else if (d.kind == Kind::Next) {
        // Guaranteed by the parser, except right after a region start.
        if (!prev) return fail(d, "CHECK-NEXT needs a previous match");
        Pos lineStart{prev->end.line + 1, 0};
        Pos lineEnd{prev->end.line + 1, std::string::npos};
        if (regionEnd < lineEnd) lineEnd = regionEnd;
        m = lineStart < endPos() ? search(i, lineStart, lineEnd) : std::nullopt;
        if (!m) return notFound(i, lineStart, lineEnd, prev, "not found on the line after the previous match");
      } else if (d.kind == Kind::Same) {
        if (!prev) return fail(d, "CHECK-SAME needs a previous match");
        Pos lineEnd{prev->end.line, std::string::npos};
        if (regionEnd < lineEnd) lineEnd = regionEnd;
        m = search(i, prev->end, lineEnd);
        if (!m) return notFound(i, prev->end, lineEnd, prev, "not found on the previous match's line after it");
      }
      CheckResult r = checkNots(prevEnd(), m->start, i);
      if (!r.ok) return r;
      prev = m;
    }
    return checkNots(prevEnd(), regionEnd, std::nullopt);
  }

  std::string where(const CheckDirective& d) const {
    return file_ + ":" + std::to_string(d.line) + ": " + directiveName(d.kind) + ": ";
  }

  CheckResult fail(const CheckDirective& d, const std::string& what) const {
    return CheckResult{false, where(d) + what + "\n  pattern: " + d.pattern + "\n"};
  }

  // Output lines [lo, hi] numbered from 1, with markers on chosen lines.
  std::string excerpt(size_t lo, size_t hi, const std::vector<std::pair<size_t, std::string>>& marks) const {
    std::ostringstream os;
    if (lines_.empty()) return "  (the output is empty)\n";
    hi = std::min(hi, lines_.size() - 1);
    if (lo > 0) os << "        ...\n";
    for (size_t l = lo; l <= hi; ++l) {
      std::string note;
      for (auto& [ml, text] : marks)
        if (ml == l) note += (note.empty() ? "  <-- " : ", ") + text;
      char num[16];
      std::snprintf(num, sizeof num, "%6zu", l + 1);
      os << "  " << num << " | " << lines_[l] << note << "\n";
    }
    if (hi + 1 < lines_.size()) os << "        ...\n";
    return os.str();
  }

  // The line of [from, to) sharing most literal words with the pattern.
  std::optional<size_t> closestLine(size_t i, Pos from, Pos to) const {
    const auto& words = compiled_[i].words;
    std::optional<size_t> best;
    size_t bestScore = 0;
    for (size_t l = from.line; l < lines_.size() && l <= to.line; ++l) {
      size_t score = 0;
      for (const std::string& w : words) score += lines_[l].find(w) != std::string::npos ? w.size() : 0;
      if (score > bestScore) best = l, bestScore = score;
    }
    return best;
  }

  CheckResult notFound(size_t i, Pos from, Pos to, std::optional<Match> prev, const std::string& what) const {
    const CheckDirective& d = checks_[i];
    std::string msg = where(d) + "expected pattern " + what + "\n  pattern: " + d.pattern + "\n";
    size_t fromLine = std::min(from.line, lines_.empty() ? 0 : lines_.size() - 1);
    msg += "  searched from output line " + std::to_string(fromLine + 1) +
           (to.line >= lines_.size() ? std::string(" to the end") : " to line " + std::to_string(to.line + 1)) + "\n";
    std::vector<std::pair<size_t, std::string>> marks;
    if (prev) marks.push_back({prev->start.line, "previous match"});
    std::optional<size_t> near = closestLine(i, from, to);
    if (near) {
      marks.push_back({*near, "closest line"});
    } else if (auto later = search(i, Pos{0, 0}, endPos())) {
      marks.push_back({later->start.line, "matches here (out of the searched range)"});
      near = later->start.line;
    }
    size_t center = near ? *near : fromLine;
    size_t lo = std::min(prev ? prev->start.line : center, center);
    lo = lo >= 2 ? lo - 2 : 0;
    size_t hi = std::max(center, fromLine) + 3;
    if (hi - lo > 40) lo = center >= 20 ? center - 20 : 0;  // keep the excerpt short
    msg += "  output:\n" + excerpt(lo, hi, marks);
    return CheckResult{false, msg};
  }

  CheckResult foundNot(size_t i, const Match& m, std::optional<Match> prev, std::optional<size_t> next) const {
    const CheckDirective& d = checks_[i];
    std::string msg = where(d) + "excluded pattern found at output line " + std::to_string(m.start.line + 1) +
                      "\n  pattern: " + d.pattern + "\n";
    msg += "  (it must not appear between " +
           (prev ? "the previous match, output line " + std::to_string(prev->start.line + 1) : std::string("the start")) +
           " and " +
           (next ? "the match of line " + std::to_string(checks_[*next].line) + " of " + file_ : std::string("the end")) +
           ")\n";
    std::vector<std::pair<size_t, std::string>> marks = {{m.start.line, "excluded pattern"}};
    if (prev) marks.push_back({prev->start.line, "previous match"});
    size_t lo = m.start.line >= 3 ? m.start.line - 3 : 0;
    msg += "  output:\n" + excerpt(lo, m.start.line + 3, marks);
    return CheckResult{false, msg};
  }

  const std::vector<CheckDirective>& checks_;
  std::vector<std::string> lines_;
  std::string file_;
  std::vector<Compiled> compiled_;
};

}  // namespace

const char* directiveName(CheckDirective::Kind k) {
  switch (k) {
    case Kind::Check: return "CHECK";
    case Kind::Next: return "CHECK-NEXT";
    case Kind::Same: return "CHECK-SAME";
    case Kind::Not: return "CHECK-NOT";
    case Kind::Label: return "CHECK-LABEL";
  }
  return "CHECK";
}

std::vector<CheckDirective> parseCheckDirectives(const std::string& text, int firstLine, std::string* error) {
  static const std::regex directive(R"((^|[^A-Za-z0-9_-])CHECK(-[A-Za-z]+)?:)");
  std::vector<CheckDirective> out;
  std::vector<std::string> lines = splitLines(text);
  auto bad = [&](int line, const std::string& what) {
    if (error) *error = "line " + std::to_string(line) + ": " + what;
    return std::vector<CheckDirective>{};
  };
  bool sawPositive = false;  // a CHECK-NEXT / CHECK-SAME needs something before it
  for (size_t k = 0; k < lines.size(); ++k) {
    int lineNo = firstLine + int(k);
    std::string s = trim(lines[k]);
    if (!(s.rfind(";", 0) == 0 || s.rfind("//", 0) == 0 || s.rfind("#", 0) == 0)) continue;
    std::smatch m;
    if (!std::regex_search(s, m, directive)) continue;
    std::string suffix = m[2].str();
    CheckDirective d;
    d.line = lineNo;
    if (suffix.empty()) d.kind = Kind::Check;
    else if (suffix == "-NEXT") d.kind = Kind::Next;
    else if (suffix == "-SAME") d.kind = Kind::Same;
    else if (suffix == "-NOT") d.kind = Kind::Not;
    else if (suffix == "-LABEL") d.kind = Kind::Label;
    else return bad(lineNo, "unknown directive 'CHECK" + suffix + ":'");
    d.pattern = trim(s.substr(size_t(m.position(0) + m.length(0))));
    if (d.pattern.empty()) return bad(lineNo, std::string(directiveName(d.kind)) + " with an empty pattern");
    std::string err;
    if (!compile(d.pattern, err)) return bad(lineNo, err);
    if ((d.kind == Kind::Next || d.kind == Kind::Same) && !sawPositive)
      return bad(lineNo, std::string(directiveName(d.kind)) + " without a CHECK or CHECK-LABEL before it");
    if (d.kind != Kind::Not) sawPositive = true;
    out.push_back(std::move(d));
  }
  if (error) error->clear();
  return out;
}

CheckResult runFileCheck(const std::vector<CheckDirective>& checks, const std::string& output,
                         const std::string& checkFile) {
  return Checker(checks, output, checkFile).run();
}

CheckResult fileCheck(const std::string& checkText, const std::string& output, const std::string& checkFile,
                      int firstLine) {
  std::string err;
  std::vector<CheckDirective> checks = parseCheckDirectives(checkText, firstLine, &err);
  if (!err.empty()) return CheckResult{false, checkFile + ":" + err + "\n"};
  if (checks.empty()) return CheckResult{false, checkFile + ": no CHECK directives\n"};
  return runFileCheck(checks, output, checkFile);
}

}  // namespace tritonc::test
