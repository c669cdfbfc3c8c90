// The tensor memory accelerator's copies and their mbarriers (gpu/tma.cpp):
//   tma_init: the issuer initializes one mbarrier per stage (one arrival
//             each), then a fence and a barrier make them visible to all
//             threads and to the async proxy;
//   tma_copy: the issuer announces the stage's bytes on its mbarrier and issues
//             one cp.async.bulk.tensor per swizzle block of the box; a false
//             predicate (or an empty tensor) moves the box outside the
//             tensor, which fills it with zeros and still signals the bytes;
//             a false issue predicate (the optional last operand) makes no
//             copy: the issuer arrives on the mbarrier without bytes;
//   tma_wait: every thread spins on mbarrier.try_wait.parity.
//   stage_init: the issuer initializes one mbarrier per stage, expecting
//             `imm` arrivals, behind a barrier of every warp;
//   stage_release: one elected thread per consumer warp arrives.
// In the producer's part of a warp-specialized function its copies are
// issued by the producer warp's elected thread.
// The issuer is the thread of warp 0 that elect.sync picks, not `tid == 0`:
// ptxas knows an elected thread is alone in its warp and issues the copy
// once, where a per-thread predicate made it wrap every copy in a loop over
// the warp's threads (ELECT ... BRA.U.ANY in the SASS, a dozen instructions
// per copy on every warp's path).
// A multicast tma_copy ({multicast = 2}, gpu/multicast.cpp) issues, in a
// program launched in a pair along x (%cluster_nctaid.x 2; along y for
// {along = y}), the blocks of its half into both programs' stages (every
// other block; where the box has an odd number of them, the first or second
// half of each block's rows, through a tensor map of half-height boxes);
// launched alone, every block (both halves). The pair's mask names both
// programs by cluster rank, x + nctaid.x * y (in clusters of 2 x 2 the
// partner along x is rank ^ 1, along y rank ^ 2). Its tma_init ({cluster =
// 1}) synchronizes the cluster after the fence.
// Each distinct tensor gets a kernel parameter of 128 bytes (a CUtensorMap)
// after the user's, and a line `// tritonc: tensor_map ...` that tells the
// launch how to encode it from the arguments (target/nvptx/gpu_runner.cpp).
#include "gpu/shared_memory.h"
#include "target/nvptx/lowering.h"

