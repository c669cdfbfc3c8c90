// How much device memory a copy of a buffer gets. A kernel that reads a
// little past the end of a buffer (a matmul that loads B without a column
// mask reads up to TN - 1 elements past the last row) runs under PyTorch,
// whose caching allocator hands out blocks carved from larger segments; the
// tuner's copies must fault no more than the caller's own buffers would, so
// they are sized like the segment PyTorch would allocate for that request
// alone (c10/cuda/CUDACachingAllocator.cpp, get_allocation_size):
//   requests up to 1 MiB (kSmallSize)      -> a 2 MiB segment (kSmallBuffer)
//   requests under 10 MiB (kMinLargeAlloc) -> a 20 MiB segment (kLargeBuffer)
//   larger requests                        -> rounded up to 2 MiB (kRoundLarge)
// (Blocks inside a segment are rounded up to 512 bytes, kMinBlockSize; the
// memory after a block is the rest of its segment, readable.) The slack is
// zero-filled, so what a kernel reads there is the same on every run.
#pragma once
#include <cstddef>

namespace tritonc::nvptx {

constexpr size_t kAllocatorSmallRequest = size_t(1) << 20;
constexpr size_t kAllocatorSmallSegment = size_t(2) << 20;
constexpr size_t kAllocatorMinLargeRequest = size_t(10) << 20;
constexpr size_t kAllocatorLargeSegment = size_t(20) << 20;
constexpr size_t kAllocatorLargeRounding = size_t(2) << 20;

// The bytes to allocate for a copy of a `bytes`-byte buffer (at least `bytes`).
size_t allocationWithSlack(size_t bytes);

}  // namespace tritonc::nvptx
