#include "gpu/linear_layout.h"

#include <map>
#include <utility>

#include "support/diagnostic.h"

namespace tritonc::gpu {

namespace {

int log2Of(int64_t v) {
  int r = 0;
  while ((int64_t(1) << r) < v) ++r;
  return r;
}

Index unit(size_t rank, size_t d, int64_t v) {
  Index i(rank, 0);
  i[d] = v;
  return i;
}

bool isZero(const Index& i) {
  for (int64_t v : i)
    if (v) return false;
  return true;
}

// Builds bases for a 2-D layout from (row, column) pairs.
struct Builder2D {
  LinearLayout ll;
  explicit Builder2D(const ir::Shape& s) { ll.shape = s; }
  void reg(int64_t r, int64_t c) { ll.reg.push_back({r, c}); }
  void lane(int64_t r, int64_t c) { ll.lane.push_back({r, c}); }
  void warp(int64_t r, int64_t c) { ll.warp.push_back({r, c}); }
  // `count` bases k * 2^b along (row, column) for b = 0, 1, ...
  void regs(int count, int64_t r, int64_t c) {
    for (int b = 0; b < count; ++b) reg(r << b, c << b);
  }
  void warps(int count, int64_t r, int64_t c) {
    for (int b = 0; b < count; ++b) warp(r << b, c << b);
  }
};

// Indices wrap around the shape (a layout larger than the tile replicates):
// a component at or beyond a power-of-two size reads 0. Register bases that
// become zero would hold copies of other registers' elements: dropped.
LinearLayout finish(LinearLayout ll) {
  for (auto* bases : {&ll.reg, &ll.lane, &ll.warp})
    for (Index& b : *bases)
      for (size_t d = 0; d < ll.rank(); ++d)
        if (b[d] >= ll.shape[d]) b[d] = 0;
  std::vector<Index> regs;
  for (Index& b : ll.reg)
    if (!isZero(b)) regs.push_back(b);
  ll.reg = std::move(regs);
  return ll;
}

LinearLayout blocked(const ir::Layout& l, const ir::Shape& shape) {
  size_t r = shape.size();
  if (l.sizePerThread.size() != r) throw InternalError("blocked layout of another rank than its tile");
  LinearLayout ll;
  ll.shape = shape;
  // Registers: per dimension from the fastest, the thread's contiguous
  // elements, then its repetitions when the tile is larger than the layout.
  for (int d : l.order) {
    size_t du = size_t(d);
    int64_t spt = std::min(l.sizePerThread[du], shape[du]);
    for (int b = 0; b < log2Of(spt); ++b) ll.reg.push_back(unit(r, du, int64_t(1) << b));
    int64_t tile = l.sizePerThread[du] * l.threadsPerWarp[du] * l.warpsPerCta[du];
    for (int64_t t = tile; t < shape[du]; t <<= 1) ll.reg.push_back(unit(r, du, t));
  }
  for (int d : l.order) {
    size_t du = size_t(d);
    for (int b = 0; b < log2Of(l.threadsPerWarp[du]); ++b)
      ll.lane.push_back(unit(r, du, l.sizePerThread[du] << b));
  }
  for (int d : l.order) {
    size_t du = size_t(d);
    for (int b = 0; b < log2Of(l.warpsPerCta[du]); ++b)
      ll.warp.push_back(unit(r, du, (l.sizePerThread[du] * l.threadsPerWarp[du]) << b));
  }
  return finish(std::move(ll));
}

// Accumulators: per 16 x 8 block, a thread holds (g, 2t), (g, 2t+1),
// (g+8, 2t), (g+8, 2t+1) with g = lane / 4, t = lane % 4.
void accumulatorLanes(Builder2D& b) {
  b.lane(0, 2);
  b.lane(0, 4);
  b.lane(1, 0);
  b.lane(2, 0);
  b.lane(4, 0);
}

LinearLayout mma(const ir::Layout& l, const ir::Shape& shape) {
  if (shape.size() != 2) throw InternalError("mma layout on a tile that is not 2-D");
  int64_t M = shape[0], N = shape[1], wm = l.warpsPerCta[0], wn = l.warpsPerCta[1];
  Builder2D b(shape);
  b.reg(0, 1);
  b.reg(8, 0);
  accumulatorLanes(b);
  if (l.version == 2) {
    // Warps own blocks of M / wm rows and N / wn columns.
    b.regs(log2Of(std::max<int64_t>(1, N / wn / 8)), 0, 8);
    b.regs(log2Of(std::max<int64_t>(1, M / wm / 16)), 16, 0);
    b.warps(log2Of(wm), M / wm, 0);
    b.warps(log2Of(wn), 0, N / wn);
  } else {
    // Warpgroups (4 warps, 16 rows each) own blocks of 64 rows per wgmma,
    // repeated down their share of M; warpgroups split M, then N.
    int64_t groupsM = wm / 4, rowsPerGroup = M / groupsM, colsPerGroup = N / wn;
    b.regs(log2Of(std::max<int64_t>(1, colsPerGroup / 8)), 0, 8);
    b.regs(log2Of(std::max<int64_t>(1, rowsPerGroup / 64)), 64, 0);
    b.warps(2, 16, 0);
    b.warps(log2Of(groupsM), rowsPerGroup, 0);
    b.warps(log2Of(wn), 0, colsPerGroup);
  }
  return finish(std::move(b.ll));
}

// Operand registers of mma.sync (m16n8k16 for 16-bit elements, m16n8k8 for
// tf32, m16n8k32 for 8-bit integers) and of wgmma's A from registers (per
// warp, the m16n8k16 A fragment).
LinearLayout dotOperand(const ir::Layout& l, const ir::Shape& shape, int elementBits) {
  if (shape.size() != 2) throw InternalError("dot operand layout on a tile that is not 2-D");
  const ir::Layout& p = *l.parent;
  int64_t wm = p.warpsPerCta[0], wn = p.warpsPerCta[1];
  bool pairs = elementBits == 16, quads = elementBits == 8;
  Builder2D b(shape);
  if (l.opIdx == 0) {
    int64_t M = shape[0], K = shape[1];
    if (quads) {  // a0 (g, 4t..4t+3), a1 (g+8, ..), a2 (g, 4t+16..), a3 (g+8, 4t+16..)
      if (p.version != 2) throw InternalError("8-bit wgmma reads A from shared memory, not registers");
      b.reg(0, 1);
      b.reg(0, 2);
      b.reg(8, 0);
      b.reg(0, 16);
      b.regs(log2Of(std::max<int64_t>(1, K / 32)), 0, 32);
      b.lane(0, 4);
      b.lane(0, 8);
    } else if (pairs) {  // a0 (g, 2t..2t+1), a1 (g+8, ..), a2 (g, 2t+8..), a3 (g+8, 2t+8..)
      b.reg(0, 1);
      b.reg(8, 0);
      b.reg(0, 8);
      b.regs(log2Of(std::max<int64_t>(1, K / 16)), 0, 16);
      b.lane(0, 2);
      b.lane(0, 4);
    } else {  // tf32: a0 (g, t), a1 (g+8, t), a2 (g, t+4), a3 (g+8, t+4)
      b.reg(8, 0);
      b.reg(0, 4);
      b.regs(log2Of(std::max<int64_t>(1, K / 8)), 0, 8);
      b.lane(0, 1);
      b.lane(0, 2);
    }
    b.lane(1, 0);
    b.lane(2, 0);
    b.lane(4, 0);
    if (p.version == 2) {
      b.regs(log2Of(std::max<int64_t>(1, M / wm / 16)), 16, 0);
      b.warps(log2Of(wm), M / wm, 0);
      b.warps(log2Of(wn), 0, 0);
    } else {
      int64_t groupsM = wm / 4, rowsPerGroup = M / groupsM;
      b.regs(log2Of(std::max<int64_t>(1, rowsPerGroup / 64)), 64, 0);
      b.warps(2, 16, 0);
      b.warps(log2Of(groupsM), rowsPerGroup, 0);
      b.warps(log2Of(wn), 0, 0);
    }
  } else {
    if (p.version != 2) throw InternalError("wgmma reads B from shared memory, not registers");
    int64_t K = shape[0], N = shape[1];
    if (quads) {  // b0 (k 4t..4t+3, n g), b1 (k 4t+16.., n g)
      b.reg(1, 0);
      b.reg(2, 0);
      b.reg(16, 0);
      b.regs(log2Of(std::max<int64_t>(1, N / wn / 8)), 0, 8);
      b.regs(log2Of(std::max<int64_t>(1, K / 32)), 32, 0);
      b.lane(4, 0);
      b.lane(8, 0);
    } else if (pairs) {  // b0 (k 2t..2t+1, n g), b1 (k 2t+8.., n g)
      b.reg(1, 0);
      b.reg(8, 0);
      b.regs(log2Of(std::max<int64_t>(1, N / wn / 8)), 0, 8);
      b.regs(log2Of(std::max<int64_t>(1, K / 16)), 16, 0);
      b.lane(2, 0);
      b.lane(4, 0);
    } else {  // tf32: b0 (k t, n g), b1 (k t+4, n g)
      b.reg(4, 0);
      b.regs(log2Of(std::max<int64_t>(1, N / wn / 8)), 0, 8);
      b.regs(log2Of(std::max<int64_t>(1, K / 8)), 8, 0);
      b.lane(1, 0);
      b.lane(2, 0);
    }
    b.lane(0, 1);
    b.lane(0, 2);
    b.lane(0, 4);
    b.warps(log2Of(wm), 0, 0);
    b.warps(log2Of(wn), 0, N / wn);
  }
  return finish(std::move(b.ll));
}

// A 2-D layout with its dimensions swapped: (r, c) holds what (c, r) held.
LinearLayout swapped(LinearLayout ll) {
  for (auto* bases : {&ll.reg, &ll.lane, &ll.warp})
    for (Index& b : *bases) std::swap(b[0], b[1]);
  std::swap(ll.shape[0], ll.shape[1]);
  return ll;
}

// The layout of a transposed wgmma's value (mma<v=3, transposed=1> or its B
// operand) as the untransposed one of the swapped tile, swapped back: its
// accumulator is wgmma's for C^T (N x M), its B (K x N) wgmma's A (N x K).
LinearLayout transposedWgmma(const ir::Layout& l, const ir::Shape& shape, int elementBits) {
  if (shape.size() != 2) throw InternalError("mma layout on a tile that is not 2-D");
  ir::Shape flipped{shape[1], shape[0]};
  if (l.kind == ir::LayoutKind::Mma) {
    ir::Layout plain = l;
    plain.transposed = false;
    return swapped(mma(plain, flipped));
  }
  if (l.opIdx != 1) throw InternalError("a transposed wgmma reads A from shared memory, not registers");
  ir::Layout parent = *l.parent, operand = l;
  parent.transposed = false;
  operand.parent = &parent;
  operand.opIdx = 0;
  return swapped(dotOperand(operand, flipped, elementBits));
}

}  // namespace

Index LinearLayout::regIndex(size_t r) const {
  Index out(rank(), 0);
  for (size_t i = 0; i < reg.size(); ++i)
    if (r >> i & 1)
      for (size_t d = 0; d < rank(); ++d) out[d] ^= reg[i][d];
  return out;
}

Index LinearLayout::index(size_t r, unsigned laneId, unsigned warpId) const {
  Index out = regIndex(r);
  for (size_t j = 0; j < lane.size(); ++j)
    if (laneId >> j & 1)
      for (size_t d = 0; d < rank(); ++d) out[d] ^= lane[j][d];
  for (size_t k = 0; k < warp.size(); ++k)
    if (warpId >> k & 1)
      for (size_t d = 0; d < rank(); ++d) out[d] ^= warp[k][d];
  return out;
}

int64_t LinearLayout::regOf(const Index& idx) const {
  // Each register basis has its own bit along some dimension: peel them off.
  Index rest = idx;
  int64_t r = 0;
  for (size_t i = 0; i < reg.size(); ++i) {
    bool set = true;
    for (size_t d = 0; d < rank(); ++d)
      if (reg[i][d] && !(rest[d] & reg[i][d])) set = false;
    if (set) {
      r |= int64_t(1) << i;
      for (size_t d = 0; d < rank(); ++d) rest[d] ^= reg[i][d];
    }
  }
  return isZero(rest) ? r : -1;
}

int64_t LinearLayout::contiguousRegs(size_t dim) const {
  size_t k = 0;
  while (k < reg.size() && reg[k] == unit(rank(), dim, int64_t(1) << k)) ++k;
  return int64_t(1) << k;
}

unsigned LinearLayout::replicatedLaneMask() const {
  unsigned m = 0;
  for (size_t j = 0; j < lane.size(); ++j)
    if (isZero(lane[j])) m |= 1u << j;
  return m;
}

unsigned LinearLayout::replicatedWarpMask() const {
  unsigned m = 0;
  for (size_t k = 0; k < warp.size(); ++k)
    if (isZero(warp[k])) m |= 1u << k;
  return m;
}

std::string LinearLayout::toString() const {
  auto bases = [](const std::vector<Index>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) {
      s += i ? ", (" : "(";
      for (size_t d = 0; d < v[i].size(); ++d) s += (d ? "," : "") + std::to_string(v[i][d]);
      s += ")";
    }
    return s + "]";
  };
  return "reg=" + bases(reg) + " lane=" + bases(lane) + " warp=" + bases(warp);
}

