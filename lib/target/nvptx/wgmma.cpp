// Warpgroup tensor cores (sm_90a): wgmma.mma_async reads both operands
// straight from shared memory through 64-bit descriptors, so a dot whose
// operands arrive by cp.async needs no ldmatrix and no operand registers.
// Each warpgroup (four consecutive warps) computes a 64-row slice of the
// M x N tile, k16 at a time: m64nNk16 with N <= 256.
//
// Shared memory layout, per ring stage (both swizzled so that the tensor
// cores read without bank conflicts, as the descriptors' swizzle modes say):
//   A (M x K, K contiguous, "K-major"): rows of K * 2 bytes (32, 64 or 128:
//     the swizzle width), 16-byte chunk c of row r at chunk c ^ (r mod 8 / ...)
//     i.e. byte offset o -> o ^ (((o >> 7) & (width / 16 - 1)) << 4).
//     Descriptor: rows of 8 apart by SBO = 8 * width; k16 steps advance the
//     start address by 32 bytes.
//   B (K x N, N contiguous, "N-major", imm-trans-b = 1): blocks of 64 columns,
//     each K rows of 128 bytes with the 128-byte swizzle; LBO = K * 128 (the
//     next block of columns), SBO = 1024 (the next 8 rows); k16 steps advance
//     the start address by 16 rows (2048 bytes).
// Stages start at multiples of 1024 bytes, where the swizzle pattern starts.
//
// Pipelining: when the dot accumulates into a loop phi that nothing else in
// the loop reads (c += a @ b), the wgmmas update the phi's registers in place
// and each iteration waits only for the previous iteration's group
// (wait_group 1), so the tensor cores work while the next tiles are waited
// for. The stage the previous dot read may still be in use, so the ring has
// one stage more than the copies run ahead: the refill at iteration i writes
// the stage of iteration i - 2, whose dot every warpgroup waited for before
// the barrier that precedes the refill. Blocks that leave the loop wait for
// every group first (codegen.cpp), since they read the accumulator, and so
// does a return (lower_control.cpp).
#include "target/nvptx/lowering.h"

