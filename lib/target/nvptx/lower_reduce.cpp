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
// interpreter's sequential one. reduce_fn (tl.reduce with the user's
// combine function) goes through the same three levels with a tuple of
// registers per element, the function written inline (below).
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

std::pair<std::string, std::string> FunctionLowering::warpPartialSlot(const gpu::LinearLayout& ll, size_t axis) {
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
  return {slot, writer};
}

std::string FunctionLowering::rowMajorIndex(const ir::Shape& shape, const std::vector<std::string>& idx) {
  std::string lin = newReg(RegClass::B32);
  emit("mov.s32 " + lin + ", 0;");
  for (size_t d = 0; d < shape.size(); ++d)
    emit("mad.lo.s32 " + lin + ", " + lin + ", " + std::to_string(shape[d]) + ", " + idx[d] + ";");
  return lin;
}

std::string FunctionLowering::shuffleXor(ir::Scalar k, const std::string& v, int delta) {
  const std::string d = std::to_string(delta);
  const RegClass c = regClassOf(k);
  std::string other = newReg(c);
  if (c == RegClass::B64 || c == RegClass::F64) {
    std::string lo = newReg(RegClass::B32), hi = newReg(RegClass::B32), olo = newReg(RegClass::B32),
                ohi = newReg(RegClass::B32);
    emit("mov.b64 {" + lo + ", " + hi + "}, " + v + ";");
    emit("shfl.sync.bfly.b32 " + olo + ", " + lo + ", " + d + ", 31, -1;");
    emit("shfl.sync.bfly.b32 " + ohi + ", " + hi + ", " + d + ", 31, -1;");
    emit("mov.b64 " + other + ", {" + olo + ", " + ohi + "};");
  } else if (c == RegClass::B16) {
    std::string w = newReg(RegClass::B32), o = newReg(RegClass::B32), high = newReg(RegClass::B16);
    emit("mov.b32 " + w + ", {" + v + ", " + v + "};");
    emit("shfl.sync.bfly.b32 " + o + ", " + w + ", " + d + ", 31, -1;");
    emit("mov.b32 {" + other + ", " + high + "}, " + o + ";");
  } else {
    emit("shfl.sync.bfly.b32 " + other + ", " + v + ", " + d + ", 31, -1;");
  }
  return other;
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
    const auto [slot, writer] = warpPartialSlot(ll, axis);
    ir::Shape outShape = st.shape;
    outShape.erase(outShape.begin() + long(axis));
    auto linearOf = [&](const std::vector<std::string>& idx) { return rowMajorIndex(outShape, idx); };
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

// reduce_fn: as a reduction, each element of the tuple in its own
// registers and its own section of the scratch, the combine function
// written inline wherever two partials meet (registers, then lanes in
// butterfly order, then warps: a tree order, as Triton's tl.reduce).
void FunctionLowering::lowerReduceFn(const ir::Instruction& i) {
  const ir::Instruction* leader = ir::tupleLeader(i);
  if (leader != &i) {
    define(&i, combineResults_.at(leader).at(i.sub));
    return;
  }
  const ir::Function* f = ir::combinerOf(i);
  if (!f) throw InternalError("reduce_fn names no combine function '" + i.text + "'");
  const ir::Type& st = i.operand(0)->type();
  const size_t axis = size_t(i.imm);
  const size_t k = i.numOperands();
  std::vector<Scalar> kinds;
  for (const ir::Value* v : i.operands()) kinds.push_back(v->type().kind);
  auto combine = [&](const std::vector<std::string>& a, const std::vector<std::string>& b) {
    std::vector<std::string> args = a;
    args.insert(args.end(), b.begin(), b.end());
    return applyCombiner(*f, args);
  };
  const gpu::LinearLayout& ll = placement(st).ll;

  // 1. In registers, grouped by the index without the axis.
  std::map<gpu::Index, std::vector<std::string>> acc;
  for (size_t r = 0; r < ll.numRegs(); ++r) {
    gpu::Index at = ll.regIndex(r);
    at.erase(at.begin() + long(axis));
    std::vector<std::string> x(k);
    for (size_t j = 0; j < k; ++j) x[j] = elem(i.operand(j), r);
    auto it = acc.find(at);
    if (it == acc.end()) acc[at] = x;
    else it->second = combine(it->second, x);
  }
  // 2. Across the lanes whose bits run along the axis.
  for (size_t b = ll.lane.size(); b-- > 0;) {
    if (ll.lane[b][axis] == 0) continue;
    for (auto& [at, a] : acc) {
      std::vector<std::string> other(k);
      for (size_t j = 0; j < k; ++j) other[j] = shuffleXor(kinds[j], a[j], 1 << b);
      a = combine(a, other);
    }
  }
  // 3. Across warps along the axis, through the scratch (a section per element).
  const ir::Type& t = i.type();
  const size_t nOut = numRegs(t);
  auto keyOf = [&](size_t r) { return t.isTile() ? placement(t).ll.regIndex(r) : gpu::Index{}; };
  std::vector<std::vector<std::string>> out(k);
  const int64_t slots = gpu::reduceWarpSlots(i);
  if (slots == 1) {
    for (size_t r = 0; r < nOut; ++r)
      for (size_t j = 0; j < k; ++j) out[j].push_back(acc.at(keyOf(r))[j]);
  } else {
    if (i.smem < 0) throw InternalError("a cross-warp reduce_fn without its scratch");
    const std::vector<int64_t> sections = gpu::reduceFnSections(i);
    const int64_t outElems = t.isTile() ? t.numElements() : 1;
    const std::string base = sharedAddress(i.smem);
    const auto [slot, writer] = warpPartialSlot(ll, axis);
    ir::Shape outShape = st.shape;
    outShape.erase(outShape.begin() + long(axis));
    // The address of partial `index` (a register or a number) of element j.
    auto address = [&](const std::string& index, size_t j) {
      std::string a = newReg(RegClass::B32);
      emit("mad.lo.s32 " + a + ", " + index + ", " + std::to_string(ir::byteSize(kinds[j])) + ", " + base + ";");
      if (sections[j]) emit("add.s32 " + a + ", " + a + ", " + std::to_string(sections[j]) + ";");
      return a;
    };
    std::map<gpu::Index, bool> written;
    for (size_t r = 0; r < ll.numRegs(); ++r) {
      gpu::Index at = ll.regIndex(r);
      at.erase(at.begin() + long(axis));
      if (written[at]) continue;
      written[at] = true;
      std::vector<std::string> idx = indexRegs(st, r);
      idx.erase(idx.begin() + long(axis));
      std::string index = newReg(RegClass::B32);
      emit("mad.lo.s32 " + index + ", " + slot + ", " + std::to_string(outElems) + ", " + rowMajorIndex(outShape, idx) +
           ";");
      for (size_t j = 0; j < k; ++j) storeSharedVector(address(index, j), kinds[j], {acc.at(at)[j]}, writer);
    }
    barrier();
    for (size_t r = 0; r < nOut; ++r) {
      std::string lin = t.isTile() ? rowMajorIndex(t.shape, indexRegs(t, r)) : "";
      std::vector<std::string> res;
      for (int64_t s = 0; s < slots; ++s) {
        std::string index = newReg(RegClass::B32);
        if (lin.empty()) emit("mov.s32 " + index + ", " + std::to_string(s * outElems) + ";");
        else emit("add.s32 " + index + ", " + lin + ", " + std::to_string(s * outElems) + ";");
        std::vector<std::string> x(k);
        for (size_t j = 0; j < k; ++j) x[j] = loadSharedVector(address(index, j), kinds[j], 1)[0];
        res = s == 0 ? x : combine(res, x);
      }
      for (size_t j = 0; j < k; ++j) out[j].push_back(res[j]);
    }
  }
  combineResults_[&i] = out;
  define(&i, out.at(i.sub));
}

}  // namespace tritonc::nvptx
