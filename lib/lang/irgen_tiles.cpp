// IR generation: the tile algorithms Triton-IR has no single op for (SPEC
// R27), built from reshapes, extract_slice and element-wise operations, as
// the Python DSL's standard library builds them:
//   - element indexing `x[3]` and slicing `x[16:48]` (a power-of-two
//     length): an extract_slice (an index: of length 1, the axis dropped);
//   - sort(x[, descending]) and topk(x, K) / topk_indices(x, K) along the
//     last axis: the IR's sort and argsort (topk: the first K of a
//     descending sort); topk_indices of 64-bit elements, which argsort does
//     not take, a bitonic network of compare-and-swap rounds on the
//     (blocks, 2, s) view of the axis, O(n log^2 n) element operations.
// Slices move elements, never compute them: every value stays exactly as
// it was (-0.0, NaN payloads, pointers).

#include "lang/irgen.h"

namespace tritonc::lang {

using ir::Opcode;
using ir::Scalar;

// An i1 tile of `shape`, true where the index along `axis` is `k`.
ir::Value* IRGen::lanesEqual(const ir::Shape& shape, size_t axis, int64_t k) {
  const int64_t n = shape[axis];
  ir::Value* lanes = b_.range(0, n);
  ir::Value* hit = b_.cmp(ir::CmpPred::Eq, lanes, b_.splat(b_.i32(int32_t(k)), {n}));
  ir::Shape one(shape.size(), 1);
  one[axis] = n;
  if (one != hit->type().shape) hit = b_.reshape(hit, one);
  return one == shape ? hit : b_.broadcast(hit, shape);
}

ir::Value* IRGen::dropUnitAxis(ir::Value* v, size_t axis) {
  const ir::Type t = v->type();
  ir::Shape out = t.shape;
  out.erase(out.begin() + long(axis));
  if (!out.empty()) return b_.reshape(v, out);
  // A scalar: the reduction of the one element (pointers through i64,
  // booleans through i8, which reductions take).
  if (t.isPtr()) {
    ir::Value* bits = b_.reduce(ir::ReduceKind::Add, 0, b_.cast(v, ir::Type::scalar(Scalar::I64).withShape(t.shape)));
    return b_.cast(bits, ir::Type::pointer(t.pointee));
  }
  if (t.kind == Scalar::I1)
    return b_.cast(b_.reduce(ir::ReduceKind::Add, 0, b_.cast(v, t.withKind(Scalar::I8))), ir::Type::scalar(Scalar::I1));
  return b_.reduce(ir::ReduceKind::Add, 0, v);
}

ir::Value* IRGen::indexAxis(ir::Value* v, size_t axis, int64_t i) {
  // The element's slice, of length 1, without its axis.
  return dropUnitAxis(v->type().shape[axis] == 1 ? v : b_.extractSlice(v, axis, i, 1), axis);
}

ir::Value* IRGen::sliceAxis(ir::Value* v, size_t axis, int64_t start, int64_t length) {
  if (start == 0 && length == v->type().shape[axis]) return v;
  return b_.extractSlice(v, axis, start, length);
}

// The lower and upper halves of the blocks of 2s elements along `axis`.
std::pair<ir::Value*, ir::Value*> IRGen::halves(ir::Value* x, size_t axis, int64_t s, ir::Shape* viewShape) {
  const ir::Shape& shape = x->type().shape;
  ir::Shape view(shape.begin(), shape.begin() + long(axis));
  view.push_back(shape[axis] / (2 * s));
  view.push_back(2);
  view.push_back(s);
  view.insert(view.end(), shape.begin() + long(axis) + 1, shape.end());
  ir::Value* y = b_.reshape(x, view);
  *viewShape = view;
  return {indexAxis(y, axis + 1, 0), indexAxis(y, axis + 1, 1)};
}

// The inverse of halves: lower halves `lo`, upper halves `hi`, as `out`.
ir::Value* IRGen::joinHalves(ir::Value* lo, ir::Value* hi, size_t axis, const ir::Shape& view, const ir::Shape& out) {
  ir::Shape expanded = lo->type().shape;
  expanded.insert(expanded.begin() + long(axis) + 1, 1);
  ir::Value* upper = lanesEqual(view, axis + 1, 1);
  ir::Value* joined = b_.select(upper, b_.broadcast(b_.reshape(hi, expanded), view),
                                b_.broadcast(b_.reshape(lo, expanded), view));
  return b_.reshape(joined, out);
}

std::vector<ir::Value*> IRGen::bitonicSort(std::vector<ir::Value*> keys, size_t axis, bool descending) {
  const ir::Shape shape = keys[0]->type().shape;
  const int64_t n = shape[axis];
  for (int64_t size = 2; size <= n; size *= 2) {
    for (int64_t stride = size / 2; stride >= 1; stride /= 2) {
      std::vector<std::pair<ir::Value*, ir::Value*>> parts;
      ir::Shape view;
      for (ir::Value* k : keys) parts.push_back(halves(k, axis, stride, &view));
      ir::Value* lo0 = parts[0].first;
      ir::Value* hi0 = parts[0].second;
      const ir::Shape& half = lo0->type().shape;
      // Block b holds positions b * 2 * stride + j: a round sorts it up where bit `size` of that is 0.
      const int64_t blocks = n / (2 * stride);
      ir::Value* first = b_.binary(Opcode::Mul, b_.range(0, blocks), b_.splat(b_.i32(int32_t(2 * stride)), {blocks}));
      ir::Value* bit = b_.binary(Opcode::And, first, b_.splat(b_.i32(int32_t(size)), {blocks}));
      ir::Value* down = b_.cmp(descending ? ir::CmpPred::Eq : ir::CmpPred::Ne, bit, b_.splat(b_.i32(0), {blocks}));
      ir::Shape bshape(half.size(), 1);
      bshape[axis] = blocks;
      if (bshape != down->type().shape) down = b_.reshape(down, bshape);
      if (bshape != half) down = b_.broadcast(down, half);
      ir::Value* outOfOrder = b_.cmp(ir::CmpPred::Gt, lo0, hi0);
      // Equal keys never swap: the order of equal elements is kept within a pair.
      ir::Value* swap = b_.binary(Opcode::And, b_.binary(Opcode::Xor, outOfOrder, down),
                                  b_.cmp(ir::CmpPred::Ne, lo0, hi0));
      for (size_t k = 0; k < keys.size(); ++k) {
        auto [lo, hi] = parts[k];
        keys[k] = joinHalves(b_.select(swap, hi, lo), b_.select(swap, lo, hi), axis, view, shape);
      }
    }
  }
  return keys;
}

// sort(x[, descending]), topk(x, K), topk_indices(x, K): along the last axis.
ir::Value* IRGen::tileAlgorithm(const Expr& e) {
  const std::string& f = e.op;
  const bool sort = f == "sort";
  if (e.args.size() != (sort ? 1u : 2u) && !(sort && e.args.size() == 2))
    throw UserError(e.loc, "'" + f + "' takes " + (sort ? "1 or 2 arguments (x, descending)" : "2 arguments (x, K)") +
                               ", " + std::to_string(e.args.size()) + " given");
  ir::Value* x = expr(*e.args[0]);
  b_.setLoc(e.loc);
  const ir::Type& t = x->type();
  if (!t.isTile() || t.isPtr())
    throw UserError(leftmost(*e.args[0]), "'" + f + "' takes a tile of numbers, not " + typeName(t));
  const size_t axis = t.shape.size() - 1;
  const int64_t n = t.shape[axis];
  // Booleans sort as bytes.
  auto sortable = [&](ir::Value* v) { return t.kind == Scalar::I1 ? b_.cast(v, t.withKind(Scalar::I8)) : v; };
  if (sort) {
    bool descending = e.args.size() == 2 && requireConst(*e.args[1], "the 'descending' flag of sort") != 0;
    b_.setLoc(e.loc);
    ir::Value* r = b_.sort(descending ? ir::SortOrder::Descending : ir::SortOrder::Ascending, int(axis), sortable(x));
    return t.kind == Scalar::I1 ? b_.cast(r, t) : r;
  }
  const int64_t k = requireConst(*e.args[1], ("K of " + f).c_str());
  if (k <= 0 || k > n || (k & (k - 1)))
    throw UserError(e.args[1]->loc, "K of " + f + " must be a power of two between 1 and " + std::to_string(n) +
                                        " (the last dimension), not " + std::to_string(k));
  b_.setLoc(e.loc);
  ir::Value* r = nullptr;
  if (f == "topk") {
    r = b_.sort(ir::SortOrder::Descending, int(axis), sortable(x));
    if (t.kind == Scalar::I1) r = b_.cast(r, t);
  } else if (ir::byteSize(t.kind) <= 4) {
    r = b_.sort(ir::SortOrder::Descending, int(axis), sortable(x), /*indices=*/true);
  }
  if (r) return k < n ? sliceAxis(r, axis, 0, k) : r;
  ir::Shape lanes(t.shape.size(), 1);
  lanes[axis] = n;
  ir::Value* index = b_.range(0, n);
  if (lanes != index->type().shape) index = b_.reshape(index, lanes);
  if (lanes != t.shape) index = b_.broadcast(index, t.shape);
  r = bitonicSort({x, index}, axis, /*descending=*/true)[1];
  return k < n ? sliceAxis(r, axis, 0, k) : r;
}

}  // namespace tritonc::lang
