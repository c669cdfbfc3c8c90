// The launch path's memo. What a launch runs (its configuration and its
// compiled code) depends only on the tuning key's values and on the
// specialization facts of its arguments. The memo maps those, packed into a
// few integers (the launch's "shape"), to what the first launch of that
// shape settled on, so that later launches skip building the tuning key and
// the cache key (strings holding the whole source) altogether.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/ir.h"
#include "target/interp/interpreter.h"

namespace tritonc::runtime {

struct Config;
struct CompiledKernel;

// A launch whose configuration and code are settled.
struct PreparedLaunch {
  const Config* config = nullptr;    // in the kernel's space
  CompiledKernel* compiled = nullptr;  // owned by the kernel's cache
  explicit operator bool() const { return compiled != nullptr; }
};

class LaunchMemo {
 public:
  using Shape = std::vector<int64_t>;

  // Two words per parameter: the argument's kind, then its value when the
  // parameter is in the tuning key (`keyed`), else the one fact the
  // specialization reads (is the pointer 16-byte aligned; which of 16, 8, 4,
  // 2 divides the integer).
  // `paramKinds` (specialize.h: parameterKinds) wraps integers as the kernel sees them.
  static void shapeOf(const std::vector<interp::KernelArg>& args, const std::vector<bool>& keyed,
                      const std::vector<ir::Scalar>& paramKinds, Shape& out);

  PreparedLaunch find(const Shape& shape) const {
    auto it = entries_.find(shape);
    return it == entries_.end() ? PreparedLaunch{} : it->second;
  }
  // Bounded: a kernel launched with ever new tuning-key values (sizes that
  // change every call) starts over rather than grow without end.
  void remember(const Shape& shape, PreparedLaunch p) {
    if (entries_.size() >= kMaxEntries) entries_.clear();
    entries_[shape] = p;
  }
  void clear() { entries_.clear(); }

 private:
  static constexpr size_t kMaxEntries = 4096;
  std::map<Shape, PreparedLaunch> entries_;
};

}  // namespace tritonc::runtime
