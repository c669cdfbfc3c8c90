// A configuration (one point of a kernel's tuning space) and a kernel
// parameter: what both the compiling runtime (kernel.h) and the runtime
// that only loads ahead-of-time code (loaded_kernel.h) launch with.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ir/type.h"
#include "lang/define.h"

namespace tritonc::runtime {

// One point of a tuning space: a value for each tuning parameter (a -D list
// or a `tunable` declaration), num_warps and num_stages.
struct Config {
  std::vector<lang::Define> values;
  std::vector<lang::Define> fixed;  // the kernel's other -D macros (for value(), not in text())
  int numWarps = 4;
  int numStages = 3;
  std::string text() const;  // "TM=64 TN=32 num_warps=4 num_stages=3"
  // The value of a tuning parameter or of a -D macro of the kernel (opt.d('TM')); "" if none.
  std::string value(const std::string& name) const;
  int64_t intValue(const std::string& name) const;  // throws UserError when not an integer
  bool operator==(const Config& o) const { return text() == o.text(); }
};

struct Param {
  std::string name;
  ir::Type type;
};

// "f16*" for a pointer to f16, "i32" for an i32: a parameter's type as
// signatures are written in cache entries and .tck files.
std::string paramTypeText(const ir::Type& t);
// The inverse; nullopt for anything else.
std::optional<ir::Type> paramTypeFromText(const std::string& text);
// "f16* A, f16* B, i32 M": a signature for messages.
std::string signatureText(const std::vector<Param>& params);

}  // namespace tritonc::runtime
