#include "support/diagnostic.h"

namespace tritonc {

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
  // Tabs are kept in the caret line so the caret lines up under the column.
  std::string caret;
  for (uint32_t i = 1; i < loc.col && i - 1 < text.size(); ++i)
    caret += text[i - 1] == '\t' ? '\t' : ' ';
  out += text + "\n" + caret + "^\n";
  return out;
}

}  // namespace tritonc
