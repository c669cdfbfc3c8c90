// gpu-insert-barriers (passes.h): barriers by the data-flow equations of the
// paper (5.2.3, Triton's membar): going forward through the CFG, each point
// knows the shared-memory bytes read and written since the last barrier (at
// a join, the union of what reaches it; loops iterate to a fixed point). An
// access that reads bytes with a pending write (RAW), or writes bytes with a
// pending read or write (WAR, WAW), gets a barrier before it, which clears
// both sets.
//   - local_alloc (with a value) and local_store write their buffer;
//     local_load and dots whose operands are buffers read them; a buffer
//     seen through mem_index counts whole (every stage).
//   - async_copy writes asynchronously: its own WAR/WAW hazards are checked
//     where it is issued, but its bytes count as written only from the next
//     async_wait on (reading them needs that wait and then a barrier; which
//     stages are complete is the pipeliner's business).
//   - tma_copy is checked where it is issued like async_copy; the
//     tensor memory accelerator's writes are published by mbarriers that
//     each reader waits on (tma_wait), so they never become pending. A
//     multicast one (gpu-multicast) also writes the partner program's
//     stage: it is checked against what was read or written since the last
//     barrier over the cluster, and its barrier (like every copy's in such
//     a function) is `barrier {cluster = 1}`.
//   - dot_async reads its buffers until a dot_wait 0: a barrier between
//     them does not end the reads (the ring's stages are the pipeliner's
//     business, but bytes reused after the loop need the wait and then a
//     barrier).
//   - An instruction with a scratch (layout changes, cross-warp reductions)
//     writes it, waits at a barrier of its own, and reads it: afterwards only
//     its reads are pending (stores still unfenced that a warpgroup MMA
//     reads get their fence before it, since its barrier publishes them).
// When a function has warpgroup MMAs (which read shared memory through the
// async proxy), a barrier that publishes pending writes of the generic
// proxy (stores from registers: local_alloc with a value, local_store; and
// cp.async's copies) is preceded by fence_async_shared, which makes them
// visible to that proxy. CUTLASS's cp.async GMMA main loop and Triton's fence
// pass leave cp.async's bytes unfenced; we keep the fence by default
// (TRITONC_FENCE_ASYNC_COPIES=0 drops it): without it the H200 ran the
// clamped-index matmul at 4096^3 (128x128x64 tiles, cp.async rings) 9%
// slower and the conv and attention examples within 2% either way
// (bench/results/h200-2026-11-29-{069ecb1-fence-ab,1484bae-dsl-hints-fence-ab}.*).
// Stores made before a loop are fenced where the loop is entered (the end of
// the block that branches into its header), not at a barrier inside it that
// every iteration would pass.
#include <cstdlib>
#include <map>
#include <set>

#include "gpu/passes.h"
#include "gpu/scratch.h"
#include "gpu/shared_memory.h"
#include "ir/builder.h"
#include "ir/cfg.h"
#include "ir/dominators.h"

