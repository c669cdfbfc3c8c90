// What the GPU back end decided, per source line: read off a function in GPU
// IR (after transform::gpuPipeline()), for compile reports (R24). Nothing is
// decided here; every fact is an attribute or an instruction of the IR.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace tritonc::gpu {

struct LineFact {
  uint32_t line = 0, col = 0;  // in the kernel's source (0: unknown)
  std::string kind;            // load, store, copy, dot, reduce, convert, atomic
  std::string text;            // for people: "cp.async 16 B (8 x f16), 4-stage ring, zero-filled where masked"
  int vec = 0;                 // elements per access (loads, stores, copies, atomics)
  int64_t accessBytes = 0;     // bytes per access
  int stages = 0;              // copies: stages of the ring
  std::string instruction;     // dots: wgmma, mma.sync, fma; copies: cp.async; ...
  std::string tile;            // dots: MxNxK; accesses: the tile's shape
  int64_t sharedBytes = 0;     // conversions and reductions through shared memory: scratch bytes
};

struct KernelFacts {
  std::string kernel, target;
  int numWarps = 0;
  int producerWarps = 0;    // added by gpu-warp-specialize (they issue the tensor copies)
  int64_t sharedBytes = 0;  // the program's shared memory (buffers and scratch)
  std::vector<LineFact> facts;  // by source position
  std::vector<std::string> warnings;  // things a user can act on
};

// `f` must be GPU IR (its module has a target).
KernelFacts describeGpuFunction(const ir::Function& f);

}  // namespace tritonc::gpu
