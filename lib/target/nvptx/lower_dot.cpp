// PTX lowering of dots on mma.sync (operands in dot_operand registers,
// accumulators in the mma<v=2> layout; m16n8k16 for f16/bf16, m16n8k8 with
// tf32 inputs for f32, m16n8k32 for int8 into int32) and on the cores
// (FMA: operands read from their buffers in shared memory, the result in a
// blocked layout). wgmma is in wgmma.cpp.
#include <algorithm>
#include <array>
#include <map>

#include "gpu/shared_memory.h"
#include "target/nvptx/lowering.h"

namespace tritonc::nvptx {

using ir::Scalar;

namespace {

// Extent of a layout's register part along `dim` (the warp's block).
int64_t regExtent(const gpu::LinearLayout& ll, size_t dim) {
  int64_t e = 1;
  for (const gpu::Index& b : ll.reg) e = std::max(e, b[dim] * 2);
  return e;
}

void lowerMmaSync(FunctionLowering& L, const ir::Instruction& i) {
  const ir::Value* a = i.operand(0);
  const ir::Value* b = i.operand(1);
  Scalar k = a->type().kind;
  bool tf32 = k == Scalar::F32, int8 = k == Scalar::I8;
  const gpu::LinearLayout& al = L.placement(a->type()).ll;
  const gpu::LinearLayout& bl = L.placement(b->type()).ll;
  const gpu::LinearLayout& cl = L.placement(i.type()).ll;
  int64_t K = a->type().shape[1], kStep = tf32 ? 8 : int8 ? 32 : 16;
  int64_t rows = std::max<int64_t>(16, regExtent(cl, 0)), cols = std::max<int64_t>(8, regExtent(cl, 1));
  std::vector<std::string> acc = L.accumulatorRegs(i);
  auto reg = [](const gpu::LinearLayout& ll, int64_t r, int64_t c) {
    int64_t x = ll.regOf({r, c});
    if (x < 0) throw InternalError("an mma fragment element outside the thread's registers");
    return size_t(x);
  };
  auto pack = [&](const ir::Value* v, size_t lo, size_t hi) {
    std::string w = L.newReg(RegClass::B32);
    L.emit("mov.b32 " + w + ", {" + L.elem(v, lo) + ", " + L.elem(v, hi) + "};");
    return w;
  };
  // Four bytes (each in the low byte of its register) into one word, the
  // first lowest.
  auto pack4 = [&](const ir::Value* v, const std::array<size_t, 4>& rs) {
    std::string w = L.newReg(RegClass::B32);
    L.emit("mov.b32 " + w + ", " + L.elem(v, rs[0]) + ";");
    for (int q = 1; q < 4; ++q)
      L.emit("bfi.b32 " + w + ", " + L.elem(v, rs[size_t(q)]) + ", " + w + ", " + std::to_string(8 * q) + ", 8;");
    return w;
  };
  auto asTf32 = [&](const ir::Value* v, size_t r) {
    std::string w = L.newReg(RegClass::B32);
    L.emit("cvt.rna.tf32.f32 " + w + ", " + L.elem(v, r) + ";");
    return w;
  };
  const char* shape = tf32 ? "m16n8k8" : int8 ? "m16n8k32" : "m16n8k16";
  std::string ty = tf32 ? "tf32" : int8 ? "s8" : k == Scalar::F16 ? "f16" : "bf16";
  std::string accTy = int8 ? "s32" : "f32";
  for (int64_t kk = 0; kk < K; kk += kStep) {
    std::map<int64_t, std::vector<std::string>> afrag, bfrag;
    for (int64_t mi = 0; mi < rows; mi += 16) {
      std::vector<std::string>& f = afrag[mi];
      for (int q = 0; q < 4; ++q) {
        int64_t r = mi + 8 * (q & 1);
        if (int8) {  // a0 (g, 4t..4t+3), a1 (g+8, ..), a2 (g, 4t+16..), a3 (g+8, ..)
          int64_t c = kk + 16 * (q >> 1);
          f.push_back(pack4(a, {reg(al, r, c), reg(al, r, c + 1), reg(al, r, c + 2), reg(al, r, c + 3)}));
        } else if (tf32) {
          f.push_back(asTf32(a, reg(al, r, kk + 4 * (q >> 1))));
        } else {
          int64_t c = kk + 8 * (q >> 1);
          f.push_back(pack(a, reg(al, r, c), reg(al, r, c + 1)));
        }
      }
    }
    for (int64_t nj = 0; nj < cols; nj += 8) {
      std::vector<std::string>& f = bfrag[nj];
      for (int q = 0; q < 2; ++q) {
        if (int8) {  // b0 (k 4t..4t+3, n g), b1 (k 4t+16.., n g)
          int64_t r = kk + 16 * q;
          f.push_back(pack4(b, {reg(bl, r, nj), reg(bl, r + 1, nj), reg(bl, r + 2, nj), reg(bl, r + 3, nj)}));
        } else if (tf32) {
          f.push_back(asTf32(b, reg(bl, kk + 4 * q, nj)));
        } else {
          int64_t r = kk + 8 * q;
          f.push_back(pack(b, reg(bl, r, nj), reg(bl, r + 1, nj)));
        }
      }
    }
    for (int64_t mi = 0; mi < rows; mi += 16)
      for (int64_t nj = 0; nj < cols; nj += 8) {
        std::vector<std::string> d;
        for (int c = 0; c < 4; ++c) d.push_back(acc.at(reg(cl, mi + 8 * (c >> 1), nj + (c & 1))));
        L.emit(std::string("mma.sync.aligned.") + shape + ".row.col." + accTy + "." + ty + "." + ty + "." + accTy + " " +
               braces(d) + ", " +
               braces(afrag[mi]) + ", " + braces(bfrag[nj]) + ", " + braces(d) + ";");
      }
  }
  L.define(&i, acc);
}

// FMA: each thread reads, per k, the rows of A and the columns of B of its
// result elements from shared memory (each once) and multiplies them into
// every element of that row and column (register blocking). 32-bit A rows
// padded to a multiple of 4 are read four k at a time, and runs of four of
// a thread's columns of B with one 16-byte load.
void lowerFma(FunctionLowering& L, const ir::Instruction& i) {
  const ir::Value* a = i.operand(0);
  const ir::Value* b = i.operand(1);
  const ir::Type& at = a->type();
  const ir::Type& bt = b->type();
  const ir::Type& t = i.type();
  int64_t K = at.shape[1], N = bt.shape[1];
  Scalar ik = at.kind, k = t.kind;
  int64_t isz = ir::byteSize(ik);
  if (!((k == Scalar::F32 && ir::isFloatKind(ik) && ik != Scalar::F64) || (k == Scalar::F64 && ik == Scalar::F64) ||
        (k == Scalar::I32 && ir::isIntKind(ik) && ik != Scalar::I64 && ik != Scalar::I1) ||
        (k == Scalar::I64 && ik == Scalar::I64)))
    throw UserError(i.loc, std::string("dot of ") + ir::scalarName(ik) + " into " + ir::scalarName(k) +
                               " is not supported by the GPU back end yet");
  if (at.layout->swizzle || bt.layout->swizzle || at.layout->order != std::vector<int>{1, 0} ||
      bt.layout->order != std::vector<int>{1, 0})
    throw InternalError("FMA dot operands are row-major in shared memory");
  int64_t pitchA = K + at.layout->pad, pitchB = N + bt.layout->pad;
  const bool quads = isz == 4 && K % 4 == 0 && pitchA % 4 == 0;
  const gpu::LinearLayout& ll = L.placement(t).ll;
  const char* accType = k == Scalar::F32 ? "f32 " : k == Scalar::F64 ? "f64 " : k == Scalar::I64 ? "b64 " : "b32 ";
  std::vector<std::string> acc;
  for (size_t e = 0; e < ll.numRegs(); ++e) {
    std::string r = L.newReg(regClassOf(k));
    L.emit(std::string("mov.") + accType + r + ", " + L.elem(i.operand(2), e) + ";");
    acc.push_back(r);
  }
  std::string aBase = L.elem(a, 0), bBase = L.elem(b, 0);
  std::map<int64_t, std::string> rowAddr, colAddr;  // by the register part of the index
  for (size_t e = 0; e < ll.numRegs(); ++e) {
    gpu::Index local = ll.regIndex(e);
    std::vector<std::string> idx = L.indexRegs(t, e);
    if (!rowAddr.count(local[0])) {
      std::string r = L.newReg(RegClass::B32);
      L.emit("mad.lo.s32 " + r + ", " + idx[0] + ", " + std::to_string(pitchA * isz) + ", " + aBase + ";");
      rowAddr[local[0]] = r;
    }
    if (!colAddr.count(local[1])) {
      std::string r = L.newReg(RegClass::B32);
      L.emit("mad.lo.s32 " + r + ", " + idx[1] + ", " + std::to_string(isz) + ", " + bBase + ";");
      colAddr[local[1]] = r;
    }
  }
  bool ihalf = ik == Scalar::F16 || ik == Scalar::BF16;
  const int64_t colRun = isz == 4 && ll.contiguousRegs(1) % 4 == 0 && (pitchB * isz) % 16 == 0 ? 4 : 1;
  using Values = std::map<int64_t, std::string>;
  auto loadB = [&](const std::string& bOff) {
    Values bv;
    for (auto& [j, addr] : colAddr) {
      if (bv.count(j)) continue;  // read with its run
      bool run = colRun == 4 && j % 4 == 0 && colAddr.count(j + 1) && colAddr.count(j + 2) && colAddr.count(j + 3);
      if (run) {
        std::vector<std::string> y(4);
        for (std::string& r : y) r = L.newReg(regClassOf(ik));
        L.emit(std::string("ld.shared.v4.") + memoryType(ik) + " " + braces(y) + ", [" + addr + "+" + bOff + "];");
        for (int q = 0; q < 4; ++q) bv[j + q] = y[size_t(q)];
        continue;
      }
      std::string y = L.newReg(regClassOf(ik));
      L.emit(std::string("ld.shared.") + memoryType(ik) + " " + y + ", [" + addr + "+" + bOff + "];");
      bv[j] = ihalf ? L.toF32(ik, y) : y;
    }
    return bv;
  };
  auto loadA = [&](const std::string& aOff) {
    Values av;
    for (auto& [j, addr] : rowAddr) {
      std::string x = L.newReg(regClassOf(ik));
      L.emit(std::string("ld.shared.") + memoryType(ik) + " " + x + ", [" + addr + "+" + aOff + "];");
      av[j] = ihalf ? L.toF32(ik, x) : x;
    }
    return av;
  };
  auto loadA4 = [&](const std::string& aOff) {
    std::vector<Values> av(4);
    for (auto& [j, addr] : rowAddr) {
      std::vector<std::string> x(4);
      for (std::string& r : x) r = L.newReg(regClassOf(ik));
      L.emit(std::string("ld.shared.v4.") + memoryType(ik) + " " + braces(x) + ", [" + addr + "+" + aOff + "];");
      for (int q = 0; q < 4; ++q) av[size_t(q)][j] = x[size_t(q)];
    }
    return av;
  };
  // The FMAs in a serpentine: rows in order, columns forward on even rows
  // and backward on odd ones, so that each FMA shares an operand with the
  // one before it (ptxas's operand reuse, fewer register-bank conflicts):
  // f32 4096^3 at 128x256x32 went from 3.06 to 2.93 ms on the H100.
  std::vector<size_t> order(acc.size());
  for (size_t e = 0; e < acc.size(); ++e) order[e] = e;
  std::map<int64_t, int64_t> rowRank;
  for (auto& [r, addr] : rowAddr) rowRank.emplace(r, int64_t(rowRank.size()));
  std::stable_sort(order.begin(), order.end(), [&](size_t p, size_t q) {
    gpu::Index x = ll.regIndex(p), y = ll.regIndex(q);
    if (x[0] != y[0]) return rowRank[x[0]] < rowRank[y[0]];
    return rowRank[x[0]] % 2 ? x[1] > y[1] : x[1] < y[1];
  });
  auto fmas = [&](Values& av, Values& bv) {
    for (size_t e : order) {
      gpu::Index local = ll.regIndex(e);
      const std::string& x = av[local[0]];
      const std::string& y = bv[local[1]];
      if (k == Scalar::I32 || k == Scalar::I64)
        L.emit(std::string("mad.lo.") + (k == Scalar::I64 ? "s64 " : "s32 ") + acc[e] + ", " + x + ", " + y + ", " + acc[e] + ";");
      else L.emit(std::string("fma.rn.") + (k == Scalar::F64 ? "f64 " : "f32 ") + acc[e] + ", " + x + ", " + y + ", " + acc[e] + ";");
    }
  };
  auto step = [&](const std::string& aOffset, int64_t bOffset) {
    if (quads) {
      std::vector<Values> a4 = loadA4(aOffset);
      for (int64_t q = 0; q < 4; ++q) {
        Values bv = loadB(std::to_string(bOffset + q * pitchB * isz));
        fmas(a4[size_t(q)], bv);
      }
    } else {
      Values av = loadA(aOffset), bv = loadB(std::to_string(bOffset));
      fmas(av, bv);
    }
  };
  const int64_t kStep = quads ? 4 : 1;
  if (K <= 32) {
    for (int64_t kk = 0; kk < K; kk += kStep) step(std::to_string(kk * isz), kk * pitchB * isz);
  } else {
    // A loop over k whose body advances the row and column addresses.
    std::string ctr = L.newReg(RegClass::B32), p = L.newReg(RegClass::Pred);
    L.emit("mov.s32 " + ctr + ", 0;");
    std::string loop = L.newLabel("dot"), done = L.newLabel("dot_end");
    L.label(loop);
    L.emit("setp.ge.s32 " + p + ", " + ctr + ", " + std::to_string(K) + ";");
    L.emit("@" + p + " bra.uni " + done + ";");
    step("0", 0);
    for (auto& [j, addr] : rowAddr) L.emit("add.s32 " + addr + ", " + addr + ", " + std::to_string(kStep * isz) + ";");
    for (auto& [j, addr] : colAddr) L.emit("add.s32 " + addr + ", " + addr + ", " + std::to_string(kStep * pitchB * isz) + ";");
    L.emit("add.s32 " + ctr + ", " + ctr + ", " + std::to_string(kStep) + ";");
    L.emit("bra.uni " + loop + ";");
    L.label(done);
  }
  L.define(&i, acc);
}

}  // namespace

void FunctionLowering::lowerDot(const ir::Instruction& i) {
  if (i.type().layout->kind == ir::LayoutKind::Mma) return lowerMmaSync(*this, i);
  lowerFma(*this, i);
}

}  // namespace tritonc::nvptx