LinearLayout toLinear(const ir::Layout* layout, const ir::Shape& shape, int elementBits) {
  if (!layout) throw InternalError("a tile without a layout reached the GPU lowering");
  for (int64_t d : shape)
    if (d < 1 || (d & (d - 1))) throw InternalError("linear layouts need power-of-two dimensions");
  if ((layout->kind == ir::LayoutKind::Mma && layout->transposed) ||
      (layout->kind == ir::LayoutKind::DotOperand && layout->parent && layout->parent->transposed))
    return transposedWgmma(*layout, shape, elementBits);
  switch (layout->kind) {
    case ir::LayoutKind::Blocked: return blocked(*layout, shape);
    case ir::LayoutKind::Mma: return mma(*layout, shape);
    case ir::LayoutKind::DotOperand: return dotOperand(*layout, shape, elementBits);
    case ir::LayoutKind::Slice: {
      // The parent on the tile with the sliced dimension put back (size 1),
      // then that dimension dropped: the threads along it hold copies.
      ir::Shape full = shape;
      full.insert(full.begin() + layout->dim, 1);
      LinearLayout p = toLinear(layout->parent, full, elementBits);
      LinearLayout out;
      out.shape = shape;
      auto drop = [&](const std::vector<Index>& from, std::vector<Index>& to) {
        for (const Index& b : from) {
          Index i = b;
          i.erase(i.begin() + layout->dim);
          to.push_back(i);
        }
      };
      drop(p.reg, out.reg);
      drop(p.lane, out.lane);
      drop(p.warp, out.warp);
      return finish(std::move(out));
    }
    case ir::LayoutKind::Shared: break;
  }
  throw InternalError("a shared layout has no registers");
}

