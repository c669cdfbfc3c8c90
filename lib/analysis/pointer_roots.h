#pragma once
// The kernel arguments a pointer (or a tile of pointers) is computed from:
// through geps, splats, broadcasts, reshapes, phis, selects and any other
// instruction, by their pointer operands. A pointer with any other origin
// (loaded from memory, cast from an integer, returned by inline assembly, a
// constant) has no known roots. Passes use it as Triton does: memory reached
// from distinct pointer arguments is taken not to overlap.
#include <set>

#include "ir/ir.h"

namespace tritonc::analysis {

// Adds p's roots to `roots`; false where some origin is not an argument.
bool pointerRoots(const ir::Value* p, std::set<const ir::Argument*>* roots);

}  // namespace tritonc::analysis
