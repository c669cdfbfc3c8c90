// Copies between two 2-D strided places whose consecutive elements run
// along different dimensions (a load of a column-major block into a
// row-major tile, a transposed store): B x B blocks, each read as B vectors
// along the source's consecutive dimension, transposed in registers (log2 B
// rounds of two-vector shuffles), and written as B vectors along the
// destination's. Element by element, one side would be a gather or a
// scatter.
#include "target/cpu/lowering.h"

namespace tritonc::cpu::detail {

namespace {

// The dimensions of `shape` larger than 1.
std::vector<size_t> realDims(const ir::Shape& shape) {
  std::vector<size_t> dims;
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] > 1) dims.push_back(d);
  return dims;
}

// Lanes of the two-vector shuffle that pairs blocks of `s` lanes of x and y:
// `high` picks the second block of each pair of blocks.
llvm::SmallVector<int, 64> interleaveMask(int64_t lanes, int64_t s, bool high) {
  llvm::SmallVector<int, 64> mask;
  for (int64_t i = 0; i < lanes; ++i) {
    const int64_t block = i / (2 * s), within = i % (2 * s);
    const int64_t from = block * 2 * s + (high ? s : 0) + within % s;
    mask.push_back(int(within < s ? from : lanes + from));
  }
  return mask;
}

}  // namespace

bool Lowering::blockTransposeCopy(ir::Scalar k, const ir::Shape& shape, llvm::Value* dstBase, const Strides& dst,
                                  llvm::Value* srcBase, const Strides& src) {
  const int bytes = ir::byteSize(k);
  if (k == ir::Scalar::I1 || bytes < 2) return false;
  const std::vector<size_t> dims = realDims(shape);
  if (dims.size() != 2) return false;
  // a: the destination's consecutive dimension; b: the source's.
  size_t a, b;
  if (dst[dims[0]].is(1) && src[dims[1]].is(1)) a = dims[0], b = dims[1];
  else if (dst[dims[1]].is(1) && src[dims[0]].is(1)) a = dims[1], b = dims[0];
  else return false;
  const int64_t lanes = std::min<int64_t>({vectorBits_ / (8 * bytes), shape[a], shape[b]});
  if (lanes < 4 || shape[a] % lanes || shape[b] % lanes) return false;
  llvm::Type* elem = storageType(k);
  llvm::Type* vec = llvm::FixedVectorType::get(elem, unsigned(lanes));
  const llvm::Align align{uint64_t(bytes)};
  loop(shape[a] / lanes, [&](llvm::Value* i) {
    loop(shape[b] / lanes, [&](llvm::Value* j) {
      llvm::Value* ia = b_.CreateMul(i, i64(lanes));
      llvm::Value* jb = b_.CreateMul(j, i64(lanes));
      // Row r: the source's elements (ia + r, jb ...) along b.
      llvm::Value* srcOrigin = b_.CreateAdd(scaled(ia, src[a]), jb);
      std::vector<llvm::Value*> rows;
      for (int64_t r = 0; r < lanes; ++r) {
        llvm::Value* at = b_.CreateAdd(srcOrigin, scaled(i64(r), src[a]));
        rows.push_back(b_.CreateAlignedLoad(vec, b_.CreateGEP(elem, srcBase, at), align));
      }
      for (int64_t s = 1; s < lanes; s *= 2) {
        std::vector<llvm::Value*> next(rows.size());
        for (int64_t r = 0; r < lanes; ++r) {
          if (r & s) continue;
          next[size_t(r)] = b_.CreateShuffleVector(rows[size_t(r)], rows[size_t(r + s)], interleaveMask(lanes, s, false));
          next[size_t(r + s)] = b_.CreateShuffleVector(rows[size_t(r)], rows[size_t(r + s)], interleaveMask(lanes, s, true));
        }
        rows = next;
      }
      // Now rows[c] holds (ia ..., jb + c): consecutive along a.
      llvm::Value* dstOrigin = b_.CreateAdd(ia, scaled(jb, dst[b]));
      for (int64_t c = 0; c < lanes; ++c) {
        llvm::Value* at = b_.CreateAdd(dstOrigin, scaled(i64(c), dst[b]));
        b_.CreateAlignedStore(rows[size_t(c)], b_.CreateGEP(elem, dstBase, at), align);
      }
    });
  });
  return true;
}

}  // namespace tritonc::cpu::detail
