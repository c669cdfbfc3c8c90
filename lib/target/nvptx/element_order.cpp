// orderByElement (element_order.h): a list schedule over the lines' register
// dependencies, the ready line with the smallest element key first.
#include "target/nvptx/element_order.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <queue>
#include <set>
#include <tuple>

namespace tritonc::nvptx {

namespace {

// Instructions with no effect but their destination registers: free to
// move within what their registers allow.
const std::set<std::string>& pureOpcodes() {
  static const std::set<std::string> s = {
      "abs", "add", "and", "bfe", "bfi", "brev", "clz", "cnot", "copysign", "cos", "cvt", "div", "ex2", "fma",
      "lg2", "lop3", "mad", "max", "min", "mov", "mul", "neg", "not", "or", "popc", "prmt", "rcp", "rem", "rsqrt",
      "selp", "set", "setp", "shf", "shl", "shr", "sin", "slct", "sqrt", "sub", "tanh", "testp", "xor"};
  return s;
}

struct Parsed {
  std::vector<std::string> writes, reads;
};

// The registers `line` writes and reads, or false where it is not a plain
// instruction of pureOpcodes().
bool parse(const std::string& line, Parsed& p) {
  size_t i = line.find_first_not_of(" \t");
  if (i == std::string::npos) return false;
  const size_t end = line.find_last_not_of(" \t");
  if (line[end] != ';' || line.find("//") != std::string::npos || line.find('{', i) == i) return false;
  auto registersIn = [](const std::string& s, std::vector<std::string>& out) {
    for (size_t k = 0; k < s.size(); ++k) {
      if (s[k] != '%') continue;
      size_t e = k + 1;
      while (e < s.size() && (std::isalnum(static_cast<unsigned char>(s[e])) || s[e] == '_' || s[e] == '.')) ++e;
      out.push_back(s.substr(k, e - k));
      k = e - 1;
    }
  };
  if (line[i] == '@') {  // a guard: read
    const size_t sp = line.find(' ', i);
    if (sp == std::string::npos) return false;
    registersIn(line.substr(i, sp - i), p.reads);
    i = line.find_first_not_of(' ', sp);
  }
  const size_t sp = line.find(' ', i);
  if (sp == std::string::npos) return false;
  const std::string opcode = line.substr(i, sp - i);
  if (!pureOpcodes().count(opcode.substr(0, opcode.find('.')))) return false;
  // The first operand (a register, `%p|%q`, or `{...}`) is written, the rest read.
  const std::string operands = line.substr(sp + 1, end - sp - 1);
  size_t split = operands.find(',');
  if (!operands.empty() && operands[0] == '{') split = operands.find(',', operands.find('}'));
  if (split == std::string::npos) return false;
  registersIn(operands.substr(0, split), p.writes);
  registersIn(operands.substr(split + 1), p.reads);
  return !p.writes.empty();
}

}  // namespace

std::vector<std::string> orderByElement(const std::vector<ElementLine>& lines, int minElements) {
  std::vector<std::string> asIs;
  int widest = 0;
  for (const ElementLine& l : lines) {
    asIs.push_back(l.text);
    widest = std::max(widest, l.element + 1);
  }
  if (widest < minElements) return asIs;
  std::vector<Parsed> parsed(lines.size());
  for (size_t n = 0; n < lines.size(); ++n)
    if (!parse(lines[n].text, parsed[n])) return asIs;
  // Edges: the last write of what a line reads or writes, the reads since
  // the last write of what it writes.
  std::vector<std::vector<size_t>> after(lines.size());
  std::vector<int> waitingFor(lines.size(), 0);
  std::map<std::string, size_t> lastWrite;
  std::map<std::string, std::vector<size_t>> readsSince;
  auto edge = [&](size_t from, size_t to) {
    after[from].push_back(to);
    ++waitingFor[to];
  };
  for (size_t n = 0; n < lines.size(); ++n) {
    for (const std::string& r : parsed[n].reads) {
      if (auto w = lastWrite.find(r); w != lastWrite.end()) edge(w->second, n);
      readsSince[r].push_back(n);
    }
    for (const std::string& r : parsed[n].writes) {
      if (auto w = lastWrite.find(r); w != lastWrite.end()) edge(w->second, n);
      for (size_t reader : readsSince[r])
        if (reader != n) edge(reader, n);
      readsSince[r].clear();
      lastWrite[r] = n;
    }
  }
  using Key = std::tuple<int, size_t>;  // (element, position)
  std::priority_queue<Key, std::vector<Key>, std::greater<Key>> ready;
  for (size_t n = 0; n < lines.size(); ++n)
    if (waitingFor[n] == 0) ready.emplace(lines[n].element, n);
  std::vector<std::string> ordered;
  ordered.reserve(lines.size());
  while (!ready.empty()) {
    const size_t n = std::get<1>(ready.top());
    ready.pop();
    ordered.push_back(lines[n].text);
    for (size_t m : after[n])
      if (--waitingFor[m] == 0) ready.emplace(lines[m].element, m);
  }
  return ordered.size() == lines.size() ? ordered : asIs;
}

}  // namespace tritonc::nvptx
