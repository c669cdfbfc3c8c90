// Stores through a read-only parameter. A kernel may load through a
// `__readonly` pointer and then store through it (softmax in place): the
// promise is broken, so it is dropped — the parameter's `readonly` attribute
// is cleared, and every back end treats the buffer as written — and the
// author is warned, once per parameter, at the first such store.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "ir/ir.h"
#include "support/diagnostic.h"

namespace tritonc::lang {

// How a parameter was declared read-only: the qualifier as written
// ("__readonly", "read_only", "const", "readonly" in IR text) and where.
struct ReadonlyOrigin {
  std::string qualifier;
  SourceLoc loc;
};

// Clears `readonly` on every parameter of `f` that a store or an atomic
// writes through (through any chain of pointer arithmetic, broadcasts,
// selects and phis), and returns one warning per such parameter, at its first
// store in block order. `origins` names the qualifiers (a parameter missing
// from it is described by the IR attribute). Constant tables are left alone:
// the interpreter still refuses to write them.
std::vector<Warning> dropBrokenReadonly(ir::Function& f, const std::map<const ir::Argument*, ReadonlyOrigin>& origins);

}  // namespace tritonc::lang
