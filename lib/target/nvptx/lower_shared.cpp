// PTX lowering of the GPU IR's shared-memory instructions: buffers
// (local_alloc, mem_index: a register with the address of the buffer or its
// stage, at the offset the allocation pass gave), stores into them from
// registers and loads out of them (st/ld.shared, vectorized where both
// sides are contiguous; ldmatrix for mma.sync operands), asynchronous copies
// from global memory (cp.async, zero-filled where masked), their commit
// groups and waits, barriers and the async-proxy fence. Per-thread offsets
// inside a buffer do not change while a kernel runs: they are computed once,
// before the first block, one register for each group of a thread's
// elements whose offsets differ by constants (address immediates).
#include "gpu/layouts.h"
#include "gpu/shared_memory.h"
#include "target/nvptx/lowering.h"

namespace tritonc::nvptx {

using ir::Opcode;
using ir::Scalar;

namespace {

// How many registers at a time a transfer between `regType` (distributed)
// and the buffer `buf` can move: contiguous in both, at most 16 bytes.
int64_t transferWidth(FunctionLowering& L, const ir::Type& regType, const ir::Type& buf) {
  if (regType.kind == Scalar::I1) return 1;
  int64_t esize = ir::byteSize(regType.kind);
  size_t fast = size_t(buf.layout->order[0]);
  int64_t v = std::min<int64_t>(L.placement(regType).ll.contiguousRegs(fast), 16 / esize);
  while (v > 1 && !gpu::sharedVectorFits(buf, v * esize)) v /= 2;
  return v;
}

}  // namespace

void FunctionLowering::storeSharedVector(const std::string& addr, Scalar k, const std::vector<std::string>& vals,
                                         const std::string& pred) {
  std::vector<std::string> words;
  std::string type;
  if (k == Scalar::I1) {
    for (const std::string& v : vals) {
      std::string b = newReg(RegClass::B32);
      emit("selp.u32 " + b + ", 1, 0, " + v + ";");
      words.push_back(b);
    }
    type = "u8";
  } else if (ir::byteSize(k) == 1 && vals.size() > 4) {
    words = packBytes(vals);  // PTX's vectors of bytes stop at 4
    type = "b32";
  } else if (ir::byteSize(k) == 2 && vals.size() > 1) {
    for (size_t q = 0; q < vals.size(); q += 2) {
      std::string w = newReg(RegClass::B32);
      emit("mov.b32 " + w + ", {" + toHalfWord(k, vals[q]) + ", " + toHalfWord(k, vals[q + 1]) + "};");
      words.push_back(w);
    }
    type = "b32";
  } else {
    words = vals;
    type = memoryType(k);
  }
  std::string st = words.size() == 1 ? "st.shared." + type + " [" + addr + "], " + words[0] + ";"
                                     : "st.shared.v" + std::to_string(words.size()) + "." + type + " [" + addr + "], " +
                                           braces(words) + ";";
  emit(pred.empty() ? st : "@" + pred + " " + st);
}

std::vector<std::string> FunctionLowering::loadSharedVector(const std::string& addr, Scalar k, size_t n) {
  std::vector<std::string> out;
  if (k == Scalar::I1) {
    std::string b = newReg(RegClass::B32), p = newReg(RegClass::Pred);
    emit("ld.shared.u8 " + b + ", [" + addr + "];");
    emit("setp.ne.u32 " + p + ", " + b + ", 0;");
    return {p};
  }
  if (ir::byteSize(k) == 1 && n > 4) {
    std::vector<std::string> words(n / 4);
    for (auto& w : words) w = newReg(RegClass::B32);
    emit("ld.shared.v" + std::to_string(words.size()) + ".b32 " + braces(words) + ", [" + addr + "];");
    for (size_t q = 0; q < n; ++q) {
      out.push_back(newReg(RegClass::B32));
      emit("bfe.s32 " + out.back() + ", " + words[q / 4] + ", " + std::to_string(8 * (q % 4)) + ", 8;");
      byteOfWord_[out.back()] = {words[q / 4], int(q % 4)};
    }
    return out;
  }
  if (ir::byteSize(k) == 2 && n > 1) {
    std::vector<std::string> words(n / 2);
    for (auto& w : words) w = newReg(RegClass::B32);
    emit((words.size() == 1 ? std::string("ld.shared.b32 ") + words[0]
                            : "ld.shared.v" + std::to_string(words.size()) + ".b32 " + braces(words)) +
         ", [" + addr + "];");
    for (const std::string& w : words) {
      std::string lo = newReg(RegClass::B16), hi = newReg(RegClass::B16);
      emit("mov.b32 {" + lo + ", " + hi + "}, " + w + ";");
      out.push_back(fromHalfWord(k, lo));
      out.push_back(fromHalfWord(k, hi));
    }
    return out;
  }
  for (size_t q = 0; q < n; ++q) out.push_back(newReg(regClassOf(k)));
  emit((n == 1 ? std::string("ld.shared.") + memoryType(k) + " " + out[0]
               : "ld.shared.v" + std::to_string(n) + "." + memoryType(k) + " " + braces(out)) +
       ", [" + addr + "];");
  return out;
}

std::string FunctionLowering::sharedOffsetReg(const ir::Type& t, const std::vector<std::string>& idx) {
  const ir::Layout& l = *t.layout;
  ir::Shape s = gpu::stageShape(t);
  int64_t esize = ir::byteSize(t.kind);
  std::string off = newReg(RegClass::B32);
  if (l.swizzle) {
    size_t fast = size_t(l.order[0]), outer = size_t(l.order[1]);
    int64_t perBlock = l.swizzle / esize;
    std::string block = newReg(RegClass::B32), inner = newReg(RegClass::B32), o = newReg(RegClass::B32),
                x = newReg(RegClass::B32);
    emit("shr.u32 " + block + ", " + idx[fast] + ", " + std::to_string(log2Of(perBlock)) + ";");
    emit("and.b32 " + inner + ", " + idx[fast] + ", " + std::to_string(perBlock - 1) + ";");
    emit("mul.lo.s32 " + o + ", " + idx[outer] + ", " + std::to_string(l.swizzle) + ";");
    emit("mad.lo.s32 " + o + ", " + inner + ", " + std::to_string(esize) + ", " + o + ";");
    emit("shr.u32 " + x + ", " + o + ", 7;");
    emit("and.b32 " + x + ", " + x + ", " + std::to_string(l.swizzle / 16 - 1) + ";");
    emit("shl.b32 " + x + ", " + x + ", 4;");
    emit("xor.b32 " + o + ", " + o + ", " + x + ";");
    emit("mad.lo.s32 " + off + ", " + block + ", " + std::to_string(s[outer] * l.swizzle) + ", " + o + ";");
    return off;
  }
  emit("mov.s32 " + off + ", 0;");
  int64_t stride = esize;
  for (size_t k = 0; k < l.order.size(); ++k) {
    size_t d = size_t(l.order[k]);
    emit("mad.lo.s32 " + off + ", " + idx[d] + ", " + std::to_string(stride) + ", " + off + ";");
    stride *= s[d] + (k == 0 ? l.pad : 0);
  }
  return off;
}

std::string FunctionLowering::sharedOffsetOf(const ir::Type& buf, const ir::Type& t, size_t r) {
  const gpu::LinearLayout& ll = placement(t).ll;
  std::vector<std::pair<size_t, std::string>>& regs =
      sharedOffsetRegs_[ir::typeToString(buf) + "|" + t.layout->key() + ir::shapeToString(t.shape)];
  unsigned lanes = 1u << ll.lane.size(), warps = 1u << ll.warp.size();
  for (auto& [r0, reg] : regs) {
    int64_t delta = 0;
    bool same = true;
    for (unsigned w = 0; w < warps && same; ++w)
      for (unsigned l = 0; l < lanes && same; ++l) {
        int64_t d = gpu::sharedOffset(buf, ll.index(r, l, w)) - gpu::sharedOffset(buf, ll.index(r0, l, w));
        if (w == 0 && l == 0) delta = d;
        same = d == delta;
      }
    if (!same) continue;
    if (delta == 0) return reg;
    return reg + (delta > 0 ? "+" : "") + std::to_string(delta);
  }
  InSetup inSetup(*this);
  std::string reg = sharedOffsetReg(buf, indexRegs(t, r));
  regs.push_back({r, reg});
  return reg;
}

namespace {

// "BASE+OFF": the register sum of the buffer's address and an offset's
// register, plus the offset's immediate (kept in the address expression).
class SharedAddresses {
 public:
  SharedAddresses(FunctionLowering& L, std::string base) : L_(L), base_(std::move(base)) {}
  std::string of(const std::string& offset) {
    size_t cut = offset.find_first_of("+-", 1);
    std::string reg = offset.substr(0, cut), imm = cut == std::string::npos ? "" : offset.substr(cut);
    std::string& sum = sums_[reg];
    if (sum.empty()) {
      sum = L_.newReg(RegClass::B32);
      L_.emit("add.s32 " + sum + ", " + base_ + ", " + reg + ";");
    }
    return sum + imm;
  }

