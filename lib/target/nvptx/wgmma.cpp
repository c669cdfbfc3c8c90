// Warpgroup tensor cores (sm_90a): a dot whose result has the mma<v=3>
// layout runs on wgmma.mma_async, each warpgroup (four warps) computing its
// share of the tile in steps of 32 bytes of K: m64nNk16 (f16, bf16), m64nNk32
// (fp8, or int8 into int32 accumulators; K-major only), m64nNk8 (f32
// operands as tf32, K-major only: the tensor cores read the f32 bits and
// ignore the low 13 of the mantissa), with
// B (and usually A) read straight
// from their swizzled buffers in shared memory through 64-bit descriptors.
// An operand buffer is either
//   K-major (shared<order=[K, MN], swizzle=S>, S = min(128, K elements in bytes)): rows of S
//     bytes, one per row (A) or column (B), blocks of S bytes along K one
//     after the other (MN * S bytes apart); descriptor SBO = 8 rows (8 S),
//     not transposed; a k step inside a block adds 32 bytes;
//   MN-major (shared<order=[MN, K], swizzle=128>): blocks of 64 rows or
//     columns, K lines of 128 bytes each; LBO = K * 128 (the next block),
//     SBO = 1024 (8 lines), transposed (imm-trans = 1); a k step adds 16
//     lines (2048 bytes).
// A may instead come from registers (dot_operand<op=0> of the result's
// layout: another dot's accumulator, as in attention, or a tf32 tile loaded
// from a buffer wgmma cannot read). A transposed result (mma<v=3,
// transposed=1>) is computed as C^T = B^T A^T: wgmma's A is B's registers
// (dot_operand<op=1>), its B the K-major buffer of A, its M and N the
// dot's N and M.
//   dot:       fence, the wgmmas, commit, wait for every group (0);
//   dot_async: fence, the wgmmas, commit (the pipeliner's dot_wait follows);
//   dot_wait N: wait until at most N groups are in flight.
#include <cstdio>

#include "gpu/shared_memory.h"
#include "target/nvptx/lowering.h"

