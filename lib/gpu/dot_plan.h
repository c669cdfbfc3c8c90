// Which instruction a dot runs on, and the layouts that follow: warpgroup
// MMA (wgmma, sm_90a: operands read from shared memory through descriptors,
// A possibly from registers; f32 operands with tf32, and int8 ones into
// int32, where both are loaded K-contiguous), mma.sync (sm_80+: operands
// loaded from shared memory into registers, with ldmatrix where they are
// 16-bit; int8 on m16n8k32), or FMA on the cores (operands read from shared
// memory element by element).
#pragma once
#include "analysis/axis_info.h"
#include "ir/ir.h"

namespace tritonc::gpu {

enum class DotKind { Fma, MmaSync, Wgmma };

struct DotTarget {
  std::string arch = "sm_80";
  int numWarps = 4;
  bool wgmma = true;       // use warpgroup MMA where the target has it
  bool allowTf32 = false;  // f32 dots on tensor cores with tf32 inputs
};

struct DotPlan {
  DotKind kind = DotKind::Fma;
  const ir::Layout* result = nullptr;  // mma<v=3>, mma<v=2>, or blocked (FMA)
  // B must be staged K-major: a wgmma whose warpgroups own 32 columns each
  // (an attention backward's k @ tl.trans(q) with 32 queries), where 8
  // columns are one 8-row block of the swizzle (MN-major, 64 are), and a
  // tf32 one (K-major operands only).
  bool bKMajor = false;
  // wgmma reads A from registers, loaded from its buffer (a tf32 A stored
  // K x M, which wgmma cannot read from shared memory). A result that is
  // mma<v=3, transposed=1> reads B from registers instead (C^T = B^T A^T).
  bool aFromRegisters = false;
};

// Whether the dot planned so reads operand `k` from registers loaded from
// its buffer (local_load into dot_operand<op=k>): mma.sync's operands, and
// wgmma's register operand of a tf32 dot.
bool operandFromRegisters(const DotPlan& plan, int k);

// `axis` tells how the operands were loaded (a B loaded K-contiguous, or
// transposed from a tile loaded along its rows, may take a narrow wgmma).
DotPlan planDot(ir::Module& m, const ir::Instruction& dot, const DotTarget& t, const analysis::AxisInfoAnalysis& axis);

// Hopper's fp8 tensor cores for a dot of two fp8 tiles widened to f16 (the
// form tl.dot of fp8 takes in Triton-IR): where wgmma can read the fp8 tiles
// themselves (sm_90a, shapes its m64nNk32 steps cover, both tiles loaded
// K-contiguous, directly or through a transpose as in a @ tl.trans(b):
// 8-bit wgmma reads K-major buffers only), the dot takes them as its
// operands (the products are the same, exact in f32). A dot of fp8
// tiles that wgmma cannot run (IR written so, for another target or shape)
// gets them widened to f16 instead. Returns whether it changed the dot.
bool legalizeFp8Dot(ir::Module& m, ir::Instruction& dot, const DotTarget& t, const analysis::AxisInfoAnalysis& axis);

// A dot into f16 or bf16 (tl.dot(..., out_dtype=tl.float16)) accumulates
// in f32: its accumulator is widened before it and the result rounded back
// after it, once per dot (Triton's f16 accumulators round at each of the
// instruction's k steps; this is as exact or more). Returns whether it
// changed the dot.
bool legalizeHalfAccumulatorDot(ir::Module& m, ir::Instruction& dot);

// The shared-memory layout operand `opIdx` of a dot planned as `kind` is
// staged in, for an operand of `type` (its shape and element kind) whose
// registers are contiguous along `fastDim` (so that they are stored with
// vectors: for wgmma, K-major or MN-major as the operand comes).
const ir::Layout* operandSharedLayout(ir::Module& m, DotKind kind, int opIdx, const ir::Type& type, int fastDim);

// How FMA dots lay out their results (dot_plan.cpp): register blocks with
// more rows than columns where two blocks read as much (the default), more
// columns (TRITONC_FMA_BLOCKS=columns), or the coalescing layout
// (TRITONC_FMA_BLOCKS=0). A/B switches; kernels are cached apart.
enum class FmaBlocks { RowsOnTies, ColumnsOnTies, Off };
FmaBlocks fmaBlocksFromEnvironment();
const char* dotKindName(DotKind k);  // "fma", "mma.sync", "wgmma"

}  // namespace tritonc::gpu