std::vector<int> identityDims(size_t rank) {
  std::vector<int> v(rank);
  for (size_t d = 0; d < rank; ++d) v[d] = int(d);
  return v;
}

bool sameThreads(const LinearLayout& src, const LinearLayout& dst, const std::vector<int>& dstDimOf,
                 std::vector<int64_t>* srcReg) {
  auto toSrc = [&](const Index& di) {
    Index si(src.rank(), 0);
    for (size_t e = 0; e < src.rank(); ++e)
      if (dstDimOf[e] >= 0) si[e] = di[size_t(dstDimOf[e])];
    return si;
  };
  if (src.lane.size() != dst.lane.size() || src.warp.size() != dst.warp.size()) return false;
  for (size_t j = 0; j < dst.lane.size(); ++j)
    if (toSrc(dst.lane[j]) != src.lane[j]) return false;
  for (size_t k = 0; k < dst.warp.size(); ++k)
    if (toSrc(dst.warp[k]) != src.warp[k]) return false;
  std::vector<int64_t> map(dst.numRegs());
  for (size_t r = 0; r < dst.numRegs(); ++r) {
    map[r] = src.regOf(toSrc(dst.regIndex(r)));
    if (map[r] < 0) return false;
  }
  if (srcReg) *srcReg = std::move(map);
  return true;
}

}  // namespace tritonc::gpu
