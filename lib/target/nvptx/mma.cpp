// Tensor cores: dot on f16/bf16 tiles with mma.sync.m16n8k16 (f32
// accumulators, sm_80+). The accumulator of such a dot, and the loop phis
// that carry it, live in the mma layout, so the K loop never converts it;
// consumers that want a blocked layout get a conversion through shared
// memory where they use it. Operands go through shared memory (row-major)
// and each warp reads its A and B fragments from there.
#include "target/nvptx/lowering.h"

namespace tritonc::nvptx {

using ir::Opcode;
using ir::Scalar;

namespace {

bool mmaEligible(const ir::Instruction& d, int numWarps, bool allowTf32, MmaLayout* out) {
  const ir::Type& at = d.operand(0)->type();
  const ir::Type& bt = d.operand(1)->type();
  Scalar k = at.kind;
  bool tf32 = allowTf32 && k == Scalar::F32;
  if ((k != Scalar::F16 && k != Scalar::BF16 && !tf32) || bt.kind != k || d.type().kind != Scalar::F32) return false;
  int64_t M = at.shape[0], K = at.shape[1], N = bt.shape[1];
  if (M % 16 || N % 8 || K % (tf32 ? 8 : 16)) return false;
  // Among the warp grids that leave every warp whole fragments, the one with
  // the fewest ldmatrix per warp and k step: one x4 per 16 rows of A, one x4
  // per 16 columns of B.
  bool found = false;
  int64_t bestCost = 0;
  for (int64_t wm = numWarps; wm >= 1; wm /= 2) {
    int64_t wn = numWarps / wm;
    if (M % (16 * wm) != 0 || N % (8 * wn) != 0) continue;
    int64_t cost = M / wm / 16 + (N / wn / 8 + 1) / 2;
    if (!found || cost < bestCost) {
      *out = MmaLayout{M, N, wm, wn};
      bestCost = cost;
      found = true;
    }
  }
  return found;
}

}  // namespace

void FunctionLowering::assignMmaLayouts() {
  for (auto& bb : f_.blocks())
    for (auto& inst : bb->instructions()) {
      MmaLayout L;
      if (inst->opcode() == Opcode::Dot && mmaEligible(*inst, opts_.numWarps, opts_.allowTf32, &L)) mma_[inst.get()] = L;
    }
  // Staging first: it may move a dot to the warpgroup (wgmma) layout.
  planDotStaging();
  // Phis that carry a dot's accumulator take its layout (to a fixed point:
  // phis of nested loops carry phis).
  for (bool changed = true; changed;) {
    changed = false;
    for (auto& bb : f_.blocks())
      for (auto& inst : bb->instructions()) {
        if (inst->opcode() != Opcode::Phi || isMma(inst.get())) continue;
        for (ir::Value* v : inst->operands())
          if (isMma(v) && v->type() == inst->type()) {
            mma_[inst.get()] = mma_.at(v);
            changed = true;
            break;
          }
      }
  }
}

const std::vector<std::vector<std::string>>& FunctionLowering::mmaIndices(const MmaLayout& L) {
  std::string key = std::to_string(L.M) + "x" + std::to_string(L.N) + "/" + std::to_string(L.wm) + "x" + std::to_string(L.wn);
  auto it = mmaIndices_.find(key);
  if (it != mmaIndices_.end()) return it->second;
  InSetup inSetup(*this);
  std::string g = newReg(RegClass::B32), t = newReg(RegClass::B32), wmReg = newReg(RegClass::B32),
              wnReg = newReg(RegClass::B32), rowBase = newReg(RegClass::B32), colBase = newReg(RegClass::B32);
  emit("shr.u32 " + g + ", " + laneId_ + ", 2;");
  emit("and.b32 " + t + ", " + laneId_ + ", 3;");
  emit("rem.u32 " + wmReg + ", " + warpId_ + ", " + std::to_string(L.wm) + ";");
  emit("div.u32 " + wnReg + ", " + warpId_ + ", " + std::to_string(L.wm) + ";");
  emit("mul.lo.s32 " + rowBase + ", " + wmReg + ", " + std::to_string(L.M / L.wm) + ";");
  emit("add.s32 " + rowBase + ", " + rowBase + ", " + g + ";");
  emit("mul.lo.s32 " + colBase + ", " + wnReg + ", " + std::to_string(L.N / L.wn) + ";");
  emit("mad.lo.s32 " + colBase + ", " + t + ", 2, " + colBase + ";");
  int64_t repM = L.M / L.wm / 16, repN = L.N / L.wn / 8;
  std::vector<std::vector<std::string>> out;
  for (int64_t i = 0; i < repM; ++i)
    for (int64_t j = 0; j < repN; ++j)
      for (int c = 0; c < 4; ++c) {
        std::string row = newReg(RegClass::B32), col = newReg(RegClass::B32);
        emit("add.s32 " + row + ", " + rowBase + ", " + std::to_string(i * 16 + 8 * (c >> 1)) + ";");
        emit("add.s32 " + col + ", " + colBase + ", " + std::to_string(j * 8 + (c & 1)) + ";");
        out.push_back({row, col});
      }
  return mmaIndices_[key] = out;
}

std::vector<std::string> FunctionLowering::mmaToBlocked(const ir::Value* v) {
  const MmaLayout& L = mmaLayoutOf(v);
  const auto& frag = mmaRegs_.at(v);
  const auto& idx = mmaIndices(L);
  int64_t size = 4;
  beginScratchUse(L.M * L.N * size);
  needScratch(L.M * L.N * size);
  std::string base = scratchBase();
  for (size_t e = 0; e < frag.size(); ++e) {
    std::string addr = newReg(RegClass::B32);
    emit("mad.lo.s32 " + addr + ", " + idx[e][0] + ", " + std::to_string(L.N) + ", " + idx[e][1] + ";");
    emit("mad.lo.s32 " + addr + ", " + addr + ", 4, " + base + ";");
    emit("st.shared.f32 [" + addr + "], " + frag[e] + ";");
  }
  barrier();
  ir::Type t = v->type();
  std::vector<std::string> out;
  for (auto& ix : elementIndices(t)) out.push_back(loadFromScratch(Scalar::F32, linearIndex(ix, t.shape), 0));
  endScratchUse();
  return out;
}

std::vector<std::string> FunctionLowering::fragmentRegs(const ir::Value* v, const MmaLayout& L) {
  size_t n = mmaElements(L);
  if (isMma(v)) {
    if (!(mmaLayoutOf(v) == L)) throw InternalError("two mma layouts meet");
    return mmaRegs_.at(v);
  }
  auto it = regs_.find(v);
  if (it != regs_.end() && it->second.size() == 1)  // a splat or a scalar: the same everywhere
    return std::vector<std::string>(n, it->second[0]);
  // A blocked tile: through shared memory into the fragments.
  beginScratchUse(v->type().numElements() * ir::byteSize(v->type().kind));
  storeToScratch(v, 0);
  barrier();
  std::vector<std::string> out;
  for (auto& rc : mmaIndices(L)) out.push_back(loadFromScratch(v->type().kind, linearIndex(rc, v->type().shape), 0));
  endScratchUse();
  return out;
}

std::vector<std::string> FunctionLowering::copyAccumulator(const ir::Instruction& dot, const MmaLayout& L) {
  // The tensor-core instructions update their accumulators in place: a copy
  // keeps the incoming value (a phi's registers, a splat) intact.
  std::vector<std::string> acc;
  for (const std::string& r : fragmentRegs(dot.operand(2), L)) {
    std::string c = newReg(RegClass::F32);
    emit("mov.f32 " + c + ", " + r + ";");
    acc.push_back(c);
  }
  return acc;
}

void FunctionLowering::lowerDotMma(const ir::Instruction& i) {
  const MmaLayout& L = mmaLayoutOf(&i);
  if (L.wgmma) return lowerDotWgmma(i);
  if (i.operand(0)->type().kind == Scalar::F32) return lowerDotTf32(i);
  const ir::Value* a = i.operand(0);
  const ir::Value* b = i.operand(1);
  Scalar k = a->type().kind;
  int64_t M = L.M, N = L.N, K = a->type().shape[1];
  DotStaging& st = staging_.at(&i);
  int64_t pitchA = st.pitchA, pitchB = st.pitchB, offB = st.offB;
  std::vector<std::string> acc = copyAccumulator(i, L);
  std::string base = newReg(RegClass::B32), wmReg = newReg(RegClass::B32), wnReg = newReg(RegClass::B32),
              r8 = newReg(RegClass::B32), hi = newReg(RegClass::B32);
  emitStageAddress(base, st, st.readStage, 0);
  // Operands from registers go into the current stage; the others were copied
  // there asynchronously and waited for where the next ones were issued.
  // (A ring that overlaps the scratch, when shared memory is short, first
  // waits for the scratch's readers: see kRingBarrier.)
  if (st.asyncCount < 2) emit(kRingBarrier);
  if (!st.async[0]) storeToScratch(a, 0, pitchA, base);
  if (!st.async[1]) storeToScratch(b, offB, pitchB, base);
  if (st.asyncCount < 2) barrier();
  emit("rem.u32 " + wmReg + ", " + warpId_ + ", " + std::to_string(L.wm) + ";");
  emit("div.u32 " + wnReg + ", " + warpId_ + ", " + std::to_string(L.wm) + ";");
  // ldmatrix: lane l gives the address of row l % 8 of matrix l / 8.
  emit("and.b32 " + r8 + ", " + laneId_ + ", 7;");
  emit("shr.u32 " + hi + ", " + laneId_ + ", 3;");
  int64_t repM = M / L.wm / 16, repN = N / L.wn / 8;
  // A (x4): matrices (rows 0-7 | 8-15) x (cols 0-7 | 8-15): lane row = r8 + 8 * (hi & 1), col = 8 * (hi >> 1).
  std::string aAddr = newReg(RegClass::B32), t0 = newReg(RegClass::B32), t1 = newReg(RegClass::B32);
  emit("and.b32 " + t0 + ", " + hi + ", 1;");
  emit("mad.lo.s32 " + t0 + ", " + t0 + ", 8, " + r8 + ";");
  emit("mad.lo.s32 " + t0 + ", " + wmReg + ", " + std::to_string(M / L.wm) + ", " + t0 + ";");
  emit("shr.u32 " + t1 + ", " + hi + ", 1;");
  emit("mul.lo.s32 " + t1 + ", " + t1 + ", 8;");
  emit("mad.lo.s32 " + aAddr + ", " + t0 + ", " + std::to_string(pitchA) + ", " + t1 + ";");
  emit("mad.lo.s32 " + aAddr + ", " + aAddr + ", 2, " + base + ";");
  // B (x4.trans): matrices (k 0-7 | 8-15) x (n 0-7 | 8-15): lane k = r8 + 8 * (hi & 1), n = 8 * (hi >> 1).
  std::string bAddr = newReg(RegClass::B32), u0 = newReg(RegClass::B32), u1 = newReg(RegClass::B32);
  emit("and.b32 " + u0 + ", " + hi + ", 1;");
  emit("mad.lo.s32 " + u0 + ", " + u0 + ", 8, " + r8 + ";");
  emit("shr.u32 " + u1 + ", " + hi + ", 1;");
  emit("mul.lo.s32 " + u1 + ", " + u1 + ", 8;");
  emit("mad.lo.s32 " + u1 + ", " + wnReg + ", " + std::to_string(N / L.wn) + ", " + u1 + ";");
  emit("mad.lo.s32 " + bAddr + ", " + u0 + ", " + std::to_string(pitchB) + ", " + u1 + ";");
  emit("mad.lo.s32 " + bAddr + ", " + bAddr + ", 2, " + base + ";");
  const char* ty = k == Scalar::F16 ? "f16" : "bf16";
  for (int64_t kk = 0; kk < K / 16; ++kk) {
    std::vector<std::vector<std::string>> afrag(static_cast<size_t>(repM)), bfrag(static_cast<size_t>(repN));
    for (int64_t mi = 0; mi < repM; ++mi) {
      std::vector<std::string>& f = afrag[size_t(mi)];
      for (int q = 0; q < 4; ++q) f.push_back(newReg(RegClass::B32));
      int64_t off = ((mi * 16) * pitchA + kk * 16) * 2;
      emit("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {" + f[0] + ", " + f[1] + ", " + f[2] + ", " + f[3] + "}, [" +
           aAddr + "+" + std::to_string(off) + "];");
    }
    for (int64_t nj = 0; nj < repN; nj += 2) {
      int64_t off = offB + ((kk * 16) * pitchB + nj * 8) * 2;
      if (nj + 1 < repN) {
        std::vector<std::string> f;
        for (int q = 0; q < 4; ++q) f.push_back(newReg(RegClass::B32));
        emit("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {" + f[0] + ", " + f[1] + ", " + f[2] + ", " + f[3] +
             "}, [" + bAddr + "+" + std::to_string(off) + "];");
        bfrag[size_t(nj)] = {f[0], f[1]};
        bfrag[size_t(nj + 1)] = {f[2], f[3]};
      } else {
        std::vector<std::string> f{newReg(RegClass::B32), newReg(RegClass::B32)};
        emit("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {" + f[0] + ", " + f[1] + "}, [" + bAddr + "+" +
             std::to_string(off) + "];");
        bfrag[size_t(nj)] = f;
      }
    }
    for (int64_t mi = 0; mi < repM; ++mi)
      for (int64_t nj = 0; nj < repN; ++nj) {
        size_t e = size_t((mi * repN + nj) * 4);
        std::string d = "{" + acc[e] + ", " + acc[e + 1] + ", " + acc[e + 2] + ", " + acc[e + 3] + "}";
        const auto& af = afrag[size_t(mi)];
        const auto& bf = bfrag[size_t(nj)];
        emit(std::string("mma.sync.aligned.m16n8k16.row.col.f32.") + ty + "." + ty + ".f32 " + d + ", {" + af[0] +
             ", " + af[1] + ", " + af[2] + ", " + af[3] + "}, {" + bf[0] + ", " + bf[1] + "}, " + d + ";");
      }
  }
  // The next stage of the ring next time.
  advanceStage(st.readStage, st);
  // A ring stored from registers may overlap the scratch (when shared memory
  // is short): its ldmatrix reads count as pending reads of the scratch.
  if (st.asyncCount == 0) assumePendingReads();
  mmaRegs_[&i] = acc;
}

}  // namespace tritonc::nvptx
