// Eviction priorities of loads and stores (Triton's eviction_policy), kept
// in an instruction's `sub` beside its cache operator (ir.h CacheOp) and
// volatility: printed `{evict = first}` or `{evict = last}`, the data
// leaving the caches first or last. Hints to the GPU back end only
// (docs/IR.md); the CPU back end and the interpreter ignore them.
#pragma once

#include <cstdint>
#include <string>

namespace tritonc::ir {

enum class Evict : uint8_t { Normal = 0, First, Last };
constexpr uint8_t kEvictShift = 4, kEvictMask = 3 << kEvictShift;

inline Evict evictOf(uint8_t sub) { return Evict((sub & kEvictMask) >> kEvictShift); }
inline uint8_t evictBits(Evict e) { return uint8_t(uint8_t(e) << kEvictShift); }
inline const char* evictName(Evict e) { return e == Evict::First ? "first" : e == Evict::Last ? "last" : ""; }
// "first", "last" or "normal".
inline bool evictFromName(const std::string& s, Evict* out) {
  if (s == "first") *out = Evict::First;
  else if (s == "last") *out = Evict::Last;
  else if (s == "normal") *out = Evict::Normal;
  else return false;
  return true;
}

}  // namespace tritonc::ir
