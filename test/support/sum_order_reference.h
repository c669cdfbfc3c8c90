// The float sum of `reduce add` as docs/IR.md defines it (ir/sum_order.h),
// computed the plain way for tests: `values` in the order of the axis,
// `add` the rounded addition of the element kind.
#pragma once
#include <algorithm>
#include <cstddef>
#include <vector>

#include "ir/sum_order.h"

namespace tritonc::test {

template <class T, class Add>
T referenceSum(const std::vector<T>& values, Add add) {
  const size_t m = std::min(values.size(), size_t(ir::kSumPartials));
  std::vector<T> partial(values.begin(), values.begin() + long(m));
  for (size_t i = m; i < values.size(); ++i) partial[i % m] = add(partial[i % m], values[i]);
  while (partial.size() > 1) {
    const size_t h = (partial.size() + 1) / 2;
    for (size_t l = 0; l + h < partial.size(); ++l) partial[l] = add(partial[l], partial[l + h]);
    partial.resize(h);
  }
  return partial[0];
}

}  // namespace tritonc::test
