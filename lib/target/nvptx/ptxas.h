// PTX assembled by the CUDA toolkit's ptxas, when one is installed. The
// driver compiles PTX too (when a module is loaded), but one module at a
// time: the tuner, which compiles a whole space, runs ptxas in parallel
// processes instead (as Triton does) and loads the cubins, which needs no
// compiling. ptxas is found through $TRITONC_PTXAS, $CUDA_HOME/bin,
// /usr/local/cuda/bin and the PATH; TRITONC_PTXAS=none turns it off.
#pragma once
#include <string>

namespace tritonc::nvptx {

// The path of ptxas, or "" when there is none.
const std::string& ptxasPath();

// The cubin of `ptx` for `arch` (sm_90a, ...), or "" when ptxas is absent
// or fails (then `why` says why, and the driver compiles the PTX itself).
// Safe to call from several threads.
std::string assembleCubin(const std::string& ptx, const std::string& arch, std::string* why = nullptr);

// What `ptxas -v` reports of the (one) kernel of `ptx`: the figures a
// compile report shows. `ok` false (and `problem` says why) without ptxas.
struct PtxasInfo {
  bool ok = false;
  std::string problem, log;
  int64_t registers = -1;  // per thread
  int64_t spillStores = 0, spillLoads = 0, stackFrame = 0;  // bytes per thread
  int64_t staticShared = 0;  // bytes of .shared declared in the PTX (dynamic shared memory is not counted)
  // ptxas's "wgmma.mma_async instructions are serialized" (C7510/C7511 and
  // the like): why, as it says it (empty: not serialized).
  std::string wgmmaSerialized;
};
PtxasInfo ptxasInfo(const std::string& ptx, const std::string& arch);
// Why ptxas's log (-v) says it serialized the wgmma instructions ("...
// wgmma.mma_async instructions are serialized due to WHY in the function
// '...'"), or "" when it does not.
std::string wgmmaSerializedReason(const std::string& log);

}  // namespace tritonc::nvptx
