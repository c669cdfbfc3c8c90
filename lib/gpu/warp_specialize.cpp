// gpu-warp-specialize (passes.h): a loop whose rings are all filled by the
// tensor memory accelerator (gpu-tma) gets a producer warp of its own, added
// to the program's warps, that issues every tensor copy; the kernel's warps
// become consumers that only wait for their stages, multiply and free them.
// In one warpgroup doing both, every iteration stops all warps at a barrier
// before the copy that reuses a stage (the stage must be read by all of
// them) and puts the copies' issue on the dots' path; split, the producer
// runs ahead of the consumers by as many stages as the ring has free, and a
// consumer warp stops only for its data.
//
// The protocol, per ring slot, on a second buffer of mbarriers ("free"):
//   - `stage_init N %free` before the rings (N: one arrival per consumer
//     warp), run by every warp, like tma_init;
//   - the producer waits for a slot to be free before each copy of the loop
//     (`tma_wait %free, %stage.write, %phase`, the phase 1 on the first round,
//     which a fresh barrier passes at once, then flipping each time the write
//     slot wraps); the pre-header's copies fill slots never used before;
//   - the consumers free the slot that their dots no longer read after the
//     loop's dot_wait: with `dot_wait 0`, or a synchronous dot, the slot of
//     this iteration; with `dot_wait 1`, that of the previous one (not in
//     the first iteration): `stage_release %free, %slot, %pred`.
// With multicast copies (gpu-multicast), each program's producer fills its
// partners' stages too, so a stage is free once the cluster's consumers
// freed it: stage_init and stage_release get {cluster = 1} (arrivals from
// every program of the cluster, a pair or 2 x 2; each consumer warp
// arrives at every program's barrier), and the
// producer drains after the loop: it waits for its next free slots as its
// next iterations would, until every release has landed, so that its
// program outlives the partner's arrives on its barriers (a whole
// `barrier {cluster = 1}` before each return where the loop's end does not
// come before every one).
// In program order each slot is freed before the copy that waits for it,
// which the interpreter checks (it counts the barriers' phases).
//
// Which warps run what is decided here and printed: {role = producer} on
// the copies, their waits and the scalar arithmetic only they need,
// {role = both} on what both need (the loop's control, the barriers' and
// rings' buffers and inits), and no role on the consumers' instructions;
// the function gets producer_warps(1). PTX emission then writes the body
// twice, once per role, each copy keeping only its instructions.
//
// It applies when every tensor copy of the function sits in one loop or in
// its pre-header, the loop's rings are read by a single dot (synchronous, or
// asynchronous and retired by one dot_wait 0 or 1 in the same block), no
// cp.async copy is left, and what the producer needs is scalar arithmetic
// without other side effects (loads too, where every store and atomic of
// the program comes after the loop).
#include <algorithm>
#include <set>
#include <unordered_set>

#include "gpu/passes.h"
#include "gpu/ring_position.h"
#include "ir/builder.h"
#include "ir/dominators.h"
#include "transform/loops.h"

