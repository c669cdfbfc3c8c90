// How many programs per multiprocessor the back end asks ptxas to make room
// for (the PTX directive .minnctapersm). Two when two programs' shared memory
// fits a multiprocessor and the registers the kernel needs, estimated from
// its GPU IR, fit 65536 twice: ptxas then keeps to 65536 / (2 x threads)
// registers per thread (128 at 8 warps), where left alone it would take up
// to 255 and leave room for one program (the Python DSL's attention at 8
// warps: 164 registers, one program per multiprocessor, 281 TFLOP/s on the
// H100; asked for two, 127 registers, no spills, 328 TFLOP/s). Otherwise
// one: a kernel that needs its registers (a 128 x 256 accumulator) gets them.
#pragma once
#include <cstdint>
#include <string>

#include "ir/ir.h"

namespace tritonc::gpu {

struct OccupancyTarget {
  int programs = 1;                // per multiprocessor, for .minnctapersm
  int fallback = 0;                // programs to ask for instead where that spills (0: none)
  bool natural = false;            // try the PTX without .minnctapersm too (ptxas's own choice)
  int halfway = 0;                 // programs to try before the fallback where the first spills (0: none)
  int64_t estimatedRegisters = 0;  // per thread
  int64_t registerBudget = 0;      // per thread with two programs (at most 255)
  std::string reason;              // why, in words, for the compile report
};

// `f` is GPU IR (layouts assigned, shared memory allocated).
OccupancyTarget occupancyTarget(const ir::Function& f, int numWarps);

// Whether kernels without dots ask for as many programs as fit (the
// default); TRITONC_ROW_OCCUPANCY=0 in the environment keeps them to the
// rule for kernels with dots, to compare (kernels are cached apart).
bool rowOccupancyFromEnvironment();

// How far over the registers each thread gets (in eighths) the estimate of
// a kernel without dots may be for it to ask for more programs (at least
// 8, at most 32): TRITONC_ROW_REGISTER_SLACK, else 12 (3/2). Kernels are
// cached apart.
int rowRegisterSlackEighths();

// Whether the estimate sees wider element-wise chains as streamed (ptxas
// evaluates them element by element): a value several element-wise
// instructions read (a SwiGLU's `x * sigmoid(x)`), conversions in the chain,
// loads and their addresses between its links, and (transform/passes.h
// merge-blocks, run last in the default pipeline) the blocks an inlined
// function's return leaves. On by default (H200, session 38:
// Liger's SwiGLU and GeGLU forward 1.35x faster, the DSL benchmark's row
// kernels unchanged); TRITONC_STREAM_SHARED=0 turns it off (kernels are
// cached apart).
bool streamSharedFromEnvironment();

// Whether a kernel without dots is also assembled without `.minnctapersm`,
// as Triton's PTX is (nvptx/occupancy_fallback.h: kept where it holds more
// programs per multiprocessor without spilling), and, where what it asks
// for spills, with half as many before the fallback (a bf16 RoPE of 32
// heads on 4 warps: 16 asked, spilling; 8 fit). The estimate can count more
// registers than ptxas needs, and asking for too few programs hands ptxas
// registers it then uses: Liger's LayerNorm forward (4096 bf16, 8 warps)
// estimated at 80, asks for 4 programs and takes 56 registers, 48 left
// alone (5 programs); its SwiGLU backward (16 warps) asks for 1 and takes
// 88, 60 left alone (2 programs). On by default since session 39's GPU run
// (Liger SwiGLU/GeGLU backward 12% faster, LayerNorm forward 8%);
// TRITONC_OCCUPANCY_PROBE=0 turns it off (kernels are cached apart).
bool occupancyProbeFromEnvironment();

// The most programs of `numWarps` warps one multiprocessor of `arch` holds
// (its warps and its limit on programs).
int maxResidentPrograms(const std::string& arch, int numWarps);

// The shared memory of one multiprocessor of `arch`, in bytes (programs
// share it, 1 KB of it reserved per program by the driver).
int64_t multiprocessorSharedBytes(const std::string& arch);

}  // namespace tritonc::gpu
