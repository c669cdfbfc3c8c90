#include "transform/pass_manager.h"

#include <sstream>

#include "ir/printer.h"
#include "ir/verifier.h"
#include "transform/passes.h"
#include "gpu/occupancy.h"
#include "gpu/passes.h"

namespace tritonc::transform {

namespace {

// Passes without options.
template <bool (*Run)(ir::Function&)>
bool plain(ir::Function& f, const PipelineOptions&) {
  return Run(f);
}

bool prefetch(ir::Function& f, const PipelineOptions& o) { return runPrefetch(f, o.numStages - 1, o.asyncCopies); }

}  // namespace

const std::vector<PassInfo>& allPasses() {
  static const std::vector<PassInfo> passes = {
      {"constfold", "fold constants (scalars and splats)", plain<runConstantFolding>, false},
      {"peephole", "tile peephole rules (trans(trans(x)), splat folding, x+0, x*1, all-true masks, pointer offsets added before one gep)", plain<runPeephole>, false},
      {"cse", "common sub-expression elimination", plain<runCommonSubexpressionElimination>, true},
      {"licm", "loop-invariant code motion", plain<runLoopInvariantCodeMotion>, true},
      {"rebase-pointers", "pointer tiles advanced by a uniform step: a scalar pointer phi plus invariant offsets", plain<runRebasePointerPhis>, false},
      {"prefetch", "pre-fetch loads num_stages - 1 loop iterations ahead", prefetch, false},
      {"dce", "dead-code elimination", plain<runDeadCodeElimination>, true},
      {"merge-blocks", "a block whose only predecessor branches to it unconditionally joins that predecessor", plain<runMergeBlocks>, true},
      {"gpu-expand-f64-math", "float64 exp, exp2, log, log2, sin, cos, tanh, rsqrt as float64 arithmetic (PTX has them in float32 only)", gpu::runExpandF64Math, false},
      {"gpu-expand-f32-math", "float32 (float16, bfloat16) log, log2, sin, cos, tanh as arithmetic within a few ulps, as Triton's libdevice (PTX's are approximate)", gpu::runExpandF32Math, false},
      {"gpu-contract-fma", "a float32/float64 product used only by an add or sub of its block: one fma, rounded once (left out with enable_fp_fusion off)", gpu::runContractFma, false},
      {"gpu-assign-layouts", "Triton-IR to GPU IR: layouts, dot instructions, staging of dot operands", gpu::runAssignLayouts, true},
      {"gpu-pipeline", "pre-fetched dot operands into rings of async copies; asynchronous wgmma", gpu::runPipeline, true},
      {"gpu-tma", "rings of tensor-shaped copies filled by the tensor memory accelerator (sm_90)", gpu::runTensorMemoryAccess, true},
      {"gpu-multicast", "tensor copies two programs along x both make, multicast to the pair (clusters of two)", gpu::runMulticast, true},
      {"gpu-program-order", "program ids of a matmul-like kernel remapped to a grouped order, for L2 reuse", gpu::runProgramOrder, true},
      {"gpu-warp-specialize", "a producer warp issues a loop's tensor copies; the program's warps wait, multiply and free the stages", gpu::runWarpSpecialize, true},
      {"gpu-defer-dot-waits", "a loop's synchronous wgmma waits where its result is first read", gpu::runDeferDotWaits, true},
      {"gpu-allocate-shared", "shared memory for buffers and scratch, by live ranges", gpu::runAllocateShared, true},
      {"gpu-insert-barriers", "barriers and fences by the RAW/WAR data-flow equations", gpu::runInsertBarriers, true},
  };
  return passes;
}

const PassInfo* findPass(const std::string& name) {
  for (const PassInfo& p : allPasses())
    if (name == p.name) return &p;
  return nullptr;
}

std::vector<std::string> defaultPipeline() {
  // Simplify first so that CSE and LICM see canonical code (CSE before the
  // peephole too: `m[:, newaxis] ? *p : 0` broadcasts m twice, and only one
  // value is the load's own mask); pre-fetch after LICM so that hoisted
  // address computations are not cloned; clean up last. Straight-line
  // blocks (an inlined function's return, a loop's step) are merged last,
  // so that the occupancy estimate sees an element-wise chain whole (with
  // its streamed shared values, gpu/occupancy.h: on unless
  // TRITONC_STREAM_SHARED=0).
  std::vector<std::string> passes = {"constfold", "cse", "peephole", "cse", "licm", "rebase-pointers",
                                     "dce", "prefetch", "constfold", "peephole", "cse", "dce"};
  if (gpu::streamSharedFromEnvironment()) passes.push_back("merge-blocks");
  return passes;
}

std::vector<std::string> gpuPipeline() {
  // Layouts first; CSE merges the values it recomputed or converted twice,
  // DCE drops what they replaced.
  return {"gpu-expand-f64-math", "gpu-expand-f32-math", "gpu-contract-fma", "gpu-assign-layouts", "cse", "dce", "gpu-pipeline", "gpu-tma", "gpu-multicast", "gpu-program-order", "cse", "dce", "gpu-warp-specialize", "gpu-defer-dot-waits", "gpu-allocate-shared", "gpu-insert-barriers"};
}

std::vector<std::string> parsePassList(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream ss(list);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item == "default") {
      for (auto& p : defaultPipeline()) out.push_back(p);
    } else if (!item.empty()) {
      out.push_back(item);
    }
  }
  return out;
}

void runPasses(ir::Module& m, const std::vector<std::string>& passes, const PipelineOptions& opts) {
  std::vector<const PassInfo*> infos;
  for (const std::string& name : passes) {
    const PassInfo* p = findPass(name);
    if (!p) {
      std::string known;
      for (const PassInfo& q : allPasses()) known += (known.empty() ? "" : ", ") + std::string(q.name);
      throw UserError(SourceLoc{}, "unknown pass '" + name + "' (known passes: " + known + ")");
    }
    infos.push_back(p);
  }
  if (opts.numStages < 1 || opts.numStages > 8)
    throw UserError(SourceLoc{}, "num_stages must be between 1 and 8, got " + std::to_string(opts.numStages));
  for (const PassInfo* p : infos) {
    if (m.isGpu() && !p->onGpuIr)
      throw UserError(SourceLoc{}, std::string("pass '") + p->name + "' works on Triton-IR, and this module is in GPU IR");
    bool changed = false;
    for (auto& f : m.functions()) changed = p->run(*f, opts) || changed;
    // A pass that changed nothing left the IR as verified before it (and
    // verifying a large function costs more than most passes).
    std::string err = changed ? ir::verifyModule(m) : "";
    if (!err.empty())
      throw InternalError(std::string("pass '") + p->name + "' produced invalid IR:\n" + err + "\n" + ir::printModule(m));
    if (opts.printAfterEach) *opts.printAfterEach << "; *** IR after " << p->name << " ***\n" << ir::printModule(m) << "\n";
  }
}

}  // namespace tritonc::transform
