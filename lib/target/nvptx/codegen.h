// The NVIDIA GPU back end: Triton-IR to PTX text.
#pragma once
#include <string>

#include "ir/ir.h"

namespace tritonc::nvptx {

struct TargetOptions {
  std::string arch = "sm_80";  // sm_80, sm_86, sm_89, sm_90, sm_90a
  int numWarps = 4;
  bool wgmma = true;  // sm_90a: warpgroup tensor cores where a dot allows them
  // f32 dots on tensor cores with tf32 inputs (10-bit mantissa), as Triton's
  // allow_tf32: faster, less precise; off by default.
  bool allowTf32 = false;
};

// The PTX module for every kernel of `m`. The module should be optimized and
// verified. Throws UserError for what the back end cannot compile yet.
std::string emitPtx(const ir::Module& m, const TargetOptions& opts);

// The module printed with the layout the back end gives each tile value
// (`; #blocked<...>` or `; #mma<...>` after the instruction): what the
// compiler decided about which thread holds which element.
std::string printLayouts(const ir::Module& m, const TargetOptions& opts);

// The most shared memory one program may use on `arch` (bytes).
int64_t maxSharedBytes(const std::string& arch);

// The PTX ISA version to declare for `arch` (e.g. "8.0" for sm_90a).
std::string ptxVersionFor(const std::string& arch);

}  // namespace tritonc::nvptx
