// The shared memory an instruction needs only while it runs (its scratch),
// shared by the allocation pass (which places it) and the PTX lowering
// (which uses it): layout changes that move elements between threads go
// through shared memory, and so do the cross-warp steps of reductions and
// the old value of a scalar atomic (computed by one thread, read by all).
#pragma once
#include <cstdint>
#include <vector>

#include "ir/ir.h"

namespace tritonc::gpu {

struct ScratchUse {
  int64_t bytes = 0;
  // Layout changes: the operand is stored row-major (its shape) with rows of
  // `pitch` elements (padded against bank conflicts when read across rows).
  int64_t pitch = 0;
};

// What `inst` needs (bytes 0: none). Layouts must be assigned.
ScratchUse scratchOf(const ir::Instruction& inst);

// Reductions: the element type partial results are combined in and handed
// between warps as (f32 for f16/bf16, i32 for i8/i16: the registers they
// live in, so that each warp's slot is a whole aligned word), and how many
// warps hold partial results along the axis.
ir::Scalar reduceCombineKind(ir::Scalar k);
int64_t reduceWarpSlots(const ir::Instruction& reduce);

// How a scan runs (layouts assigned): each thread scans its runs of
// `runLength` consecutive elements along the axis in its registers (the
// longest its layout gives every run); the runs' totals, one per run of
// each row (every combination of the other dimensions: `perRow` runs of
// a row), go through the scratch, where they are scanned per row; each run
// then combines the total of the runs before it.
struct ScanPlan {
  int64_t n = 1;          // along the axis
  int64_t runLength = 1;
  int64_t perRow = 1;     // n / runLength
  int64_t runs = 1;       // of the tile
  ir::Scalar kind = ir::Scalar::F32;  // the combine kind (scan)
  // One total per run, per element of the tuple (scan_fn: each in its
  // own kind, from its section's byte offset, sections 16-byte aligned).
  std::vector<int64_t> sections;
  int64_t bytes = 0;
};
ScanPlan scanPlan(const ir::Instruction& scan);

// A reduce_fn's scratch across warps: per element of its tuple, a section
// of the warps' partials (slots x result elements, in the element's
// type), 16-byte aligned; the byte offsets of the sections, then the
// total. Empty where the warps need not meet.
std::vector<int64_t> reduceFnSections(const ir::Instruction& reduce);

// How a sort runs: the tile's elements, as keys (integers that order as the
// elements do: 32 bits for elements of up to 32, else 64), go to the
// scratch, row-major with the axis last (`rows` rows of n); each thread
// takes `chunk` consecutive keys of a row (`chunks` of them, whole rows,
// when it has more than a row) and sorts them in its registers; bitonic
// merges then pair each thread with another of its row (through shuffles
// within a warp, through the scratch across warps), each keeping the
// lower or upper halves of their pairs, and sort their chunks' halves in
// registers. A tile smaller than the program's threads leaves `active`
// threads sorting: the others repeat what one of them does without
// storing. The scratch has 16 padding bytes after every 128 (no bank
// conflicts when the threads' chunks are read as 16-byte vectors).
// A result that keeps the first `keep` < n (a top-k; `partial`, where
// `keep` keys fit in 64 registers and are at most twice the keys each
// thread holds) takes chunks of at least `keep`: each
// thread keeps the first `keep` of its sorted chunk, and the threads of a
// row halve their lists pairwise (the first `keep` of two sorted lists:
// the elementwise minimum of one and the other reversed, a bitonic
// sequence, then sorted), O(n log^2 keep) work where the sort is O(n log^2 n).
struct SortPlan {
  int64_t n = 1;         // along the axis
  int64_t keep = 1;      // of the result along the axis
  bool partial = false;
  int64_t rows = 1;      // elements of the other dimensions
  int64_t threads = 32;  // of the program
  int64_t chunk = 1;     // consecutive keys a thread sorts in registers
  int64_t perRow = 1;    // threads sorting one row: n / chunk
  int64_t chunks = 1;    // per thread (more than 1: whole rows)
  int64_t active = 32;   // threads that hold chunks
  ir::Scalar key = ir::Scalar::I32;  // I32 or I64
  int64_t bytes = 0;     // the keys, padded
};
SortPlan sortPlan(const ir::Instruction& sort);
// The byte offset of the key at byte `unpadded` in the padded scratch.
inline int64_t sortPadded(int64_t unpadded) { return unpadded + unpadded / 128 * 16; }

}  // namespace tritonc::gpu
