// Pre-fetching (paper 5.1.1, Listing 7), `distance` iterations ahead. For a loop
//     header: %p = phi [%p0, pre], [%p1, latch]  ...  cond_br %c, body, exit
//     body:   %x = load %p ...
// the first `distance` iterations' loads are issued in the pre-header, and
// each iteration issues the load of the iteration `distance` ahead at the top
// of the load's block, before the current iteration's compute. A chain of
// header phis carries the tiles in flight; with distance 1:
//     pre:    %x0 = load %p0, c(first) ...
//     header: %x = phi [%x0, pre], [%x1, latch]
//     body:   %x1 = load %p1, c(next) ...
// and with distance 2, %x = phi [%x0, pre], [%y, latch] and
// %y = phi [%x1', pre], [%x2, latch]. Each pre-fetch is masked by the loop
// conditions of the iterations up to the one it belongs to, recomputed from
// the header's phis, so it never reads what the original program would not.
#include <algorithm>
#include <map>
#include <memory>
#include <set>

#include "analysis/axis_info.h"
#include "analysis/pointer_roots.h"
#include "ir/builder.h"
#include "ir/loop_hints.h"
#include "transform/loops.h"
#include "transform/passes.h"

namespace tritonc::transform {

namespace {

using ir::Opcode;

constexpr size_t kMaxClonedChain = 256;

// Which successor of the header's cond_br stays in the loop (-1: unsuitable).
int continueEdge(const Loop& loop) {
  ir::Instruction* t = loop.header->terminator();
  if (!t || t->opcode() != Opcode::CondBr) return -1;
  bool in0 = loop.contains(t->blocks[0]), in1 = loop.contains(t->blocks[1]);
  if (in0 == in1) return -1;
  return in0 ? 0 : 1;
}

// Integer divisions are pure too: by zero they give -1 and the dividend
// (docs/IR.md), so a pre-fetch that divides where the program would not (a
// loop that runs no iteration) needs no guard.
bool pure(const ir::Instruction& i) {
  return !i.hasSideEffects() && i.opcode() != Opcode::Load && i.opcode() != Opcode::Phi &&
         i.opcode() != Opcode::MultipleOf;
}

// Recomputes values of the loop for other iterations. valueAt(v, k) is `v` as
// it is on iteration base + k, where the base is the first iteration (at the
// end of the pre-header, `at` null) or the current one (at the top of `at`, a
// block of the loop). A header phi on iteration k > 0 is its latch value on
// iteration k - 1; on the base iteration it is its pre-header value (or
// itself); values defined outside the loop are used as they are; pure
// instructions of the loop are cloned at the builder's position.
class IterationCloner {
 public:
  IterationCloner(const Loop& loop, ir::Builder& b, const ir::DominatorTree* dom = nullptr, ir::BasicBlock* at = nullptr)
      : loop_(loop), b_(b), dom_(dom), at_(at) {}

  // Whether valueAt(v, k) exists (no loads or side effects on the way).
  bool clonable(ir::Value* v, int k, size_t& budget) const {
    if (!loop_.definedInside(v)) return true;
    auto* i = static_cast<ir::Instruction*>(v);
    if (i->opcode() == Opcode::Phi) {
      if (i->parent != loop_.header) return false;
      return k == 0 || clonable(incoming(i, loop_.latch), k - 1, budget);
    }
    if (k == 0 && available(i)) return true;
    if (!pure(*i) || budget-- == 0) return false;
    for (ir::Value* op : i->operands())
      if (!clonable(op, k, budget)) return false;
    return true;
  }

  ir::Value* valueAt(ir::Value* v, int k) {
    if (!loop_.definedInside(v)) return v;
    auto it = memo_.find({v, k});
    if (it != memo_.end()) return it->second;
    auto* i = static_cast<ir::Instruction*>(v);
    ir::Value* out;
    if (i->opcode() == Opcode::Phi) {
      out = k > 0 ? valueAt(incoming(i, loop_.latch), k - 1) : at_ ? i : incoming(i, loop_.preheader);
    } else if (k == 0 && available(i)) {
      out = i;
    } else {
      std::vector<ir::Value*> ops;
      for (ir::Value* op : i->operands()) ops.push_back(valueAt(op, k));
      b_.setLoc(i->loc);
      ir::Instruction* c = b_.create(i->opcode(), i->type(), ops);
      c->sub = i->sub;
      c->imm = i->imm;
      c->text = i->text;
      c->setName(i->name());
      out = c;
    }
    memo_[{v, k}] = out;
    return out;
  }