 private:
  FunctionLowering& L_;
  std::string base_;
  std::map<std::string, std::string> sums_;
};

}  // namespace

void FunctionLowering::storeShared(const ir::Value* v, const ir::Type& buf, const std::string& base) {
  const ir::Type& t = v->type();
  Scalar k = t.kind;
  const Placement& p = placement(t);
  int64_t vec = transferWidth(*this, t, buf);
  SharedAddresses addrs(*this, base);
  for (size_t r = 0; r < p.ll.numRegs(); r += size_t(vec)) {
    std::string addr = addrs.of(sharedOffsetOf(buf, t, r));
    std::vector<std::string> vals;
    for (int64_t q = 0; q < vec; ++q) vals.push_back(elem(v, r + size_t(q)));
    storeSharedVector(addr, k, vals, p.owner);
  }
}

namespace {

// The part of this thread's index along `dim` that comes from its warp.
std::string warpPart(FunctionLowering& L, const gpu::LinearLayout& ll, size_t dim) {
  FunctionLowering::InSetup inSetup(L);
  std::string acc = L.newReg(RegClass::B32);
  L.emit("mov.s32 " + acc + ", 0;");
  for (size_t w = 0; w < ll.warp.size(); ++w) {
    if (ll.warp[w][dim] == 0) continue;
    std::string bit = L.newReg(RegClass::B32);
    L.emit("bfe.u32 " + bit + ", " + L.warpId() + ", " + std::to_string(w) + ", 1;");
    L.emit("mad.lo.s32 " + acc + ", " + bit + ", " + std::to_string(ll.warp[w][dim]) + ", " + acc + ";");
  }
  return acc;
}

// Whether operand registers of mma.sync can be read with ldmatrix: 16-bit
// elements, a row- or column-major buffer whose memory rows start 16 bytes
// apart (each lane gives the address of 8 elements of one), dimensions of
// 16 multiples.
bool ldmatrixFits(const ir::Type& buf, const ir::Type& dst) {
  const ir::Layout* l = dst.layout;
  if (l->kind != ir::LayoutKind::DotOperand || l->parent->version != 2 || ir::bitWidth(dst.kind) != 16) return false;
  const ir::Layout& s = *buf.layout;
  if (s.swizzle || s.order.size() != 2) return false;
  ir::Shape shape = gpu::stageShape(buf);
  return ((shape[size_t(s.order[0])] + s.pad) * 2) % 16 == 0 && shape[0] % 16 == 0 && shape[1] % 16 == 0;
}

}  // namespace

// ldmatrix.x4 reads four 8 x 8 matrices of a 16 x 16 block, matrix q at
// (8 (q % 2), 8 (q / 2)) of the operand's (M x K or K x N) coordinates, and
// gives each thread its elements as the mma fragment wants them: the A
// fragment's a0..a3, or B's b0, b1 of two 8-column groups. Lane l gives the
// address of row l % 8 of matrix l / 8, a row of memory: along the
// buffer's outer dimension. Where the memory rows run along K (A row-major,
// B column-major) the matrices are read as they are; where they run along
// M or N (^a, B row-major), with .trans.
static std::vector<std::string> loadWithLdmatrix(FunctionLowering& L, const ir::Value* bufV, const ir::Type& dst) {
  const ir::Type& buf = bufV->type();
  const gpu::LinearLayout& ll = L.placement(dst).ll;
  int opIdx = dst.layout->opIdx;
  ir::Shape shape = gpu::stageShape(buf);
  const size_t fast = size_t(buf.layout->order[0]), outer = 1 - fast;
  const int64_t pitch = shape[fast] + buf.layout->pad;  // elements between memory rows
  const size_t kDim = opIdx == 0 ? 1 : 0;
  const bool trans = fast != kDim;
  auto offset = [&](int64_t d0, int64_t d1) {  // bytes from the buffer's start to element (d0, d1)
    int64_t d[2] = {d0, d1};
    return (d[outer] * pitch + d[fast]) * 2;
  };
  std::string base = L.elem(bufV, 0);
  std::string lanePart;
  {
    FunctionLowering::InSetup inSetup(L);
    std::string r8 = L.newReg(RegClass::B32), c[2] = {L.newReg(RegClass::B32), L.newReg(RegClass::B32)};
    L.emit("and.b32 " + r8 + ", " + L.laneId() + ", 7;");
    L.emit("bfe.u32 " + c[0] + ", " + L.laneId() + ", 3, 1;");  // the matrix's origin: 8 (q % 2), 8 (q / 2)
    L.emit("shl.b32 " + c[0] + ", " + c[0] + ", 3;");
    L.emit("bfe.u32 " + c[1] + ", " + L.laneId() + ", 4, 1;");
    L.emit("shl.b32 " + c[1] + ", " + c[1] + ", 3;");
    L.emit("add.s32 " + c[outer] + ", " + c[outer] + ", " + r8 + ";");  // the lane's row of memory
    // The warp's block: rows of A or columns of B it owns.
    std::string w = warpPart(L, ll, opIdx == 0 ? 0 : 1);
    std::string& mn = c[opIdx == 0 ? 0 : 1];
    L.emit("add.s32 " + mn + ", " + mn + ", " + w + ";");
    lanePart = L.newReg(RegClass::B32);
    L.emit("mad.lo.s32 " + lanePart + ", " + c[outer] + ", " + std::to_string(pitch) + ", " + c[fast] + ";");
    L.emit("shl.b32 " + lanePart + ", " + lanePart + ", 1;");
  }
  const std::string shape8 = std::string("ldmatrix.sync.aligned.m8n8.");
  const std::string how = std::string(trans ? ".trans" : "") + ".shared.b16 ";
  std::string addr = L.newReg(RegClass::B32);
  L.emit("add.s32 " + addr + ", " + base + ", " + lanePart + ";");
  std::vector<std::string> out(ll.numRegs());
  auto unpack = [&](const std::string& word, const gpu::Index& lo, const gpu::Index& hi) {
    std::string a = L.newReg(RegClass::B16), b = L.newReg(RegClass::B16);
    L.emit("mov.b32 {" + a + ", " + b + "}, " + word + ";");
    out.at(size_t(ll.regOf(lo))) = a;
    out.at(size_t(ll.regOf(hi))) = b;
  };
  // The extent of the warp's block in each dimension: the register bases.
  int64_t rows = 1, cols = 1;
  for (const gpu::Index& b : ll.reg) {
    rows = std::max(rows, b[0] * 2);
    cols = std::max(cols, b[1] * 2);
  }
  if (opIdx == 0) {
    for (int64_t mi = 0; mi < rows; mi += 16)
      for (int64_t kk = 0; kk < cols; kk += 16) {
        std::vector<std::string> w(4);
        for (auto& x : w) x = L.newReg(RegClass::B32);
        L.emit(shape8 + "x4" + how + braces(w) + ", [" + addr + "+" + std::to_string(offset(mi, kk)) + "];");
        for (int q = 0; q < 4; ++q) {
          int64_t r = mi + 8 * (q & 1), c = kk + 8 * (q >> 1);
          unpack(w[size_t(q)], {r, c}, {r, c + 1});
        }
      }
  } else {
    for (int64_t kk = 0; kk < rows; kk += 16)
      for (int64_t nj = 0; nj < cols; nj += 16) {
        bool pair = nj + 8 < cols;
        std::vector<std::string> w(pair ? 4 : 2);
        for (auto& x : w) x = L.newReg(RegClass::B32);
        L.emit(shape8 + (pair ? "x4" : "x2") + how + braces(w) + ", [" + addr + "+" + std::to_string(offset(kk, nj)) +
               "];");
        for (size_t q = 0; q < w.size(); ++q) {
          int64_t k = kk + 8 * int64_t(q & 1), n = nj + 8 * int64_t(q >> 1);
          unpack(w[q], {k, n}, {k + 1, n});
        }
      }
  }
  return out;
}

void FunctionLowering::lowerShared(const ir::Instruction& i) {
  switch (i.opcode()) {
    case Opcode::LocalAlloc: {
      if (i.smem < 0) throw InternalError("a buffer without its place in shared memory");
      std::string base = sharedAddress(i.smem);
      if (i.numOperands() == 1) storeShared(i.operand(0), i.type(), base);
      define(&i, {base});
      return;
    }
    case Opcode::MemIndex: {
      std::string r = newReg(RegClass::B32);
      emit("mad.lo.s32 " + r + ", " + elem(i.operand(1), 0) + ", " + std::to_string(gpu::sharedStageBytes(i.operand(0)->type())) +
           ", " + elem(i.operand(0), 0) + ";");
      define(&i, {r});
      return;
    }
    case Opcode::LocalStore:
      storeShared(i.operand(1), i.operand(0)->type(), elem(i.operand(0), 0));
      return;
    case Opcode::LocalLoad: {
      const ir::Type& buf = i.operand(0)->type();
      const ir::Type& t = i.type();
      if (ldmatrixFits(buf, t)) {
        define(&i, loadWithLdmatrix(*this, i.operand(0), t));
        return;
      }
      Scalar k = t.kind;
      int64_t vec = transferWidth(*this, t, buf);
      SharedAddresses addrs(*this, elem(i.operand(0), 0));
      std::vector<std::string> out(numRegs(t));
      for (size_t r = 0; r < out.size(); r += size_t(vec)) {
        std::string addr = addrs.of(sharedOffsetOf(buf, t, r));
        std::vector<std::string> vals = loadSharedVector(addr, k, size_t(vec));
        for (int64_t q = 0; q < vec; ++q) out[r + size_t(q)] = vals[size_t(q)];
      }
      define(&i, out);
      return;
    }
    case Opcode::AsyncCopy: {
      const ir::Type& buf = i.operand(0)->type();
      const ir::Value* ptr = i.operand(1);
      const ir::Type& pt = ptr->type();
      const Placement& p = placement(pt);
      int64_t vec = std::max(1, i.vec);
      int64_t bytes = vec * ir::byteSize(pt.pointee);
      if (bytes != 4 && bytes != 8 && bytes != 16) throw InternalError("cp.async copies 4, 8 or 16 bytes");
      if (vec > 1 && p.ll.contiguousRegs(size_t(buf.layout->order[0])) < vec)
        throw InternalError("an async_copy whose vectors do not run along its buffer's rows");
      // .cg (through L2 only) exists for 16-byte copies; smaller ones are .ca.
      std::string cp = std::string("cp.async.") + (bytes == 16 ? "cg" : "ca") + ".shared.global";
      SharedAddresses addrs(*this, elem(i.operand(0), 0));
      for (size_t r = 0; r < p.ll.numRegs(); r += size_t(vec)) {
        std::string dst = addrs.of(sharedOffsetOf(buf, pt, r));
        std::string line = cp + " [" + dst + "], [" + elem(ptr, r) + "], " + std::to_string(bytes);
        if (i.numOperands() == 3) {
          // Masked-off copies read nothing and fill the bytes with zeros.
          std::string size = newReg(RegClass::B32);
          emit("selp.u32 " + size + ", " + std::to_string(bytes) + ", 0, " + elem(i.operand(2), r) + ";");
          line += ", " + size;
        }
        line += ";";
        emit(p.owner.empty() ? line : "@" + p.owner + " " + line);
      }
      return;
    }
    case Opcode::AsyncCommit: emit("cp.async.commit_group;"); return;
    case Opcode::AsyncWait: emit("cp.async.wait_group " + std::to_string(i.imm) + ";"); return;
    case Opcode::Barrier:
      // The halves of a barrier over the cluster: the arrive is .release,
      // which orders this thread's accesses before it (a consumer's arrives
      // on the partner's mbarriers), the wait .acquire.
      if (i.imm == ir::kBarrierClusterArrive) emit("barrier.cluster.arrive.release.aligned;");
      else if (i.imm == ir::kBarrierClusterWait) emit("barrier.cluster.wait.acquire.aligned;");
      else if (i.imm) clusterBarrier();
      else barrier();
      return;
    case Opcode::FenceAsyncShared: emit("fence.proxy.async.shared::cta;"); return;
    default: throw InternalError(std::string("shared-memory op ") + ir::opcodeName(i.opcode()));
  }
}

}  // namespace tritonc::nvptx
