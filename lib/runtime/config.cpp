#include "runtime/config.h"

#include <cstdlib>

#include "support/diagnostic.h"

namespace tritonc::runtime {

std::string Config::text() const {
  std::string s;
  for (const lang::Define& d : values) s += d.name + "=" + d.value + " ";
  return s + "num_warps=" + std::to_string(numWarps) + " num_stages=" + std::to_string(numStages);
}

std::string Config::value(const std::string& name) const {
  for (const lang::Define& d : values)
    if (d.name == name) return d.value;
  for (const lang::Define& d : fixed)
    if (d.name == name) return d.value;
  if (name == "num_warps") return std::to_string(numWarps);
  if (name == "num_stages") return std::to_string(numStages);
  return "";
}

int64_t Config::intValue(const std::string& name) const {
  std::string v = value(name);
  char* end = nullptr;
  long long x = v.empty() ? 0 : std::strtoll(v.c_str(), &end, 0);
  if (v.empty() || *end) throw UserError(SourceLoc{}, "'" + name + "' is not an integer in configuration " + text());
  return x;
}

std::string paramTypeText(const ir::Type& t) {
  return t.isPtr() ? std::string(ir::scalarName(t.pointee)) + "*" : ir::scalarName(t.kind);
}

std::optional<ir::Type> paramTypeFromText(const std::string& text) {
  const bool pointer = !text.empty() && text.back() == '*';
  std::optional<ir::Scalar> k = ir::scalarFromName(pointer ? text.substr(0, text.size() - 1) : text);
  if (!k || *k == ir::Scalar::Void || *k == ir::Scalar::Ptr) return std::nullopt;
  return pointer ? ir::Type::pointer(*k) : ir::Type::scalar(*k);
}

std::string signatureText(const std::vector<Param>& params) {
  std::string s;
  for (const Param& p : params) s += (s.empty() ? "" : ", ") + paramTypeText(p.type) + " " + p.name;
  return s;
}

}  // namespace tritonc::runtime
