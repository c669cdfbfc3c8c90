#include "support/diagnostic.h"

#include <algorithm>

namespace tritonc {

constexpr size_t kMaxShownLine = 160;  // longer source lines are cut around the column

static std::string lineOf(const std::string& source, uint32_t line) {
  size_t start = 0;
  for (uint32_t l = 1; l < line; ++l) {
    size_t nl = source.find('\n', start);
    if (nl == std::string::npos) return {};
    start = nl + 1;
  }
  size_t end = source.find('\n', start);
  return source.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

std::string formatDiagnostic(const std::string& file, const std::string& source,
                             SourceLoc loc, const std::string& message,
                             const char* severity) {
  std::string out = file;
  if (loc.known()) out += ":" + std::to_string(loc.line) + ":" + std::to_string(loc.col);
  out += std::string(": ") + severity + ": " + message + "\n";
  if (!loc.known()) return out;
  std::string text = lineOf(source, loc.line);
  if (text.empty() && loc.col > 1) return out;
  // A very long line (a generated chain of 100,000 terms) is shown as a
  // window around the column, its cut ends marked "...".
  uint32_t col = loc.col;
  if (text.size() > kMaxShownLine) {
    size_t at = std::min<size_t>(col > 0 ? col - 1 : 0, text.size());
    size_t begin = at > kMaxShownLine / 2 ? at - kMaxShownLine / 2 : 0;
    size_t end = std::min(text.size(), begin + kMaxShownLine);
    std::string window = (begin > 0 ? "..." : "") + text.substr(begin, end - begin) + (end < text.size() ? "..." : "");
    col = uint32_t(at - begin + (begin > 0 ? 3 : 0) + 1);
    text = window;
  }
  // Tabs are kept in the caret line so the caret lines up under the column.
  std::string caret;
  for (uint32_t i = 1; i < col && i - 1 < text.size(); ++i)
    caret += text[i - 1] == '\t' ? '\t' : ' ';
  out += text + "\n" + caret + "^\n";
  return out;
}

}  // namespace tritonc
