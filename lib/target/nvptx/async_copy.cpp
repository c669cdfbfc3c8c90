// Dot operands copied into shared memory with cp.async (sm_80+). The prefetch
// pass leaves, for a tile loaded every iteration, a chain of `distance` header
// phis over loads: the first `distance` iterations' loads in the pre-header
// and, at the top of the loop body, the load `distance` iterations ahead.
// When such a chain feeds only an mma dot, its loads become cp.async copies
// straight into the dot's ring of distance + 1 shared-memory stages, one
// commit group per iteration, and the phis hold no registers:
//   pre-header: barrier; read = write = stage 0;
//               per iteration 0..distance-1: copy; commit; write -> next
//   body:       wait until iteration i's group landed (distance - 1 newer
//               groups may be pending); barrier; copy iteration i + distance
//               into `write`; commit; write -> next
//   dot:        mma from `read`; read -> next
// After the barrier every warp is done with iteration i - 1, so its stage,
// (i + distance) mod (distance + 1), is free for the new copy.
#include "target/nvptx/lowering.h"

namespace tritonc::nvptx {

using ir::Opcode;
using ir::Scalar;

namespace {

bool isZeroSplat(const ir::Value* v) {
  if (v->valueKind() == ir::ValueKind::Constant) return static_cast<const ir::Constant*>(v)->f == 0;
  if (v->valueKind() != ir::ValueKind::Instruction) return false;
  auto* i = static_cast<const ir::Instruction*>(v);
  return i->opcode() == Opcode::Splat && isZeroSplat(i->operand(0));
}

}  // namespace

void FunctionLowering::emitStageAddress(const std::string& reg, const DotStaging& s, const std::string& stageReg,
                                         int64_t offset) {
  emit("mov.u32 " + reg + ", scratch;");
  emit("add.s32 " + reg + ", " + reg + ", " + std::string(ringBase(s.asyncCount > 0)) + ";");
  emit("add.s32 " + reg + ", " + reg + ", " + std::to_string(s.region + offset) + ";");
  emit("add.s32 " + reg + ", " + reg + ", " + stageReg + ";");
}

void FunctionLowering::advanceStage(const std::string& reg, const DotStaging& s) {
  std::string p = newReg(RegClass::Pred);
  emit("add.s32 " + reg + ", " + reg + ", " + std::to_string(s.stageBytes) + ";");
  emit("setp.ge.s32 " + p + ", " + reg + ", " + std::to_string(s.stages * s.stageBytes) + ";");
  emit("selp.s32 " + reg + ", 0, " + reg + ", " + p + ";");
}

namespace {

const ir::Instruction* asInstruction(const ir::Value* v, Opcode op) {
  if (v->valueKind() != ir::ValueKind::Instruction) return nullptr;
  auto* i = static_cast<const ir::Instruction*>(v);
  return i->opcode() == op ? i : nullptr;
}

// The prefetch pass's chain for operand `v` of `dot`: the loads, in the order
// of the iterations they fetch (the pre-header's, then the one in the loop),
// and the phis; empty when `v` is not such a chain.
struct PrefetchChain {
  std::vector<const ir::Instruction*> loads, phis;
};

PrefetchChain findChain(const ir::Instruction* dot, const ir::Value* v) {
  PrefetchChain c;
  const ir::Instruction* user = dot;
  for (const ir::Instruction* phi = asInstruction(v, Opcode::Phi); phi;) {
    if (phi->numOperands() != 2 || phi->users().size() != 1 || phi->users()[0] != user) return {};
    c.phis.push_back(phi);
    const ir::Instruction *early = nullptr, *next = nullptr;
    for (ir::Value* in : phi->operands()) {
      const ir::Instruction* l = asInstruction(in, Opcode::Load);
      if (l && l->parent != dot->parent) early = l;
      else next = static_cast<const ir::Instruction*>(in);
    }
    if (!early || !next || next->valueKind() != ir::ValueKind::Instruction) return {};
    c.loads.push_back(early);
    user = phi;
    if (next->opcode() == Opcode::Load) {
      if (next->parent != dot->parent || next->users().size() != 1 || next->users()[0] != phi) return {};
      c.loads.push_back(next);
      return c;
    }
    phi = next->opcode() == Opcode::Phi ? next : nullptr;
  }
  return {};
}

}  // namespace

void FunctionLowering::markLoopBlocks(const ir::BasicBlock* header, const ir::BasicBlock* inLoop) {
  // The blocks that reach `inLoop`'s back edge without passing the header:
  // walk predecessors from the block that branches back to the header.
  for (const ir::BasicBlock* p : f_.predecessors(header)) {
    std::vector<const ir::BasicBlock*> work{p};
    std::set<const ir::BasicBlock*> seen{header};
    bool reachesInLoop = false;
    while (!work.empty()) {
      const ir::BasicBlock* b = work.back();
      work.pop_back();
      if (!seen.insert(b).second) continue;
      reachesInLoop = reachesInLoop || b == inLoop;
      for (const ir::BasicBlock* q : f_.predecessors(b)) work.push_back(q);
    }
    // A back edge's walk stays inside the loop and meets `inLoop`; the
    // pre-header's walk leaves it (and reaches the entry instead).
    if (reachesInLoop && !seen.count(f_.blocks().front().get())) asyncLoopBlocks_.insert(seen.begin(), seen.end());
  }
}

void FunctionLowering::planDotStaging() {
  for (auto& [v, L] : mma_) {
    auto* dot = static_cast<const ir::Instruction*>(v);
    if (dot->opcode() != Opcode::Dot) continue;
    DotStaging s;
    int64_t M = L.M, N = L.N, K = dot->operand(0)->type().shape[1];
    // Rows padded by 8 halves (16 bytes): the eight rows an ldmatrix reads
    // fall in different banks.
    s.pitchA = K + 8;
    s.pitchB = N + 8;
    const int64_t esize = ir::byteSize(dot->operand(0)->type().kind);  // 2, or 4 for tf32
    s.offB = (M * s.pitchA * esize + 15) / 16 * 16;
    s.stageBytes = (s.offB + K * s.pitchB * esize + 15) / 16 * 16;
    PrefetchChain chains[2];
    for (int j = 0; j < 2; ++j) {
      PrefetchChain c = findChain(dot, dot->operand(size_t(j)));
      bool ok = !c.loads.empty();
      for (const ir::Instruction* l : c.loads) {
        if (!ok) break;
        ok = l->users().size() == 1 && l->type() == dot->operand(size_t(j))->type() &&
             (l->numOperands() == 1 || isZeroSplat(l->operand(2)));
        // 16-byte copies: the layout gives each thread 8 contiguous halves
        // along the rows, aligned, under a mask constant over them.
        const BlockedLayout& bl = layoutOf(l->operand(0)->type());
        size_t dim = 0;
        int64_t w = axis().vectorWidth(l->operand(0), 16, &dim);
        size_t last = l->type().shape.size() - 1;
        ok = ok && w == 8 && dim == last && bl.order[0] == int(last) && bl.sizePerThread[last] % 8 == 0 &&
             (l->numOperands() == 1 || axis().get(l->operand(1)).constancy[last] >= 8);
      }
      // The load in the loop must be issued before the dot.
      ok = ok && dot->parent->indexOf(c.loads.back()) < dot->parent->indexOf(dot);
      if (ok) chains[j] = c;
    }
    // Both operands' copies share commit groups: they must run equally far ahead.
    if (!chains[0].phis.empty() && !chains[1].phis.empty() && chains[0].phis.size() != chains[1].phis.size())
      chains[1] = {};
    for (int j = 0; j < 2; ++j) {
      const PrefetchChain& c = chains[j];
      if (c.phis.empty()) continue;
      s.async[j] = true;
      ++s.asyncCount;
      s.distance = int(c.phis.size());
      for (const ir::Instruction* phi : c.phis) asyncPhis_[phi] = true;
      markLoopBlocks(c.phis[0]->parent, c.loads.back()->parent);
      for (size_t k = 0; k < c.loads.size(); ++k) asyncLoads_[c.loads[k]] = AsyncLoad{dot, j, int(k)};
    }
    s.stages = s.asyncCount ? s.distance + 1 : 2;
    if (s.asyncCount == 2 && wgmmaEligible(*dot)) {
      // Warpgroup tensor cores: 64-row slices per warpgroup, unpadded
      // swizzled tiles (wgmma.cpp), stages at multiples of 1024 bytes.
      L = MmaLayout{M, N, opts_.numWarps, 1, true};
      s.wgmma = true;
      s.swizzleA = K * 2;
      s.pitchA = K;
      s.pitchB = N;
      s.offB = M * K * 2;
      s.stageBytes = (s.offB + K * N * 2 + 1023) / 1024 * 1024;
      usesWgmma_ = true;
      // Pipelined when the accumulator is carried by the loop and the ring's
      // extra stage fits (with room for the scratch outside the loop).
      const ir::Instruction* acc = carriedAccumulator(*dot);
      if (acc && (s.stages + 1) * s.stageBytes + 16 * 1024 <= maxSharedBytes(opts_.arch)) {
        s.accumulator = acc;
        ++s.stages;
        pipelinedWgmma_ = true;
      }
    }
    s.region = allocateRing(s.stages * s.stageBytes, s.asyncCount > 0, s.wgmma ? 1024 : 16);
    s.readStage = newReg(RegClass::B32);
    s.writeStage = newReg(RegClass::B32);
    {
      InSetup inSetup(*this);
      emit("mov.s32 " + s.readStage + ", 0;");
      emit("mov.s32 " + s.writeStage + ", 0;");
    }
    staging_[dot] = s;
  }
}

void FunctionLowering::lowerAsyncLoad(const ir::Instruction& l) {
  const AsyncLoad& a = asyncLoads_.at(&l);
  DotStaging& s = staging_.at(a.dot);
  if (s.pendingLoads == 0 && a.ahead == 0) {
    // Entering the loop: every reader of the ring is done, it starts over.
    asyncRingLive_ = true;
    barrier();
    emit("mov.s32 " + s.readStage + ", 0;");
    emit("mov.s32 " + s.writeStage + ", 0;");
  }
  if (s.pendingLoads == 0 && a.ahead == s.distance) {
    // This iteration's tiles have landed (newer groups may be pending) and,
    // after the barrier, every warp is done with the stage about to be refilled.
    emit("cp.async.wait_group " + std::to_string(s.distance - 1) + ";");
    // The tensor cores read through the async proxy: make the copies visible to it.
    if (s.wgmma) emit("fence.proxy.async.shared::cta;");
    barrier();
  }
  int operand = a.operand;
  const ir::Value* ptr = l.operand(0);
  const ir::Type& t = l.type();
  const auto& idx = elementIndices(t);
  std::string owner = ownerPred(t);
  int64_t pitch = operand == 0 ? s.pitchA : s.pitchB;
  int64_t offset = operand == 0 ? 0 : s.offB;
  std::string base = newReg(RegClass::B32);
  emitStageAddress(base, s, s.writeStage, offset);
  ir::Shape pitched = t.shape;
  pitched.back() = pitch;
  for (size_t e = 0; e < idx.size(); e += 8) {
    std::string dst = newReg(RegClass::B32);
    if (s.wgmma) {
      emit("add.s32 " + dst + ", " + base + ", " + wgmmaStageOffset(s, operand, idx[e]) + ";");
    } else {
      std::string lin = linearIndex(idx[e], pitched);
      emit("mad.lo.s32 " + dst + ", " + lin + ", 2, " + base + ";");
    }
    std::string src = elem(ptr, e);
    if (l.numOperands() == 3) {
      // Masked-off lanes copy nothing and zero-fill the 16 bytes.
      std::string size = newReg(RegClass::B32);
      emit("selp.u32 " + size + ", 16, 0, " + elem(l.operand(1), e) + ";");
      emit("@" + owner + " cp.async.cg.shared.global [" + dst + "], [" + src + "], 16, " + size + ";");
    } else {
      emit("@" + owner + " cp.async.cg.shared.global [" + dst + "], [" + src + "], 16;");
    }
  }
  if (++s.pendingLoads == s.asyncCount) {
    emit("cp.async.commit_group;");
    advanceStage(s.writeStage, s);
    s.pendingLoads = 0;
  }
}

}  // namespace tritonc::nvptx
