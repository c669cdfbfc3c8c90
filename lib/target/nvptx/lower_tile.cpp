// PTX lowering of tile-shaping instructions and of dot and reductions. Every
// change of which thread holds which element (reshape, broadcast, trans, the
// operands of dot, the inputs of reductions) goes through shared memory:
// owners write the tile at its row-major index, a barrier, each thread reads
// what its layout needs, a barrier before the scratch is written again.
#include <map>

#include "target/nvptx/lowering.h"

namespace tritonc::nvptx {

using ir::Opcode;
using ir::Scalar;

namespace {

int64_t align16(int64_t x) { return (x + 15) / 16 * 16; }

}  // namespace

void FunctionLowering::beginScratchUse(int64_t bytes) {
  if (bytes > kAlternateLimit) {
    region_ = -1;  // the whole scratch: wait for every pending read
    if (pendingReads_[0] || pendingReads_[1]) barrier();
    return;
  }
  region_ = 1 - lastRegion_;
  lastRegion_ = region_;
  halfBytes_ = std::max(halfBytes_, bytes);
  if (region_ == 1) {
    usedSecondHalf_ = true;
    secondHalfWhileRingLive_ = secondHalfWhileRingLive_ || inAsyncRing();
  }
  if (pendingReads_[region_]) barrier();
}

void FunctionLowering::endScratchUse() {
  if (region_ < 0) pendingReads_[0] = pendingReads_[1] = true;
  else pendingReads_[region_] = true;
}

std::string FunctionLowering::scratchBase() {
  std::string base = newReg(RegClass::B32);
  emit("mov.u32 " + base + ", scratch;");
  if (region_ == 1) emit("add.s32 " + base + ", " + base + ", " + kScratchHalf + ";");
  return base;
}

std::string FunctionLowering::linearIndex(const std::vector<std::string>& idx, const ir::Shape& shape) {
  std::string lin = newReg(RegClass::B32);
  emit("mov.s32 " + lin + ", 0;");
  for (size_t d = 0; d < shape.size(); ++d)
    emit("mad.lo.s32 " + lin + ", " + lin + ", " + std::to_string(shape[d]) + ", " + idx[d] + ";");
  return lin;
}

void FunctionLowering::storeToScratch(const ir::Value* v, int64_t byteOffset, int64_t rowPitch,
                                      const std::string& baseReg) {
  const ir::Type& t = v->type();
  Scalar k = t.kind == Scalar::Ptr ? Scalar::Ptr : t.kind;
  int64_t size = ir::byteSize(k);
  size_t r = t.shape.size();
  int64_t cols = t.shape[r - 1];
  int64_t pitch = rowPitch > 0 ? rowPitch : cols;
  if (baseReg.empty()) needScratch(byteOffset + t.numElements() / cols * pitch * size);
  std::string owner = ownerPred(t);
  const auto& idx = elementIndices(t);
  const BlockedLayout& l = layoutOf(t);
  // Vector width: consecutive registers that are consecutive along the rows.
  int64_t vec = 1;
  if (l.order[0] == int(r - 1) && k != Scalar::I1 && size >= 2 && size <= 8) {
    vec = std::min<int64_t>(l.sizePerThread[r - 1], cols);
    while (vec > 1 && (vec * size > 16 || (pitch * size) % (vec * size) != 0 || (byteOffset % (vec * size)) != 0))
      vec /= 2;
  }
  std::string base = baseReg.empty() ? scratchBase() : baseReg;
  ir::Shape pitched = t.shape;
  pitched[r - 1] = pitch;
  for (size_t e = 0; e < idx.size(); e += size_t(vec)) {
    std::string lin = linearIndex(idx[e], pitched);
    std::string addr = newReg(RegClass::B32);
    emit("mad.lo.s32 " + addr + ", " + lin + ", " + std::to_string(size) + ", " + base + ";");
    std::string at = "[" + addr + "+" + std::to_string(byteOffset) + "]";
    if (vec == 1) {
      std::string val = elem(v, e);
      if (k == Scalar::I1) {
        std::string b = newReg(RegClass::B32);
        emit("selp.u32 " + b + ", 1, 0, " + val + ";");
        val = b;
      }
      emit("@" + owner + " st.shared." + memoryType(k) + " " + at + ", " + val + ";");
      continue;
    }
    // 16-bit elements go in pairs per 32-bit word.
    std::vector<std::string> words;
    if (size == 2) {
      for (int64_t q = 0; q < vec; q += 2) {
        std::string w = newReg(RegClass::B32);
        emit("mov.b32 " + w + ", {" + elem(v, e + size_t(q)) + ", " + elem(v, e + size_t(q) + 1) + "};");
        words.push_back(w);
      }
    } else {
      for (int64_t q = 0; q < vec; ++q) words.push_back(elem(v, e + size_t(q)));
    }
    std::string list = "{";
    for (size_t q = 0; q < words.size(); ++q) list += (q ? ", " : "") + words[q];
    list += "}";
    const char* wt = size == 2 || size == 4 ? (k == Scalar::F32 ? "f32" : "b32") : "b64";
    if (words.size() == 1)
      emit("@" + owner + " st.shared." + wt + " " + at + ", " + words[0] + ";");
    else
      emit("@" + owner + " st.shared.v" + std::to_string(words.size()) + "." + wt + " " + at + ", " + list + ";");
  }
}

std::string FunctionLowering::loadFromScratch(Scalar k, const std::string& linear, int64_t byteOffset) {
  int64_t size = ir::byteSize(k);
  std::string base = scratchBase(), addr = newReg(RegClass::B32);
  emit("mad.lo.s32 " + addr + ", " + linear + ", " + std::to_string(size) + ", " + base + ";");
  if (k == Scalar::I1) {
    std::string b = newReg(RegClass::B32), p = newReg(RegClass::Pred);
    emit("ld.shared.u8 " + b + ", [" + addr + "+" + std::to_string(byteOffset) + "];");
    emit("setp.ne.u32 " + p + ", " + b + ", 0;");
    return p;
  }
  std::string r = newReg(regClassOf(k));
  emit(std::string("ld.shared.") + memoryType(k) + " " + r + ", [" + addr + "+" + std::to_string(byteOffset) + "];");
  return r;
}

void FunctionLowering::lowerTile(const ir::Instruction& i) {
  const ir::Type& t = i.type();
  switch (i.opcode()) {
    case Opcode::ProgramId:
    case Opcode::NumPrograms: {
      static const char* const axes[] = {"x", "y", "z"};
      std::string r = newReg(RegClass::B32);
      emit(std::string("mov.u32 ") + r + ", %" + (i.opcode() == Opcode::ProgramId ? "ctaid." : "nctaid.") +
           axes[i.imm] + ";");
      define(&i, {r});
      return;
    }
    case Opcode::Splat:
      define(&i, {elem(i.operand(0), 0)});
      return;
    case Opcode::MultipleOf:
      define(&i, regs(i.operand(0)));
      return;
    case Opcode::Range: {
      const auto& idx = elementIndices(t);
      std::vector<std::string> out;
      for (auto& ix : idx) {
        std::string r = newReg(RegClass::B32);
        emit("add.s32 " + r + ", " + ix[0] + ", " + std::to_string(i.imm) + ";");
        out.push_back(r);
      }
      define(&i, out);
      return;
    }
    case Opcode::Reshape:
    case Opcode::Broadcast:
    case Opcode::Trans: {
      const ir::Value* src = i.operand(0);
      const ir::Type& st = src->type();
      // A splat stays a splat whatever its shape.
      if (regs(src).size() == 1 && numOwned(st) > 1) {
        define(&i, {regs(src)[0]});
        return;
      }
      // A transposition reads the stored rows column-wise or writes them so:
      // padded rows put the elements of a column in different banks.
      ir::Shape stored = st.shape;
      if (i.opcode() == Opcode::Trans) {
        int64_t size = ir::byteSize(st.kind);
        bool rowsContiguous = layoutOf(st).order[0] == int(st.shape.size()) - 1;
        stored.back() += rowsContiguous ? std::max<int64_t>(1, 16 / size) : std::max<int64_t>(1, 4 / size);
      }
      beginScratchUse(st.numElements() / std::max<int64_t>(1, st.shape.back()) * stored.back() * ir::byteSize(st.kind));
      storeToScratch(src, 0, stored.back());
      barrier();
      const auto& idx = elementIndices(t);
      std::vector<std::string> out;
      for (auto& ix : idx) {
        std::vector<std::string> from;
        if (i.opcode() == Opcode::Trans) {
          from = {ix[1], ix[0]};
        } else if (i.opcode() == Opcode::Broadcast) {
          for (size_t d = 0; d < ix.size(); ++d) from.push_back(st.shape[d] == 1 ? std::string("0") : ix[d]);
        }
        std::string lin;
        if (i.opcode() == Opcode::Reshape) {
          lin = linearIndex(ix, t.shape);
        } else {
          std::vector<std::string> regsIdx;
          for (auto& f : from) {
            if (f == "0") {
              std::string z = newReg(RegClass::B32);
              emit("mov.s32 " + z + ", 0;");
              regsIdx.push_back(z);
            } else {
              regsIdx.push_back(f);
            }
          }
          lin = linearIndex(regsIdx, stored);
        }
        out.push_back(loadFromScratch(st.kind, lin, 0));
      }
      endScratchUse();
      define(&i, out);
      return;
    }
    case Opcode::Reduce:
      return lowerReduce(i);
    case Opcode::Dot: {
      if (isMma(&i)) return lowerDotMma(i);
      const ir::Value* a = i.operand(0);
      const ir::Value* b = i.operand(1);
      const ir::Type& at = a->type();
      const ir::Type& bt = b->type();
      int64_t M = at.shape[0], K = at.shape[1], N = bt.shape[1];
      Scalar ik = at.kind;
      int64_t isz = ir::byteSize(ik);
      // A's rows padded: the threads of a warp read one column of A at a
      // time, from different rows, which the padding puts in different banks.
      // 32-bit elements with K a multiple of 4 ("quads") are read four k at a
      // time, one 16-byte load per row, so the padding is 4 elements.
      const bool quads = ir::byteSize(at.kind) == 4 && K % 4 == 0;
      int64_t pitchA = quads ? K + 4 : K + 1;
      int64_t offB = align16(M * pitchA * isz);
      Scalar k = t.kind;
      if (!((k == Scalar::F32 && ir::isFloatKind(ik) && ik != Scalar::F64) || (k == Scalar::F64 && ik == Scalar::F64) ||
            (k == Scalar::I32 && ir::isIntKind(ik) && ik != Scalar::I64 && ik != Scalar::I1)))
        throw UserError(i.loc, std::string("dot of ") + ir::scalarName(ik) + " into " + ir::scalarName(k) +
                                   " is not supported by the GPU back end yet");
      const char* accType = k == Scalar::F32 ? "f32 " : k == Scalar::F64 ? "f64 " : "b32 ";
      const auto& idx = elementIndices(t);
      std::vector<std::vector<int64_t>> coords = localCoords(t);
      std::vector<std::string> acc;
      for (size_t e = 0; e < idx.size(); ++e) {
        std::string r = newReg(regClassOf(k));
        emit(std::string("mov.") + accType + r + ", " + elem(i.operand(2), e) + ";");
        acc.push_back(r);
      }
      beginScratchUse(int64_t(1) << 62);  // the operands: the whole scratch
      storeToScratch(a, 0, pitchA);
      storeToScratch(b, offB);
      barrier();
      // Register blocking: per k, each distinct row of A and column of B this
      // thread needs is read from shared memory once and used for all of its
      // elements in that row or column.
      std::string base = scratchBase();
      std::map<int64_t, std::string> rowAddr, colAddr;
      for (size_t e = 0; e < idx.size(); ++e) {
        if (!rowAddr.count(coords[e][0])) {
          std::string r = newReg(RegClass::B32);
          emit("mad.lo.s32 " + r + ", " + idx[e][0] + ", " + std::to_string(pitchA * isz) + ", " + base + ";");
          rowAddr[coords[e][0]] = r;
        }
        if (!colAddr.count(coords[e][1])) {
          std::string r = newReg(RegClass::B32);
          emit("mad.lo.s32 " + r + ", " + idx[e][1] + ", " + std::to_string(isz) + ", " + base + ";");
          colAddr[coords[e][1]] = r;
        }
      }
      bool ihalf = ik == Scalar::F16 || ik == Scalar::BF16;
      // A thread's columns come in runs of the layout's vector: 32-bit
      // elements are read four at a time (one 16-byte load instead of four
      // scalar loads that would each hit every bank four times across a warp).
      // Runs start at multiples of 4 columns, and every row of B at a
      // multiple of 16 bytes.
      const int64_t colRun = isz == 4 && layoutOf(t).sizePerThread[1] % 4 == 0 && (N * isz) % 16 == 0 ? 4 : 1;
      using Values = std::map<int64_t, std::string>;  // by local row or column coordinate
      auto loadB = [&](const std::string& bOff) {
        Values bv;
        for (auto& [j, addr] : colAddr) {
          if (bv.count(j)) continue;  // read with its run
          bool run = colRun == 4 && j % 4 == 0 && colAddr.count(j + 1) && colAddr.count(j + 2) && colAddr.count(j + 3);
          if (run) {
            std::string y[4];
            for (std::string& r : y) r = newReg(regClassOf(ik));
            emit(std::string("ld.shared.v4.") + memoryType(ik) + " {" + y[0] + ", " + y[1] + ", " + y[2] + ", " + y[3] +
                 "}, [" + addr + "+" + bOff + "];");
            for (int q = 0; q < 4; ++q) bv[j + q] = y[q];
            continue;
          }
          std::string y = newReg(regClassOf(ik));
          emit(std::string("ld.shared.") + memoryType(ik) + " " + y + ", [" + addr + "+" + bOff + "];");
          bv[j] = ihalf ? toF32(ik, y) : y;
        }
        return bv;
      };
      // A at one k, or (quads) at four consecutive k: one 16-byte load per row.
      auto loadA = [&](const std::string& aOff) {
        Values av;
        for (auto& [j, addr] : rowAddr) {
          std::string x = newReg(regClassOf(ik));
          emit(std::string("ld.shared.") + memoryType(ik) + " " + x + ", [" + addr + "+" + aOff + "];");
          av[j] = ihalf ? toF32(ik, x) : x;
        }
        return av;
      };
      auto loadA4 = [&](const std::string& aOff) {
        std::vector<Values> av(4);
        for (auto& [j, addr] : rowAddr) {
          std::string x[4];
          for (std::string& r : x) r = newReg(regClassOf(ik));
          emit(std::string("ld.shared.v4.") + memoryType(ik) + " {" + x[0] + ", " + x[1] + ", " + x[2] + ", " + x[3] +
               "}, [" + addr + "+" + aOff + "];");
          for (int q = 0; q < 4; ++q) av[size_t(q)][j] = x[q];
        }
        return av;
      };
      auto fmas = [&](Values& av, Values& bv) {
        for (size_t e = 0; e < idx.size(); ++e) {
          const std::string& x = av[coords[e][0]];
          const std::string& y = bv[coords[e][1]];
          if (k == Scalar::I32) emit("mad.lo.s32 " + acc[e] + ", " + x + ", " + y + ", " + acc[e] + ";");
          else emit(std::string("fma.rn.") + (k == Scalar::F64 ? "f64 " : "f32 ") + acc[e] + ", " + x + ", " + y + ", " + acc[e] + ";");
        }
      };
      // Four k per step with quads, else one.
      auto step = [&](const std::string& aOffset, int64_t bOffset) {
        if (quads) {
          std::vector<Values> a4 = loadA4(aOffset);
          for (int64_t q = 0; q < 4; ++q) {
            Values bv = loadB(std::to_string(bOffset + q * N * isz));
            fmas(a4[size_t(q)], bv);
          }
        } else {
          Values av = loadA(aOffset), bv = loadB(std::to_string(bOffset));
          fmas(av, bv);
        }
      };
      const int64_t kStep = quads ? 4 : 1;
      if (K <= 32) {
        for (int64_t kk = 0; kk < K; kk += kStep) step(std::to_string(kk * isz), offB + kk * N * isz);
      } else {
        // A loop over k whose body advances the row and column addresses.
        std::string ctr = newReg(RegClass::B32), p = newReg(RegClass::Pred);
        emit("mov.s32 " + ctr + ", 0;");
        std::string loop = newLabel("dot"), done = newLabel("dot_end");
        label(loop);
        emit("setp.ge.s32 " + p + ", " + ctr + ", " + std::to_string(K) + ";");
        emit("@" + p + " bra.uni " + done + ";");
        step("0", offB);
        for (auto& [j, addr] : rowAddr) emit("add.s32 " + addr + ", " + addr + ", " + std::to_string(kStep * isz) + ";");
        for (auto& [j, addr] : colAddr) emit("add.s32 " + addr + ", " + addr + ", " + std::to_string(kStep * N * isz) + ";");
        emit("add.s32 " + ctr + ", " + ctr + ", " + std::to_string(kStep) + ";");
        emit("bra.uni " + loop + ";");
        label(done);
      }
      endScratchUse();
      define(&i, acc);
      return;
    }
    default:
      throw InternalError(std::string("tile op ") + ir::opcodeName(i.opcode()));
  }
}

}  // namespace tritonc::nvptx
