// `tritonc compile`: a kernel's configurations x launch specializations x
// targets into one .tck file (runtime/aot_compile.h, docs/TCK_FORMAT.md).
#pragma once
#include <string>

#include "options.h"
#include "runtime/kernel.h"

namespace tritonc::cli {

// Compiles `source` (the file of `o`) with the kernel options `ko` (-D,
// warps, stages, kernel, cache) for `o`'s targets and --arg
// specializations, writes `o.output` and says what it wrote. Returns the
// exit status; throws UsageError or UserError.
int compileCommand(const Options& o, const std::string& source, runtime::KernelOptions ko);

}  // namespace tritonc::cli
