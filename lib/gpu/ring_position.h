#pragma once
// A position in a ring of mbarrier stages: a slot (0 .. S-1) and the parity
// of the phase a wait on it expects, which flips each time the slot wraps.
#include <cstdint>
#include <utility>

#include "ir/builder.h"

namespace tritonc::gpu {

// The slot and phase k iterations after (slot, phase), 0 <= k < stages (so
// the slot wraps at most once), emitted at the builder's insert point; k = 0
// returns them as they are.
std::pair<ir::Value*, ir::Value*> ringPositionAfter(ir::Builder& b, ir::Value* slot, ir::Value* phase, int64_t k,
                                                    int64_t stages);

}  // namespace tritonc::gpu
