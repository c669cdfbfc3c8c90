#include "grid_expr.h"

#include <algorithm>
#include <cctype>

#include "support/diagnostic.h"

namespace tritonc::cli {

namespace {

UserError bad(const GridSpec& g, const std::string& why) {
  return UserError(SourceLoc{}, "bad --grid '" + g.text + "': " + why);
}

}  // namespace

GridSpec parseGridSpec(const std::string& text) {
  GridSpec g;
  g.text = text;
  if (text.empty()) throw bad(g, "empty (expected X[,Y[,Z]])");
  size_t pos = 0;
  while (true) {
    size_t comma = text.find(',', pos);
    std::string part = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    std::string clean;
    for (char c : part)
      if (!std::isspace(static_cast<unsigned char>(c))) clean += c;
    if (clean.empty()) throw bad(g, "an empty dimension");
    g.dims.push_back(clean);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  if (g.dims.size() > 3) throw bad(g, "at most 3 dimensions");
  // Each dimension: term (('*' | '/') term)*, a term an integer or a name.
  for (const std::string& d : g.dims) {
    bool wantTerm = true;
    for (size_t i = 0; i < d.size();) {
      char c = d[i];
      if (wantTerm) {
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') throw bad(g, "expected a number or a name in '" + d + "'");
        while (i < d.size() && (std::isalnum(static_cast<unsigned char>(d[i])) || d[i] == '_')) ++i;
        wantTerm = false;
      } else {
        if (c != '*' && c != '/') throw bad(g, "expected '*' or '/' in '" + d + "'");
        ++i;
        wantTerm = true;
      }
    }
    if (wantTerm) throw bad(g, "'" + d + "' ends with an operator");
  }
  return g;
}

interp::Grid evaluateGrid(const GridSpec& g, const std::function<std::optional<int64_t>(const std::string&)>& lookup) {
  int64_t out[3] = {1, 1, 1};
  for (size_t k = 0; k < g.dims.size(); ++k) {
    const std::string& d = g.dims[k];
    int64_t value = 1;
    char op = '*';
    for (size_t i = 0; i < d.size();) {
      if (d[i] == '*' || d[i] == '/') {
        op = d[i++];
        continue;
      }
      size_t j = i;
      while (j < d.size() && d[j] != '*' && d[j] != '/') ++j;
      std::string term = d.substr(i, j - i);
      i = j;
      int64_t v;
      if (std::isdigit(static_cast<unsigned char>(term[0]))) {
        char* end = nullptr;
        v = std::strtoll(term.c_str(), &end, 10);
        if (*end) throw bad(g, "'" + term + "' is not a number");
      } else {
        std::optional<int64_t> found = lookup(term);
        if (!found) throw bad(g, "'" + term + "' is neither an integer argument nor a tuning parameter or macro");
        v = *found;
      }
      if (op == '*') {
        if (v != 0 && (value > (int64_t(1) << 40) / std::max<int64_t>(1, v < 0 ? -v : v)))
          throw bad(g, "dimension " + std::to_string(k) + " is too large");
        value *= v;
      } else {
        if (v <= 0) throw bad(g, "division by " + std::to_string(v) + " in '" + d + "'");
        value = (value + v - 1) / v;
      }
    }
    if (value <= 0 || value > (int64_t(1) << 31)) throw bad(g, "dimension " + std::to_string(k) + " is " + std::to_string(value));
    out[k] = value;
  }
  return interp::Grid{out[0], out[1], out[2]};
}

bool isConstantGrid(const GridSpec& g) {
  for (const std::string& d : g.dims)
    for (char c : d)
      if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') return false;
  return true;
}

}  // namespace tritonc::cli
