// Layouts (hierarchical tiling, paper 5.2.1): which thread holds which
// elements of a tile. A blocked layout splits each dimension into
// sizePerThread x threadsPerWarp x warpsPerCTA; `order` lists the dimensions
// from the fastest-varying (contiguous) to the slowest. Shapes larger than the
// layout's CTA tile wrap around (a thread holds several repetitions); smaller
// ones are replicated (several threads hold the same element).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ir/type.h"

namespace tritonc::nvptx {

struct BlockedLayout {
  std::vector<int64_t> sizePerThread, threadsPerWarp, warpsPerCTA;
  std::vector<int> order;  // fastest dimension first

  // Elements per thread along `d`, counting wrap-around repetitions.
  int64_t elementsPerThread(const ir::Shape& s, size_t d) const;
  // The CTA tile along `d`: what one step of all threads covers.
  int64_t ctaTile(size_t d) const { return sizePerThread[d] * threadsPerWarp[d] * warpsPerCTA[d]; }
  std::string toString() const;  // #blocked<spt=[1, 4], tpw=[4, 8], wpc=[4, 1], order=[1, 0]>
  bool operator==(const BlockedLayout& o) const {
    return sizePerThread == o.sizePerThread && threadsPerWarp == o.threadsPerWarp &&
           warpsPerCTA == o.warpsPerCTA && order == o.order;
  }
};

// The layout for a tile of `shape` with `numWarps` warps, contiguous along
// `order[0]`, with up to `vector` contiguous elements per thread there.
BlockedLayout makeBlockedLayout(const ir::Shape& shape, int numWarps, std::vector<int> order, int64_t vector);

}  // namespace tritonc::nvptx