namespace tritonc::gpu {

namespace {

using ir::Opcode;
using ir::Role;

ir::Instruction* asInstruction(ir::Value* v) {
  return v && v->valueKind() == ir::ValueKind::Instruction ? static_cast<ir::Instruction*>(v) : nullptr;
}

// Everything `seeds` need, transitively through operands (phis included).
std::unordered_set<ir::Instruction*> slice(const std::vector<ir::Instruction*>& seeds) {
  std::unordered_set<ir::Instruction*> in(seeds.begin(), seeds.end());
  std::vector<ir::Instruction*> work(seeds.begin(), seeds.end());
  while (!work.empty()) {
    ir::Instruction* i = work.back();
    work.pop_back();
    for (ir::Value* v : i->operands())
      if (ir::Instruction* d = asInstruction(v); d && in.insert(d).second) work.push_back(d);
  }
  return in;
}

bool isAcquire(const ir::Instruction& i, const std::set<ir::Value*>& freeBarriers) {
  return i.opcode() == Opcode::TmaWait && freeBarriers.count(i.operand(0));
}

// The instructions only the producer needs, those both need, and the rest.
struct Roles {
  std::unordered_set<ir::Instruction*> producer, consumer;
};

Roles computeRoles(ir::Function& f, const std::set<ir::Value*>& freeBarriers) {
  std::vector<ir::Instruction*> producerSeeds, consumerSeeds;
  for (auto& bb : f.blocks())
    for (auto& inst : bb->instructions()) {
      ir::Instruction* i = inst.get();
      Opcode op = i->opcode();
      bool both = i->isTerminator() || op == Opcode::TmaInit || op == Opcode::StageInit ||
                  (op == Opcode::Barrier && i->imm);  // over the cluster: every warp
      if (both || op == Opcode::TmaCopy || isAcquire(*i, freeBarriers)) producerSeeds.push_back(i);
      bool allocation = op == Opcode::LocalAlloc && i->numOperands() == 0;  // an address, wanted by whoever uses it
      if (both || (!allocation && op != Opcode::TmaCopy && !isAcquire(*i, freeBarriers) &&
                   (i->hasSideEffects() || i->users().empty())))
        consumerSeeds.push_back(i);
    }
  return {slice(producerSeeds), slice(consumerSeeds)};
}

// Whether the producer warp can run `i`: scalars and addresses in shared
// memory only (it is one warp; tiles are spread over the consumers), and no
// side effect but its copies, its waits, the barriers' inits and control.
bool producerCanRun(const ir::Instruction& i, const std::set<ir::Value*>& freeBarriers) {
  if (i.type().isTile() && !i.type().isShared()) return false;
  if (!i.hasSideEffects()) return true;
  switch (i.opcode()) {
    case Opcode::TmaCopy: case Opcode::TmaInit: case Opcode::StageInit: case Opcode::Br: case Opcode::CondBr:
    case Opcode::Ret:
      return true;
    case Opcode::Barrier: return i.imm != 0;  // over the cluster, whole or in halves
    case Opcode::LocalAlloc: return i.numOperands() == 0;
    case Opcode::TmaWait: return isAcquire(i, freeBarriers);
    default: return false;
  }
}

struct Plan {
  const transform::Loop* loop = nullptr;
  std::vector<ir::Instruction*> loopCopies;  // tma_copy in the loop
  ir::Instruction* writeSlot = nullptr;      // their stage: a phi of the header
  ir::Instruction* readSlot = nullptr;       // the stage the dot reads: a phi of the header
  ir::Instruction* retire = nullptr;         // the dot_wait (or synchronous dot) after which the read ends
  bool previous = false;                     // dot_wait 1: the previous iteration's stage is the free one
  bool multicast = false;                    // some copy fills the partner program's stages too
};

// The loop and its rings' shape, or why not.
bool plan(ir::Function& f, const std::vector<transform::Loop>& loops, Plan* p) {
  std::vector<ir::Instruction*> copies;
  for (auto& bb : f.blocks())
    for (auto& inst : bb->instructions()) {
      if (inst->opcode() == Opcode::AsyncCopy) return false;
      if (inst->opcode() == Opcode::TmaCopy) {
        p->multicast = p->multicast || inst->imm;
        copies.push_back(inst.get());
      }
    }
  if (copies.empty()) return false;
  for (const transform::Loop& loop : loops)
    for (ir::Instruction* c : copies)
      if (loop.contains(c->parent)) {
        if (p->loop && p->loop != &loop) return false;  // two loops (or nested ones) copy
        p->loop = &loop;
      }
  const transform::Loop* loop = p->loop;
  if (!loop || !loop->preheader || !loop->latch) return false;
  std::set<ir::Value*> rings;
  for (ir::Instruction* c : copies) {
    ir::Instruction* dst = asInstruction(c->operand(0));
    if (!dst || dst->opcode() != Opcode::MemIndex) return false;
    rings.insert(dst->operand(0));
    if (!loop->contains(c->parent)) {
      if (c->parent != loop->preheader) return false;
      continue;
    }
    ir::Instruction* slot = asInstruction(c->operand(2));
    if (!slot || slot->opcode() != Opcode::Phi || slot->parent != loop->header ||
        (p->writeSlot && p->writeSlot != slot))
      return false;
    p->writeSlot = slot;
    p->loopCopies.push_back(c);
  }
  if (!p->writeSlot) return false;
  // The one dot that reads the rings' stages, inside the loop.
  ir::Instruction* reader = nullptr;
  for (ir::Value* ring : rings)
    for (ir::Instruction* u : ring->users()) {
      if (u->opcode() != Opcode::MemIndex || !loop->contains(u->parent)) continue;
      bool written = std::any_of(u->users().begin(), u->users().end(),
                                 [](ir::Instruction* w) { return w->opcode() == Opcode::TmaCopy; });
      if (written) continue;
      ir::Instruction* slot = asInstruction(u->operand(1));
      if (!slot || slot->opcode() != Opcode::Phi || slot->parent != loop->header ||
          (p->readSlot && p->readSlot != slot))
        return false;
      p->readSlot = slot;
      // The dot reads the stage, or its transposed view (`a @ ^b`).
      std::vector<ir::Instruction*> users(u->users().begin(), u->users().end());
      for (size_t k = 0; k < users.size(); ++k) {
        ir::Instruction* d = users[k];
        if (d->opcode() == Opcode::Trans) {
          users.insert(users.end(), d->users().begin(), d->users().end());
          continue;
        }
        if (d->opcode() != Opcode::Dot && d->opcode() != Opcode::DotAsync) return false;
        if (reader && reader != d) return false;
        reader = d;
      }
    }
  if (!reader) return false;
  if (reader->opcode() == Opcode::Dot) {
    p->retire = reader;
    return true;
  }
  for (auto& inst : reader->parent->instructions())
    if (inst->opcode() == Opcode::DotWait) {
      if (p->retire || reader->parent->indexOf(inst.get()) < reader->parent->indexOf(reader)) return false;
      p->retire = inst.get();
    }
  for (const ir::BasicBlock* bb : loop->blocksInOrder)
    for (auto& inst : bb->instructions())
      if (inst->opcode() == Opcode::DotWait && inst.get() != p->retire) return false;
  if (!p->retire || p->retire->imm > 1) return false;
  p->previous = p->retire->imm == 1;
  return true;
}

// A phi of the loop's header: `entry` from the pre-header, `next(phi)`
// (made at the latch) from the latch.
template <typename Next>
ir::Instruction* headerPhi(ir::Builder& b, const transform::Loop& loop, const ir::Type& t, ir::Value* entry,
                           const char* name, Next next) {
  b.setInsertPoint(loop.header, 0);
  ir::Instruction* phi = b.phi(t);
  phi->setName(name);
  b.setInsertPoint(loop.latch, loop.latch->indexOf(loop.latch->terminator()));
  ir::Value* n = next(phi);
  for (ir::BasicBlock* pred : loop.headerPredecessors) {
    phi->addOperand(pred == loop.latch ? n : entry);
    phi->blocks.push_back(pred);
  }
  return phi;
}

ir::Value* incomingFromLatch(const ir::Instruction* phi, const transform::Loop& loop) {
  for (size_t k = 0; k < phi->numOperands(); ++k)
    if (phi->blocks[k] == loop.latch) return phi->operand(k);
  return nullptr;
}

}  // namespace

bool runWarpSpecialize(ir::Function& f, const transform::PipelineOptions& o) {
  ir::Module& m = *f.parent();
  using Mode = transform::PipelineOptions;
  if (!m.isGpu() || m.target.rfind("sm_90", 0) != 0 || o.warpSpecialize == Mode::kNever || f.producerWarps)
    return false;
  ir::DominatorTree dom(f);
  std::vector<transform::Loop> loops = transform::findLoops(f, dom);
  Plan p;
  if (!plan(f, loops, &p) || (o.warpSpecialize == Mode::kPairs && !p.multicast)) return false;
  const transform::Loop& loop = *p.loop;
  ir::Value* writeNext = incomingFromLatch(p.writeSlot, loop);
  if (!writeNext) return false;
  // What the producer would run, before anything changes. It loads what
  // it needs itself (a loop bound in memory), which must then be what the
  // consumers load: no store or atomic of the program may come before the
  // loop has ended.
  {
    Roles r = computeRoles(f, {});
    bool loads = false;
    for (ir::Instruction* i : r.producer) {
      if (!producerCanRun(*i, {})) return false;
      loads = loads || i->opcode() == Opcode::Load;
    }
    ir::BasicBlock* after = loop.headerExit();
    if (loads)
      for (auto& bb : f.blocks())
        for (auto& inst : bb->instructions()) {
          Opcode op = inst->opcode();
          bool writes = op == Opcode::Store || op == Opcode::AtomicRmw || op == Opcode::AtomicCas;
          if (writes && (!after || !dom.dominates(after, bb.get()))) return false;
        }
  }
  ir::Builder b(m);
  const int64_t stages = p.loopCopies[0]->operand(1)->type().shape[0];
  for (ir::Instruction* c : p.loopCopies)
    if (c->operand(1)->type().shape[0] != stages) return false;
  // The free barriers, before the first tma_init of the pre-header.
  ir::Instruction* firstInit = nullptr;
  for (auto& inst : loop.preheader->instructions())
    if (inst->opcode() == Opcode::TmaInit) {
      firstInit = inst.get();
      break;
    }
  if (!firstInit) return false;
  const ir::Type barType = firstInit->operand(0)->type();
  if (barType.shape[0] != stages) return false;
  b.setInsertPoint(loop.preheader, loop.preheader->indexOf(firstInit));
  b.setLoc(firstInit->loc);
  ir::Instruction* free = b.create(Opcode::LocalAlloc, barType, {});
  free->setName("stage.free");
  ir::Instruction* init = b.create(Opcode::StageInit, ir::Type::voidTy(), {free});
  init->imm = m.numWarps;
  init->sub = p.multicast;
  // The producer's phase: 1 on the first round, flipping as the write slot wraps.
  const ir::Type i32 = ir::Type::scalar(ir::Scalar::I32);
  ir::Instruction* phase = headerPhi(b, loop, i32, b.i32(1), "stage.free.phase", [&](ir::Value* ph) {
    ir::Value* wraps = b.cmp(ir::CmpPred::Eq, writeNext, b.i32(0));
    return b.select(wraps, b.binary(Opcode::Xor, ph, b.i32(1)), ph);
  });
  // Wait for the slot before the loop's first copy.
  ir::Instruction* firstCopy = p.loopCopies[0];
  for (ir::Instruction* c : p.loopCopies)
    if (c->parent == firstCopy->parent && c->parent->indexOf(c) < c->parent->indexOf(firstCopy)) firstCopy = c;
  b.setInsertPoint(firstCopy->parent, firstCopy->parent->indexOf(firstCopy));
  b.setLoc(firstCopy->loc);
  b.create(Opcode::TmaWait, ir::Type::voidTy(), {free, p.writeSlot, phase});
  // Free the slot whose reads are retired.
  ir::Value* released = p.readSlot;
  ir::Value* pred = m.constBool(true);
  if (p.previous) {
    released = headerPhi(b, loop, i32, b.i32(0), "stage.free.previous", [&](ir::Value*) { return p.readSlot; });
    pred = headerPhi(b, loop, ir::Type::scalar(ir::Scalar::I1), m.constBool(false), "stage.free.started",
                     [&](ir::Value*) { return m.constBool(true); });
  }
  b.setInsertPoint(p.retire->parent, p.retire->parent->indexOf(p.retire) + 1);
  b.setLoc(p.retire->loc);
  b.create(Opcode::StageRelease, ir::Type::voidTy(), {free, released, pred})->sub = p.multicast;
  // A pair's consumers free the stages of both programs: neither may exit
  // while the other can still arrive on its barriers. Where the loop's end
  // comes before every return, the producer drains: after the loop it goes
  // on waiting for its free slots, as its next iterations would, until it
  // has seen every release the consumers make (theirs and the partner's).
  // Its program then stays alive until the last remote arrive on its
  // barriers has landed, and no one else waits: the epilogue runs at once.
  // (A barrier over the cluster, `.release` so that it orders those
  // arrives, cost the 1000^3 pairs about 1 us, in halves or whole.)
  // Producer iteration i waits for the release of iteration i - (S - P)
  // (S slots, P filled by the pre-header; the first S - P waits pass on
  // fresh barriers), and the last release is of iteration n - 1, or n - 2
  // with `dot_wait 1`: S - P - previous more waits see them all, and pass
  // at once where the loop ran too few iterations to make them.
  // Otherwise (a return the loop's end does not dominate, or a pre-header
  // fill count that is not a constant) a whole barrier over the cluster
  // before each return.
  if (p.multicast) {
    std::vector<ir::Instruction*> rets;
    for (auto& bb : f.blocks())
      if (bb->terminator() && bb->terminator()->opcode() == Opcode::Ret) rets.push_back(bb->terminator());
    ir::BasicBlock* end = loop.headerExit();
    bool endFirst = end != nullptr;
    for (ir::Instruction* ret : rets) endFirst = endFirst && dom.dominates(end, ret->parent);
    ir::Value* filled = nullptr;  // P: the write slot's value on entry
    for (size_t k = 0; k < p.writeSlot->numOperands(); ++k)
      if (p.writeSlot->blocks[k] != loop.latch) filled = p.writeSlot->operand(k);
    const ir::Constant* fill = filled && filled->valueKind() == ir::ValueKind::Constant
                                   ? static_cast<const ir::Constant*>(filled)
                                   : nullptr;
    if (endFirst && fill) {
      int64_t drains = stages - fill->i - (p.previous ? 1 : 0);
      b.setInsertPoint(end, end->firstNonPhi());
      b.setLoc(loop.header->terminator()->loc);
      for (int64_t j = 0; j < drains; ++j) {
        auto [slot, parity] = ringPositionAfter(b, p.writeSlot, phase, j, stages);
        b.create(Opcode::TmaWait, ir::Type::voidTy(), {free, slot, parity});
      }
    } else {
      for (ir::Instruction* ret : rets) {
        b.setInsertPoint(ret->parent, ret->parent->indexOf(ret));
        b.setLoc(ret->loc);
        b.create(Opcode::Barrier, ir::Type::voidTy(), {})->imm = ir::kBarrierCluster;
      }
    }
  }
  // Who runs what.
  std::set<ir::Value*> freeBarriers{free};
  Roles r = computeRoles(f, freeBarriers);
  for (auto& bb : f.blocks())
    for (auto& inst : bb->instructions()) {
      bool prod = r.producer.count(inst.get()), cons = r.consumer.count(inst.get());
      inst->role = prod && cons ? Role::Both : prod ? Role::Producer : Role::Consumer;
    }
  f.producerWarps = 1;
  return true;
}

}  // namespace tritonc::gpu
