// Layouts of the GPU IR (docs/GPU_IR.md): which thread holds which element
// of a tile (distributed layouts: blocked, slice, mma, dot_operand), or how a
// buffer in shared memory is laid out (shared). A GPU IR tile type carries
// one: `f16<128, 64, #blocked0>`. Layouts are interned by the module, so two
// types have the same layout exactly when their pointers are equal.
//
// Text forms (the module prints each used layout once, as `#name = ...`):
//   blocked<spt=[1, 8], tpw=[4, 8], wpc=[4, 1], order=[1, 0]>
//   slice<dim=1, parent=#blocked0>
//   mma<v=2, wpc=[2, 2]>          mma.sync m16n8 accumulators, warps along M and N
//   mma<v=3, wpc=[8, 1]>          wgmma m64nNk16 accumulators (4 warps per 64 rows)
//   mma<v=3, wpc=[4, 1], transposed=1>  the accumulators of C^T = B^T A^T: element
//                                 (m, n) where wgmma's N x M accumulator has (n, m)
//   dot_operand<op=0, parent=#mma0>   the registers of operand A (0) or B (1) of an mma
//   shared<order=[1, 0], pad=8>       rows along order[0], padded by `pad` elements
//   shared<order=[1, 0], swizzle=128> blocks of `swizzle` bytes along order[0], swizzled
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tritonc::ir {

enum class LayoutKind : uint8_t { Blocked, Slice, Mma, DotOperand, Shared };

struct Layout {
  LayoutKind kind = LayoutKind::Blocked;
  // Blocked: per dimension, the elements a thread holds contiguously, the
  // threads of a warp and the warps of a program; mma: warpsPerCta is the
  // warps along M and N. Blocked and shared: `order` lists the dimensions
  // from the fastest-varying (contiguous) to the slowest.
  std::vector<int64_t> sizePerThread, threadsPerWarp, warpsPerCta;
  std::vector<int> order;
  int dim = 0;                     // slice: the dimension the parent has and this lacks
  const Layout* parent = nullptr;  // slice, dot_operand
  int version = 0;                 // mma: 2 (mma.sync) or 3 (wgmma)
  // mma v3: the tensor cores compute the transposed product (C^T = B^T A^T:
  // B from registers as wgmma's A, A's buffer as its B); wpc is over (N, M).
  bool transposed = false;
  int opIdx = 0;                   // dot_operand: 0 (A) or 1 (B)
  int64_t pad = 0;                 // shared: elements of padding after each row
  int64_t swizzle = 0;             // shared: swizzle block in bytes (32, 64, 128); 0: none

  bool isShared() const { return kind == LayoutKind::Shared; }
  bool isDistributed() const { return kind != LayoutKind::Shared; }
  // The text form, with the parent (if any) written as `parentName`.
  std::string body(const std::string& parentName) const;
  // The text form with parents written out in full: equal keys, equal layouts.
  std::string key() const;
  // "blocked", "slice", "mma", "dot", "shared": the stem of printed names.
  const char* stem() const;
  // Problems with the parameters ("" when none): lengths, powers of two.
  std::string check() const;
};

const char* layoutKindName(LayoutKind k);  // as written in the text: blocked, slice, ...

}  // namespace tritonc::ir
