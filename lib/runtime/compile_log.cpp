#include "runtime/compile_log.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

#include "lang/parser.h"
#include "support/diagnostic.h"

namespace tritonc::runtime {

namespace {

bool envOn(const char* name) {
  const char* v = std::getenv(name);
  return v && std::strcmp(v, "1") == 0;
}

// A letter of the specialization key in words.
std::string letterText(char c) {
  switch (c) {
    case 'A': return "16-byte aligned";
    case 'P': return "not 16-byte aligned";
    case 'D': return "divisible by 16";
    case '8': return "divisible by 8";
    case '4': return "divisible by 4";
    case '2': return "divisible by 2";
    case 'N': return "odd";
    case 'F': return "a float";
    default: return std::string("'") + c + "'";
  }
}

bool isPointerLetter(char c) { return c == 'A' || c == 'P'; }

std::string macrosText(const CompileRequest& r) {
  std::string s;
  for (const lang::Define& d : r.macros) s += d.name + "=" + d.value + " ";
  return s + "num_warps=" + std::to_string(r.numWarps) + " num_stages=" + std::to_string(r.numStages);
}

// The compiles of each kernel (by name and source) in this process, the
// latest last (at most kMaxKept: the oldest go).
constexpr size_t kMaxKept = 256;
struct History {
  std::mutex mutex;
  std::map<std::string, std::vector<CompileRequest>> compiles;
};
History& history() {
  static History h;
  return h;
}

}  // namespace

std::string describeKey(const CompileRequest& r) {
  std::string s = "kernel '" + r.kernel + "' (" + macrosText(r) + ")";
  std::string args;
  for (size_t k = 0; k < r.specialization.size() && k < r.paramNames.size(); ++k)
    args += (args.empty() ? "" : ", ") + r.paramNames[k] + ": " + letterText(r.specialization[k]);
  if (!args.empty()) s += " for " + args;
  return s + ", on " + r.target;
}

std::vector<std::string> changes(const CompileRequest& before, const CompileRequest& now) {
  std::vector<std::string> parts;
  if (before.target != now.target) parts.push_back("target: " + before.target + " -> " + now.target);
  std::map<std::string, std::pair<std::string, std::string>> macros;  // name -> (before, now)
  for (const lang::Define& d : before.macros) macros[d.name].first = d.value;
  for (const lang::Define& d : now.macros) macros[d.name].second = d.value;
  for (const auto& [name, v] : macros) {
    if (v.first == v.second) continue;
    // A macro whose values are type names is how kernels take a dtype (TYPE=float).
    bool dtype = lang::scalarTypeKeyword(v.first).has_value() || lang::scalarTypeKeyword(v.second).has_value();
    parts.push_back(std::string(dtype ? "dtype macro " : "macro ") + name + ": " +
                    (v.first.empty() ? "(none)" : v.first) + " -> " + (v.second.empty() ? "(none)" : v.second));
  }
  if (before.numWarps != now.numWarps)
    parts.push_back("num_warps: " + std::to_string(before.numWarps) + " -> " + std::to_string(now.numWarps));
  if (before.numStages != now.numStages)
    parts.push_back("num_stages: " + std::to_string(before.numStages) + " -> " + std::to_string(now.numStages));
  if (before.paramNames == now.paramNames) {
    for (size_t k = 0; k < now.paramNames.size(); ++k) {
      const std::string& name = now.paramNames[k];
      if (k < before.paramTypes.size() && k < now.paramTypes.size() && before.paramTypes[k] != now.paramTypes[k]) {
        parts.push_back("argument '" + name + "' dtype: " + before.paramTypes[k] + " -> " + now.paramTypes[k]);
        continue;
      }
      if (k >= before.specialization.size() || k >= now.specialization.size()) continue;
      char was = before.specialization[k], is = now.specialization[k];
      if (was == is) continue;
      const char* what = isPointerLetter(was) && isPointerLetter(is) ? " alignment: " : " divisibility: ";
      parts.push_back("argument '" + name + "'" + what + letterText(was) + " -> " + letterText(is));
    }
  } else {
    parts.push_back("parameters: a different list");
  }
  return parts;
}

std::string describeChange(const CompileRequest& before, const CompileRequest& now) {
  std::string out;
  for (const std::string& p : changes(before, now)) out += (out.empty() ? "" : "; ") + p;
  return out;
}

void noteCompile(const CompileRequest& r, bool mustHit) {
  const bool log = envOn("TRITONC_LOG_COMPILES");
  mustHit = mustHit || envOn("TRITONC_CACHE_MUST_HIT");
  if (!log && !mustHit) return;
  History& h = history();
  std::lock_guard<std::mutex> lock(h.mutex);
  std::vector<CompileRequest>& before = h.compiles[r.kernel + '\0' + r.source];
  // Against the earlier compile it differs least from (the latest of those):
  // after tuning over eight configurations, a misaligned argument shows as
  // that alone, not as a change of configuration too.
  std::string why = "first compile";
  const CompileRequest* closest = nullptr;
  size_t fewest = SIZE_MAX;
  for (auto it = before.rbegin(); it != before.rend(); ++it) {
    size_t n = changes(*it, r).size();
    if (n < fewest) fewest = n, closest = &*it;
  }
  if (closest)
    why = fewest == 0 ? "recompile of a key compiled before (its code was not kept: another kernel object, or no cache)"
                      : "recompile, changed: " + describeChange(*closest, r);
  if (log) std::fprintf(stderr, "tritonc: compiling %s: %s\n", describeKey(r).c_str(), why.c_str());
  if (mustHit)
    throw UserError(SourceLoc{}, "the cache must hit (TRITONC_CACHE_MUST_HIT / cache_must_hit), but " +
                                     describeKey(r) + " is not cached: " + why);
  if (before.size() == kMaxKept) before.erase(before.begin());
  before.push_back(r);
}

}  // namespace tritonc::runtime
