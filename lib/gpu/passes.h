// The passes of the GPU IR (docs/GPU_IR.md), one per file. Each takes the
// pipeline's options (the target and warps of Triton-IR being lowered; a
// module already in GPU IR carries its own) and returns whether it changed
// the function. The pass manager verifies the IR after each.
#pragma once
#include <string>

#include "ir/ir.h"
#include "transform/pass_manager.h"

namespace tritonc::gpu {

// A float product used only by an add or sub of its block becomes one fma
// (Triton's enable_fp_fusion, on unless the back end leaves the pass out).
bool runContractFma(ir::Function& f, const transform::PipelineOptions& o);

// Triton-IR to GPU IR: decides each dot's instruction (wgmma, mma.sync,
// FMA), gives every tile a layout (loads and stores coalesced, dot results
// in their accumulator layouts, the rest by propagation from them),
// recomputes cheap values (ranges, splats, address arithmetic) where another
// layout is wanted and converts the others (convert_layout), stages dot
// operands through shared memory (local_alloc, local_load), and records the
// vector width of each load and store ({vec = N}).
bool runAssignLayouts(ir::Function& f, const transform::PipelineOptions& o);

// How gpu-assign-layouts places a tile loaded narrow and stored wider (bf16
// in, f32 out; assign_layouts.cpp): NarrowLoads (the default) caps the
// loads' vectors at what the stores write at once; Keep leaves the loads'
// width (two stores per thread-run); Convert converts before the store.
// TRITONC_WIDE_STORES=keep|convert picks the others (kernels cached apart).
enum class WideStorePolicy { NarrowLoads, Keep, Convert };
WideStorePolicy wideStorePolicyFromEnvironment();
// Whether a load that reads each address several times and no two
// consecutive ones (`S + offs // 64`) is an anchor of gpu-assign-layouts
// with a layout of its own (TRITONC_REPEATED_LOADS=anchor, as before
// session 33), rather than taking its users' layout (the default).
bool repeatedLoadsAnchorFromEnvironment();

// float64 exp, exp2, log, log2, sin, cos, tanh and rsqrt (which PTX has in
// float32 only) become float64 arithmetic, on Triton-IR before layouts
// (expand_f64_math.cpp says how; a few ulps).
bool runExpandF64Math(ir::Function& f, const transform::PipelineOptions& o);
// Whether gpu-expand-f64-math rewrites `inst` (a float64 function PTX lacks).
bool expandsF64Math(const ir::Instruction& inst);

// float32 (float16, bfloat16) log, log2, sin, cos and tanh become arithmetic
// within a few ulps, as Triton's libdevice ones, rather than PTX's approximations (lg2
// puts log2 of a number near a power of two on the wrong side of an
// integer; sin/cos lose digits with |x|); expand_f32_math.cpp says how.
bool runExpandF32Math(ir::Function& f, const transform::PipelineOptions& o);
// Whether gpu-expand-f32-math rewrites `inst`.
bool expandsF32Math(const ir::Instruction& inst);

// Software pipelining of dot operands: the pre-fetched loads of a loop whose
// tiles are staged in shared memory for a dot become asynchronous copies
// (masked ones zero-filled) into rings of stages; a wgmma accumulating into
// its loop's phi becomes asynchronous (one group left in flight), with an
// extra stage where that fits and costs no program per multiprocessor, else
// refilling the stage its previous group read once that group is retired.
bool runPipeline(ir::Function& f, const transform::PipelineOptions& o);

// TRITONC_REUSE_STAGE from the environment: 0 (never: asynchronous wgmma
// rings take the extra stage), 1 (a stage reused wherever gpu-pipeline can,
// mma.sync's rings too), -1 when unset (its rules); kernels are cached
// apart.
int stageReuseFromEnvironment();

// TRITONC_REGISTER_PREFETCH=1: an asynchronous wgmma's register operand
// loaded from its ring (a tf32 B stored K x N) is loaded one iteration
// ahead, overlapping the wgmma; kernels are cached apart.
bool registerPrefetchFromEnvironment();

// The rings whose copies read boxes of a row-major tensor described by the
// kernel's arguments (analysis/tensor_view.h) filled by the tensor memory
// accelerator on sm_90: tma_copy from one thread, an mbarrier per stage,
// tma_wait before a stage is read and at the loop's exit.
bool runTensorMemoryAccess(ir::Function& f, const transform::PipelineOptions& o);

// Tensor copies that the two programs of a pair along the grid's x axis
// would both make, made once for the pair: {multicast = 2} (each issues half
// of the box into both programs' stages when launched in clusters of two).
bool runMulticast(ir::Function& f, const transform::PipelineOptions& o);

// Program ids remapped to a grouped order (G rows of tiles of x per group,
// sweeping y) in a kernel whose ring copies split into ones reused along x
// (B's) and ones reused along y (A's): the programs running at once share
// their operands in L2. Marks the function grouped_programs(G).
bool runProgramOrder(ir::Function& f, const transform::PipelineOptions& o);

// The rows of tiles per group of gpu-program-order: TRITONC_GROUPED_PROGRAMS
// from the environment (an even number from 2 to 64; 0, or anything else,
// turns the pass off), 16 when unset. Kernels are cached apart.
int groupedProgramsFromEnvironment();

// A producer warp for a loop whose rings are all tensor copies: it issues
// the copies, waiting for each stage to be freed; the kernel's warps wait,
// multiply and free ({role = ...}, producer_warps(1); warp_specialize.cpp).
bool runWarpSpecialize(ir::Function& f, const transform::PipelineOptions& o);

// A synchronous wgmma in a loop waits where its result is first read, not
// at its issue (dot_async ... dot_wait 0), where what it reads stays put
// until then: independent dots of an iteration run back to back.
bool runDeferDotWaits(ir::Function& f, const transform::PipelineOptions& o);

// Places buffers and scratch in shared memory by live ranges ({smem = N} on
// each, the total as the function's shared(N)); too much for the target is
// an error.
bool runAllocateShared(ir::Function& f, const transform::PipelineOptions& o);

// Two buffers or scratches of `f` that share bytes of shared memory while
// both are live (by the live ranges gpu-allocate-shared places them by), in
// words, or "" when none do: GPU IR written by hand may place them so.
std::string sharedOverlap(const ir::Function& f);

// Barriers (and async-proxy fences) where the paper's RAW/WAR data-flow
// equations over shared-memory byte ranges say.
bool runInsertBarriers(ir::Function& f, const transform::PipelineOptions& o);

// Whether bytes copied by cp.async are fenced for the warpgroup MMAs like
// stores from registers: yes by default (gpu-insert-barriers says why);
// TRITONC_FENCE_ASYNC_COPIES=0 in the environment turns it off, to compare
// (kernels are cached apart).
bool fenceAsyncCopiesFromEnvironment();

}  // namespace tritonc::gpu
