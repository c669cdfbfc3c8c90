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

}  // namespace tritonc::nvptx