namespace tritonc::gpu {

namespace {

using ir::Opcode;

struct Range {
  int64_t lo, hi;  // [lo, hi)
  bool operator<(const Range& o) const { return lo != o.lo ? lo < o.lo : hi < o.hi; }
  bool operator==(const Range& o) const { return lo == o.lo && hi == o.hi; }
};

struct Ranges {
  std::vector<Range> items;
  void add(Range r) {
    for (const Range& x : items)
      if (x == r) return;
    items.push_back(r);
    std::sort(items.begin(), items.end());
  }
  void add(const Ranges& o) {
    for (const Range& r : o.items) add(r);
  }
  bool overlaps(Range r) const {
    for (const Range& x : items)
      if (x.lo < r.hi && r.lo < x.hi) return true;
    return false;
  }
  bool empty() const { return items.empty(); }
  bool operator==(const Ranges& o) const { return items == o.items; }
};

struct State {
  Ranges reads, writes, inFlight;  // inFlight: async copies not waited for
  Ranges stored;                   // the part of `writes` that needs a fence before an MMA reads it
  Ranges sinceCluster;             // read or written since the last barrier over the cluster
  Ranges dotsInFlight;             // read by asynchronous dots not waited for (dot_wait 0)
  bool operator==(const State& o) const {
    return reads == o.reads && writes == o.writes && stored == o.stored && inFlight == o.inFlight &&
           sinceCluster == o.sinceCluster && dotsInFlight == o.dotsInFlight;
  }
  void merge(const State& o) {
    reads.add(o.reads);
    writes.add(o.writes);
    stored.add(o.stored);
    inFlight.add(o.inFlight);
    sinceCluster.add(o.sinceCluster);
    dotsInFlight.add(o.dotsInFlight);
  }
};

// The buffer a value of shared type lives in (through mem_index).
Range bufferRange(const ir::Value* v) {
  while (v->valueKind() == ir::ValueKind::Instruction) {
    auto* i = static_cast<const ir::Instruction*>(v);
    if (i->opcode() == Opcode::MemIndex || i->opcode() == Opcode::Trans) {  // a stage, a transposed view
      v = i->operand(0);
      continue;
    }
    if (i->opcode() == Opcode::LocalAlloc) {
      if (i->smem < 0) throw UserError(i->loc, "gpu-insert-barriers needs shared memory placed first (gpu-allocate-shared)");
      return {i->smem, i->smem + sharedBytes(i->type())};
    }
    break;
  }
  throw InternalError("a buffer in shared memory that no local_alloc made");
}

class BarrierInserter {
 public:
  explicit BarrierInserter(ir::Function& f) : f_(f), dom_(f) {
    for (auto& bb : f.blocks())
      for (auto& inst : bb->instructions()) {
        Opcode op = inst->opcode();
        if ((op == Opcode::Dot || op == Opcode::DotAsync) && inst->type().layout &&
            inst->type().layout->kind == ir::LayoutKind::Mma && inst->type().layout->version == 3) {
          asyncProxyReads_ = true;
          for (size_t k = 0; k < 2; ++k)  // the bytes warpgroup MMAs read
            if (inst->operand(k)->type().isShared()) mmaReads_.add(bufferRange(inst->operand(k)));
        }
        if (op == Opcode::TmaCopy && inst->imm) multicast_ = true;
      }
    // A loop's header: a block some predecessor of which it dominates (a back edge).
    for (const auto& [bb, ps] : ir::predecessorMap(f))
      for (const ir::BasicBlock* p : ps)
        if (dom_.dominates(bb, p)) loopHeaders_.insert(bb);
  }
  bool run();

 private:
  // Walks one block from `in`; with `insert`, puts the barriers in.
  State walk(ir::BasicBlock* bb, State s, bool insert);
  void barrierBefore(ir::BasicBlock* bb, size_t& index, State& s, bool insert, bool cluster = false);
  // Fences the stores from registers still unpublished where `bb` enters a loop.
  void fenceBeforeLoop(ir::BasicBlock* bb, State& s, bool insert);

