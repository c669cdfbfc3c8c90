// Distributed layouts in registers: per layout and shape, this thread's part
// of each element's index (computed once, before the first block, from its
// lane and warp numbers and the linear layout's bases), the index of the
// element in each register (that part plus the register's own constant
// part), and whether this thread holds the first copy of its elements.
#include <cmath>
#include <map>

#include "gpu/layouts.h"
#include "target/nvptx/lowering.h"

namespace tritonc::nvptx {

namespace {

int log2Exact(int64_t v) {
  int r = 0;
  while ((int64_t(1) << r) < v) ++r;
  if ((int64_t(1) << r) != v) throw InternalError("a layout basis that is not a power of two");
  return r;
}

std::string placementKey(const ir::Type& t) {
  return t.layout->key() + ir::shapeToString(t.shape) + ":" + std::to_string(ir::bitWidth(t.kind));
}

}  // namespace

size_t FunctionLowering::numRegs(const ir::Type& t) {
  if (!t.isTile() || t.isShared()) return 1;
  return placement(t).ll.numRegs();
}

std::string FunctionLowering::scalarOwner() {
  if (scalarOwner_.empty()) {
    InSetup s(*this);
    scalarOwner_ = newReg(RegClass::Pred);
    emit("setp.eq.u32 " + scalarOwner_ + ", " + tid_ + ", 0;");
  }
  return scalarOwner_;
}

std::vector<size_t> FunctionLowering::equalElements(const ir::Value* v) {
  const ir::Type& t = v->type();
  size_t n = numRegs(t);
  std::vector<size_t> first(n);
  for (size_t e = 0; e < n; ++e) first[e] = e;
  if (!t.isTile() || t.isShared() || n == 1) return first;
  if (!axis_) axis_ = std::make_unique<analysis::AxisInfoAnalysis>(f_);
  std::vector<int64_t> runs = axis_->get(v).constancy;
  bool any = false;
  for (size_t d = 0; d < runs.size(); ++d) {
    // Runs of a power-of-two length start at its multiples.
    if (runs[d] < 1 || (runs[d] & (runs[d] - 1)) != 0) runs[d] = 1;
    any |= runs[d] > 1;
  }
  if (!any) return first;
  // An index is its register part plus its thread's part, in different bits
  // (linear_layout.h): registers whose register parts agree above the run
  // length are in the same run in every thread.
  const gpu::LinearLayout& ll = placement(t).ll;
  std::map<gpu::Index, size_t> runOwner;
  for (size_t e = 0; e < n; ++e) {
    gpu::Index at = ll.regIndex(e);
    for (size_t d = 0; d < at.size(); ++d) at[d] /= runs[d];
    first[e] = runOwner.emplace(at, e).first->second;
  }
  return first;
}

const Placement& FunctionLowering::placement(const ir::Type& t) {
  std::string key = placementKey(t);
  auto it = placements_.find(key);
  if (it != placements_.end()) return it->second;
  Placement p;
  p.ll = gpu::linearOf(t);
  InSetup inSetup(*this);
  // Index part of dimension d: the sum over lane and warp bits of their
  // bases there. Runs of consecutive bits with doubling bases are one field:
  // (id >> first) & (2^n - 1), shifted to the first basis.
  auto addBits = [&](const std::string& id, const std::vector<gpu::Index>& bases, size_t d, std::string& acc) {
    for (size_t j = 0; j < bases.size();) {
      if (bases[j][d] == 0) {
        ++j;
        continue;
      }
      size_t n = 1;
      while (j + n < bases.size() && bases[j + n][d] == bases[j][d] << n) ++n;
      std::string t = newReg(RegClass::B32);
      emit("bfe.u32 " + t + ", " + id + ", " + std::to_string(j) + ", " + std::to_string(n) + ";");
      int shift = log2Exact(bases[j][d]);
      if (shift) emit("shl.b32 " + t + ", " + t + ", " + std::to_string(shift) + ";");
      if (acc.empty()) {
        acc = t;
      } else {
        std::string s = newReg(RegClass::B32);
        emit("add.s32 " + s + ", " + acc + ", " + t + ";");
        acc = s;
      }
      j += n;
    }
  };
  for (size_t d = 0; d < p.ll.rank(); ++d) {
    std::string acc;
    addBits(laneId_, p.ll.lane, d, acc);
    addBits(warpId_, p.ll.warp, d, acc);
    if (acc.empty()) {
      acc = newReg(RegClass::B32);
      emit("mov.s32 " + acc + ", 0;");
    }
    p.base.push_back(acc);
  }
  // The first copy: replicated lane and warp bits are zero.
  unsigned lanes = p.ll.replicatedLaneMask(), warps = p.ll.replicatedWarpMask();
  if (lanes || warps) {
    std::string m = newReg(RegClass::B32), q = newReg(RegClass::B32);
    p.owner = newReg(RegClass::Pred);
    emit("and.b32 " + m + ", " + laneId_ + ", " + std::to_string(lanes) + ";");
    emit("and.b32 " + q + ", " + warpId_ + ", " + std::to_string(warps) + ";");
    emit("or.b32 " + m + ", " + m + ", " + q + ";");
    emit("setp.eq.u32 " + p.owner + ", " + m + ", 0;");
  }
  return placements_[key] = std::move(p);
}

std::vector<std::string> FunctionLowering::indexRegs(const ir::Type& t, size_t r) {
  std::string key = placementKey(t) + "#" + std::to_string(r);
  auto it = indexRegs_.find(key);
  if (it != indexRegs_.end()) return it->second;
  const Placement& p = placement(t);
  gpu::Index c = p.ll.regIndex(r);
  InSetup inSetup(*this);
  std::vector<std::string> out;
  for (size_t d = 0; d < c.size(); ++d) {
    if (c[d] == 0) {
      out.push_back(p.base[d]);
      continue;
    }
    std::string x = newReg(RegClass::B32);
    emit("add.s32 " + x + ", " + p.base[d] + ", " + std::to_string(c[d]) + ";");
    out.push_back(x);
  }
  return indexRegs_[key] = out;
}

}  // namespace tritonc::nvptx
