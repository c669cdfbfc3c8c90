// PTX lowering of reductions (`x[:, +]`, max, min), in three levels:
//   1. in registers, over the elements a thread holds along the axis;
//   2. across the lanes of a warp that hold different elements along the
//      axis, with butterfly shuffles (shfl.sync.bfly);
//   3. across warps, through shared memory: one partial per warp along the
//      axis, combined by each thread for the elements of the result it owns
//      (which also moves the result into its own layout).
// Replicated elements (a tile smaller than the threads) are counted once.
// f16/bf16 reduce in f32. The order of the additions differs from the
// interpreter's sequential one.
#include <map>

#include "target/nvptx/lowering.h"

namespace tritonc::nvptx {

using ir::Scalar;

namespace {

std::string combineOp(ir::ReduceKind k, Scalar ck) {
  const char* ty = ptxType(ck);
  bool f32 = ck == Scalar::F32;
  switch (k) {
    case ir::ReduceKind::Add: return std::string(ir::isFloatKind(ck) ? "add.rn." : "add.") + ty;
    case ir::ReduceKind::Max: return std::string(f32 ? "max.NaN." : "max.") + ty;
    case ir::ReduceKind::Min: return std::string(f32 ? "min.NaN." : "min.") + ty;
  }
  return "";
}

}  // namespace

void FunctionLowering::lowerReduce(const ir::Instruction& i) {
  const ir::Value* src = i.operand(0);
  const ir::Type& st = src->type();
  const ir::Type& t = i.type();
  size_t axis = size_t(i.imm);
  Scalar k = t.kind;
  if (k == Scalar::I1 || k == Scalar::Ptr)
    throw UserError(i.loc, "reductions of booleans or pointers are not supported by the GPU back end");
  bool half = k == Scalar::F16 || k == Scalar::BF16;
  Scalar ck = half ? Scalar::F32 : k;
  bool wide = ir::bitWidth(ck) == 64;
  std::string op = combineOp(ir::ReduceKind(i.sub), ck);
  auto combine = [&](const std::string& acc, const std::string& x) {
    emit(op + " " + acc + ", " + acc + ", " + x + ";");
    if (k == Scalar::I8) emit("cvt.s32.s8 " + acc + ", " + acc + ";");
    if (k == Scalar::I16) emit("cvt.s32.s16 " + acc + ", " + acc + ";");
  };

  const BlockedLayout& l = layoutOf(st);
  const auto& idx = elementIndices(st);
  std::vector<std::vector<int64_t>> coords = localCoords(st);

  // 1. Per group of elements that differ only along the axis, in registers.
  std::map<std::vector<int64_t>, size_t> groupOf;  // coordinates without the axis -> group
  std::vector<std::string> acc;
  std::vector<size_t> firstElem;
  for (size_t e = 0; e < coords.size(); ++e) {
    std::vector<int64_t> key = coords[e];
    key.erase(key.begin() + long(axis));
    std::string v = elem(src, e);
    if (half) v = toF32(k, v);
    auto it = groupOf.find(key);
    if (it == groupOf.end()) {
      std::string a = newReg(regClassOf(ck));
      emit(std::string("mov.") + (wide ? "b64 " : ck == Scalar::F32 ? "f32 " : "b32 ") + a + ", " + v + ";");
      groupOf[key] = acc.size();
      acc.push_back(a);
      firstElem.push_back(e);
    } else {
      combine(acc[it->second], v);
    }
  }

  // 2. Across lanes along the axis (only the lanes that hold distinct elements).
  int64_t spt = std::min(l.sizePerThread[axis], st.shape[axis]);
  int64_t distinctLanes = std::min<int64_t>(l.threadsPerWarp[axis], std::max<int64_t>(1, st.shape[axis] / spt));
  int64_t laneStride = 1;
  for (int d : l.order) {
    if (size_t(d) == axis) break;
    laneStride *= l.threadsPerWarp[size_t(d)];
  }
  for (int64_t off = distinctLanes / 2; off >= 1; off /= 2) {
    std::string delta = std::to_string(off * laneStride);
    for (std::string& a : acc) {
      if (wide) {
        std::string lo = newReg(RegClass::B32), hi = newReg(RegClass::B32), olo = newReg(RegClass::B32),
                    ohi = newReg(RegClass::B32), other = newReg(regClassOf(ck));
        emit("mov.b64 {" + lo + ", " + hi + "}, " + a + ";");
        emit("shfl.sync.bfly.b32 " + olo + ", " + lo + ", " + delta + ", 31, -1;");
        emit("shfl.sync.bfly.b32 " + ohi + ", " + hi + ", " + delta + ", 31, -1;");
        emit("mov.b64 " + other + ", {" + olo + ", " + ohi + "};");
        combine(a, other);
      } else {
        std::string other = newReg(regClassOf(ck));
        emit("shfl.sync.bfly.b32 " + other + ", " + a + ", " + delta + ", 31, -1;");
        combine(a, other);
      }
    }
  }

  // 3. One partial per warp along the axis, through shared memory.
  int64_t tile = spt * l.threadsPerWarp[axis];
  int64_t slots = std::min<int64_t>(l.warpsPerCTA[axis], std::max<int64_t>(1, st.shape[axis] / tile));
  int64_t outElems = t.isTile() ? t.numElements() : 1;
  int64_t size = ir::byteSize(ck);

  std::string base = idx[0][axis];  // this thread's first index along the axis
  std::string writer = newReg(RegClass::Pred), q = newReg(RegClass::Pred), lanePart = newReg(RegClass::B32),
              slot = newReg(RegClass::B32);
  emit("div.u32 " + lanePart + ", " + base + ", " + std::to_string(spt) + ";");
  emit("rem.u32 " + lanePart + ", " + lanePart + ", " + std::to_string(l.threadsPerWarp[axis]) + ";");
  emit("setp.eq.u32 " + q + ", " + lanePart + ", 0;");
  emit("and.pred " + writer + ", " + q + ", " + ownerPred(st) + ";");
  emit("div.u32 " + slot + ", " + base + ", " + std::to_string(tile) + ";");
  beginScratchUse(slots * outElems * size);
  needScratch(slots * outElems * size);
  std::string scratchBase = this->scratchBase();
  ir::Shape outShape = st.shape;
  outShape.erase(outShape.begin() + long(axis));
  std::string zero = newReg(RegClass::B32);
  emit("mov.s32 " + zero + ", 0;");
  for (size_t g = 0; g < acc.size(); ++g) {
    std::vector<std::string> dst = idx[firstElem[g]];
    dst.erase(dst.begin() + long(axis));
    std::string lin = dst.empty() ? zero : linearIndex(dst, outShape);
    std::string addr = newReg(RegClass::B32);
    emit("mad.lo.s32 " + addr + ", " + slot + ", " + std::to_string(outElems) + ", " + lin + ";");
    emit("mad.lo.s32 " + addr + ", " + addr + ", " + std::to_string(size) + ", " + scratchBase + ";");
    emit("@" + writer + " st.shared." + (wide ? "b64" : ck == Scalar::F32 ? "f32" : "b32") + " [" + addr + "], " +
         acc[g] + ";");
  }
  barrier();
  std::vector<std::string> out;
  size_t nOut = numOwned(t);
  for (size_t e = 0; e < nOut; ++e) {
    std::string lin = t.isTile() ? linearIndex(elementIndices(t)[e], t.shape) : zero;
    std::string r;
    for (int64_t s = 0; s < slots; ++s) {
      std::string addr = newReg(RegClass::B32), x = newReg(regClassOf(ck));
      emit("add.s32 " + addr + ", " + lin + ", " + std::to_string(s * outElems) + ";");
      emit("mad.lo.s32 " + addr + ", " + addr + ", " + std::to_string(size) + ", " + scratchBase + ";");
      emit(std::string("ld.shared.") + (wide ? "b64 " : ck == Scalar::F32 ? "f32 " : "b32 ") + x + ", [" + addr + "];");
      if (s == 0) r = x;
      else combine(r, x);
    }
    out.push_back(half ? fromF32(k, r) : r);
  }
  endScratchUse();
  define(&i, out);
}

}  // namespace tritonc::nvptx