  ir::Function& f_;
  ir::DominatorTree dom_;
  std::set<const ir::BasicBlock*> loopHeaders_;
  Ranges mmaReads_;  // read by warpgroup MMAs (the async proxy)
  const bool fenceAsyncCopies_ = fenceAsyncCopiesFromEnvironment();
  bool asyncProxyReads_ = false;
  // Some copy is multicast (gpu-multicast): every copy's barrier then spans
  // the cluster, so that the next multicast copy finds its stage free too
  // (gpu-multicast made sure both programs pass the same barriers).
  bool multicast_ = false;
  bool inserted_ = false;
};

void BarrierInserter::barrierBefore(ir::BasicBlock* bb, size_t& index, State& s, bool insert, bool cluster) {
  if (insert) {
    ir::Builder b(*f_.parent());
    b.setInsertPoint(bb, index);
    b.setLoc(bb->instructions()[index]->loc);
    if (asyncProxyReads_ && !s.stored.empty()) {
      b.create(Opcode::FenceAsyncShared, ir::Type::voidTy(), {});
      ++index;
    }
    b.create(Opcode::Barrier, ir::Type::voidTy(), {})->imm = cluster ? 1 : 0;
    ++index;
    inserted_ = true;
  }
  s.reads = {};
  s.writes = {};
  s.stored = {};
  if (cluster) s.sinceCluster = {};
}

State BarrierInserter::walk(ir::BasicBlock* bb, State s, bool insert) {
  for (size_t i = 0; i < bb->instructions().size(); ++i) {
    ir::Instruction* inst = bb->instructions()[i].get();
    Opcode op = inst->opcode();
    std::vector<Range> reads, writes;
    bool async = false;
    switch (op) {
      case Opcode::Barrier:
        if (inst->imm > ir::kBarrierCluster) continue;  // a half of one over the cluster: no barrier of the warps
        s.reads = {};
        s.writes = {};
        s.stored = {};
        if (inst->imm) s.sinceCluster = {};
        continue;
      case Opcode::AsyncWait:
        s.writes.add(s.inFlight);
        if (fenceAsyncCopies_) s.stored.add(s.inFlight);
        s.inFlight = {};
        continue;
      case Opcode::DotWait:
        // Every asynchronous dot of this warp is done reading (another
        // warpgroup's may not be): its reads are pending again, so that
        // what writes their bytes next (an epilogue's scratch over a ring)
        // gets a barrier after this wait, even where a barrier between the
        // dot and its wait cleared them. A dot_wait N retires all but the
        // N newest groups: those older ones' reads are pending again too
        // (a buffer taken in turn, gpu-pipeline's doubleBuffer, is written
        // again after the wait that retired its reader), the newest stay in
        // flight.
        s.reads.add(s.dotsInFlight);
        s.sinceCluster.add(s.dotsInFlight);  // a multicast copy checks these
        if (inst->imm == 0) s.dotsInFlight = {};
        continue;
      case Opcode::LocalAlloc:
        if (inst->numOperands() == 1) writes.push_back(bufferRange(inst));
        break;
      case Opcode::LocalStore: writes.push_back(bufferRange(inst->operand(0))); break;
      case Opcode::LocalLoad: reads.push_back(bufferRange(inst->operand(0))); break;
      case Opcode::AsyncCopy:
        writes.push_back(bufferRange(inst->operand(0)));
        async = true;
        break;
      case Opcode::TmaCopy: {
        // A producer warp's copy (gpu-warp-specialize) waits for the
        // consumers to free its stage (stage_release), not at a barrier.
        if (inst->role == ir::Role::Producer) continue;
        // Checked where it is issued; its bytes become visible through the
        // stage's mbarrier, which every reader waits on (tma_wait), not
        // through a barrier.
        // A multicast copy writes the partner's stage too: what either
        // program did with it since the last barrier over the cluster
        // (the same code, so the same ranges) orders it.
        Range r = bufferRange(inst->operand(0));
        if (inst->imm ? s.sinceCluster.overlaps(r) : s.reads.overlaps(r) || s.writes.overlaps(r))
          barrierBefore(bb, i, s, insert, multicast_);
        continue;
      }
      case Opcode::TmaInit: case Opcode::TmaWait: case Opcode::StageInit: case Opcode::StageRelease:
        continue;  // the barriers' own words: initialized behind a barrier of tma_init's own
      case Opcode::Dot: case Opcode::DotAsync:
        for (size_t k = 0; k < 2; ++k)
          if (inst->operand(k)->type().isShared()) reads.push_back(bufferRange(inst->operand(k)));
        break;
      default: {
        ScratchUse sc = scratchOf(*inst);
        if (sc.bytes > 0) {
          if (inst->smem < 0)
            throw UserError(inst->loc, "gpu-insert-barriers needs shared memory placed first (gpu-allocate-shared)");
          Range r{inst->smem, inst->smem + sc.bytes};
          if (s.reads.overlaps(r) || s.writes.overlaps(r)) barrierBefore(bb, i, s, insert);
          // Its own barrier (between its writes and reads) orders everything
          // before; stores still unfenced that a warpgroup MMA reads get
          // their fence here, since that barrier publishes them too.
          bool mmaReadsStored = false;
          for (const Range& x : s.stored.items) mmaReadsStored = mmaReadsStored || mmaReads_.overlaps(x);
          if (mmaReadsStored && insert) {
            ir::Builder b(*f_.parent());
            b.setInsertPoint(bb, i);
            b.setLoc(inst->loc);
            b.create(Opcode::FenceAsyncShared, ir::Type::voidTy(), {});
            ++i;
          }
          s.reads = {};
          s.writes = {};
          s.stored = {};
          s.reads.add(r);
          s.sinceCluster.add(r);
        }
        continue;
      }
    }
    bool hazard = false;
    for (const Range& r : reads) hazard = hazard || s.writes.overlaps(r);
    for (const Range& r : writes) hazard = hazard || s.reads.overlaps(r) || s.writes.overlaps(r);
    if (hazard) barrierBefore(bb, i, s, insert);
    for (const Range& r : reads) s.reads.add(r);
    if (op == Opcode::DotAsync)
      for (const Range& r : reads) s.dotsInFlight.add(r);
    for (const Range& r : writes) (async ? s.inFlight : s.writes).add(r);
    if (!async)
      for (const Range& r : writes) s.stored.add(r);
    for (const Range& r : reads) s.sinceCluster.add(r);
    for (const Range& r : writes) s.sinceCluster.add(r);
  }
  fenceBeforeLoop(bb, s, insert);
  return s;
}

void BarrierInserter::fenceBeforeLoop(ir::BasicBlock* bb, State& s, bool insert) {
  if (!asyncProxyReads_ || s.stored.empty() || bb->instructions().empty()) return;
  bool entersLoop = false;
  for (const ir::BasicBlock* succ : bb->successors())
    entersLoop = entersLoop || (loopHeaders_.count(succ) && !dom_.dominates(succ, bb));
  if (!entersLoop) return;
  if (insert) {
    ir::Builder b(*f_.parent());
    b.setInsertPoint(bb, bb->instructions().size() - 1);  // before the branch
    b.setLoc(bb->instructions().back()->loc);
    b.create(Opcode::FenceAsyncShared, ir::Type::voidTy(), {});
  }
  s.stored = {};
}

bool BarrierInserter::run() {
  std::map<const ir::BasicBlock*, State> out;
  std::vector<ir::BasicBlock*> order;
  for (const ir::BasicBlock* bb : dom_.reversePostOrder()) order.push_back(const_cast<ir::BasicBlock*>(bb));
  // (Predecessors once: asking the function per block per pass is
  // quadratic in the number of blocks.)
  const ir::PredecessorMap preds = ir::predecessorMap(f_);
  auto entryState = [&](ir::BasicBlock* bb) {
    State in;
    auto ps = preds.find(bb);
    if (ps == preds.end()) return in;
    for (ir::BasicBlock* p : ps->second) {
      auto it = out.find(p);
      if (it != out.end()) in.merge(it->second);
    }
    return in;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (ir::BasicBlock* bb : order) {
      State s = walk(bb, entryState(bb), false);
      auto it = out.find(bb);
      if (it == out.end() || !(it->second == s)) {
        out[bb] = s;
        changed = true;
      }
    }
  }
  for (ir::BasicBlock* bb : order) walk(bb, entryState(bb), true);
  return inserted_;
}

}  // namespace

bool fenceAsyncCopiesFromEnvironment() {
  const char* v = std::getenv("TRITONC_FENCE_ASYNC_COPIES");
  return !(v && std::string(v) == "0");
}

bool runInsertBarriers(ir::Function& f, const transform::PipelineOptions&) {
  if (!f.parent()->isGpu()) return false;
  return BarrierInserter(f).run();
}

}  // namespace tritonc::gpu