namespace tritonc::nvptx {

using ir::Scalar;

bool FunctionLowering::wgmmaEligible(const ir::Instruction& dot) const {
  if (!opts_.wgmma || opts_.arch != "sm_90a") return false;
  const ir::Type& at = dot.operand(0)->type();
  const ir::Type& bt = dot.operand(1)->type();
  int64_t M = at.shape[0], K = at.shape[1], N = bt.shape[1];
  int warps = opts_.numWarps;
  return (at.kind == Scalar::F16 || at.kind == Scalar::BF16) && warps % 4 == 0 && M == 64 * (warps / 4) &&
         N % 64 == 0 && N <= 256 && (K == 16 || K == 32 || K == 64);
}

std::string FunctionLowering::wgmmaStageOffset(const DotStaging& s, int operand, const std::vector<std::string>& idx) {
  InSetup inSetup(*this);  // loop-invariant: computed once, up front
  int64_t K = s.swizzleA / 2;
  std::string logical = newReg(RegClass::B32), t = newReg(RegClass::B32), out = newReg(RegClass::B32);
  int64_t mask;
  if (operand == 0) {
    emit("mul.lo.s32 " + logical + ", " + idx[0] + ", " + std::to_string(K * 2) + ";");
    emit("mad.lo.s32 " + logical + ", " + idx[1] + ", 2, " + logical + ";");
    mask = s.swizzleA / 16 - 1;
  } else {
    std::string block = newReg(RegClass::B32), col = newReg(RegClass::B32);
    emit("shr.u32 " + block + ", " + idx[1] + ", 6;");
    emit("and.b32 " + col + ", " + idx[1] + ", 63;");
    emit("mul.lo.s32 " + logical + ", " + block + ", " + std::to_string(K * 128) + ";");
    emit("mad.lo.s32 " + logical + ", " + idx[0] + ", 128, " + logical + ";");
    emit("mad.lo.s32 " + logical + ", " + col + ", 2, " + logical + ";");
    mask = 7;
  }
  emit("shr.u32 " + t + ", " + logical + ", 7;");
  emit("and.b32 " + t + ", " + t + ", " + std::to_string(mask) + ";");
  emit("shl.b32 " + t + ", " + t + ", 4;");
  emit("xor.b32 " + out + ", " + logical + ", " + t + ";");
  return out;
}

const ir::Instruction* FunctionLowering::carriedAccumulator(const ir::Instruction& dot) const {
  auto* phi = dynamic_cast<const ir::Instruction*>(dot.operand(2));
  // (Called while staging is planned, before phis take their dot's layout.)
  if (!phi || phi->opcode() != ir::Opcode::Phi || phi->type() != dot.type() || !inAsyncLoop(phi->parent))
    return nullptr;
  // The dot feeds only the phi, along the back edge; the phi feeds only the
  // dot inside the loop (after it, the loop's result is read once the
  // groups are waited for).
  if (dot.users().size() != 1 || dot.users()[0] != phi) return nullptr;
  for (const ir::Instruction* u : phi->users())
    if (u != &dot && inAsyncLoop(u->parent)) return nullptr;
  for (size_t k = 0; k < phi->numOperands(); ++k)
    if (phi->operand(k) == &dot && !inAsyncLoop(phi->blocks[k])) return nullptr;
  return phi;
}

namespace {

// The descriptor's swizzle-mode field for a swizzle width in bytes.
int swizzleMode(int64_t width) { return width == 128 ? 1 : width == 64 ? 2 : 3; }

}  // namespace

void FunctionLowering::lowerDotWgmma(const ir::Instruction& i) {
  const MmaLayout& L = mmaLayoutOf(&i);
  DotStaging& st = staging_.at(&i);
  int64_t N = L.N, K = i.operand(0)->type().shape[1];
  Scalar k = i.operand(0)->type().kind;
  // In place: the phi's registers (the next iteration's wgmmas chain on them).
  std::vector<std::string> acc = st.accumulator ? mmaRegs(st.accumulator) : copyAccumulator(i, L);
  std::string base = newReg(RegClass::B32), wg = newReg(RegClass::B32), aBase = newReg(RegClass::B32),
              bBase = newReg(RegClass::B32);
  emitStageAddress(base, st, st.readStage, 0);
  emit("shr.u32 " + wg + ", " + warpId_ + ", 2;");
  emit("mad.lo.s32 " + aBase + ", " + wg + ", " + std::to_string(64 * K * 2) + ", " + base + ";");
  emit("add.s32 " + bBase + ", " + base + ", " + std::to_string(st.offB) + ";");
  // Descriptors: start address >> 4 in bits 0-13, LBO >> 4 in 16-29, SBO >> 4
  // in 32-45, the swizzle mode in 62-63.
  auto descriptor = [&](const std::string& start, int64_t offset, int64_t lbo, int64_t sbo, int mode) {
    std::string addr = newReg(RegClass::B32), lo = newReg(RegClass::B32), hi = newReg(RegClass::B32),
                d = newReg(RegClass::B64);
    emit("add.s32 " + addr + ", " + start + ", " + std::to_string(offset) + ";");
    emit("bfe.u32 " + lo + ", " + addr + ", 4, 14;");
    emit("or.b32 " + lo + ", " + lo + ", " + std::to_string((lbo >> 4) << 16) + ";");
    emit("mov.b32 " + hi + ", " + std::to_string((sbo >> 4) | (int64_t(mode) << 30)) + ";");
    emit("mov.b64 " + d + ", {" + lo + ", " + hi + "};");
    return d;
  };
  std::string scaleD = newReg(RegClass::Pred);
  emit("setp.ne.b32 " + scaleD + ", 1, 0;");
  std::string regs = "{";
  for (size_t e = 0; e < acc.size(); ++e) regs += (e ? ", " : "") + acc[e];
  regs += "}";
  const char* ty = k == Scalar::F16 ? "f16" : "bf16";
  std::vector<std::pair<std::string, std::string>> descs;
  for (int64_t kk = 0; kk < K / 16; ++kk)
    descs.push_back({descriptor(aBase, kk * 32, 16, 8 * st.swizzleA, swizzleMode(st.swizzleA)),
                     descriptor(bBase, kk * 16 * 128, K * 128, 1024, swizzleMode(128))});
  // The fence orders the accumulator copies above before the asynchronous reads.
  emit("wgmma.fence.sync.aligned;");
  for (auto& [da, db] : descs)
    emit("wgmma.mma_async.sync.aligned.m64n" + std::to_string(N) + "k16.f32." + ty + "." + ty + " " + regs + ", " + da +
         ", " + db + ", " + scaleD + ", 1, 1, 0, 1;");
  emit("wgmma.commit_group.sync.aligned;");
  // The ring's rule: after the next barrier nobody reads the stage refilled
  // there (pipelined: the previous iteration's, one stage further back).
  emit(std::string("wgmma.wait_group.sync.aligned ") + (st.accumulator ? "1;" : "0;"));
  advanceStage(st.readStage, st);
  mmaRegs_[&i] = acc;
}

}  // namespace tritonc::nvptx
