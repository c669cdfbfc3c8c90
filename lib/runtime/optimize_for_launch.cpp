#include "runtime/optimize_for_launch.h"

#include "transform/pass_manager.h"

namespace tritonc::runtime {

void specializeAndOptimize(ir::Module& m, ir::Function& fn, const std::vector<ArgFacts>& args, int numStages,
                           bool forGpu) {
  applySpecialization(fn, args);
  // GPU IR (written, or printed by `emit --stage gpu-ir`) is past the
  // machine-independent pipeline: it is launched as it is.
  if (m.isGpu()) return;
  transform::PipelineOptions po;
  po.numStages = numStages;
  po.asyncCopies = forGpu;
  transform::runPasses(m, transform::defaultPipeline(), po);
}

}  // namespace tritonc::runtime
