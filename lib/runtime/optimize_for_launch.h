// What a launch compiles: the kernel specialized for the launch's facts
// (specialize.h), then optimized. Part of the compiling runtime only (it
// runs the optimizer): a runtime-only build (TRITONC_RUNTIME_ONLY) loads code
// that `tritonc compile` optimized ahead of time.
#pragma once
#include <vector>

#include "ir/ir.h"
#include "runtime/specialize.h"

namespace tritonc::runtime {

// The kernel `fn` of `m` specialized for `args`, then the default
// optimization pipeline (after the specialization, so that the optimizer
// sees the launch's facts; `forGpu` tells pre-fetching that loads can
// become asynchronous copies, see transform/passes.h).
void specializeAndOptimize(ir::Module& m, ir::Function& fn, const std::vector<ArgFacts>& args, int numStages,
                           bool forGpu);

}  // namespace tritonc::runtime
