#include "gpu/layouts.h"

#include <algorithm>

#include "support/diagnostic.h"

namespace tritonc::gpu {

using ir::Layout;
using ir::LayoutKind;

const Layout* blockedLayout(ir::Module& m, const ir::Shape& shape, int numWarps, std::vector<int> order,
                            int64_t vector) {
  size_t r = shape.size();
  Layout l;
  l.kind = LayoutKind::Blocked;
  l.sizePerThread.assign(r, 1);
  l.threadsPerWarp.assign(r, 1);
  l.warpsPerCta.assign(r, 1);
  l.order = std::move(order);
  int fast = l.order[0];
  l.sizePerThread[size_t(fast)] = std::max<int64_t>(1, std::min(vector, shape[size_t(fast)]));
  int64_t lanes = 32;
  for (int d : l.order) {
    size_t du = size_t(d);
    int64_t room = std::max<int64_t>(1, shape[du] / l.sizePerThread[du]);
    int64_t t = std::min(lanes, room);
    l.threadsPerWarp[du] = t;
    lanes /= t;
  }
  l.threadsPerWarp[size_t(fast)] *= lanes;
  int64_t warps = numWarps;
  for (auto it = l.order.rbegin(); it != l.order.rend(); ++it) {
    size_t du = size_t(*it);
    int64_t room = std::max<int64_t>(1, shape[du] / (l.sizePerThread[du] * l.threadsPerWarp[du]));
    int64_t w = std::min(warps, room);
    l.warpsPerCta[du] = w;
    warps /= w;
  }
  l.warpsPerCta[size_t(l.order.back())] *= warps;
  return m.layout(l);
}

const Layout* defaultLayout(ir::Module& m, const ir::Shape& shape, int numWarps) {
  std::vector<int> order;
  for (int d = int(shape.size()) - 1; d >= 0; --d) order.push_back(d);
  return blockedLayout(m, shape, numWarps, order, 1);
}

const Layout* sliceLayout(ir::Module& m, int dim, const Layout* parent) {
  Layout l;
  l.kind = LayoutKind::Slice;
  l.dim = dim;
  l.parent = parent;
  return m.layout(l);
}

const Layout* mmaLayout(ir::Module& m, int version, int64_t warpsM, int64_t warpsN, bool transposed) {
  Layout l;
  l.kind = LayoutKind::Mma;
  l.version = version;
  l.warpsPerCta = {warpsM, warpsN};
  l.transposed = transposed;
  return m.layout(l);
}

const Layout* dotOperandLayout(ir::Module& m, int opIdx, const Layout* mma) {
  Layout l;
  l.kind = LayoutKind::DotOperand;
  l.opIdx = opIdx;
  l.parent = mma;
  return m.layout(l);
}

const Layout* sharedLayout(ir::Module& m, std::vector<int> order, int64_t pad, int64_t swizzle) {
  Layout l;
  l.kind = LayoutKind::Shared;
  l.order = std::move(order);
  l.pad = pad;
  l.swizzle = swizzle;
  return m.layout(l);
}

const Layout* permutedLayout(ir::Module& m, const Layout* l, const std::vector<int>& perm) {
  const size_t r = perm.size();
  if (!l || l->order.size() != r) return nullptr;
  std::vector<int> inv(r);
  for (size_t d = 0; d < r; ++d) inv[size_t(perm[d])] = int(d);
  Layout t = *l;
  for (size_t k = 0; k < r; ++k) t.order[k] = inv[size_t(l->order[k])];
  if (l->kind == LayoutKind::Shared && r == 2) return m.layout(t);
  if (l->kind != LayoutKind::Blocked || l->sizePerThread.size() != r) return nullptr;
  for (size_t d = 0; d < r; ++d) {
    t.sizePerThread[d] = l->sizePerThread[size_t(perm[d])];
    t.threadsPerWarp[d] = l->threadsPerWarp[size_t(perm[d])];
    t.warpsPerCta[d] = l->warpsPerCta[size_t(perm[d])];
  }
  return m.layout(t);
}

const Layout* transposedLayout(ir::Module& m, const Layout* l) { return permutedLayout(m, l, {1, 0}); }

namespace {

// The positions in `longer` of the size-1 dimensions it has and `shorter`
// lacks, ascending, when that is the only difference (reshapes such as
// x[:, None, None]); empty otherwise.
std::vector<int> insertedUnitDims(const ir::Shape& shorter, const ir::Shape& longer) {
  if (longer.size() <= shorter.size()) return {};
  std::vector<int> dims;
  size_t i = shorter.size();
  // Matching greedily from the end is never wrong (1s of both shapes are
  // interchangeable) and calls the first of a run of 1s the inserted one,
  // as x[:, None] of a tile [n, 1] means.
  for (size_t j = longer.size(); j-- > 0;) {
    if (i > 0 && longer[j] == shorter[i - 1]) {
      --i;
      continue;
    }
    if (longer[j] != 1) return {};
    dims.insert(dims.begin(), int(j));
  }
  if (i != 0) return {};
  return dims;
}

// A blocked layout with a dimension of size 1 put in at `dim` (as the
// slowest): on a tile with that dimension, each thread holds what it holds
// in `l` on the tile without it.
const Layout* unsqueezedBlocked(ir::Module& m, const Layout* l, int dim) {
  if (l->kind != LayoutKind::Blocked) return nullptr;
  Layout u = *l;
  u.sizePerThread.insert(u.sizePerThread.begin() + dim, 1);
  u.threadsPerWarp.insert(u.threadsPerWarp.begin() + dim, 1);
  u.warpsPerCta.insert(u.warpsPerCta.begin() + dim, 1);
  for (int& d : u.order)
    if (d >= dim) ++d;
  u.order.push_back(dim);
  return m.layout(u);
}

}  // namespace

namespace {

// `l` with the size-1 dimensions `dims` (ascending positions in the longer
// shape) put in: the parent where `l` slices them away; else, for one
// dimension, a blocked layout with it as the slowest. (Not for several: a
// small tile's layout, say the two elements of a mask that x[None, :, None]
// broadcasts, spread over a large one would replicate it in every thread.)
const Layout* withUnitDims(ir::Module& m, const Layout* l, const std::vector<int>& dims) {
  for (int d : dims) {
    if (!l) return nullptr;
    if (l->kind == LayoutKind::Slice && l->dim == d) l = l->parent;
    else l = dims.size() == 1 ? unsqueezedBlocked(m, l, d) : nullptr;
  }
  return l;
}

// `l` with the size-1 dimensions `dims` (ascending) sliced away.
const Layout* withoutUnitDims(ir::Module& m, const Layout* l, const std::vector<int>& dims) {
  for (auto d = dims.rbegin(); d != dims.rend(); ++d) l = sliceLayout(m, *d, l);
  return l;
}

// A blocked layout whose linear form is `target` up to the order of its
// registers (each thread holds the same elements), or null: tried in each
// order of the dimensions, each dimension's elements per thread, lanes and
// warps read off the bases (a dimension's lowest lane basis, or warp basis,
// is its elements per thread).
const Layout* blockedFromLinear(ir::Module& m, const LinearLayout& target) {
  const size_t r = target.rank();
  for (const auto* bases : {&target.lane, &target.warp})
    for (const Index& b : *bases)
      if (std::all_of(b.begin(), b.end(), [](int64_t v) { return v == 0; })) return nullptr;  // replicated
  auto dimOf = [](const Index& b) {
    for (size_t d = 0; d < b.size(); ++d)
      if (b[d]) return d;
    return b.size();
  };
  Layout l;
  l.kind = LayoutKind::Blocked;
  l.sizePerThread.assign(r, 1);
  l.threadsPerWarp.assign(r, 1);
  l.warpsPerCta.assign(r, 1);
  for (size_t d = 0; d < r; ++d) {
    int64_t lowest = 0;  // the lanes' lowest, else the warps' (spt * tpw with tpw 1)
    for (const auto* bases : {&target.lane, &target.warp}) {
      int64_t low = 0;
      for (const Index& b : *bases)
        if (dimOf(b) == d) {
          if (!low || b[d] < low) low = b[d];
          (bases == &target.lane ? l.threadsPerWarp : l.warpsPerCta)[d] *= 2;
        }
      if (!lowest) lowest = low;
    }
    l.sizePerThread[d] = lowest ? lowest : target.shape[d];
  }
  std::vector<int> order(r);
  for (size_t d = 0; d < r; ++d) order[d] = int(r - 1 - d);
  std::sort(order.begin(), order.end());
  do {
    l.order = order;
    if (!l.check().empty()) continue;
    // The same lanes and warps and the same registers, in any order (a
    // reshape renames them).
    LinearLayout c = toLinear(&l, target.shape);
    std::vector<Index> mine = c.reg, theirs = target.reg;
    std::sort(mine.begin(), mine.end());
    std::sort(theirs.begin(), theirs.end());
    if (c.lane == target.lane && c.warp == target.warp && mine == theirs) return m.layout(l);
  } while (std::next_permutation(order.begin(), order.end()));
  return nullptr;
}

// `ll`, a layout of a tile of `from`, seen on the same elements reshaped
// to `to` (row-major): each basis's offset in the flattened tile, read as
// an index of `to` (one bit of a power-of-two offset: one dimension).
LinearLayout reshapedLinear(const LinearLayout& ll, const ir::Shape& to) {
  auto flat = [&](const Index& b) {
    int64_t off = 0, stride = 1;
    for (size_t d = ll.shape.size(); d-- > 0;) {
      off += b[d] * stride;
      stride *= ll.shape[d];
    }
    return off;
  };
  auto unflat = [&](int64_t off) {
    Index idx(to.size(), 0);
    for (size_t d = to.size(); d-- > 0;) {
      idx[d] = off % to[d];
      off /= to[d];
    }
    return idx;
  };
  LinearLayout out;
  out.shape = to;
  for (const Index& b : ll.reg) out.reg.push_back(unflat(flat(b)));
  for (const Index& b : ll.lane) out.lane.push_back(unflat(flat(b)));
  for (const Index& b : ll.warp) out.warp.push_back(unflat(flat(b)));
  return out;
}

// For a reshape that regroups elements (join then reshape, an interleave):
// the blocked layout of `to` that holds in each thread the elements `l`
// holds of `from`, or null.
const Layout* regroupedBlocked(ir::Module& m, const ir::Shape& from, const ir::Shape& to, const Layout* l) {
  int64_t n[2] = {1, 1};
  for (int k = 0; k < 2; ++k)
    for (int64_t d : k ? to : from) {
      if (d < 1 || (d & (d - 1))) return nullptr;
      n[k] *= d;
    }
  if (n[0] != n[1]) return nullptr;
  try {
    return blockedFromLinear(m, reshapedLinear(toLinear(l, from), to));
  } catch (const InternalError&) {  // a layout with no linear form on that shape: no such layout
    return nullptr;
  }
}

}  // namespace

const Layout* reshapeOperandLayout(ir::Module& m, const ir::Shape& from, const ir::Shape& to, const Layout* result) {
  if (!result || !result->isDistributed()) return nullptr;
  std::vector<int> dims = insertedUnitDims(from, to);
  if (!dims.empty()) return withoutUnitDims(m, result, dims);
  dims = insertedUnitDims(to, from);
  if (!dims.empty()) return withUnitDims(m, result, dims);
  return regroupedBlocked(m, to, from, result);
}

const Layout* reshapeResultLayout(ir::Module& m, const ir::Shape& from, const ir::Shape& to, const Layout* operand) {
  if (!operand || !operand->isDistributed()) return nullptr;
  std::vector<int> dims = insertedUnitDims(to, from);
  if (!dims.empty()) return withoutUnitDims(m, operand, dims);
  dims = insertedUnitDims(from, to);
  if (!dims.empty()) return withUnitDims(m, operand, dims);
  return regroupedBlocked(m, from, to, operand);
}

static std::vector<int> reshapeDims(const ir::Shape& from, const ir::Shape& to) {
  if (from == to) return identityDims(from.size());
  std::vector<int> dims;
  std::vector<int> inserted = insertedUnitDims(from, to);
  if (!inserted.empty()) {  // operand dimension e is the e-th result dimension not inserted
    for (size_t d = 0, k = 0; d < to.size(); ++d) {
      if (k < inserted.size() && inserted[k] == int(d)) ++k;
      else dims.push_back(int(d));
    }
    return dims;
  }
  std::vector<int> removed = insertedUnitDims(to, from);
  if (removed.empty()) return {};
  int kept = 0;
  for (size_t e = 0, k = 0; e < from.size(); ++e) {
    if (k < removed.size() && removed[k] == int(e)) {
      dims.push_back(-1);
      ++k;
    } else {
      dims.push_back(kept++);
    }
  }
  return dims;
}

std::vector<int> operandDimsOf(const ir::Instruction& inst) {
  const ir::Shape& from = inst.operand(0)->type().shape;
  const ir::Shape& to = inst.type().shape;
  std::vector<int> dims;
  switch (inst.opcode()) {
    case ir::Opcode::ConvertLayout: case ir::Opcode::ExtractSlice: return identityDims(from.size());
    case ir::Opcode::Trans: {  // operand dimension perm[d] is result dimension d
      const std::vector<int> perm = ir::transPermutation(inst);
      dims.assign(perm.size(), 0);
      for (size_t d = 0; d < perm.size(); ++d) dims[size_t(perm[d])] = int(d);
      return dims;
    }
    case ir::Opcode::Broadcast:
      for (size_t e = 0; e < from.size(); ++e) dims.push_back(from[e] == 1 && to[e] != 1 ? -1 : int(e));
      return dims;
    case ir::Opcode::Reshape: return reshapeDims(from, to);
    default: return {};
  }
}

LinearLayout linearOf(const ir::Type& t) {
  int bits = t.isPtr() ? 64 : std::max(8, ir::bitWidth(t.kind));
  return toLinear(t.layout, t.shape, bits);
}

int laneFastDim(const LinearLayout& ll) {
  for (const Index& b : ll.lane)
    for (size_t d = 0; d < b.size(); ++d)
      if (b[d]) return int(d);
  return -1;
}

bool sliceKeepsElementsInThreads(const ir::Type& operand, const ir::Type& result, size_t axis, int64_t offset,
                                 std::vector<int64_t>* srcReg) {
  // With the offset a multiple of the slice's power-of-two length, index +
  // offset is index XOR offset: the operand's element sits in the register
  // whose part of the index is the result register's XOR the offset, in the
  // same thread, when lanes and warps spread both tiles alike.
  const int64_t length = result.shape[axis];
  if ((length & (length - 1)) || offset % length) return false;
  LinearLayout src = linearOf(operand), dst = linearOf(result);
  if (src.lane != dst.lane || src.warp != dst.warp) return false;
  std::vector<int64_t> map(dst.numRegs());
  for (size_t r = 0; r < dst.numRegs(); ++r) {
    Index idx = dst.regIndex(r);
    idx[axis] ^= offset;
    map[r] = src.regOf(idx);
    if (map[r] < 0) return false;
  }
  if (srcReg) *srcReg = std::move(map);
  return true;
}

bool reshapeKeepsElementsInThreads(const ir::Type& operand, const ir::Type& result, std::vector<int64_t>* srcReg) {
  std::vector<int> dims = reshapeDims(operand.shape, result.shape);
  if (!dims.empty() || operand.shape.empty()) return sameThreads(linearOf(operand), linearOf(result), dims, srcReg);
  // Regrouped elements: the operand's layout seen on the result's shape
  // (row-major, reshapedLinear) against the result's, element for element.
  if (operand.numElements() != result.numElements()) return false;
  return sameThreads(reshapedLinear(linearOf(operand), result.shape), linearOf(result),
                     identityDims(result.shape.size()), srcReg);
}

bool keepsElementsInThreads(const ir::Instruction& inst, std::vector<int64_t>* srcReg) {
  if (inst.opcode() == ir::Opcode::ExtractSlice)
    return sliceKeepsElementsInThreads(inst.operand(0)->type(), inst.type(), inst.sub, inst.imm, srcReg);
  if (inst.opcode() == ir::Opcode::Reshape && inst.operand(0)->type().layout && inst.type().layout &&
      !inst.operand(0)->type().isShared() && !inst.type().isShared())
    return reshapeKeepsElementsInThreads(inst.operand(0)->type(), inst.type(), srcReg);
  std::vector<int> dims = operandDimsOf(inst);
  if (dims.empty() && !inst.operand(0)->type().shape.empty()) return false;
  return sameThreads(linearOf(inst.operand(0)->type()), linearOf(inst.type()), dims, srcReg);
}

bool sharesOperandRegisters(const ir::Instruction& u) {
  switch (u.opcode()) {
    case ir::Opcode::MultipleOf: case ir::Opcode::MaxContiguous: return true;
    case ir::Opcode::ExtractSlice: case ir::Opcode::Reshape: case ir::Opcode::Broadcast: case ir::Opcode::Trans:
    case ir::Opcode::ConvertLayout:
      return u.type().isTile() && !u.type().isShared() && keepsElementsInThreads(u);
    default: return false;
  }
}

}  // namespace tritonc::gpu
