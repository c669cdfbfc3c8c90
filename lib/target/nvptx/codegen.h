// The NVIDIA GPU back end: Triton-IR to PTX text.
#pragma once
#include <string>
#include <vector>

#include "ir/ir.h"
#include "transform/pass_manager.h"

namespace tritonc::nvptx {

struct TargetOptions {
  std::string arch = "sm_80";  // sm_80, sm_86, sm_89, sm_90, sm_90a
  // The architecture's number: 80 for sm_80, 90 for sm_90a.
  int smVersion() const {
    int n = 0;
    for (size_t i = 3; i < arch.size() && arch[i] >= '0' && arch[i] <= '9'; ++i) n = n * 10 + (arch[i] - '0');
    return n;
  }
  int numWarps = 4;
  bool wgmma = true;  // sm_90a: warpgroup tensor cores where a dot allows them
  // f32 dots on tensor cores with tf32 inputs (10-bit mantissa), as Triton's
  // allow_tf32: faster, less precise; off by default.
  bool allowTf32 = false;
  // Triton's enable_fp_fusion: a product used only by an add or sub becomes
  // an fma (gpu-contract-fma), and the rest of f32/f64 add, sub and mul carry
  // no rounding modifier, so ptxas may contract them too; false: `.rn` on
  // each, every result rounded (no contraction). Set from the configuration
  // value `enable_fp_fusion` (0 or 1; configure).
  bool fpFusion = true;
  // Triton's enable_reflect_ftz: float32 ex2 flushes subnormals to zero
  // (ex2.approx.ftz.f32, the default, as Triton's libdevice under
  // __CUDA_FTZ); false: ex2.approx.f32, which keeps them.
  bool reflectFtz = true;
  // Triton's maxnreg: at most this many registers a thread (.maxnreg on the
  // entry, in place of the occupancy's .minnctapersm); 0: ptxas decides.
  int maxRegisters = 0;
  // The configuration values of a compile (macros the runtime and the CLI
  // take as options of the back end, not of the source): num_ctas,
  // enable_fp_fusion, enable_reflect_ftz, maxnreg.
  static const std::vector<std::string>& configurationNames();
  static bool isConfigurationName(const std::string& name);
  // Sets one by name from its text ("": the default); a bad value is a UserError.
  void configure(const std::string& name, const std::string& value);
  // The GPU passes these options run: transform::gpuPipeline(), without
  // gpu-contract-fma when fpFusion is off.
  std::vector<std::string> gpuPasses() const;
  // sm_90: rings filled by the tensor memory accelerator where their copies
  // allow it (gpu-tma); TRITONC_TMA=0 in the environment turns it off (to
  // compare; kernels are cached apart, runtime/kernel.cpp).
  bool tma = tmaFromEnvironment();
  static bool tmaFromEnvironment();
  // sm_90, num_ctas = 2 (Triton's option for clusters): tensor copies that
  // pairs of programs along x share, multicast to both in clusters of two
  // (gpu-multicast). TRITONC_MULTICAST=0 in the environment turns it off
  // whatever the configuration says (cached apart like TRITONC_TMA).
  bool multicast = false;
  // num_ctas = 4: also the copies that pairs of programs along y share (A's
  // box of a matmul), in clusters of 2 x 2.
  bool multicastAlongY = false;
  static bool multicastFromEnvironment();
  // num_ctas of a configuration (a macro of its tuning space; absent: 1)
  // into `multicast` (2 or 4) and `multicastAlongY` (4); anything but 1, 2
  // or 4 is a UserError.
  void setNumCtas(const std::string& numCtas);
  // sm_90: a producer warp issues the tensor copies of a loop
  // (gpu-warp-specialize): by default where they are multicast to a pair
  // (num_ctas = 2: the pair then needs no barrier over the cluster in each
  // iteration); TRITONC_WARP_SPECIALIZE=1 in the environment gives one to
  // every loop that qualifies, =0 to none (cached apart like TRITONC_TMA).
  transform::PipelineOptions::WarpSpecialize warpSpecialize = warpSpecializeFromEnvironment();
  static transform::PipelineOptions::WarpSpecialize warpSpecializeFromEnvironment();
  // "" for the default, else what the environment asked (for cache keys).
  static std::string warpSpecializeKey();
  // 8- and 16-bit integers become floats by float arithmetic on their bits,
  // not cvt (lower_elementwise.cpp); TRITONC_SMALL_INT_CVT=1 in the
  // environment keeps cvt, to compare (cached apart like TRITONC_TMA).
  bool smallIntArithmetic = smallIntArithmeticFromEnvironment();
  static bool smallIntArithmeticFromEnvironment();
  // Runs of element-wise PTX go out element by element (element_order.h);
  // TRITONC_ELEMENT_ORDER=0 in the environment keeps the order of the
  // instructions, to compare (cached apart like TRITONC_TMA).
  bool elementOrder = elementOrderFromEnvironment();
  static bool elementOrderFromEnvironment();
};

// The PTX module for every kernel of `m`. The module should be optimized
// Triton-IR (verified): it is lowered to GPU IR in place (the GPU pipeline,
// transform::gpuPipeline(); docs/GPU_IR.md), then to PTX. A module already
// in GPU IR is lowered as it is. Throws UserError for what the back end
// cannot compile (too much shared memory, types it does not support).
std::string emitPtx(ir::Module& m, const TargetOptions& opts);

// The most shared memory one program may use on `arch` (bytes).
int64_t maxSharedBytes(const std::string& arch);

// Why tritonc emits no PTX for `arch` ("" for sm_80, sm_86, sm_87, sm_89,
// sm_90 and sm_90a).
std::string targetProblem(const std::string& arch);

// The PTX ISA version to declare for `arch` (e.g. "8.0" for sm_90a).
std::string ptxVersionFor(const std::string& arch);

// Shared memory beyond this is dynamic (requested at launch).
constexpr int64_t kMaxStaticShared = 48 * 1024;

}  // namespace tritonc::nvptx
