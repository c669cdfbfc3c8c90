// PTX lowering of reductions (`x[:, +]`, max, min), in three levels read off
// the operand's linear layout:
//   1. in registers: the registers whose bases run along the axis;
//   2. across lanes: butterfly shuffles (shfl.sync.bfly) over the lane bits
//      whose bases run along the axis (lanes holding copies are skipped, so
//      nothing is counted twice);
//   3. across warps: when warp bits run along the axis, one partial per warp
//      goes through the instruction's scratch and every thread combines the
//      partials of the elements it holds in the result (the slice layout).
// f16/bf16 combine in f32. The order of the additions differs from the
// interpreter's sequential one.
#include <map>

#include "gpu/scratch.h"
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
    // Narrow integers are sign-extended, which keeps their unsigned order.
    case ir::ReduceKind::UMax: return std::string("max.u") + (ir::bitWidth(ck) == 64 ? "64" : "32");
    case ir::ReduceKind::UMin: return std::string("min.u") + (ir::bitWidth(ck) == 64 ? "64" : "32");
    case ir::ReduceKind::MaxNum: return std::string("max.") + ty;  // without .NaN: a NaN loses
    case ir::ReduceKind::MinNum: return std::string("min.") + ty;
    case ir::ReduceKind::Mul: return std::string(ir::isFloatKind(ck) ? "mul.rn." : "mul.lo.") + ty;
  }
  return "";
}

}  // namespace

void FunctionLowering::emitCombine(ir::ReduceKind kind, Scalar ck, const std::string& acc, const std::string& x) {
  // f64 max/min have no .NaN form: a NaN operand wins by hand.
  const bool nanByHand = ck == Scalar::F64 && (kind == ir::ReduceKind::Max || kind == ir::ReduceKind::Min);
  std::string nan;
  if (nanByHand) {
    nan = newReg(RegClass::Pred);
    emit("setp.nan.f64 " + nan + ", " + acc + ", " + x + ";");
  }
  emit(combineOp(kind, ck) + " " + acc + ", " + acc + ", " + x + ";");
  if (nanByHand) emit("@" + nan + " mov.f64 " + acc + ", 0d7FF8000000000000;");
}

