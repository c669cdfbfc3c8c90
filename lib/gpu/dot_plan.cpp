#include "gpu/dot_plan.h"

#include <algorithm>
#include <cstdlib>
#include <set>
#include <string>

#include "gpu/layouts.h"
#include "ir/builder.h"

namespace tritonc::gpu {

using ir::Scalar;

namespace {

bool halfKind(Scalar k) { return k == Scalar::F16 || k == Scalar::BF16; }

// wgmma: each warpgroup (4 warps) computes 64-row blocks of its share of
// the tile. Warpgroups split M as far as it divides into 64-row blocks, then
// N, each share of N a multiple of 64 columns (one 128-byte swizzle block of
// an MN-major B per 64 columns) and at most 256 (the widest wgmma); with
// `narrowN` (B staged K-major: 8 columns are one 8-row block), a share may be
// 32 columns too (8 and 16 would do as well, but have not run on a GPU).
bool wgmmaFits(int64_t M, int64_t N, int64_t K, int64_t kStep, int numWarps, int64_t* groupsMOut, int64_t* wnOut,
               bool narrowN = false) {
  if (numWarps % 4 != 0 || M % 64 != 0 || K % kStep != 0) return false;
  int64_t groups = numWarps / 4, groupsM = 1;
  while (groupsM * 2 <= groups && M % (64 * groupsM * 2) == 0) groupsM *= 2;
  int64_t wn = groups / groupsM;
  if (N % wn != 0) return false;
  int64_t cols = N / wn;
  bool wide = cols % 64 == 0 && cols <= 256;
  bool narrow = narrowN && cols == 32;
  if (!wide && !narrow) return false;
  *groupsMOut = groupsM;
  *wnOut = wn;
  return true;
}

// FMA on the cores: each thread multiplies, per k, its rows of A by its
// columns of B into every element of its pm x pn block (register blocking),
// so a step reads pm + pn values from shared memory for pm * pn FMAs. The
// block minimizes pm + pn (16 x 8 for 128 results a thread: 24 reads where
// the coalescing layout's 32 x 4 made 36 and held 128 values of A: 255
// registers and spills at 128 x 128 over 4 warps), with more rows on a tie:
// 16 x 8 rather than 8 x 16, 8 x 4 rather than 4 x 8 (H200, f32 4096^3,
// `TRITONC_FMA_BLOCKS=columns` the other: 2-8% faster at 64 x 64, 128 x 128
// and 128 x 256 tiles, the same elsewhere), though a row read four k at a
// time holds 4 registers where a column holds 1. Lanes of a warp: 8 along
// N (a 16-byte read of B covers 128 bytes), the rest along M; warps fill M
// first. Null where the tile has too few results a thread for a block (the
// coalescing layout then).
const ir::Layout* fmaResultLayout(ir::Module& m, const ir::Shape& shape, int numWarps, int64_t vector) {
  const FmaBlocks mode = fmaBlocksFromEnvironment();
  if (shape.size() != 2 || mode == FmaBlocks::Off) return nullptr;
  const int64_t M = shape[0], N = shape[1], threads = 32 * int64_t(numWarps);
  if (M * N % threads != 0) return nullptr;
  const int64_t perThread = M * N / threads;
  int64_t bestPm = 0, bestPn = 0;
  for (int64_t pn = vector; pn <= perThread && pn <= N; pn *= 2) {
    int64_t pm = perThread / pn;
    if (pm < 1 || pm > M) continue;
    int64_t tn = N / pn, tm = M / pm;
    if (tn * pn != N || tm * pm != M || tm * tn != threads) continue;
    int64_t ln = std::min<int64_t>(tn, 8), lm = 32 / ln;
    if (lm > tm) continue;
    const bool tieWins = mode == FmaBlocks::RowsOnTies ? pm > bestPm : pm < bestPm;
    if (bestPn == 0 || pm + pn < bestPm + bestPn || (pm + pn == bestPm + bestPn && tieWins)) {
      bestPm = pm;
      bestPn = pn;
    }
  }
  if (bestPn == 0 || bestPm * bestPn < 8) return nullptr;
  const int64_t tn = N / bestPn, tm = M / bestPm, ln = std::min<int64_t>(tn, 8), lm = 32 / ln;
  ir::Layout l;
  l.kind = ir::LayoutKind::Blocked;
  l.order = {1, 0};
  l.sizePerThread = {1, vector};
  l.threadsPerWarp = {lm, ln};
  l.warpsPerCta = {tm / lm, tn / ln};
  return m.layout(l);
}

// (transposed: M and N are wgmma's, the result's N and M.)
bool planWgmma(ir::Module& m, int64_t M, int64_t N, int64_t K, int64_t kStep, int numWarps, DotPlan* out,
               bool narrowN = false, bool transposed = false) {
  int64_t groupsM = 0, wn = 0;
  if (!wgmmaFits(M, N, K, kStep, numWarps, &groupsM, &wn, narrowN)) return false;
  out->kind = DotKind::Wgmma;
  out->result = mmaLayout(m, 3, 4 * groupsM, wn, transposed);
  return true;
}

// Whether every load `v` comes from (through the phis of pre-fetching,
// which may carry each other around the loop, and selects between such a
// tile and a splat, as `a = check ? *pa : 0` with a scalar check becomes)
// reads runs of at least 16 consecutive elements along `dim`.
bool loadedContiguous(const ir::Value* v, size_t dim, const analysis::AxisInfoAnalysis& axis,
                      std::set<const ir::Value*>& seen) {
  if (v->valueKind() != ir::ValueKind::Instruction) return false;
  auto* i = static_cast<const ir::Instruction*>(v);
  if (i->opcode() == ir::Opcode::Load) return axis.get(i->operand(0)).contiguity[dim] >= 16;
  if (i->opcode() == ir::Opcode::Select && !i->operand(0)->type().isTile()) {
    for (size_t k = 1; k < 3; ++k) {
      const ir::Value* x = i->operand(k);
      bool splat = x->valueKind() == ir::ValueKind::Instruction &&
                   static_cast<const ir::Instruction*>(x)->opcode() == ir::Opcode::Splat;
      if (!splat && !loadedContiguous(x, dim, axis, seen)) return false;
    }
    return true;
  }
  if (i->opcode() != ir::Opcode::Phi) return false;
  if (!seen.insert(v).second) return true;  // around the loop: the other incoming values decide
  for (size_t k = 0; k < i->numOperands(); ++k)
    if (!loadedContiguous(i->operand(k), dim, axis, seen)) return false;
  return true;
}

bool loadedContiguous(const ir::Value* v, size_t dim, const analysis::AxisInfoAnalysis& axis) {
  std::set<const ir::Value*> seen;
  return loadedContiguous(v, dim, axis, seen);
}

// Whether operand `v` of a dot comes loaded contiguous along its K
// dimension `kDim`: directly, or through a transpose (a @ tl.trans(b), B
// stored [N, K]) of a tile loaded along the other one.
bool kContiguous(const ir::Value* v, size_t kDim, const analysis::AxisInfoAnalysis& axis) {
  const ir::Instruction* tr =
      v->valueKind() == ir::ValueKind::Instruction ? static_cast<const ir::Instruction*>(v) : nullptr;
  if (tr && tr->opcode() == ir::Opcode::Trans && tr->imm == 0) return loadedContiguous(tr->operand(0), 1 - kDim, axis);
  return loadedContiguous(v, kDim, axis);
}

const ir::Instruction* widenedFp8(const ir::Value* v) {
  if (v->valueKind() != ir::ValueKind::Instruction) return nullptr;
  auto* c = static_cast<const ir::Instruction*>(v);
  if (c->opcode() != ir::Opcode::Cast || c->type().kind != Scalar::F16 || !c->operand(0)->type().isFp8()) return nullptr;
  return c;
}

// mma.sync: among the warp grids that leave every warp whole 16 x 8
// fragments, the one with the fewest ldmatrix per warp and k step (one x4
// per 16 rows of A, one x4 per 16 columns of B).
bool planMmaSync(ir::Module& m, int64_t M, int64_t N, int64_t K, int64_t kStep, int numWarps, DotPlan* out) {
  if (M % 16 || N % 8 || K % kStep) return false;
  bool found = false;
  int64_t bestCost = 0, bestWm = 1;
  for (int64_t wm = numWarps; wm >= 1; wm /= 2) {
    int64_t wn = numWarps / wm;
    if (M % (16 * wm) != 0 || N % (8 * wn) != 0) continue;
    int64_t cost = M / wm / 16 + (N / wn / 8 + 1) / 2;
    if (!found || cost < bestCost) {
      bestCost = cost;
      bestWm = wm;
      found = true;
    }
  }
  if (!found) return false;
  out->kind = DotKind::MmaSync;
  out->result = mmaLayout(m, 2, bestWm, numWarps / bestWm);
  return true;
}

}  // namespace

FmaBlocks fmaBlocksFromEnvironment() {
  const char* v = std::getenv("TRITONC_FMA_BLOCKS");
  if (v && std::string(v) == "0") return FmaBlocks::Off;
  if (v && std::string(v) == "columns") return FmaBlocks::ColumnsOnTies;
  return FmaBlocks::RowsOnTies;
}

bool operandFromRegisters(const DotPlan& plan, int k) {
  if (plan.kind == DotKind::MmaSync) return true;
  if (plan.kind != DotKind::Wgmma) return false;
  if (plan.result->transposed) return k == 1;
  return k == 0 && plan.aFromRegisters;
}

const char* dotKindName(DotKind k) {
  switch (k) {
    case DotKind::Fma: return "fma";
    case DotKind::MmaSync: return "mma.sync";
    case DotKind::Wgmma: return "wgmma";
  }
  return "?";
}

DotPlan planDot(ir::Module& m, const ir::Instruction& dot, const DotTarget& t, const analysis::AxisInfoAnalysis& axis) {
  const ir::Type& at = dot.operand(0)->type();
  const ir::Type& bt = dot.operand(1)->type();
  const ir::Type& rt = dot.type();
  int64_t M = at.shape[0], K = at.shape[1], N = bt.shape[1];
  Scalar k = at.kind;
  DotPlan plan;
  if (ir::isFp8Kind(k)) {  // only as legalizeFp8Dot left it
    if (!ir::isFp8Kind(bt.kind) || rt.kind != Scalar::F32 || !t.wgmma || t.arch != "sm_90a" ||
        !planWgmma(m, M, N, K, 32, t.numWarps, &plan))
      throw InternalError("a dot of fp8 tiles that wgmma cannot run");
    return plan;
  }
  // int8 x int8 into int32 (W8A8 quantized matmuls): exact integer
  // products and sums on the tensor cores. wgmma reads 8-bit operands from
  // K-major buffers only, so both tiles must come K-contiguous (x @ w.T with
  // w stored [N, K]); otherwise mma.sync's m16n8k32, whose fragments are
  // loaded from either.
  if (k == Scalar::I8 && bt.kind == Scalar::I8 && rt.kind == Scalar::I32) {
    if (t.wgmma && t.arch == "sm_90a" && kContiguous(dot.operand(0), 1, axis) && kContiguous(dot.operand(1), 0, axis) &&
        planWgmma(m, M, N, K, 32, t.numWarps, &plan, /*narrowN=*/true)) {
      plan.bKMajor = true;
      return plan;
    }
    if (planMmaSync(m, M, N, K, 32, t.numWarps, &plan)) return plan;
  }
  bool f32Acc = rt.kind == Scalar::F32 && bt.kind == k;
  if (f32Acc && halfKind(k) && t.wgmma && t.arch == "sm_90a") {
    if (planWgmma(m, M, N, K, 16, t.numWarps, &plan)) return plan;
    if (kContiguous(dot.operand(1), 0, axis) && planWgmma(m, M, N, K, 16, t.numWarps, &plan, /*narrowN=*/true)) {
      plan.bKMajor = true;
      return plan;
    }
  }
  bool tf32 = t.allowTf32 && k == Scalar::F32;
  // tf32 on wgmma reads K-major buffers only, as 8-bit operands do: both
  // tiles loaded K-contiguous (x @ w.T with w stored [N, K], as torch's
  // Linear holds it); else mma.sync, whose fragments are loaded from either.
  if (f32Acc && tf32 && t.wgmma && t.arch == "sm_90a" && kContiguous(dot.operand(0), 1, axis) &&
      kContiguous(dot.operand(1), 0, axis) && planWgmma(m, M, N, K, 8, t.numWarps, &plan, /*narrowN=*/true)) {
    plan.bKMajor = true;
    return plan;
  }
  // One operand not K-contiguous: wgmma takes it from registers, which it
  // reads as its A in any order. A stored K x M is that A; B stored K x N
  // becomes it in the transposed product C^T = B^T A^T, A's K-major buffer
  // read as wgmma's B (mma<v=3, transposed=1>: the warpgroups split N).
  if (f32Acc && tf32 && t.wgmma && t.arch == "sm_90a") {
    if (kContiguous(dot.operand(1), 0, axis) && planWgmma(m, M, N, K, 8, t.numWarps, &plan, /*narrowN=*/true)) {
      plan.bKMajor = true;
      plan.aFromRegisters = true;
      return plan;
    }
    if (kContiguous(dot.operand(0), 1, axis) &&
        planWgmma(m, N, M, K, 8, t.numWarps, &plan, /*narrowN=*/true, /*transposed=*/true))
      return plan;
  }
  if (f32Acc && (halfKind(k) || tf32) && planMmaSync(m, M, N, K, tf32 ? 8 : 16, t.numWarps, &plan)) return plan;
  // FMA: register blocks (above), else threads along N with four columns
  // each where the tile allows.
  plan.kind = DotKind::Fma;
  const int64_t vector = ir::byteSize(rt.kind) <= 4 ? 4 : 2;
  plan.result = fmaResultLayout(m, rt.shape, t.numWarps, vector);
  if (!plan.result) plan.result = blockedLayout(m, rt.shape, t.numWarps, {1, 0}, vector);
  return plan;
}

bool legalizeFp8Dot(ir::Module& m, ir::Instruction& dot, const DotTarget& t, const analysis::AxisInfoAnalysis& axis) {
  if (dot.opcode() != ir::Opcode::Dot) return false;
  const bool onWgmma = dot.type().kind == Scalar::F32 && t.wgmma && t.arch == "sm_90a";
  int64_t groupsM = 0, wn = 0;
  if (dot.operand(0)->type().isFp8()) {
    const ir::Shape& as = dot.operand(0)->type().shape;
    if (onWgmma && wgmmaFits(as[0], dot.operand(1)->type().shape[1], as[1], 32, t.numWarps, &groupsM, &wn))
      return false;
    ir::Builder b(m);
    b.setInsertPoint(dot.parent, dot.parent->indexOf(&dot));
    b.setLoc(dot.loc);
    for (size_t k = 0; k < 2; ++k) dot.setOperand(k, b.cast(dot.operand(k), dot.operand(k)->type().withKind(Scalar::F16)));
    return true;
  }
  if (!onWgmma) return false;
  const ir::Instruction* a = widenedFp8(dot.operand(0));
  const ir::Instruction* b = widenedFp8(dot.operand(1));
  if (!a || !b) return false;
  const ir::Shape& as = a->type().shape;
  if (!wgmmaFits(as[0], b->type().shape[1], as[1], 32, t.numWarps, &groupsM, &wn)) return false;
  // K-major in memory: A along its columns, B along its rows.
  if (!kContiguous(a->operand(0), 1, axis) || !kContiguous(b->operand(0), 0, axis)) return false;
  dot.setOperand(0, a->operand(0));
  dot.setOperand(1, b->operand(0));
  // The widenings nothing else reads go now: a transpose read only by the
  // dot is staged as a view of its source (assign_layouts.cpp).
  auto dropUnused = [](const ir::Instruction* c) {
    if (c->users().empty()) c->parent->erase(const_cast<ir::Instruction*>(c));
  };
  if (b != a) dropUnused(b);
  dropUnused(a);
  return true;
}

bool legalizeHalfAccumulatorDot(ir::Module& m, ir::Instruction& dot) {
  if (dot.opcode() != ir::Opcode::Dot) return false;
  const Scalar k = dot.type().kind;
  if (k != Scalar::F16 && k != Scalar::BF16) return false;
  ir::Builder b(m);
  b.setInsertPoint(dot.parent, dot.parent->indexOf(&dot));
  b.setLoc(dot.loc);
  dot.setOperand(2, b.cast(dot.operand(2), dot.operand(2)->type().withKind(Scalar::F32)));
  const ir::Type half = dot.type();
  dot.setType(half.withKind(Scalar::F32));
  b.setInsertPoint(dot.parent, dot.parent->indexOf(&dot) + 1);
  ir::Value* rounded = b.cast(&dot, half);
  dot.replaceAllUsesWith(rounded);
  static_cast<ir::Instruction*>(rounded)->setOperand(0, &dot);  // (the cast's own operand was rewritten too)
  return true;
}

const ir::Layout* operandSharedLayout(ir::Module& m, DotKind kind, int opIdx, const ir::Type& type, int fastDim) {
  int64_t esize = ir::byteSize(type.kind);
  switch (kind) {
    case DotKind::Wgmma: {
      // K-major (K contiguous): rows of K elements in swizzled blocks of up
      // to 128 bytes. MN-major: blocks of 64 rows or columns (128 bytes),
      // swizzled; the descriptors read either (wgmma.cpp), but 8-bit and
      // tf32 operands only K-major.
      int kDim = opIdx == 0 ? 1 : 0;
      int64_t K = type.shape[size_t(kDim)];
      if (fastDim == kDim || esize != 2)
        return sharedLayout(m, {kDim, 1 - kDim}, 0, std::min<int64_t>(128, K * esize));
      return sharedLayout(m, {1 - kDim, kDim}, 0, 128);
    }
    case DotKind::MmaSync: {
      // Rows along the registers' contiguous dimension, padded by 16 bytes so
      // that the eight rows an ldmatrix reads (or the tf32 fragment reads of
      // a warp along K) fall in different banks. A 32-bit fragment read
      // along M or N (lanes 8 along it, 4 along K, so 4 rows) needs 32
      // bytes: rows 8 banks apart.
      std::vector<int> order = fastDim == 0 ? std::vector<int>{0, 1} : std::vector<int>{1, 0};
      int kDim = opIdx == 0 ? 1 : 0;
      return sharedLayout(m, order, (esize == 4 && fastDim != kDim ? 32 : 16) / esize, 0);
    }
    case DotKind::Fma: {
      // A: the threads of a warp read one k of different rows, so rows are
      // padded (by 4 elements when 32-bit rows are read four k at a time).
      if (opIdx == 0) return sharedLayout(m, {1, 0}, esize == 4 && type.shape[1] % 4 == 0 ? 4 : 1, 0);
      return sharedLayout(m, {1, 0}, 0, 0);
    }
  }
  return nullptr;
}

}  // namespace tritonc::gpu