namespace tritonc::nvptx {

using ir::Scalar;

namespace {

// The descriptor's swizzle-mode field for a swizzle width in bytes.
int swizzleMode(int64_t width) { return width == 128 ? 1 : width == 64 ? 2 : 3; }

// One operand buffer as wgmma reads it.
struct OperandBuffer {
  bool kMajor;
  int64_t swizzle, mnExtent, kExtent, esize;
  // Byte offset of the k step at k of the rows or columns from mn0.
  int64_t offset(int64_t mn0, int64_t k) const {
    if (kMajor) return (k * esize / swizzle) * mnExtent * swizzle + mn0 * swizzle + (k * esize) % swizzle;
    return (mn0 / 64) * kExtent * 128 + k * 128;
  }
  int64_t lbo() const { return kMajor ? 16 : kExtent * 128; }
  int64_t sbo() const { return kMajor ? 8 * swizzle : 1024; }
  int trans() const { return kMajor ? 0 : 1; }
};

OperandBuffer operandBuffer(const ir::Type& t, int kDim) {
  const ir::Layout& l = *t.layout;
  if (!l.swizzle || l.order.size() != 2) throw InternalError("wgmma reads swizzled buffers");
  OperandBuffer b;
  b.kMajor = l.order[0] == kDim;
  if (!b.kMajor && l.swizzle != 128) throw InternalError("wgmma reads MN-major buffers with the 128-byte swizzle");
  b.swizzle = l.swizzle;
  b.kExtent = t.shape[size_t(kDim)];
  b.mnExtent = t.shape[size_t(1 - kDim)];
  b.esize = ir::byteSize(t.kind);
  return b;
}

// Descriptors of one buffer at `address`: the first one (address >> 4,
// LBO >> 4 << 16, and SBO and the swizzle mode in the high word) is built
// once as a 64-bit value; a descriptor at `offset` bytes further adds
// offset >> 4 to it (the addresses stay below 2^18, so nothing carries out of
// the address field). Kept 64-bit and made of warp-uniform values, they stay
// in ptxas's uniform registers instead of being moved there for every wgmma.
struct Descriptors {
  FunctionLowering& L;
  std::string d0;
  Descriptors(FunctionLowering& l, const std::string& address, int64_t lbo, int64_t sbo, int mode) : L(l) {
    std::string lo = L.newReg(RegClass::B32), wide = L.newReg(RegClass::B64);
    d0 = L.newReg(RegClass::B64);
    L.emit("bfe.u32 " + lo + ", " + address + ", 4, 14;");
    L.emit("cvt.u64.u32 " + wide + ", " + lo + ";");
    // The swizzle mode takes bits 62-63: unsigned, and written in hex.
    uint64_t constant = (uint64_t(lbo >> 4) << 16) | ((uint64_t(sbo >> 4) | (uint64_t(mode) << 30)) << 32);
    char hex[32];
    std::snprintf(hex, sizeof hex, "0x%016llx", static_cast<unsigned long long>(constant));
    L.emit("or.b64 " + d0 + ", " + wide + ", " + hex + ";");
  }
  std::string at(int64_t offset) {
    if (offset == 0) return d0;
    std::string d = L.newReg(RegClass::B64);
    L.emit("add.s64 " + d + ", " + d0 + ", " + std::to_string(offset >> 4) + ";");
    return d;
  }
};

}  // namespace

void FunctionLowering::lowerWgmma(const ir::Instruction& i) {
  if (i.opcode() == ir::Opcode::DotWait) {
    emit("wgmma.wait_group.sync.aligned " + std::to_string(i.imm) + ";");
    define(&i, regs(i.operand(0)));
    return;
  }
  const ir::Type& ct = i.type();
  const ir::Layout& cl = *ct.layout;
  // wgmma's operands: A (buffer or registers) and B (a buffer); for a
  // transposed result, the dot's B and A.
  const bool transposed = cl.transposed;
  const ir::Value* a = i.operand(transposed ? 1 : 0);
  const ir::Value* b = i.operand(transposed ? 0 : 1);
  const int aKDim = transposed ? 0 : 1, bKDim = transposed ? 1 : 0;
  Scalar k = a->type().kind;
  const bool fp8 = ir::isFp8Kind(k), tf32 = k == Scalar::F32, int8 = k == Scalar::I8;
  if (k != Scalar::F16 && k != Scalar::BF16 && !fp8 && !tf32 && !int8)
    throw InternalError("wgmma on other than f16/bf16/fp8/int8/f32 (tf32) operands");
  // k steps of 32 bytes: 16 f16/bf16 elements, 32 fp8 or int8 ones, 8 tf32 ones.
  const int64_t kStep = 32 / ir::byteSize(k);
  // 8-bit and tf32 wgmma read K-major buffers only, and have no transpose operands.
  const bool kMajorOnly = fp8 || tf32 || int8;
  // wgmma's M x N (the dot's N x M when transposed); an element (r, c) of
  // its accumulator or A is the dot's (c, r) then.
  int64_t M = ct.shape[transposed ? 1 : 0], N = ct.shape[transposed ? 0 : 1], K = a->type().shape[size_t(aKDim)];
  auto dotIndex = [&](int64_t r, int64_t c) { return transposed ? gpu::Index{c, r} : gpu::Index{r, c}; };
  int64_t groupsM = cl.warpsPerCta[0] / 4, wn = cl.warpsPerCta[1];
  int64_t rowsPerGroup = M / groupsM, colsPerGroup = N / wn;
  const gpu::LinearLayout& accLayout = placement(ct).ll;
  // A zero accumulator (attention's q @ ^k) is not materialized: the first
  // k-step's products ignore the registers (scale-d = 0).
  const bool fromZero = zeroAccumulator(i);
  std::vector<std::string> acc = accumulatorRegs(i, true);
  // This warpgroup's share: its first row (of A) and column (of B).
  std::string group = newReg(RegClass::B32), gm = newReg(RegClass::B32), gn = newReg(RegClass::B32);
  // (groupsM is a power of two: masks and shifts, not a division in the loop.)
  int log2M = 0;
  while ((int64_t(1) << log2M) < groupsM) ++log2M;
  emit("shr.u32 " + group + ", " + warpId() + ", 2;");
  emit("and.b32 " + gm + ", " + group + ", " + std::to_string(groupsM - 1) + ";");
  emit("shr.u32 " + gn + ", " + group + ", " + std::to_string(log2M) + ";");
  // B, and A when it is a buffer: the warpgroup's first column (row) is a
  // multiple of 64, so its part of the offset is exact in either major.
  const ir::Type& bt = b->type();
  if (!bt.isShared()) throw InternalError("wgmma reads B from shared memory");
  OperandBuffer bBuf = operandBuffer(bt, bKDim);
  std::string bAddr = newReg(RegClass::B32);
  emit("mad.lo.s32 " + bAddr + ", " + gn + ", " + std::to_string(bBuf.offset(colsPerGroup, 0)) + ", " + elem(b, 0) + ";");
  Descriptors bDesc(*this, bAddr, bBuf.lbo(), bBuf.sbo(), swizzleMode(bBuf.swizzle));
  const ir::Type& at = a->type();
  bool aShared = at.isShared();
  if (transposed && aShared) throw InternalError("a transposed wgmma reads B from registers");
  OperandBuffer aBuf{};
  std::unique_ptr<Descriptors> aDesc;
  if (aShared) {
    aBuf = operandBuffer(at, aKDim);
    std::string aAddr = newReg(RegClass::B32);
    emit("mad.lo.s32 " + aAddr + ", " + gm + ", " + std::to_string(aBuf.offset(rowsPerGroup, 0)) + ", " + elem(a, 0) + ";");
    aDesc = std::make_unique<Descriptors>(*this, aAddr, aBuf.lbo(), aBuf.sbo(), swizzleMode(aBuf.swizzle));
  }
  if (kMajorOnly && ((aShared && !aBuf.kMajor) || !bBuf.kMajor))
    throw InternalError("8-bit and tf32 wgmma read K-major buffers only");
  if ((fp8 || int8) && !aShared) throw InternalError("8-bit wgmma reads A from shared memory here");
  const gpu::LinearLayout* aLayout = aShared ? nullptr : &placement(at).ll;
  std::string scaleD = newReg(RegClass::Pred), firstScaleD = scaleD;
  emit("setp.ne.b32 " + scaleD + ", 1, 0;");
  if (fromZero) {
    firstScaleD = newReg(RegClass::Pred);
    emit("setp.ne.b32 " + firstScaleD + ", 0, 0;");
  }
  auto typeName = [](Scalar s) {
    return s == Scalar::F16    ? "f16"
           : s == Scalar::BF16   ? "bf16"
           : s == Scalar::F32    ? "tf32"
           : s == Scalar::F8E4M3 ? "e4m3"
           : s == Scalar::I8     ? "s8"
                                 : "e5m2";
  };
  std::string instr = "wgmma.mma_async.sync.aligned.m64n" + std::to_string(colsPerGroup) + "k" + std::to_string(kStep) +
                      (int8 ? ".s32." : ".f32.") + typeName(k) + "." + typeName(bt.kind);
  auto aReg = [&](int64_t r, int64_t c) {
    int64_t x = aLayout->regOf(dotIndex(r, c));
    if (x < 0) throw InternalError("a wgmma A fragment outside the thread's registers");
    return elem(a, size_t(x));
  };
  struct Issue {
    std::vector<std::string> d;
    std::string a, b, scaleD;
  };
  std::vector<Issue> issues;
  for (int64_t kk = 0; kk < K; kk += kStep) {
    std::string bd = bDesc.at(bBuf.offset(0, kk));
    for (int64_t mi = 0; mi < rowsPerGroup; mi += 64) {
      Issue is;
      for (int64_t j = 0; j < colsPerGroup; j += 8)
        for (int c = 0; c < 4; ++c) {
          int64_t r = accLayout.regOf(dotIndex(mi + 8 * (c >> 1), j + (c & 1)));
          if (r < 0) throw InternalError("a wgmma accumulator outside the thread's registers");
          is.d.push_back(acc.at(size_t(r)));
        }
      if (aShared) {
        is.a = aDesc->at(aBuf.offset(mi, kk));
      } else {
        // Per warp, the m16n8k16 A fragment of 16-bit pairs (a0 (g, 2t..),
        // a1 (g+8, ..), a2 (g, 2t+8..), a3 (g+8, ..)), or tf32's m16n8k8 one
        // (a0 (g, t), a1 (g+8, t), a2 (g, t+4), a3 (g+8, t+4)), rounded to
        // tf32 as mma.sync's are (the buffer operand is truncated).
        std::vector<std::string> frag;
        for (int q = 0; q < 4; ++q) {
          int64_t r = mi + 8 * (q & 1);
          std::string w = newReg(RegClass::B32);
          if (tf32) {
            emit("cvt.rna.tf32.f32 " + w + ", " + aReg(r, kk + 4 * (q >> 1)) + ";");
          } else {
            int64_t c = kk + 8 * (q >> 1);
            emit("mov.b32 " + w + ", {" + aReg(r, c) + ", " + aReg(r, c + 1) + "};");
          }
          frag.push_back(w);
        }
        is.a = braces(frag);
      }
      is.b = bd;
      is.scaleD = kk == 0 ? firstScaleD : scaleD;
      issues.push_back(is);
    }
  }
  // The fence orders the accumulators' register writes above before the
  // asynchronous reads of the tensor cores.
  emit("wgmma.fence.sync.aligned;");
  for (const Issue& is : issues)
    // (Integer wgmma has no scale or transpose operands: only scale-d.)
    emit(instr + " " + braces(is.d) + ", " + is.a + ", " + is.b + ", " + is.scaleD + (int8 ? ";" : ", 1, 1") +
         (int8 ? std::string() : kMajorOnly ? std::string(";")
              : ", " + (aShared ? std::to_string(aBuf.trans()) + ", " : "") + std::to_string(bBuf.trans()) + ";"));
  emit("wgmma.commit_group.sync.aligned;");
  if (i.opcode() == ir::Opcode::Dot) emit("wgmma.wait_group.sync.aligned 0;");
  define(&i, acc);
}

}  // namespace tritonc::nvptx
