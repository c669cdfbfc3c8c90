#include "target/nvptx/layout.h"

#include <algorithm>

namespace tritonc::nvptx {

int64_t BlockedLayout::elementsPerThread(const ir::Shape& s, size_t d) const {
  int64_t tile = ctaTile(d);
  int64_t reps = std::max<int64_t>(1, s[d] / tile);
  return std::min(sizePerThread[d], s[d]) * reps;
}

std::string BlockedLayout::toString() const {
  auto list = [](const auto& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
  };
  return "#blocked<spt=" + list(sizePerThread) + ", tpw=" + list(threadsPerWarp) + ", wpc=" + list(warpsPerCTA) +
         ", order=" + list(order) + ">";
}

BlockedLayout makeBlockedLayout(const ir::Shape& shape, int numWarps, std::vector<int> order, int64_t vector) {
  size_t r = shape.size();
  BlockedLayout l;
  l.sizePerThread.assign(r, 1);
  l.threadsPerWarp.assign(r, 1);
  l.warpsPerCTA.assign(r, 1);
  l.order = std::move(order);
  // Per-thread vector along the fastest dimension.
  int fast = l.order[0];
  l.sizePerThread[fast] = std::max<int64_t>(1, std::min(vector, shape[fast]));
  // Lanes: fastest dimensions first, as far as the shape has room; leftover
  // lanes replicate along the fastest dimension.
  int64_t lanes = 32;
  for (int d : l.order) {
    int64_t room = std::max<int64_t>(1, shape[d] / l.sizePerThread[d]);
    int64_t t = std::min(lanes, room);
    l.threadsPerWarp[d] = t;
    lanes /= t;
  }
  l.threadsPerWarp[fast] *= lanes;
  // Warps: slowest dimensions first, as far as the shape has room.
  int64_t warps = numWarps;
  for (auto it = l.order.rbegin(); it != l.order.rend(); ++it) {
    int d = *it;
    int64_t room = std::max<int64_t>(1, shape[d] / (l.sizePerThread[d] * l.threadsPerWarp[d]));
    int64_t w = std::min(warps, room);
    l.warpsPerCTA[d] = w;
    warps /= w;
  }
  l.warpsPerCTA[l.order.back()] *= warps;
  return l;
}

}  // namespace tritonc::nvptx