namespace tritonc::nvptx {

namespace {

using ir::Opcode;

// Bytes between the mbarriers of consecutive stages (i64<S, 1>, 16-aligned).
int64_t barrierStride(const ir::Type& bars) { return gpu::sharedStageBytes(bars); }

std::string extentText(const ir::Value* v) {
  if (v->valueKind() == ir::ValueKind::Argument) return std::to_string(static_cast<const ir::Argument*>(v)->index());
  if (v->valueKind() == ir::ValueKind::Constant) return "#" + std::to_string(static_cast<const ir::Constant*>(v)->i);
  throw InternalError("a tma_copy whose tensor is not described by arguments and constants");
}

}  // namespace

std::string FunctionLowering::tensorMapAddress(const ir::Instruction& copy, int64_t rows) {
  const ir::Type& dst = copy.operand(0)->type();
  const ir::Layout& l = *dst.layout;
  int64_t esize = ir::byteSize(dst.kind);
  size_t fast = size_t(l.order[0]);
  for (size_t k : {size_t(3), size_t(4)})
    if (copy.operand(k)->valueKind() != ir::ValueKind::Argument)
      throw InternalError("a tma_copy whose base or stride is not an argument");
  std::string line = std::string("dtype=") + ir::scalarName(dst.kind) +
                     " base=" + extentText(copy.operand(3)) + " ld=" + extentText(copy.operand(4)) +
                     " rows=" + extentText(copy.operand(5)) + " cols=" + extentText(copy.operand(6)) +
                     " box=" + std::to_string(l.swizzle / esize) + "," + std::to_string(rows ? rows : dst.shape[1 - fast]) +
                     " swizzle=" + std::to_string(l.swizzle);
  for (size_t k = 0; k < tensorMaps_.size(); ++k)
    if (tensorMaps_[k].first == line) return tensorMaps_[k].second;
  InSetup s(*this);
  std::string r = newReg(RegClass::B64);
  std::string param = "param_tmap" + std::to_string(tensorMaps_.size());
  emit("mov.u64 " + r + ", " + param + ";");
  emit("cvta.param.u64 " + r + ", " + r + ";");
  emit("@" + warpZeroIssuer() + " prefetch.tensormap [" + r + "];");
  tensorMaps_.push_back({line, r});
  return r;
}

std::string FunctionLowering::electedLane() {
  if (!electedLane_.empty()) return electedLane_;
  InSetup s(*this);  // at the function's entry, where every warp is converged
  electedLane_ = newReg(RegClass::Pred);
  emit("elect.sync _|" + electedLane_ + ", 0xffffffff;");
  return electedLane_;
}

std::string FunctionLowering::warpZeroIssuer() {
  if (!warpZeroIssuer_.empty()) return warpZeroIssuer_;
  std::string elected = electedLane();
  InSetup s(*this);
  std::string warp0 = newReg(RegClass::Pred);
  warpZeroIssuer_ = newReg(RegClass::Pred);
  emit("setp.lt.u32 " + warp0 + ", " + tid_ + ", 32;");
  emit("and.pred " + warpZeroIssuer_ + ", " + elected + ", " + warp0 + ";");
  return warpZeroIssuer_;
}

std::string FunctionLowering::tmaIssuer() { return writing_ == Writing::Producer ? electedLane() : warpZeroIssuer(); }

FunctionLowering::MulticastIssuers FunctionLowering::multicastIssuers(bool alongY) {
  MulticastIssuers& cached = multicast_[alongY];
  if (!cached.whole.empty()) return cached;
  std::string issuer = tmaIssuer();
  InSetup s(*this);
  const std::string axis = alongY ? ".y" : ".x";
  std::string n = newReg(RegClass::B32), at = newReg(RegClass::B32), rank = newReg(RegClass::B32);
  std::string pair = newReg(RegClass::Pred), first = newReg(RegClass::Pred);
  emit("mov.u32 " + n + ", %cluster_nctaid" + axis + ";");
  emit("mov.u32 " + at + ", %cluster_ctaid" + axis + ";");
  emit("mov.u32 " + rank + ", %cluster_ctarank;");
  emit("setp.eq.u32 " + pair + ", " + n + ", 2;");
  emit("setp.eq.u32 " + first + ", " + at + ", 0;");
  // Each is the issuer and'ed with conditions uniform over the program (ptxas
  // keeps the elected thread's single issue through and.pred, not xor.pred).
  MulticastIssuers m;
  m.whole = newReg(RegClass::Pred);
  m.half[0] = newReg(RegClass::Pred);
  m.half[1] = newReg(RegClass::Pred);
  std::string inPair = newReg(RegClass::Pred);
  emit("and.pred " + inPair + ", " + issuer + ", " + pair + ";");
  emit("and.pred " + m.whole + ", " + issuer + ", !" + pair + ";");  // alone
  emit("and.pred " + m.half[0] + ", " + inPair + ", " + first + ";");
  emit("and.pred " + m.half[1] + ", " + inPair + ", !" + first + ";");
  // The partner's rank: the next along x; along y, nctaid.x further.
  std::string step = "1", partner = newReg(RegClass::B32);
  if (alongY) {
    step = newReg(RegClass::B32);
    emit("mov.u32 " + step + ", %cluster_nctaid.x;");
  }
  emit("xor.b32 " + partner + ", " + rank + ", " + step + ";");
  std::string self = newReg(RegClass::B32), other = newReg(RegClass::B32), both = newReg(RegClass::B32);
  emit("shl.b32 " + self + ", 1, " + rank + ";");
  emit("shl.b32 " + other + ", 1, " + partner + ";");
  emit("or.b32 " + both + ", " + self + ", " + other + ";");
  m.mask = newReg(RegClass::B16);
  emit("cvt.u16.u32 " + m.mask + ", " + both + ";");
  cached = m;
  return m;
}

void FunctionLowering::lowerTma(const ir::Instruction& i) {
  const ir::Type& bars = (i.opcode() == Opcode::TmaCopy ? i.operand(1) : i.operand(0))->type();
  auto barrierOf = [&](const ir::Value* barsValue, const ir::Value* stage) {
    std::string r = newReg(RegClass::B32);
    emit("mad.lo.s32 " + r + ", " + elem(stage, 0) + ", " + std::to_string(barrierStride(bars)) + ", " +
         elem(barsValue, 0) + ";");
    return r;
  };
  // One mbarrier per stage expecting `arrivals`, initialized by warp 0's
  // elected thread (the producer warp's copy finds it false), then fenced.
  auto initStages = [&](const std::string& arrivals) {
    for (int64_t s = 0; s < bars.shape[0]; ++s) {
      std::string a = newReg(RegClass::B32);
      emit("add.s32 " + a + ", " + elem(i.operand(0), 0) + ", " + std::to_string(s * barrierStride(bars)) + ";");
      emit("@" + warpZeroIssuer() + " mbarrier.init.shared::cta.b64 [" + a + "], " + arrivals + ";");
    }
    emit("fence.mbarrier_init.release.cluster;");
  };
  switch (i.opcode()) {
    case Opcode::TmaInit: {
      initStages("1");
      // The partner's multicast copies signal these barriers too.
      if (i.imm) clusterBarrier();
      else everyWarpBarrier();
      return;
    }
    case Opcode::StageInit: {
      // {cluster = 1}: the consumers of every program of the cluster (one
      // launched alone has a cluster of one) free each stage.
      std::string arrivals = std::to_string(i.imm);
      if (i.sub) {
        std::string n = newReg(RegClass::B32);
        arrivals = newReg(RegClass::B32);
        emit("mov.u32 " + n + ", %cluster_nctarank;");
        emit("mul.lo.u32 " + arrivals + ", " + n + ", " + std::to_string(i.imm) + ";");
      }
      initStages(arrivals);
      everyWarpBarrier();
      return;
    }
    case Opcode::StageRelease: {
      // One arrival per consumer warp, once the warp's reads of the stage
      // are retired (the dot_wait before it); release semantics order them
      // before the producer's next copy into the stage.
      std::string bar = barrierOf(i.operand(0), i.operand(1));
      std::string arrives = newReg(RegClass::Pred);
      emit("and.pred " + arrives + ", " + elem(i.operand(2), 0) + ", " + electedLane() + ";");
      emit("@" + arrives + " mbarrier.arrive.shared::cta.b64 _, [" + bar + "];");
      if (i.sub) {  // and at every other program's of the cluster (1, 2 or 4 of them)
        // Clusters of 2 x 2 only where some copy is shared along y.
        int most = 2;
        for (auto& bb : f_.blocks())
          for (auto& inst : bb->instructions())
            if (inst->opcode() == Opcode::TmaCopy && inst->imm && inst->sub) most = 4;
        std::string n = newReg(RegClass::B32), rank = newReg(RegClass::B32);
        emit("mov.u32 " + n + ", %cluster_nctarank;");
        emit("mov.u32 " + rank + ", %cluster_ctarank;");
        for (int k = 1; k < most; ++k) {
          std::string peer = newReg(RegClass::B32), there = newReg(RegClass::Pred), both = newReg(RegClass::Pred);
          std::string remote = newReg(RegClass::B32);
          emit("xor.b32 " + peer + ", " + rank + ", " + std::to_string(k) + ";");
          emit("setp.gt.u32 " + there + ", " + n + ", " + std::to_string(k) + ";");
          emit("and.pred " + both + ", " + arrives + ", " + there + ";");
          emit("mapa.shared::cluster.u32 " + remote + ", " + bar + ", " + peer + ";");
          // At the CTA scope, as the local arrive: .release.cluster made ptxas
          // put a MEMBAR.ALL.GPU and an ERRBAR before it, which waited for the
          // wgmma in flight (a third of the samples; the pairs ran 2x slower).
          emit("@" + both + " mbarrier.arrive.shared::cluster.b64 _, [" + remote + "];");
        }
      }
      return;
    }
    case Opcode::TmaCopy: {
      const ir::Type& dst = i.operand(0)->type();
      const ir::Layout& l = *dst.layout;
      int64_t esize = ir::byteSize(dst.kind);
      size_t fast = size_t(l.order[0]);
      int64_t outer = dst.shape[1 - fast];
      int64_t blocks = dst.shape[fast] * esize / l.swizzle;
      // A pair splits an odd number of blocks by rows (gpu/multicast.cpp).
      const bool byRows = i.imm && blocks % 2;
      std::string issuer = tmaIssuer();
      std::string map = tensorMapAddress(i, byRows ? outer / 2 : 0);
      std::string bar = barrierOf(i.operand(1), i.operand(2));
      // Inside the tensor only when the predicate holds and it has elements
      // (the launch encodes empty extents as 1).
      std::string ok = elem(i.operand(9), 0);
      for (size_t k : {size_t(5), size_t(6)}) {
        if (i.operand(k)->valueKind() == ir::ValueKind::Constant) continue;
        std::string p = newReg(RegClass::Pred), q = newReg(RegClass::Pred);
        emit("setp.gt.s32 " + p + ", " + elem(i.operand(k), 0) + ", 0;");
        emit("and.pred " + q + ", " + ok + ", " + p + ";");
        ok = q;
      }
      std::string row = newReg(RegClass::B32);
      emit("selp.b32 " + row + ", " + elem(i.operand(7), 0) + ", -1073741824, " + ok + ";");
      // Under a false issue predicate (operand 10) the issuer only arrives,
      // which completes the stage's phase without bytes. Each issuing
      // predicate is and'ed with it once (and.pred keeps the elected
      // thread's single issue).
      const bool gated = i.numOperands() == 11;
      auto issuing = [&](const std::string& who, bool when = true) {
        if (!gated) return who;
        std::string r = newReg(RegClass::Pred);
        emit("and.pred " + r + ", " + who + ", " + (when ? "" : "!") + elem(i.operand(10), 0) + ";");
        return r;
      };
      if (gated) emit("@" + issuing(issuer, false) + " mbarrier.arrive.shared::cta.b64 _, [" + bar + "];");
      const std::string alone = issuing(issuer);
      std::string whole, half[2];
      MulticastIssuers m;
      if (i.imm) {
        m = multicastIssuers(i.sub == 1);
        whole = issuing(m.whole);
        half[0] = issuing(m.half[0]);
        half[1] = issuing(m.half[1]);
      }
      emit("@" + alone + " mbarrier.arrive.expect_tx.shared::cta.b64 _, [" + bar + "], " +
           std::to_string(gpu::sharedStageBytes(dst)) + ";");
      for (int64_t b = 0; b < blocks; ++b) {
        std::string to = elem(i.operand(0), 0), col = elem(i.operand(8), 0);
        if (b) {
          to = newReg(RegClass::B32);
          col = newReg(RegClass::B32);
          emit("add.s32 " + to + ", " + elem(i.operand(0), 0) + ", " + std::to_string(b * outer * l.swizzle) + ";");
          emit("add.s32 " + col + ", " + elem(i.operand(8), 0) + ", " + std::to_string(b * l.swizzle / esize) + ";");
        }
        const std::string copy = " cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes";
        const std::string operands = " [" + to + "], [" + map + ", {" + col + ", " + row + "}], [" + bar + "]";
        if (!i.imm) {
          emit("@" + alone + copy + operands + ";");
          continue;
        }
        if (byRows) {
          // The first half of the block's rows from rank 0, the second from
          // rank 1 (a row outside the tensor stays outside: -2^30 + outer/2).
          std::string to2 = newReg(RegClass::B32), row2 = newReg(RegClass::B32);
          emit("add.s32 " + to2 + ", " + to + ", " + std::to_string(outer / 2 * l.swizzle) + ";");
          emit("add.s32 " + row2 + ", " + row + ", " + std::to_string(outer / 2) + ";");
          const std::string operands2 = " [" + to2 + "], [" + map + ", {" + col + ", " + row2 + "}], [" + bar + "]";
          emit("@" + whole + copy + operands + ";");
          emit("@" + whole + copy + operands2 + ";");
          emit("@" + half[0] + copy + ".multicast::cluster" + operands + ", " + m.mask + ";");
          emit("@" + half[1] + copy + ".multicast::cluster" + operands2 + ", " + m.mask + ";");
          continue;
        }
        // In a pair, block b comes from the program of rank b % 2 into both
        // programs' stages (and signals both programs' barriers, at the
        // same offset); alone, the program issues every block.
        emit("@" + whole + copy + operands + ";");
        emit("@" + half[b % 2] + copy + ".multicast::cluster" + operands + ", " + m.mask + ";");
      }
      return;
    }
    case Opcode::TmaWait: {
      std::string bar = barrierOf(i.operand(0), i.operand(1));
      std::string done = newReg(RegClass::Pred);
      std::string again = newLabel("tma_wait");
      label(again);
      emit("mbarrier.try_wait.parity.shared::cta.b64 " + done + ", [" + bar + "], " + elem(i.operand(2), 0) + ";");
      emit("@!" + done + " bra " + again + ";");
      return;
    }
    default: throw InternalError(std::string("not a TMA op: ") + ir::opcodeName(i.opcode()));
  }
}

}  // namespace tritonc::nvptx
