#include "target/nvptx/allocation_slack.h"

namespace tritonc::nvptx {

size_t allocationWithSlack(size_t bytes) {
  if (bytes <= kAllocatorSmallRequest) return kAllocatorSmallSegment;
  if (bytes < kAllocatorMinLargeRequest) return kAllocatorLargeSegment;
  size_t rounded = (bytes + kAllocatorLargeRounding - 1) / kAllocatorLargeRounding * kAllocatorLargeRounding;
  return rounded < bytes ? bytes : rounded;  // (no wrap-around for absurd sizes)
}

}  // namespace tritonc::nvptx
