// PTX lowering of tile-shaping instructions: program ids, splats, ranges,
// the changes of shape or layout (reshape, broadcast, trans,
// convert_layout) and gather (through shared memory, like the changes that
// move elements). A change that keeps every element in its thread only
// renames registers; the others go through the instruction's scratch in
// shared memory: each element stored once at its row-major place (rows
// padded as scratch.h says), a barrier, each thread reading what it holds
// in the new layout.
#include "gpu/layouts.h"
#include "gpu/scratch.h"
#include "target/nvptx/lowering.h"

namespace tritonc::nvptx {

using ir::Opcode;
using ir::Scalar;

namespace {

// Row-major index of `idx` over `shape` with rows of `pitch` elements.
std::string pitchedLinear(FunctionLowering& L, const std::vector<std::string>& idx, const ir::Shape& shape,
                          int64_t pitch) {
  std::string lin = L.newReg(RegClass::B32);
  L.emit("mov.s32 " + lin + ", 0;");
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t extent = d + 1 == shape.size() ? pitch : shape[d];
    L.emit("mad.lo.s32 " + lin + ", " + lin + ", " + std::to_string(extent) + ", " + idx[d] + ";");
  }
  return lin;
}

}  // namespace

void FunctionLowering::storeToScratch(const ir::Value* src, const std::string& base, int64_t pitch) {
  const ir::Type& st = src->type();
  Scalar k = st.kind;
  int64_t esize = ir::byteSize(k);
  const Placement& sp = placement(st);
  size_t last = st.shape.size() - 1;
  // Vectorized along contiguous registers of the last dimension.
  int64_t vec = k == Scalar::I1 ? 1 : std::min<int64_t>(sp.ll.contiguousRegs(last), 16 / esize);
  while (vec > 1 && (pitch * esize) % (vec * esize) != 0) vec /= 2;
  for (size_t r = 0; r < sp.ll.numRegs(); r += size_t(vec)) {
    std::string lin = pitchedLinear(*this, indexRegs(st, r), st.shape, pitch);
    std::string addr = newReg(RegClass::B32);
    emit("mad.lo.s32 " + addr + ", " + lin + ", " + std::to_string(esize) + ", " + base + ";");
    std::vector<std::string> vals;
    for (int64_t q = 0; q < vec; ++q) vals.push_back(elem(src, r + size_t(q)));
    storeSharedVector(addr, k, vals, sp.owner);
  }
}

std::vector<std::string> FunctionLowering::gatherThroughScratch(const ir::Instruction& gather) {
  const ir::Value* src = gather.operand(0);
  const ir::Value* index = gather.operand(1);
  const ir::Type& st = src->type();
  const ir::Type& t = gather.type();
  gpu::ScratchUse s = gpu::scratchOf(gather);
  if (gather.smem < 0 || s.bytes == 0)
    throw UserError(gather.loc, "'gather' reads its source from shared memory: it needs its scratch there "
                                "({smem = OFFSET}, as gpu-allocate-shared places it)");
  std::string base = sharedAddress(gather.smem);
  storeToScratch(src, base, s.pitch);
  barrier();
  const size_t axis = gather.sub;
  const std::string last = std::to_string(st.shape[axis] - 1);
  std::vector<std::string> out(numRegs(t));
  for (size_t r = 0; r < out.size(); ++r) {
    // The result's own position but along the axis, where its index points;
    // an index outside the axis is clamped to it (unsigned: negatives too).
    std::vector<std::string> at = indexRegs(t, r);
    std::string idx = elem(index, r);
    if (index->type().kind == Scalar::I64) {
      std::string narrow = newReg(RegClass::B32);
      emit("cvt.u32.u64 " + narrow + ", " + idx + ";");
      idx = narrow;
    }
    std::string clamped = newReg(RegClass::B32);
    emit("min.u32 " + clamped + ", " + idx + ", " + last + ";");
    at[axis] = clamped;
    std::string lin = pitchedLinear(*this, at, st.shape, s.pitch);
    std::string addr = newReg(RegClass::B32);
    emit("mad.lo.s32 " + addr + ", " + lin + ", " + std::to_string(ir::byteSize(st.kind)) + ", " + base + ";");
    out[r] = loadSharedVector(addr, st.kind, 1)[0];
  }
  return out;
}