void FunctionLowering::lowerReduce(const ir::Instruction& i) {
  const ir::Value* src = i.operand(0);
  const ir::Type& st = src->type();
  const ir::Type& t = i.type();
  size_t axis = size_t(i.imm);
  Scalar k = t.kind;
  if (k == Scalar::I1 || k == Scalar::Ptr)
    throw UserError(i.loc, "reductions of booleans or pointers are not supported by the GPU back end");
  bool half = k == Scalar::F16 || k == Scalar::BF16;
  Scalar ck = gpu::reduceCombineKind(k);
  bool wide = ir::bitWidth(ck) == 64;
  const char* wordType = wide ? "b64" : ck == Scalar::F32 ? "f32" : "b32";
  const auto kind = ir::ReduceKind(i.sub);
  auto combine = [&](const std::string& acc, const std::string& x) {
    emitCombine(kind, ck, acc, x);
    if (k == Scalar::I8) emit("cvt.s32.s8 " + acc + ", " + acc + ";");
    if (k == Scalar::I16) emit("cvt.s32.s16 " + acc + ", " + acc + ";");
  };
  const gpu::LinearLayout& ll = placement(st).ll;

  // 1. In registers, grouped by the index without the axis.
  std::map<gpu::Index, std::string> acc;
  for (size_t r = 0; r < ll.numRegs(); ++r) {
    gpu::Index key = ll.regIndex(r);
    key.erase(key.begin() + long(axis));
    std::string v = elem(src, r);
    if (half) v = toF32(k, v);
    auto it = acc.find(key);
    if (it == acc.end()) {
      std::string a = newReg(regClassOf(ck));
      emit(std::string("mov.") + wordType + " " + a + ", " + v + ";");
      acc[key] = a;
    } else {
      combine(it->second, v);
    }
  }

  // 2. Across the lanes whose bits run along the axis.
  for (size_t j = ll.lane.size(); j-- > 0;) {
    if (ll.lane[j][axis] == 0) continue;
    std::string delta = std::to_string(1u << j);
    for (auto& [key, a] : acc) {
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

  // The result's registers, in its own layout's order.
  size_t nOut = numRegs(t);
  auto keyOf = [&](size_t r) -> gpu::Index {
    if (!t.isTile()) return gpu::Index{};
    return placement(t).ll.regIndex(r);
  };

  // 3. Across warps along the axis, through the scratch.
  int64_t slots = gpu::reduceWarpSlots(i);
  std::vector<std::string> out;
  if (slots == 1) {
    for (size_t r = 0; r < nOut; ++r) out.push_back(acc.at(keyOf(r)));
  } else {
    if (i.smem < 0) throw InternalError("a cross-warp reduction without its scratch");
    int64_t outElems = t.isTile() ? t.numElements() : 1;
    int64_t size = ir::byteSize(ck);
    std::string base = sharedAddress(i.smem);
    // This warp's slot: its warp bits along the axis, packed.
    std::string slot = newReg(RegClass::B32);
    emit("mov.s32 " + slot + ", 0;");
    int packed = 0;
    for (size_t w = 0; w < ll.warp.size(); ++w) {
      if (ll.warp[w][axis] == 0) continue;
      std::string bit = newReg(RegClass::B32);
      emit("bfe.u32 " + bit + ", " + warpId() + ", " + std::to_string(w) + ", 1;");
      emit("shl.b32 " + bit + ", " + bit + ", " + std::to_string(packed++) + ";");
      emit("or.b32 " + slot + ", " + slot + ", " + bit + ";");
    }
    // Writers: lane bits along the axis zero (the lane holding the combined
    // value) and no copy (replicated lanes and warps hold the same partial).
    unsigned laneMask = ll.replicatedLaneMask(), warpMask = ll.replicatedWarpMask();
    for (size_t j = 0; j < ll.lane.size(); ++j)
      if (ll.lane[j][axis]) laneMask |= 1u << j;
    std::string m = newReg(RegClass::B32), q = newReg(RegClass::B32), writer = newReg(RegClass::Pred);
    emit("and.b32 " + m + ", " + laneId() + ", " + std::to_string(laneMask) + ";");
    emit("and.b32 " + q + ", " + warpId() + ", " + std::to_string(warpMask) + ";");
    emit("or.b32 " + m + ", " + m + ", " + q + ";");
    emit("setp.eq.u32 " + writer + ", " + m + ", 0;");
    // Element position of each partial: the source index without the axis, row-major.
    ir::Shape outShape = st.shape;
    outShape.erase(outShape.begin() + long(axis));
    auto linearOf = [&](const std::vector<std::string>& idx) {
      std::string lin = newReg(RegClass::B32);
      emit("mov.s32 " + lin + ", 0;");
      for (size_t d = 0; d < outShape.size(); ++d)
        emit("mad.lo.s32 " + lin + ", " + lin + ", " + std::to_string(outShape[d]) + ", " + idx[d] + ";");
      return lin;
    };
    std::map<gpu::Index, bool> written;
    for (size_t r = 0; r < ll.numRegs(); ++r) {
      gpu::Index key = ll.regIndex(r);
      key.erase(key.begin() + long(axis));
      if (written[key]) continue;
      written[key] = true;
      std::vector<std::string> idx = indexRegs(st, r);
      idx.erase(idx.begin() + long(axis));
      std::string addr = newReg(RegClass::B32);
      emit("mad.lo.s32 " + addr + ", " + slot + ", " + std::to_string(outElems) + ", " + linearOf(idx) + ";");
      emit("mad.lo.s32 " + addr + ", " + addr + ", " + std::to_string(size) + ", " + base + ";");
      emit("@" + writer + " st.shared." + wordType + " [" + addr + "], " + acc.at(key) + ";");
    }
    barrier();
    for (size_t r = 0; r < nOut; ++r) {
      std::string lin = t.isTile() ? linearOf(indexRegs(t, r)) : "0";
      std::string res;
      for (int64_t s = 0; s < slots; ++s) {
        std::string addr = newReg(RegClass::B32), x = newReg(regClassOf(ck));
        if (lin == "0") emit("mov.s32 " + addr + ", " + std::to_string(s * outElems) + ";");
        else emit("add.s32 " + addr + ", " + lin + ", " + std::to_string(s * outElems) + ";");
        emit("mad.lo.s32 " + addr + ", " + addr + ", " + std::to_string(size) + ", " + base + ";");
        emit(std::string("ld.shared.") + wordType + " " + x + ", [" + addr + "];");
        if (s == 0) res = x;
        else combine(res, x);
      }
      out.push_back(res);
    }
  }
  if (half)
    for (std::string& r : out) r = fromF32(k, r);
  define(&i, out);
}

}  // namespace tritonc::nvptx
