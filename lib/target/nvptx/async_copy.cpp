// Dot operands copied into shared memory with cp.async (sm_80+). The prefetch
// pass leaves, for a tile loaded every iteration, a phi of two loads: one in
// the pre-header (the first iteration's) and one at the top of the loop body
// (the next iteration's). When such a phi feeds only an mma dot, the two loads
// become cp.async copies straight into the dot's ring of three shared-memory
// stages, and the phi holds no registers:
//   pre-header: barrier; read = write = stage 0; copy; commit; write -> 1
//   body:       copy into `write`; commit; write -> next
//   dot:        wait for all but the newest group; barrier; mma from `read`;
//               read -> next
// Three stages make the copies for iteration i+1 (issued before the dot of
// iteration i) never land in the stage that iteration i-1 may still read.
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

void FunctionLowering::advanceStage(const std::string& reg, int64_t stageBytes) {
  std::string p = newReg(RegClass::Pred);
  emit("add.s32 " + reg + ", " + reg + ", " + std::to_string(stageBytes) + ";");
  emit("setp.ge.s32 " + p + ", " + reg + ", " + std::to_string(DotStaging::kStages * stageBytes) + ";");
  emit("selp.s32 " + reg + ", 0, " + reg + ", " + p + ";");
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
    s.offB = (M * s.pitchA * 2 + 15) / 16 * 16;
    s.stageBytes = (s.offB + K * s.pitchB * 2 + 15) / 16 * 16;
    s.region = allocateDedicated(DotStaging::kStages * s.stageBytes);
    s.readStage = newReg(RegClass::B32);
    s.writeStage = newReg(RegClass::B32);
    {
      InSetup inSetup(*this);
      emit("mov.s32 " + s.readStage + ", 0;");
      emit("mov.s32 " + s.writeStage + ", 0;");
    }
    for (int j = 0; j < 2; ++j) {
      auto* phi = dot->operand(size_t(j))->valueKind() == ir::ValueKind::Instruction
                      ? static_cast<const ir::Instruction*>(dot->operand(size_t(j)))
                      : nullptr;
      if (!phi || phi->opcode() != Opcode::Phi || phi->users().size() != 1 || phi->numOperands() != 2) continue;
      bool ok = true;
      int inDotBlock = 0;
      for (ir::Value* in : phi->operands()) {
        auto* l = in->valueKind() == ir::ValueKind::Instruction ? static_cast<const ir::Instruction*>(in) : nullptr;
        ok = ok && l && l->opcode() == Opcode::Load && l->users().size() == 1 && l->type() == phi->type() &&
             (l->numOperands() == 1 || isZeroSplat(l->operand(2)));
        if (!ok) break;
        // 16-byte copies: the layout gives each thread 8 contiguous halves
        // along the rows, aligned, under a mask constant over them.
        const BlockedLayout& bl = layoutOf(l->operand(0)->type());
        size_t dim = 0;
        int64_t w = axis().vectorWidth(l->operand(0), 16, &dim);
        size_t last = l->type().shape.size() - 1;
        ok = w == 8 && dim == last && bl.order[0] == int(last) && bl.sizePerThread[last] % 8 == 0 &&
             (l->numOperands() == 1 || axis().get(l->operand(1)).constancy[last] >= 8);
        // The next iteration's load must be issued before the dot, in its block.
        if (ok && l->parent == dot->parent) {
          ok = l->parent->indexOf(l) < l->parent->indexOf(dot);
          ++inDotBlock;
        }
      }
      if (!ok || inDotBlock != 1) continue;
      s.async[j] = true;
      ++s.asyncCount;
      asyncPhis_[phi] = true;
      for (ir::Value* in : phi->operands()) asyncLoads_[in] = {dot, j};
    }
    staging_[dot] = s;
  }
}

void FunctionLowering::lowerAsyncLoad(const ir::Instruction& l) {
  auto [dotValue, operand] = asyncLoads_.at(&l);
  DotStaging& s = staging_.at(dotValue);
  // The pre-header's copy (outside the dot's block) starts the ring over; the
  // next iteration's copy sits in the dot's block, before it (see planning).
  bool first = l.parent != static_cast<const ir::Instruction*>(dotValue)->parent;
  if (first && s.pendingLoads == 0) {
    // Entering the loop: every reader of the ring is done, it starts over.
    barrier();
    emit("mov.s32 " + s.readStage + ", 0;");
    emit("mov.s32 " + s.writeStage + ", 0;");
  }
  const ir::Value* ptr = l.operand(0);
  const ir::Type& t = l.type();
  const auto& idx = elementIndices(t);
  std::string owner = ownerPred(t);
  int64_t pitch = operand == 0 ? s.pitchA : s.pitchB;
  int64_t offset = operand == 0 ? 0 : s.offB;
  std::string base = newReg(RegClass::B32);
  emit("mov.u32 " + base + ", scratch;");
  emit("add.s32 " + base + ", " + base + ", " + std::string(kDedicatedBase) + ";");
  emit("add.s32 " + base + ", " + base + ", " + std::to_string(s.region + offset) + ";");
  emit("add.s32 " + base + ", " + base + ", " + s.writeStage + ";");
  ir::Shape pitched = t.shape;
  pitched.back() = pitch;
  for (size_t e = 0; e < idx.size(); e += 8) {
    std::string lin = linearIndex(idx[e], pitched), dst = newReg(RegClass::B32);
    emit("mad.lo.s32 " + dst + ", " + lin + ", 2, " + base + ";");
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
    advanceStage(s.writeStage, s.stageBytes);
    s.pendingLoads = 0;
  }
}

}  // namespace tritonc::nvptx
