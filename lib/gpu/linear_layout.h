// A distributed layout made concrete for one tile shape: the element held in
// register r of lane l of warp w has, along each dimension, the index
//     XOR of reg[i] over the set bits i of r, lane[j] over those of l, warp[k] over those of w.
// Every layout of the GPU IR (blocked, slice, mma, dot_operand) on a tile of
// power-of-two dimensions is such a map (Triton calls them linear layouts).
// From it follow which elements a thread holds (its registers), which
// threads hold copies of the same element (zero bases), how many registers
// are contiguous in memory (vector widths), whether a change of layout moves
// data between threads (conversions), and which lanes and warps a reduction
// must combine. In all our layouts each basis has one nonzero component, a
// power of two, and the bases of one dimension are distinct, so XOR is a sum.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ir/layout.h"
#include "ir/type.h"

namespace tritonc::gpu {

using Index = std::vector<int64_t>;  // one entry per dimension

struct LinearLayout {
  ir::Shape shape;
  std::vector<Index> reg, lane, warp;  // bases

  size_t rank() const { return shape.size(); }
  size_t numRegs() const { return size_t(1) << reg.size(); }
  // The part of an element's index that comes from its register number.
  Index regIndex(size_t r) const;
  Index index(size_t r, unsigned laneId, unsigned warpId) const;
  // The register holding the element whose register part is `idx`, or -1.
  int64_t regOf(const Index& idx) const;
  // How many registers from 0 are consecutive along `dim` (1, 2, 4, ...).
  int64_t contiguousRegs(size_t dim) const;
  // Lanes (bits) and warps (bits) that hold copies of the same elements.
  unsigned replicatedLaneMask() const;
  unsigned replicatedWarpMask() const;
  // Same shape and same map (bases compared in order).
  bool operator==(const LinearLayout& o) const {
    return shape == o.shape && reg == o.reg && lane == o.lane && warp == o.warp;
  }
  std::string toString() const;
};

// The linear form of a distributed layout on a tile of `shape` whose
// elements have `elementBits` bits (dot operands pack 16-bit elements in
// pairs). Throws InternalError for shared layouts or shapes it cannot hold.
LinearLayout toLinear(const ir::Layout* layout, const ir::Shape& shape, int elementBits = 32);

// Whether each thread already holds, in `src`, every element it holds in
// `dst`, where dst's element i is src's element f(i) for an index map that
// permutes dimensions or reads 0 along some: f(i)[e] = i[dstDimOf[e]], or 0
// when dstDimOf[e] is -1 (a broadcast dimension, or one a reshape adds).
// When it holds, `srcReg` (if given) receives, per dst register, the src
// register with that element: the operation is a renaming of registers.
bool sameThreads(const LinearLayout& src, const LinearLayout& dst, const std::vector<int>& dstDimOf,
                 std::vector<int64_t>* srcReg = nullptr);

// The identity map for sameThreads between two layouts of one shape.
std::vector<int> identityDims(size_t rank);

}  // namespace tritonc::gpu
