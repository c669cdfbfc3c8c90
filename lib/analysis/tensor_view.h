// Tensor views of masked pointer tiles: whether a 2-D tile of pointers and
// its mask read a box of a row-major tensor that the host can describe
// (base pointer and leading stride among the kernel's arguments, extents
// among its arguments or constants), so that a tensor-memory-accelerator
// copy (TMA, sm_90) can replace the per-thread copies: element (i, j) of the
// tile is base[(row + i) * ld + (col + j)], and the mask is exactly
// "row + i < rows && col + j < cols" (lower bounds at 0 are implied; TMA
// fills what lies outside with zeros) and scalar predicates.
//
// Integer and pointer values are written as polynomials over atoms: SSA
// scalars that are not sums or products of others, the tile's element
// indices along each dimension, and the iteration count of one loop
// (inductions: phis that advance by a loop-invariant step). The
// coordinates of element (0, 0) are such polynomials; a pass materializes
// them where the copy is issued.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "ir/dominators.h"
#include "ir/ir.h"

namespace tritonc::analysis {

// An atom of a polynomial: an SSA scalar, or one of the markers below.
using Atom = const void*;
Atom indexAtom(int dim);  // the element index along dimension `dim` (0 or 1)
Atom iterationAtom();     // the iteration count of the view's loop

struct Poly {
  std::map<std::vector<Atom>, int64_t> terms;  // sorted atoms -> coefficient (never 0)
  static Poly constant(int64_t c);
  static Poly atom(Atom a);
  Poly operator+(const Poly& o) const;
  Poly operator-(const Poly& o) const;
  Poly operator*(const Poly& o) const;
  bool contains(Atom a) const;
  bool isConstant() const;
  int64_t constantTerm() const;
  bool operator==(const Poly& o) const { return terms == o.terms; }
};

struct TensorView {
  const ir::Argument* base = nullptr;  // the tensor's pointer
  const ir::Argument* ld = nullptr;    // elements between rows
  int fastDim = 1;                     // the tile dimension along the rows (contiguous)
  Poly row, col;                       // coordinates of element (0, 0): outer dimension, fast one
  // Extents (rows, cols): an i32 argument or a constant (kUnbounded: no mask on it).
  const ir::Value* rowsArg = nullptr;
  const ir::Value* colsArg = nullptr;
  int64_t rowsConst = 0, colsConst = 0;
  std::vector<ir::Value*> predicates;        // scalar i1 conjuncts of the mask
  std::vector<ir::Value*> guards;            // those splat as iteration guards (ir::kSplatIterationGuard)
  const ir::BasicBlock* loopHeader = nullptr;  // whose iterations iterationAtom() counts
};
constexpr int64_t kUnbounded = 2147483647;

// The view of `ptr` (a 2-D tile of pointers) under `mask` (i1 of its shape,
// or null), or nothing with the reason in `whyNot`.
std::optional<TensorView> tensorView(const ir::Value* ptr, const ir::Value* mask, const ir::DominatorTree& dom,
                                     std::string* whyNot);

}  // namespace tritonc::analysis
