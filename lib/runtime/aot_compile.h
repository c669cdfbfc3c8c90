// Compiling ahead of time (`tritonc compile`): a kernel's configurations ×
// launch specializations × targets, each compiled as a launch would compile
// it (runtime::Kernel), gathered into a KernelPack for a .tck file.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/kernel.h"
#include "runtime/kernel_pack.h"

namespace tritonc::runtime {

struct PackOptions {
  std::vector<std::string> targets;  // sm_80, sm_90a, ... (PTX), cpu, interp (optimized IR)
  // Launch specializations, each the named integers of one launch (as
  // `tritonc emit --arg`): those integers' facts (divisibility, sign, the
  // value 1), pointers 16-byte aligned, other integers unknown. Empty: one,
  // with no integer named.
  std::vector<std::vector<std::pair<std::string, int64_t>>> specializations;
  // Also code for any launch: no alignment, no integer facts.
  bool generic = false;
  // Configurations that do not compile are skipped with a note here.
  std::function<void(const std::string&)> note;
};

// Compiles `source` (with the kernel options: -D values and lists, warps,
// stages, kernel name, cache directory) for every target, configuration of
// its space and specialization. Throws UserError for a bad source, options or
// specialization, and when no configuration of a target compiles.
KernelPack compilePack(const std::string& source, const KernelOptions& kernelOptions, const PackOptions& options);

}  // namespace tritonc::runtime
