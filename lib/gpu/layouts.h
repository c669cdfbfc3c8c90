// Making layouts of the GPU IR (interned in the module) and the relations
// between them that the passes and the lowering share: the coalesced blocked
// layout of a tile, slices, transposition, the layouts of dot results and
// operands, and which element changes keep each element in its thread.
#pragma once
#include <vector>

#include "gpu/linear_layout.h"
#include "ir/ir.h"

namespace tritonc::gpu {

// A blocked layout for a tile of `shape` with `numWarps` warps, contiguous
// along order[0] with up to `vector` elements per thread there: lanes go
// along the fastest dimensions, warps along the slowest, as far as the
// shape has room; what is left over replicates.
const ir::Layout* blockedLayout(ir::Module& m, const ir::Shape& shape, int numWarps, std::vector<int> order,
                                int64_t vector);
// Threads along the last dimension, one element each: for tiles no access fixes.
const ir::Layout* defaultLayout(ir::Module& m, const ir::Shape& shape, int numWarps);
const ir::Layout* sliceLayout(ir::Module& m, int dim, const ir::Layout* parent);
// (transposed: wgmma computes C^T, warps along N then M; ir/layout.h.)
const ir::Layout* mmaLayout(ir::Module& m, int version, int64_t warpsM, int64_t warpsN, bool transposed = false);
const ir::Layout* dotOperandLayout(ir::Module& m, int opIdx, const ir::Layout* mma);
// Rows along order[0] padded by `pad` elements, or in swizzled blocks of
// `swizzle` bytes (the layouts wgmma's descriptors read).
const ir::Layout* sharedLayout(ir::Module& m, std::vector<int> order, int64_t pad, int64_t swizzle);

// The layout of a trans with permutation `perm` of x in `l`: each thread
// keeps its elements (blocked, any rank), or the same bytes are seen with
// the dimensions swapped (shared, 2-D). Null for other layouts (the
// transposition then moves data). transposedLayout: the 2-D swap.
const ir::Layout* permutedLayout(ir::Module& m, const ir::Layout* l, const std::vector<int>& perm);
const ir::Layout* transposedLayout(ir::Module& m, const ir::Layout* l);

// For a reshape, the layout the operand needs so that every thread keeps
// its elements, given the result's; or the result's given the operand's:
// for dimensions of size 1 added or removed, the slice or its parent (or
// one unsqueezed blocked dimension); for elements regrouped (join then
// reshape), the blocked layout with those elements in each thread. Null
// when there is none.
const ir::Layout* reshapeOperandLayout(ir::Module& m, const ir::Shape& from, const ir::Shape& to,
                                       const ir::Layout* result);
const ir::Layout* reshapeResultLayout(ir::Module& m, const ir::Shape& from, const ir::Shape& to,
                                      const ir::Layout* operand);

// For each operand dimension, the result dimension it equals (-1: it reads
// index 0) when `inst` (broadcast, reshape of unit dimensions, trans,
// convert_layout) is seen as an index map from result to operand; empty when
// it is not one (a reshape that regroups elements).
std::vector<int> operandDimsOf(const ir::Instruction& inst);

// For an extract_slice of `operand` (with its layout) to `result` (with
// its): whether each thread holds the result's elements in its registers
// already (srcReg: the operand's register of each result register).
bool sliceKeepsElementsInThreads(const ir::Type& operand, const ir::Type& result, size_t axis, int64_t offset,
                                 std::vector<int64_t>* srcReg = nullptr);

// For a reshape of `operand` to `result` (each with its layout): whether
// each thread holds its result elements already (adding or dropping
// dimensions of size 1, or regrouping elements row-major).
bool reshapeKeepsElementsInThreads(const ir::Type& operand, const ir::Type& result,
                                   std::vector<int64_t>* srcReg = nullptr);

// Whether `inst` (one of the above) leaves every element in its thread, so
// that it only renames registers; then `srcReg` gives, per result register,
// the operand register.
bool keepsElementsInThreads(const ir::Instruction& inst, std::vector<int64_t>* srcReg = nullptr);

// Whether the lowering makes `u` by renaming its operand's registers (a
// view in the same threads): its readers read the operand's registers
// (what an in-place asynchronous wgmma may be writing).
bool sharesOperandRegisters(const ir::Instruction& u);

// The linear form of a value's layout (its type's shape and element width).
LinearLayout linearOf(const ir::Type& t);

// The dimension along which the lanes of a warp first advance (what
// coalescing is about), or -1 when every lane holds the same elements.
int laneFastDim(const LinearLayout& ll);

}  // namespace tritonc::gpu
