// The order in which `reduce add` sums floats, which fixes its rounding: the
// same on every back end that computes exactly (the interpreter, the CPU)
// and on every host, whatever its vector width.
//
// The n elements along the axis go into m = min(n, kSumPartials) partial
// sums, partial l holding elements l, l + m, l + 2m, ... added in index
// order (starting from element l itself); then the partials are added
// pairwise, halving: with h = ceil(m / 2), partial l += partial l + h for
// l < m - h, then m = h, until one is left. Two elements: a0 + a1; four:
// (a0 + a2) + (a1 + a3). The partials are independent chains, so compiled
// code adds them in vector registers instead of one element at a time.
// Integer sums wrap, and max/min are exact, so their order does not matter.
#pragma once
#include <cstdint>

namespace tritonc::ir {

constexpr int64_t kSumPartials = 32;

}  // namespace tritonc::ir
