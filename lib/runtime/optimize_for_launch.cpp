#include "runtime/optimize_for_launch.h"

#include "transform/pass_manager.h"

namespace tritonc::runtime {

void specializeAndOptimize(ir::Module& m, ir::Function& fn, const std::vector<ArgFacts>& args, int numStages,
                           bool forGpu) {
  applySpecialization(fn, args);
  transform::PipelineOptions po;
  po.numStages = numStages;
  po.asyncCopies = forGpu;
  transform::runPasses(m, transform::defaultPipeline(), po);
}

}  // namespace tritonc::runtime