std::vector<std::string> FunctionLowering::convertThroughScratch(const ir::Value* src, const ir::Type& dst,
                                                                 int64_t offset, int64_t pitch,
                                                                 const std::vector<int>& dstDimOf,
                                                                 const std::vector<int64_t>& srcStart) {
  const ir::Type& st = src->type();
  Scalar k = st.kind;
  int64_t esize = ir::byteSize(k);
  std::string base = sharedAddress(offset);
  size_t last = st.shape.size() - 1;
  storeToScratch(src, base, pitch);
  barrier();
  // Loads: per register of the new layout, from the element it holds.
  const Placement& dp = placement(dst);
  bool identity = !dstDimOf.empty() && dstDimOf == gpu::identityDims(st.shape.size());
  int64_t rvec = identity && k != Scalar::I1 ? std::min<int64_t>(dp.ll.contiguousRegs(last), 16 / esize) : 1;
  while (rvec > 1 && ((pitch * esize) % (rvec * esize) != 0 || (!srcStart.empty() && srcStart.back() % rvec != 0)))
    rvec /= 2;
  std::vector<std::string> out(dp.ll.numRegs());
  for (size_t r = 0; r < out.size(); r += size_t(rvec)) {
    std::vector<std::string> di = indexRegs(dst, r);
    std::string lin;
    if (dstDimOf.empty()) {
      // A reshape: the same row-major position in the operand's shape.
      std::string flat = pitchedLinear(*this, di, dst.shape, dst.shape.back());
      std::string row = newReg(RegClass::B32), col = newReg(RegClass::B32);
      int64_t cols = st.shape.back();
      int log2Cols = 0;  // tile dimensions are powers of two
      while ((int64_t(1) << log2Cols) < cols) ++log2Cols;
      emit("shr.u32 " + row + ", " + flat + ", " + std::to_string(log2Cols) + ";");
      emit("and.b32 " + col + ", " + flat + ", " + std::to_string(cols - 1) + ";");
      lin = newReg(RegClass::B32);
      emit("mad.lo.s32 " + lin + ", " + row + ", " + std::to_string(pitch) + ", " + col + ";");
    } else {
      std::vector<std::string> si;
      for (size_t e = 0; e < st.shape.size(); ++e) {
        if (dstDimOf[e] >= 0 && e < srcStart.size() && srcStart[e] != 0) {
          std::string shifted = newReg(RegClass::B32);
          emit("add.s32 " + shifted + ", " + di[size_t(dstDimOf[e])] + ", " + std::to_string(srcStart[e]) + ";");
          si.push_back(shifted);
        } else if (dstDimOf[e] >= 0) {
          si.push_back(di[size_t(dstDimOf[e])]);
        } else {
          std::string z = newReg(RegClass::B32);
          emit("mov.s32 " + z + ", 0;");
          si.push_back(z);
        }
      }
      lin = pitchedLinear(*this, si, st.shape, pitch);
    }
    std::string addr = newReg(RegClass::B32);
    emit("mad.lo.s32 " + addr + ", " + lin + ", " + std::to_string(esize) + ", " + base + ";");
    std::vector<std::string> vals = loadSharedVector(addr, k, size_t(rvec));
    for (int64_t q = 0; q < rvec; ++q) out[r + size_t(q)] = vals[size_t(q)];
  }
  return out;
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
    case Opcode::MaxContiguous:
      define(&i, regs(i.operand(0)));
      return;
    case Opcode::Range: {
      std::vector<std::string> out;
      for (size_t r = 0; r < numRegs(t); ++r) {
        std::string idx = indexRegs(t, r)[0];
        if (i.imm == 0) {
          out.push_back(idx);
          continue;
        }
        std::string x = newReg(RegClass::B32);
        emit("add.s32 " + x + ", " + idx + ", " + std::to_string(i.imm) + ";");
        out.push_back(x);
      }
      define(&i, out);
      return;
    }
    case Opcode::Reshape: case Opcode::Broadcast: case Opcode::Trans: case Opcode::ConvertLayout:
    case Opcode::ExtractSlice: {
      const ir::Value* src = i.operand(0);
      // A transposed view of a buffer: the same address, another layout.
      if (t.isShared()) {
        define(&i, regs(src));
        return;
      }
      // A splat stays a splat whatever its shape or layout. (One register
      // is not enough to tell: a tile of one element per thread has one too.)
      if (isSplat(src)) {
        define(&i, {regs(src)[0]});
        return;
      }
      std::vector<int64_t> srcReg;
      if (gpu::keepsElementsInThreads(i, &srcReg)) {
        std::vector<std::string> out;
        for (int64_t r : srcReg) out.push_back(regs(src).at(size_t(r)));
        define(&i, out);
        return;
      }
      gpu::ScratchUse s = gpu::scratchOf(i);
      // (GPU IR written by hand may lack it: gpu-allocate-shared places it.)
      if (i.smem < 0 || s.bytes == 0)
        throw UserError(i.loc, std::string("'") + ir::opcodeName(i.opcode()) +
                                   "' moves elements between threads: it needs its scratch in shared memory "
                                   "({smem = OFFSET}, as gpu-allocate-shared places it)");
      std::vector<int64_t> start;  // an extract_slice reads from its offset along its axis
      if (i.opcode() == Opcode::ExtractSlice) {
        start.assign(t.shape.size(), 0);
        start[i.sub] = i.imm;
      }
      define(&i, convertThroughScratch(src, t, i.smem, s.pitch, gpu::operandDimsOf(i), start));
      return;
    }
    case Opcode::Gather:
      if (isSplat(i.operand(0))) {  // every element the same: so is what it picks
        define(&i, {regs(i.operand(0))[0]});
        return;
      }
      define(&i, gatherThroughScratch(i));
      return;
    default:
      throw InternalError(std::string("tile op ") + ir::opcodeName(i.opcode()));
  }
}

}  // namespace tritonc::nvptx