 private:
  static ir::Value* incoming(ir::Instruction* phi, ir::BasicBlock* from) {
    for (size_t k = 0; k < phi->blocks.size(); ++k)
      if (phi->blocks[k] == from) return phi->operand(k);
    throw InternalError("loop header phi without an incoming value from " + from->name());
  }
  // Usable as it is at the top of `at_` on the current iteration: defined in
  // a block that dominates `at_` (not `at_` itself: we are at its top).
  bool available(ir::Instruction* i) const {
    return at_ && i->parent != at_ && dom_->dominates(i->parent, at_);
  }

  const Loop& loop_;
  ir::Builder& b_;
  const ir::DominatorTree* dom_;
  ir::BasicBlock* at_;
  std::map<std::pair<ir::Value*, int>, ir::Value*> memo_;
};

// Where one block's pre-fetches go: at its top, after the ones already there.
struct BlockPrefetcher {
  ir::Builder builder;
  IterationCloner cloner;
  BlockPrefetcher(ir::Module& m, const Loop& loop, const ir::DominatorTree& dom, ir::BasicBlock* bb, size_t top)
      : builder(m), cloner(loop, builder, &dom, bb) {
    builder.setInsertPoint(bb, top);
  }
};

// The loop condition of iterations first..last (relative to the cloner's
// base) all holding: the mask of a pre-fetch for iteration `last`.
ir::Value* conditionsHold(const Loop& loop, IterationCloner& cl, ir::Builder& b, int first, int last, int contEdge) {
  ir::Value* all = nullptr;
  for (int k = first; k <= last; ++k) {
    ir::Value* c = cl.valueAt(loop.header->terminator()->operand(0), k);
    if (contEdge == 1) c = b.cmp(ir::CmpPred::Eq, c, b.boolean(false));
    all = all ? b.binary(Opcode::And, all, c) : c;
  }
  return all;
}

// The load `l` as it runs on iteration k of the cloner, masked by `cond`.
ir::Value* emitPrefetch(ir::Instruction* l, IterationCloner& cl, ir::Builder& b, int k, ir::Value* cond) {
  ir::Value* ptr = cl.valueAt(l->operand(0), k);
  b.setLoc(l->loc);
  const ir::Type& t = l->type();
  ir::Value* mask = cond;
  if (t.isTile()) {
    mask = b.splat(cond, t.shape);
    static_cast<ir::Instruction*>(mask)->sub = ir::kSplatIterationGuard;  // false: iteration k never runs
  }
  ir::Value* other;
  if (l->numOperands() == 3) {
    mask = b.binary(Opcode::And, cl.valueAt(l->operand(1), k), mask);
    other = cl.valueAt(l->operand(2), k);
  } else {
    other = b.constant(t, 0);
  }
  b.setLoc(l->loc);
  ir::Value* x = b.load(ptr, mask, other);
  x->setName(l->name().empty() ? "prefetch" : l->name() + ".next");
  return x;
}

// How `load`'s tile reaches an operand of a dot: through conversions,
// reshapes, transpositions and selects (Direct); or through element-wise
// arithmetic as well (Computed: weights widened and scaled before the dot,
// as a quantized matmul's); not at all. Only those can become asynchronous
// copies into shared memory; the others wait in registers.
enum class DotUse { None, Direct, Computed };

DotUse feedsDot(const ir::Instruction& load) {
  std::vector<std::pair<const ir::Value*, bool>> work{{&load, false}};  // (value, through arithmetic)
  DotUse found = DotUse::None;
  for (size_t n = 0; n < work.size() && n < 64; ++n) {
    auto [v, computed] = work[n];
    for (const ir::Instruction* u : v->users()) {
      const ir::OpCategory c = ir::opcodeCategory(u->opcode());
      switch (u->opcode()) {
        case Opcode::Dot:
          if (u->operand(0) == v || u->operand(1) == v) {
            if (!computed) return DotUse::Direct;
            found = DotUse::Computed;
          }
          break;
        case Opcode::Cast: case Opcode::Reshape: case Opcode::Trans: case Opcode::Select:
          work.push_back({u, computed});
          break;
        case Opcode::UCast: case Opcode::Bitcast: case Opcode::Fma: case Opcode::Broadcast:
          work.push_back({u, true});
          break;
        default:
          if (c == ir::OpCategory::Binary || c == ir::OpCategory::Unary) work.push_back({u, true});
          break;
      }
    }
  }
  return found;
}

// A vector read beside a dot's tiles (an attention backward's row
// statistics, lse and delta, per query block), not as an address (a
// convolution's table of offsets): on the GPU it runs as far ahead as the
// loop's tiles, and gpu-pipeline copies it into a ring of its own beside
// theirs (Triton does the same), so it no longer waits at its first use.
bool smallValueVector(const ir::Instruction& load) {
  const ir::Type& t = load.type();
  if (!t.isTile() || t.shape.size() != 1 || t.numElements() > 256 || t.kind == ir::Scalar::Ptr) return false;
  // Read as an address: it reaches a gep through arithmetic, casts and shapes.
  std::vector<const ir::Value*> work{&load};
  for (size_t n = 0; n < work.size(); ++n)
    for (const ir::Instruction* u : work[n]->users()) {
      if (u->opcode() == Opcode::Gep) return false;
      const ir::OpCategory c = ir::opcodeCategory(u->opcode());
      const bool passes = c == ir::OpCategory::Binary || c == ir::OpCategory::Unary || u->opcode() == Opcode::Cast ||
                          u->opcode() == Opcode::Broadcast || u->opcode() == Opcode::Reshape ||
                          u->opcode() == Opcode::Select;
      if (passes && work.size() < 64) work.push_back(u);
    }
  return true;
}

// Whether the GPU can copy `load` (a dot's) asynchronously: in vectors of
// 4 bytes or more.
bool copiesAsync(const ir::Instruction& load, const analysis::AxisInfoAnalysis& axis) {
  size_t dim = 0;
  int64_t vec = axis.vectorWidth(load.operand(0), 16, &dim);
  if (load.numOperands() >= 2) vec = std::min(vec, axis.get(load.operand(1)).constancy[dim]);
  return vec * ir::byteSize(load.type().kind) >= 4;
}

// How far ahead `load` is fetched, 0 for not at all. For the GPU (`axis`
// given): `distance` for a load that can become an asynchronous copy (it
// feeds a dot, copiesAsync), one iteration for a dot's load that will wait
// in registers (see runPrefetch), `vectorDistance` for a small vector
// (smallValueVector: as far as the loop's copied tiles, none without
// them), and none for other loads that feed no dot: as in Triton, a loop
// that only streams memory is left to the warps in flight; a tile held in
// registers across iterations costs them (layer norm at N = 1024 and 8192
// on the H100: 10% slower).
int distanceOf(const ir::Instruction& load, int distance, const analysis::AxisInfoAnalysis* axis, int vectorDistance) {
  if (!axis) return distance;
  const ir::Type& t = load.type();
  if (!t.isTile()) return 0;
  const DotUse use = feedsDot(load);
  if (use == DotUse::None) return smallValueVector(load) ? vectorDistance : 0;
  // A tile computed on before its dot goes ahead only where its stages are
  // small enough to be staged in shared memory beside the operands (then
  // gpu-pipeline copies its bytes into a ring); a large one left in
  // registers `distance` iterations deep would spill.
  constexpr int64_t kComputedBytes = 64 * 1024;
  if (use == DotUse::Computed &&
      t.numElements() * ir::byteSize(t.kind) * (distance + 1) > kComputedBytes)
    return 0;
  return distance <= 1 || copiesAsync(load, *axis) ? distance : 1;
}

// The pointer arguments a loop writes through (stores, atomics), or false
// where a write's pointer has another origin: then nothing is pre-fetched.
bool writtenRoots(const Loop& loop, std::set<const ir::Argument*>* roots) {
  for (ir::BasicBlock* bb : loop.blocks)
    for (auto& i : bb->instructions()) {
      const Opcode op = i->opcode();
      if (op != Opcode::Store && op != Opcode::AtomicRmw && op != Opcode::AtomicCas) continue;
      if (!analysis::pointerRoots(i->operand(0), roots)) return false;
    }
  return true;
}

// Whether a load may move ahead of the loop's writes: its pointer comes
// from arguments the loop does not write through. As Triton's pipeliner
// does, distinct pointer arguments are taken not to overlap (an attention
// backward that adds dq with atomics while it loads q and do); a loop that
// writes through an argument it reads from keeps its loads in place.
bool clearOfWrites(const ir::Instruction& load, const std::set<const ir::Argument*>& written) {
  if (written.empty()) return true;
  std::set<const ir::Argument*> read;
  if (!analysis::pointerRoots(load.operand(0), &read)) return false;
  for (const ir::Argument* a : read)
    if (written.count(a)) return false;
  return true;
}

// Replaced loads are detached into `graveyard`, not destroyed, until the
// pass ends: the axis facts are keyed by address, and a new instruction at a
// freed load's address would read its facts.
bool runOnLoop(ir::Function& f, const Loop& loop, const ir::DominatorTree& dom, int distance,
               const analysis::AxisInfoAnalysis* axis, std::vector<std::unique_ptr<ir::Instruction>>& graveyard) {
  std::set<const ir::Argument*> written;
  if (!loop.preheader || !loop.latch || !writtenRoots(loop, &written)) return false;
  int contEdge = continueEdge(loop);
  if (contEdge < 0) return false;
  // The header's condition must be the only way out: with a `break`, the next
  // iteration may not run even when the condition holds.
  std::vector<ir::BasicBlock*> exiting = loop.exitingBlocks();
  if (exiting.size() != 1 || exiting[0] != loop.header) return false;
  for (auto& inst : loop.header->instructions())
    if (inst->opcode() != Opcode::Phi && !inst->isTerminator() && !pure(*inst)) return false;
  ir::Value* loopCond = loop.header->terminator()->operand(0);
  ir::Builder probe(*f.parent());
  IterationCloner firstCheck(loop, probe);
  size_t budget = kMaxClonedChain;
  for (int k = 0; k <= distance; ++k)
    if (!firstCheck.clonable(loopCond, k, budget)) return false;

  // How far the vectors go: as far as the tiles the GPU copies (none
  // where it copies none: rings to join, gpu-pipeline.cpp).
  int vectorDistance = 0;
  for (ir::BasicBlock* bb : loop.blocks)
    for (auto& i : bb->instructions())
      if (axis && i->opcode() == Opcode::Load && i->type().isTile() && feedsDot(*i) == DotUse::Direct &&
          clearOfWrites(*i, written) &&
          copiesAsync(*i, *axis))
        vectorDistance = distance;
  std::vector<ir::Instruction*> loads;
  std::vector<int> dist;  // per load
  for (ir::BasicBlock* bb : loop.blocksInOrder) {  // in function order, for a stable result
    if (bb == loop.header || !dom.dominates(bb, loop.latch)) continue;  // must run on every iteration
    IterationCloner aheadCheck(loop, probe, &dom, bb);
    for (auto& inst : bb->instructions()) {
      // (a volatile load reads memory other programs write: every time, never ahead)
      if (inst->opcode() != Opcode::Load || inst->hasSideEffects() || !clearOfWrites(*inst, written)) continue;
      size_t b2 = kMaxClonedChain;
      int d = distanceOf(*inst, distance, axis, vectorDistance);
      if (d == 0) continue;
      // Clonable for the first iterations (pre-header) and for the one
      // `d` ahead, recomputed at the top of the load's block.
      bool ok = aheadCheck.clonable(loopCond, d, b2);
      for (ir::Value* op : inst->operands()) {
        for (int k = 0; k < d; ++k) ok = ok && firstCheck.clonable(op, k, b2);
        ok = ok && aheadCheck.clonable(op, d, b2);
      }
      // Loop-invariant loads are LICM's business, not ours.
      bool variant = false;
      for (ir::Value* op : inst->operands()) variant = variant || loop.definedInside(op);
      if (ok && variant) {
        loads.push_back(inst.get());
        dist.push_back(d);
      }
    }
  }
  if (loads.empty()) return false;

  // The first iterations' loads, iteration by iteration (so that a back end
  // sees the tiles of one iteration together), at the end of the pre-header.
  ir::Builder pre(*f.parent());
  pre.setInsertPoint(loop.preheader, loop.preheader->instructions().size() - 1);
  IterationCloner first(loop, pre);
  std::vector<std::vector<ir::Value*>> early(loads.size());
  ir::Value* cond = nullptr;
  int most = *std::max_element(dist.begin(), dist.end());
  for (int k = 0; k < most; ++k) {
    ir::Value* ck = conditionsHold(loop, first, pre, k, k, contEdge);
    cond = cond ? pre.binary(Opcode::And, cond, ck) : ck;
    for (size_t n = 0; n < loads.size(); ++n)
      if (k < dist[n]) early[n].push_back(emitPrefetch(loads[n], first, pre, k, cond));
  }
  // The loads d iterations ahead, at the top of each load's block.
  std::map<ir::BasicBlock*, std::unique_ptr<BlockPrefetcher>> blocks;
  std::map<std::pair<ir::BasicBlock*, int>, ir::Value*> aheadConds;
  std::vector<ir::Value*> ahead;
  for (size_t n = 0; n < loads.size(); ++n) {
    ir::Instruction* l = loads[n];
    auto& bp = blocks[l->parent];
    if (!bp) {
      bp = std::make_unique<BlockPrefetcher>(*f.parent(), loop, dom, l->parent, l->parent->firstNonPhi());
    }
    ir::Value*& c = aheadConds[{l->parent, dist[n]}];
    if (!c) c = conditionsHold(loop, bp->cloner, bp->builder, 1, dist[n], contEdge);
    ahead.push_back(emitPrefetch(l, bp->cloner, bp->builder, dist[n], c));
  }
  // The chain of phis: the one for ahead step j takes the next step's value.
  ir::Builder hb(*f.parent());
  size_t headerPos = 0;
  for (size_t n = 0; n < loads.size(); ++n) {
    ir::Instruction* l = loads[n];
    std::vector<ir::Instruction*> chain;
    hb.setLoc(l->loc);
    const int distance = dist[n];
    for (int j = 0; j < distance; ++j) {
      hb.setInsertPoint(loop.header, headerPos++);
      ir::Instruction* phi = hb.phi(l->type());
      phi->setName(j == 0 ? l->name() : l->name() + ".ahead");
      chain.push_back(phi);
    }
    for (int j = 0; j < distance; ++j)
      for (ir::BasicBlock* p : loop.headerPredecessors) {
        ir::Value* in = p == loop.preheader ? early[n][size_t(j)] : j + 1 < distance ? chain[size_t(j + 1)] : ahead[n];
        chain[size_t(j)]->addOperand(in);
        chain[size_t(j)]->blocks.push_back(p);
      }
    l->replaceAllUsesWith(chain[0]);
    graveyard.push_back(l->parent->detach(l));
    graveyard.back()->dropAllOperands();
  }
  return true;
}

}  // namespace

bool runPrefetch(ir::Function& f, int distance, bool asyncCopies) {
  // On the GPU a loop may ask for its own depth (tl.range's num_stages:
  // ir/loop_hints.h), whatever the kernel's.
  bool hinted = false;
  if (distance < 1 && asyncCopies)  // (only then: no scan in the common case)
    for (auto& bb : f.blocks()) hinted = hinted || ir::loopStagesOf(*bb) > 0;
  if (distance < 1 && !hinted) return false;
  bool changed = false;
  // The pass adds no blocks, so the loops found up front stay valid. The
  // axis facts of the loads (their vectors) do not change either.
  ir::DominatorTree dom(f);
  std::unique_ptr<analysis::AxisInfoAnalysis> axis;
  if (asyncCopies) axis = std::make_unique<analysis::AxisInfoAnalysis>(f);
  std::vector<std::unique_ptr<ir::Instruction>> graveyard;
  for (const Loop& loop : findLoops(f, dom)) {
    const int own = asyncCopies ? ir::loopStagesOf(*loop.header) : 0;
    const int d = own > 0 ? own - 1 : distance;
    if (d >= 1) changed = runOnLoop(f, loop, dom, d, axis.get(), graveyard) || changed;
  }
  return changed;
}

}  // namespace tritonc::transform
