// The machine-independent passes, one per file. Each returns whether it
// changed the function; each leaves the IR valid (the pass manager checks).
#pragma once
#include "ir/ir.h"

namespace tritonc::transform {

// Dead-code elimination: removes instructions whose results are unused and
// that have no side effects (including cycles of phis), and unreachable blocks.
bool runDeadCodeElimination(ir::Function& f);

// Merges a block into its only predecessor where that predecessor ends in
// an unconditional branch to it (an inlined function's return block); its
// phis become their one incoming value.
bool runMergeBlocks(ir::Function& f);

// Constant folding of scalar instructions with constant operands and of
// element-wise instructions on splatted constants; a conditional branch on a
// constant becomes a branch.
bool runConstantFolding(ir::Function& f);

// Common sub-expression elimination over the dominator tree. Side-effecting
// instructions (stores, atomics) and loads are never merged.
bool runCommonSubexpressionElimination(ir::Function& f);

// Loop-invariant code motion: moves pure instructions whose operands are
// defined outside a loop into its pre-header. Loads (and integer divisions,
// which can fault) move only when they run on every entry into the loop and
// the loop has no store or atomic.
bool runLoopInvariantCodeMotion(ir::Function& f);

// Tile peephole rules: trans(trans(x)) = x, broadcast/reshape of a splat is a
// splat, chains of reshapes, x + 0, x - 0, x * 1, masks that are all true,
// selects on constant conditions, casts and broadcasts to the same type,
// phis whose incoming values are all one value, and
// c + dot(a, b, 0) = dot(a, b, c) (the sum's rounding order changes).
bool runPeephole(ir::Function& f);

// Pointer tiles a loop advances by a uniform step (a splatted scalar), built
// from a splatted scalar pointer by geps, broadcasts and reshapes, become a
// scalar pointer phi and that chain rebuilt from it in the loop: the loop
// carries one pointer, and keeps the (invariant) offsets instead of a tile
// of pointers. Addresses do not change.
bool runRebasePointerPhis(ir::Function& f);

// Pre-fetching of loads in loops (paper Listing 7): a load executed on every
// iteration whose address depends only on the loop's phis and invariants is
// issued `distance` iterations ahead, at the top of its block, masked by the
// loop conditions up to that iteration (the first `distance` iterations' loads
// go in the pre-header), and carried by a chain of `distance` phis.
// With `asyncCopies` (a back end that copies 4 to 16 bytes asynchronously
// into shared memory, the GPU), tile loads whose accesses are narrower than
// 4 bytes (rows only 2-byte aligned), which no such copy can make, are
// fetched only one iteration ahead: they wait in registers, and each
// iteration ahead costs a tile of them. (Wider loads keep the full distance;
// the GPU pipeliner makes those that a dot reads copies.) There, a loop
// whose header's cond_br carries its own num_stages N (ir/loop_hints.h) is
// fetched N - 1 iterations ahead instead (N = 1: not at all).
bool runPrefetch(ir::Function& f, int distance = 1, bool asyncCopies = false);

}  // namespace tritonc::transform
