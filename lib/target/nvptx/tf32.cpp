// f32 dots on tensor cores with tf32 inputs, when the compile asks for it
// (TargetOptions::allowTf32, as Triton's allow_tf32): mma.sync.m16n8k8 with
// f32 accumulators. The operands are stored from registers into the dot's
// ring (rows padded by 8 elements) and each thread reads its fragment
// elements with ld.shared, rounding them to tf32 (cvt.rna). The accumulator
// layout is the one of m16n8k16, so phis and conversions are shared.
//   A fragment (16 x 8): a0 (g, t), a1 (g + 8, t), a2 (g, t + 4), a3 (g + 8, t + 4)
//   B fragment (8 x 8):  b0 (t, g), b1 (t + 4, g)        with g = lane / 4, t = lane % 4
#include "target/nvptx/lowering.h"

namespace tritonc::nvptx {

void FunctionLowering::lowerDotTf32(const ir::Instruction& i) {
  const MmaLayout& L = mmaLayoutOf(&i);
  const ir::Value* a = i.operand(0);
  const ir::Value* b = i.operand(1);
  int64_t M = L.M, N = L.N, K = a->type().shape[1];
  DotStaging& st = staging_.at(&i);
  std::vector<std::string> acc = copyAccumulator(i, L);
  std::string base = newReg(RegClass::B32);
  emitStageAddress(base, st, st.readStage, 0);
  emit(kRingBarrier);
  storeToScratch(a, 0, st.pitchA, base);
  storeToScratch(b, st.offB, st.pitchB, base);
  barrier();
  // This thread's row g and column t within a fragment, and its warp's origin.
  std::string g = newReg(RegClass::B32), t = newReg(RegClass::B32), wmReg = newReg(RegClass::B32),
              wnReg = newReg(RegClass::B32), aAddr = newReg(RegClass::B32), bAddr = newReg(RegClass::B32),
              tmp = newReg(RegClass::B32);
  emit("shr.u32 " + g + ", " + laneId_ + ", 2;");
  emit("and.b32 " + t + ", " + laneId_ + ", 3;");
  emit("rem.u32 " + wmReg + ", " + warpId_ + ", " + std::to_string(L.wm) + ";");
  emit("div.u32 " + wnReg + ", " + warpId_ + ", " + std::to_string(L.wm) + ";");
  // &A[wm * M/wm + g][t] and &B[t][wn * N/wn + g], in bytes.
  emit("mad.lo.s32 " + tmp + ", " + wmReg + ", " + std::to_string(M / L.wm) + ", " + g + ";");
  emit("mad.lo.s32 " + aAddr + ", " + tmp + ", " + std::to_string(st.pitchA) + ", " + t + ";");
  emit("mad.lo.s32 " + aAddr + ", " + aAddr + ", 4, " + base + ";");
  emit("mad.lo.s32 " + tmp + ", " + wnReg + ", " + std::to_string(N / L.wn) + ", " + g + ";");
  emit("mad.lo.s32 " + bAddr + ", " + t + ", " + std::to_string(st.pitchB) + ", " + tmp + ";");
  emit("mad.lo.s32 " + bAddr + ", " + bAddr + ", 4, " + base + ";");
  auto loadTf32 = [&](const std::string& addr, int64_t byteOffset) {
    std::string f = newReg(RegClass::F32), r = newReg(RegClass::B32);
    emit("ld.shared.f32 " + f + ", [" + addr + "+" + std::to_string(byteOffset) + "];");
    emit("cvt.rna.tf32.f32 " + r + ", " + f + ";");
    return r;
  };
  int64_t repM = M / L.wm / 16, repN = N / L.wn / 8;
  for (int64_t kk = 0; kk < K / 8; ++kk) {
    std::vector<std::vector<std::string>> af(static_cast<size_t>(repM)), bf(static_cast<size_t>(repN));
    for (int64_t mi = 0; mi < repM; ++mi)
      for (int q = 0; q < 4; ++q) {
        int64_t row = mi * 16 + 8 * (q & 1), col = kk * 8 + 4 * (q >> 1);
        af[size_t(mi)].push_back(loadTf32(aAddr, (row * st.pitchA + col) * 4));
      }
    for (int64_t nj = 0; nj < repN; ++nj)
      for (int q = 0; q < 2; ++q) {
        int64_t krow = kk * 8 + 4 * q, col = nj * 8;
        bf[size_t(nj)].push_back(loadTf32(bAddr, st.offB + (krow * st.pitchB + col) * 4));
      }
    for (int64_t mi = 0; mi < repM; ++mi)
      for (int64_t nj = 0; nj < repN; ++nj) {
        size_t e = size_t((mi * repN + nj) * 4);
        std::string d = "{" + acc[e] + ", " + acc[e + 1] + ", " + acc[e + 2] + ", " + acc[e + 3] + "}";
        const auto& x = af[size_t(mi)];
        const auto& y = bf[size_t(nj)];
        emit("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 " + d + ", {" + x[0] + ", " + x[1] + ", " + x[2] +
             ", " + x[3] + "}, {" + y[0] + ", " + y[1] + "}, " + d + ";");
      }
  }
  advanceStage(st.readStage, st);
  assumePendingReads();  // the ring may overlap the scratch (see lowerDotMma)
  mmaRegs_[&i] = acc;
}

}  // namespace tritonc::nvptx
