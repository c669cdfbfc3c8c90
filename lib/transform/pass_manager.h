// The pass manager: runs named function passes in a declared order, verifies
// the IR after every pass that reports a change (a pass that breaks the IR is
// named at once), and can print the IR after every pass.
#pragma once
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace tritonc::transform {

struct PipelineOptions {
  std::ostream* printAfterEach = nullptr;  // print the IR after each pass here
  // Software-pipelining depth (Triton's num_stages): loads are pre-fetched
  // num_stages - 1 iterations ahead; 1 turns pre-fetching off.
  int numStages = kDefaultNumStages;
  static constexpr int kDefaultNumStages = 3;
  // The code will run where loads can become asynchronous copies (the GPU):
  // pre-fetching sends the others only one iteration ahead (passes.h).
  bool asyncCopies = false;
  // The GPU target of the gpu-* passes (which turn Triton-IR into GPU IR and
  // work on it; docs/GPU_IR.md). A module already in GPU IR carries its own.
  std::string target = "sm_80";
  int numWarps = 4;
  bool wgmma = true;       // warpgroup MMA on sm_90a
  bool allowTf32 = false;  // f32 dots on tensor cores with tf32 inputs
  bool tma = true;         // sm_90: rings filled by the tensor memory accelerator (gpu-tma)
  bool multicast = true;   // sm_90: copies shared by pairs of programs multicast (gpu-multicast)
  bool multicastAlongY = false;  // also pairs along y (num_ctas = 4: clusters of 2 x 2)
  // sm_90: which loops get a producer warp that issues their tensor copies
  // (gpu-warp-specialize): kNever, kPairs (loops whose copies are multicast
  // to a pair of programs, the GPU back end's default) or kEvery (every
  // loop that qualifies; the pass run by name).
  enum WarpSpecialize { kNever, kPairs, kEvery };
  WarpSpecialize warpSpecialize = kEvery;
};

struct PassInfo {
  const char* name;         // as given to --passes
  const char* description;  // one line for --help
  bool (*run)(ir::Function&, const PipelineOptions&);  // returns whether the function changed
  bool onGpuIr;             // whether it may run on GPU IR (else Triton-IR only)
};

// Every pass, in the order of the default pipeline's first appearance.
const std::vector<PassInfo>& allPasses();
const PassInfo* findPass(const std::string& name);
// The default machine-independent pipeline.
std::vector<std::string> defaultPipeline();
// The GPU back end's passes after it: Triton-IR to GPU IR, then the GPU IR's
// own decisions (pipelining, shared memory, barriers).
std::vector<std::string> gpuPipeline();

// Runs `passes` on every function of `m`. Throws UserError for an unknown pass
// name and InternalError when a pass leaves invalid IR (naming the pass).
void runPasses(ir::Module& m, const std::vector<std::string>& passes, const PipelineOptions& opts = {});

// Splits "a,b,c" (the --passes option); "default" expands to the default pipeline.
std::vector<std::string> parsePassList(const std::string& list);

}  // namespace tritonc::transform
