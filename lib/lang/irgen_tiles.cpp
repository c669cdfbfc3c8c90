// IR generation of the tile operations beyond Triton (SPEC R27):
//   - element indexing `x[3]` and slicing `x[16:48]` (a power-of-two
//     length): an extract_slice (an index: of length 1, the axis dropped);
//   - sort(x[, descending]) and topk(x, K) / topk_indices(x, K) along the
//     last axis: the IR's sort and argsort (topk keeps the first K of a
//     descending sort).
// Slices move elements, never compute them: every value stays exactly as
// it was (-0.0, NaN payloads, pointers).

#include "lang/irgen.h"

namespace tritonc::lang {

using ir::Scalar;

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
  if (f == "topk") {
    ir::Value* r = b_.sort(ir::SortOrder::Descending, int(axis), sortable(x), false, k);
    return t.kind == Scalar::I1 ? b_.cast(r, r->type().withKind(Scalar::I1)) : r;
  }
  return b_.sort(ir::SortOrder::Descending, int(axis), sortable(x), true, k);
}

}  // namespace tritonc::lang
