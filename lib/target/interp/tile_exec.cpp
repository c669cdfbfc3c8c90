// Tile-shaped instructions: splat, broadcast, trans, range, dot, reduce.
#include <algorithm>
#include <limits>

#include "ir/sum_order.h"
#include "target/interp/executor.h"

namespace tritonc::interp::detail {

namespace {

// Row-major strides of `shape`.
std::vector<int64_t> stridesOf(const ir::Shape& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  return strides;
}

// Visits every element of `shape` in row-major order as f(outIndex,
// inIndex), where inIndex = sum over d of index[d] * inStrides[d].
template <class F>
void walk(const ir::Shape& shape, const std::vector<int64_t>& inStrides, F f) {
  const size_t rank = shape.size();
  if (rank == 0) {
    f(0, 0);
    return;
  }
  for (int64_t d : shape)
    if (d == 0) return;
  std::vector<int64_t> index(rank, 0);
  const int64_t inner = shape[rank - 1], innerStride = inStrides[rank - 1];
  int64_t outIndex = 0, base = 0;
  for (;;) {
    for (int64_t j = 0; j < inner; ++j) f(outIndex++, base + j * innerStride);
    size_t d = rank - 1;
    for (; d-- > 0;) {  // carry into the outer dimensions
      base += inStrides[d];
      if (++index[d] < shape[d]) break;
      base -= index[d] * inStrides[d];
      index[d] = 0;
    }
    if (d == size_t(-1)) return;
  }
}

}  // namespace

void Executor::execSplat(const Step& s) {
  Tile& r = out(s);
  std::fill(r.begin(), r.end(), in(s, 0)[0]);
}

void Executor::execBroadcast(const Step& s) {
  const Tile& a = in(s, 0);
  Tile& r = out(s);
  const ir::Shape& from = inType(s, 0).shape;
  const ir::Shape& to = s.inst->type().shape;
  if (from.empty()) {
    std::fill(r.begin(), r.end(), a[0]);
    return;
  }
  // A dimension of size 1 is replicated: stride 0 along it.
  std::vector<int64_t> strides = stridesOf(from);
  for (size_t d = 0; d < from.size(); ++d)
    if (from[d] == 1) strides[d] = 0;
  walk(to, strides, [&](int64_t o, int64_t i) { r[size_t(o)] = a[size_t(i)]; });
}

// Reverses the dimensions (for 2-D, the transpose): output index
// (j0, ..., jn-1) reads input index (jn-1, ..., j0).
void Executor::execTrans(const Step& s) {
  const Tile& a = in(s, 0);
  Tile& r = out(s);
  // Result dimension d walks the operand's dimension perm[d].
  const std::vector<int64_t> strides = stridesOf(inType(s, 0).shape);
  const std::vector<int> perm = ir::transPermutation(*s.inst);
  std::vector<int64_t> inStrides(perm.size());
  for (size_t d = 0; d < perm.size(); ++d) inStrides[d] = strides[size_t(perm[d])];
  walk(s.inst->type().shape, inStrides, [&](int64_t o, int64_t i) { r[size_t(o)] = a[size_t(i)]; });
}

void Executor::execExtractSlice(const Step& s) {
  const Tile& a = in(s, 0);
  Tile& r = out(s);
  const std::vector<int64_t> strides = stridesOf(inType(s, 0).shape);
  const int64_t first = s.inst->imm * strides[s.inst->sub];
  walk(s.inst->type().shape, strides, [&](int64_t o, int64_t i) { r[size_t(o)] = a[size_t(first + i)]; });
}

// r[..., i, ...] = a[..., index[..., i, ...], ...] along the axis; an index
// outside the axis is an error here (the compiled back ends clamp it).
void Executor::execGather(const Step& s) {
  const Tile& a = in(s, 0);
  const Tile& index = in(s, 1);
  Tile& r = out(s);
  const ir::Shape& from = inType(s, 0).shape;
  const ir::Shape& to = s.inst->type().shape;
  const size_t axis = s.inst->sub;
  const std::vector<int64_t> fromStrides = stridesOf(from);
  std::vector<int64_t> pos(to.size(), 0);
  for (size_t j = 0; j < r.size(); ++j) {
    const int64_t at = index[j].i;
    if (at < 0 || at >= from[axis])
      fail(s.inst, "gather index " + std::to_string(at) + " is outside the " + std::to_string(from[axis]) +
                       " elements of axis " + std::to_string(axis) + " in " + kernelText() + ": " + programText() +
                       elementText(to, int64_t(j)));
    int64_t src = 0;
    for (size_t d = 0; d < to.size(); ++d) src += (d == axis ? at : pos[d]) * fromStrides[d];
    r[j] = a[size_t(src)];
    for (size_t d = to.size(); d-- > 0;) {  // the next row-major position
      if (++pos[d] < to[d]) break;
      pos[d] = 0;
    }
  }
}

void Executor::execRange(const Step& s) {
  Tile& r = out(s);
  const ir::Scalar k = s.inst->type().kind;
  for (size_t j = 0; j < r.size(); ++j) r[j].i = wrapAdd(k, s.inst->imm, int64_t(j));
}

// r = acc + a @ b. The operands are converted to the result's element type
// T, then every product and every sum is rounded to T, and each r[i][j]
// accumulates in k order (i-k-j loops keep that order per element while
// walking rows contiguously).
void Executor::execDot(const Step& s) {
  const ir::Shape& as = inType(s, 0).shape;
  const size_t M = size_t(as[0]), K = size_t(as[1]), N = size_t(s.inst->type().shape[1]);
  Tile& r = out(s);
  std::copy(in(s, 2).begin(), in(s, 2).end(), r.begin());
  const ir::Scalar k = s.inst->type().kind;
  // Operand i with its elements converted to T (ints in .i, floats in .f).
  auto converted = [&](size_t i) {
    const Tile t = operandTile(s, i);
    const ir::Scalar from = inType(s, i).kind;
    Tile v(t.size());
    for (size_t j = 0; j < t.size(); ++j) {
      if (ir::isFloatKind(k))
        v[j].f = ir::isFloatKind(from) ? roundTo(k, t[j].f) : intToFloat(k, t[j].i);
      else
        v[j].i = ir::isFloatKind(from) ? floatToInt(k, t[j].f) : ir::wrapInt(k, t[j].i);
    }
    return v;
  };
  const Tile a = converted(0), b = converted(1);
  if (!ir::isFloatKind(k)) {
    for (size_t i = 0; i < M; ++i)
      for (size_t kk = 0; kk < K; ++kk) {
        const int64_t x = a[i * K + kk].i;
        for (size_t j = 0; j < N; ++j)
          r[i * N + j].i = wrapAdd(k, r[i * N + j].i, wrapMul(k, x, b[kk * N + j].i));
      }
    return;
  }
  withRounding(k, [&](auto round) {
    for (size_t i = 0; i < M; ++i) {
      Elem* row = r.data() + i * N;
      for (size_t kk = 0; kk < K; ++kk) {
        const double x = a[i * K + kk].f;
        const Elem* brow = b.data() + kk * N;
        for (size_t j = 0; j < N; ++j) row[j].f = round(row[j].f + round(x * brow[j].f));
      }
    }
  });
}

// Folds the axis: max, min and integer sums in index order, starting from
// the first element; float sums in the order of ir/sum_order.h (so a sum of
// -0.0s stays -0.0 either way). Shape [outer, n, inner] -> [outer, inner].
namespace {

struct AxisSplit {
  size_t outer, n, inner;  // elements before the axis, along it, after it
};
AxisSplit aroundAxis(const ir::Shape& shape, size_t axis) {
  AxisSplit a{1, size_t(shape[axis]), 1};
  for (size_t d = 0; d < axis; ++d) a.outer *= size_t(shape[d]);
  for (size_t d = axis + 1; d < shape.size(); ++d) a.inner *= size_t(shape[d]);
  return a;
}

// Calls use(combine, floatAdd) with the element combine of `kind` on
// elements of kind k (floatAdd: a float sum, which reductions order).
template <typename Use>
void withCombine(ir::Scalar k, ir::ReduceKind kind, Use use) {
  if (!ir::isFloatKind(k)) {
    switch (kind) {
      case ir::ReduceKind::Add: use([k](Elem x, Elem y) { return intElem(wrapAdd(k, x.i, y.i)); }, false); return;
      case ir::ReduceKind::Max: use([](Elem x, Elem y) { return intElem(std::max(x.i, y.i)); }, false); return;
      case ir::ReduceKind::Min: use([](Elem x, Elem y) { return intElem(std::min(x.i, y.i)); }, false); return;
      case ir::ReduceKind::UMax: use([k](Elem x, Elem y) { return intElem(unsignedMax(k, x.i, y.i)); }, false); return;
      case ir::ReduceKind::UMin: use([k](Elem x, Elem y) { return intElem(unsignedMin(k, x.i, y.i)); }, false); return;
      case ir::ReduceKind::Mul: use([k](Elem x, Elem y) { return intElem(wrapMul(k, x.i, y.i)); }, false); return;
      case ir::ReduceKind::MaxNum: case ir::ReduceKind::MinNum: break;  // floats only (verified)
    }
    return;
  }
  withRounding(k, [&](auto round) {
    switch (kind) {
      case ir::ReduceKind::Add: use([round](Elem x, Elem y) { return floatElem(round(x.f + y.f)); }, true); return;
      case ir::ReduceKind::Max: use([](Elem x, Elem y) { return floatElem(floatMax(x.f, y.f)); }, false); return;
      case ir::ReduceKind::Min: use([](Elem x, Elem y) { return floatElem(floatMin(x.f, y.f)); }, false); return;
      case ir::ReduceKind::MaxNum: use([](Elem x, Elem y) { return floatElem(floatMaxNum(x.f, y.f)); }, false); return;
      case ir::ReduceKind::MinNum: use([](Elem x, Elem y) { return floatElem(floatMinNum(x.f, y.f)); }, false); return;
      case ir::ReduceKind::Mul: use([round](Elem x, Elem y) { return floatElem(round(x.f * y.f)); }, false); return;
      case ir::ReduceKind::UMax: case ir::ReduceKind::UMin: break;  // integers only (verified)
    }
  });
}

}  // namespace

void Executor::execReduce(const Step& s) {
  const auto [outer, n, inner] = aroundAxis(inType(s, 0).shape, size_t(s.inst->imm));
  const Tile& a = in(s, 0);
  Tile& r = out(s);
  const ir::Scalar k = s.inst->type().kind;
  const auto kind = ir::ReduceKind(s.inst->sub);
  auto fold = [&](auto combine) {
    for (size_t o = 0; o < outer; ++o) {
      Elem* acc = r.data() + o * inner;
      const Elem* src = a.data() + o * n * inner;
      std::copy(src, src + inner, acc);
      for (size_t kk = 1; kk < n; ++kk)
        for (size_t q = 0; q < inner; ++q) acc[q] = combine(acc[q], src[kk * inner + q]);
    }
  };
  // Partial sums, then halving pairs (ir/sum_order.h).
  auto sumInParts = [&](auto combine) {
    const size_t m = std::min(n, size_t(ir::kSumPartials));
    std::vector<Elem> partial(m * inner);
    for (size_t o = 0; o < outer; ++o) {
      const Elem* src = a.data() + o * n * inner;
      std::copy(src, src + m * inner, partial.begin());
      for (size_t i = m; i < n; ++i)
        for (size_t q = 0; q < inner; ++q)
          partial[(i % m) * inner + q] = combine(partial[(i % m) * inner + q], src[i * inner + q]);
      for (size_t left = m; left > 1;) {
        const size_t h = (left + 1) / 2;
        for (size_t l = 0; l + h < left; ++l)
          for (size_t q = 0; q < inner; ++q)
            partial[l * inner + q] = combine(partial[l * inner + q], partial[(l + h) * inner + q]);
        left = h;
      }
      std::copy(partial.begin(), partial.begin() + long(inner), r.data() + o * inner);
    }
  };
  withCombine(k, kind, [&](auto combine, bool floatAdd) {
    if (floatAdd)
      sumInParts(combine);
    else
      fold(combine);
  });
}

// r[..., i, ...] = a[..., 0, ...] op ... op a[..., i, ...], in index order.
void Executor::execScan(const Step& s) {
  const auto [outer, n, inner] = aroundAxis(inType(s, 0).shape, size_t(s.inst->imm));
  const Tile& a = in(s, 0);
  Tile& r = out(s);
  std::copy(a.begin(), a.end(), r.begin());
  withCombine(s.inst->type().kind, ir::ReduceKind(s.inst->sub), [&](auto combine, bool) {
    for (size_t o = 0; o < outer; ++o)
      for (size_t i = 1; i < n; ++i)
        for (size_t q = 0; q < inner; ++q) {
          const size_t at = (o * n + i) * inner + q;
          r[at] = combine(r[at - inner], r[at]);
        }
  });
}

// scan_fn: element i along the axis is the combine function of element
// i - 1's result and the operands' element i, in index order (tuples: the
// function sees every element of both).
void Executor::execScanFn(const Step& s) {
  const auto [outer, n, inner] = aroundAxis(inType(s, 0).shape, size_t(s.inst->imm));
  const CombinerPlan& plan = combiners_.at(ir::combinerOf(*s.inst));
  const size_t k = s.operands.size();
  std::vector<Tile> acc;
  for (size_t j = 0; j < k; ++j) acc.push_back(in(s, j));
  std::vector<Elem> left(k), right(k);
  for (size_t o = 0; o < outer; ++o)
    for (size_t i = 1; i < n; ++i)
      for (size_t q = 0; q < inner; ++q) {
        const size_t at = (o * n + i) * inner + q;
        for (size_t j = 0; j < k; ++j) {
          left[j] = acc[j][at - inner];
          right[j] = acc[j][at];
        }
        combine(plan, left, right);
        for (size_t j = 0; j < k; ++j) acc[j][at] = frame_[size_t(plan.results[j])][0];
      }
  out(s) = std::move(acc[s.inst->sub]);
}

void Executor::combine(const CombinerPlan& plan, const std::vector<Elem>& left, const std::vector<Elem>& right) {
  for (size_t j = 0; j < left.size(); ++j) {
    frame_[size_t(plan.args[j])][0] = left[j];
    frame_[size_t(plan.args[left.size() + j])][0] = right[j];
  }
  for (const Step& step : plan.body) execute(step);
}

// reduce_fn: the combine function folds the tuples along the axis in index
// order (element 0, then 1, ...).
void Executor::execReduceFn(const Step& s) {
  const auto [outer, n, inner] = aroundAxis(inType(s, 0).shape, size_t(s.inst->imm));
  const CombinerPlan& plan = combiners_.at(ir::combinerOf(*s.inst));
  const size_t k = s.operands.size();
  Tile& r = out(s);
  std::vector<Elem> acc(k), x(k);
  for (size_t o = 0; o < outer; ++o)
    for (size_t q = 0; q < inner; ++q) {
      for (size_t j = 0; j < k; ++j) acc[j] = in(s, j)[o * n * inner + q];
      for (size_t i = 1; i < n; ++i) {
        for (size_t j = 0; j < k; ++j) x[j] = in(s, j)[(o * n + i) * inner + q];
        combine(plan, acc, x);
        for (size_t j = 0; j < k; ++j) acc[j] = frame_[size_t(plan.results[j])][0];
      }
      r[o * inner + q] = acc[s.inst->sub];
    }
}

// histogram: r[b] = how many elements (under the mask) equal b; values
// outside the bins (negative ones too: integers read signed) count nowhere.
void Executor::execHistogram(const Step& s) {
  const Tile& a = in(s, 0);
  Tile& r = out(s);
  const int64_t bins = int64_t(r.size());
  std::fill(r.begin(), r.end(), intElem(0));
  for (size_t i = 0; i < a.size(); ++i) {
    if (s.operands.size() == 2 && !in(s, 1)[i].i) continue;
    const int64_t v = a[i].i;
    if (v >= 0 && v < bins) r[size_t(v)].i += 1;
  }
}

// sort: r = a sorted along the axis, floats by totalOrder (their bits as a
// signed integer with the magnitude flipped below zero: the GPU's and the
// CPU back end's key); argsort: the positions they come from, equal
// elements in the order of their positions (a stable sort). The result
// keeps the first `keep` along the axis (its length there).
void Executor::execSort(const Step& s) {
  const auto [outer, n, inner] = aroundAxis(inType(s, 0).shape, size_t(s.inst->imm));
  const size_t keep = size_t(s.inst->type().shape[size_t(s.inst->imm)]);
  const Tile& a = in(s, 0);
  Tile& r = out(s);
  const bool isFloat = ir::isFloatKind(inType(s, 0).kind);
  const bool descending = ir::SortOrder(s.inst->sub) == ir::SortOrder::Descending;
  const bool indices = s.inst->opcode() == ir::Opcode::ArgSort;
  auto key = [&](size_t at) {
    const int64_t b = a[at].i;
    return isFloat ? b ^ ((b >> 63) & std::numeric_limits<int64_t>::max()) : b;
  };
  std::vector<size_t> order(n);
  for (size_t o = 0; o < outer; ++o)
    for (size_t q = 0; q < inner; ++q) {
      auto at = [&](size_t i) { return (o * n + i) * inner + q; };
      for (size_t i = 0; i < n; ++i) order[i] = i;
      std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
        return descending ? key(at(y)) < key(at(x)) : key(at(x)) < key(at(y));
      });
      for (size_t i = 0; i < keep; ++i)
        r[(o * keep + i) * inner + q] = indices ? intElem(int64_t(order[i])) : a[at(order[i])];
    }
}

}  // namespace tritonc::interp::detail
