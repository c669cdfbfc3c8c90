// gpu-pipeline (passes.h): software pipelining of dot operands into
// multi-stage rings in shared memory, filled by asynchronous copies.
//
// The pre-fetching of Triton-IR (transform/prefetch.cpp) leaves, for a tile
// loaded on every iteration, the loads of the first d iterations in the
// pre-header, the load d iterations ahead at the top of the body, and a
// chain of d header phis carrying the tiles in flight. When such a chain's
// head is staged in shared memory for a dot (`local_alloc %phi`), masked or
// not, its loads become copies (cp.async, zero-filled where masked) straight
// into a ring of d + 1 stages, and the phis go:
//   pre-header: ring = local_alloc; per iteration k < d: copies into stage k; async_commit
//   header:     r = phi [0, w = d]           (stage read, stage written)
//   body:       async_wait d-1 (iteration i landed; d - 1 newer may be in flight);
//               copies of iteration i + d into stage w; async_commit
//   use:        mem_index ring, r            (instead of local_alloc %phi)
//   latch:      r, w advance modulo the stages
//   exits:      async_wait 0 (zero-fills past the end land before the memory is reused)
// Every warp reads stage r only after the barrier that the barrier pass puts
// before the next copies (they write the stage iteration i - 1 read).
//
// A wgmma whose sum only returns to its loop's phi is also made
// asynchronous (asyncCandidate): dot_async, then dot_wait 1 (the previous
// iteration's group is done, this one may still run), and dot_wait 0 at the
// exit. When the loop reads the sum before the next wgmma (attention's
// acc * alpha), a dot_wait 0 goes before that read, so the wgmma overlaps
// what comes first (the next iteration's copies, its first dot). Its stage
// may then still be read while iteration i + 1 refills the stage before it,
// so the ring gets one stage more (when it fits in shared memory).
// Where that extra stage would cost a program per multiprocessor (two
// programs' rings fit without it, one with it), or does not fit, the ring
// keeps d + 1 stages as Triton's does for num_stages = d + 1: the copies of
// iteration i + d then go into the stage iteration i - 1 read, right after
// the dot_wait 1 that retires that iteration's wgmma (and the barrier the
// barrier pass puts there). This needs the one asynchronous wgmma of the
// copies' block accumulating into its phi; where a dot_wait 0 retires the
// previous group before the first read of the sum (a tf32 operand loaded
// into registers, attention's acc * alpha), the copies follow that wait
// (on the H200: the f32 matmul at 4096^3, 64 x 128 x 32 in 4 stages, 20%
// faster; attention at head dim 128 in 3 stages 14-18%; the f32 matmul at
// 1000^3, one program per multiprocessor whatever the ring, 10% slower).
// mma.sync, whose operands are read from the stage into registers
// (local_load), can do the same with d stages (Triton's num_stages - 1 for
// mma.sync): the copies of iteration i + d go into the stage iteration i
// just read, after its last local_load (and a barrier). Only when asked
// (TRITONC_REUSE_STAGE=1): on the H200 the DSL's fused MoE at 16 x 64 x 128
// tiles (3 programs per multiprocessor instead of 2) gained 2-3% where it
// computes and lost 3% at decode, where those tiles are used.
// TRITONC_REUSE_STAGE=0 (never) or =1 (wherever it applies) overrides the
// rules, to compare.
//
// An operand the iteration computes and stages itself (local_alloc %v: a
// quantized matmul's weights widened in registers) would be overwritten by
// the next iteration under a wgmma still reading it, which kept such dots
// synchronous. Where the wgmma can otherwise run on, it gets two buffers
// taken in turn (a parity phi; local_store into the one the wgmma two
// iterations back read, retired by its dot_wait 1 and then the barrier the
// barrier pass puts before the store), so the next iteration's widening
// overlaps the wgmma.
//
// A small vector fetched ahead beside the dot tiles (a row statistic,
// transform/prefetch.cpp) gets a ring too: staged (local_alloc, then
// local_load in its registers' layout) where the loop first reads it, its
// chain is found as an operand's is and copied in the same commit groups.
// So does a tile that reaches a dot's operand through arithmetic (a
// quantized matmul's narrow weights, widened and scaled before the dot):
// its raw bytes go into the ring, and each iteration reads its stage into
// registers where it first computed with them, instead of holding the
// tiles of every iteration in flight in registers (an int8 weight tile
// of 64 x 128 four iterations deep spilled). Where the loop is not
// pipelined the staging is undone: it stays in registers.
#include <algorithm>
#include <cstdlib>
#include <map>
#include <string>

#include "gpu/layouts.h"
#include "gpu/occupancy.h"
#include "gpu/passes.h"
#include "gpu/shared_memory.h"
#include "ir/builder.h"
#include "transform/loops.h"

namespace tritonc::gpu {

namespace {

using ir::Opcode;

ir::Instruction* asInst(ir::Value* v, Opcode op) {
  if (v->valueKind() != ir::ValueKind::Instruction) return nullptr;
  auto* i = static_cast<ir::Instruction*>(v);
  return i->opcode() == op ? i : nullptr;
}

bool zeroSplat(ir::Value* v) {
  if (v->valueKind() == ir::ValueKind::Constant) return static_cast<ir::Constant*>(v)->f == 0;
  ir::Instruction* s = asInst(v, Opcode::Splat);
  return s && zeroSplat(s->operand(0));
}

ir::Value* incoming(ir::Instruction* phi, ir::BasicBlock* from) {
  for (size_t k = 0; k < phi->blocks.size(); ++k)
    if (phi->blocks[k] == from) return phi->operand(k);
  return nullptr;
}

// One operand's chain: its staging, the phis, the loads in iteration order
// (the pre-header's, then the one in the loop).
struct Chain {
  ir::Instruction* alloc = nullptr;
  std::vector<ir::Instruction*> phis, loads;
  ir::Instruction* ring = nullptr;
};

// The elements per copy when `load` becomes asynchronous copies into
// `alloc`'s layout: its vector, if the buffer's rows run the same way (else
// one element at a time); 0 when it cannot (cp.async moves 4, 8 or 16
// bytes and fills with zeros).
int copyWidth(ir::Instruction* load, const ir::Instruction* alloc) {
  if (!load || load->users().size() != 1 || !load->type().isTile()) return 0;
  if (load->numOperands() == 3 && !zeroSplat(load->operand(2))) return 0;
  if (load->type().shape != alloc->type().shape) return 0;
  int vec = std::max(1, load->vec);
  LinearLayout ll = linearOf(load->operand(0)->type());
  if (vec > 1 && ll.reg[0][size_t(alloc->type().layout->order[0])] != 1) vec = 1;
  int64_t bytes = int64_t(vec) * ir::byteSize(load->type().kind);
  if (bytes < 4 || bytes > 16 || !sharedVectorFits(alloc->type(), bytes)) return 0;
  return vec;
}

bool copyable(ir::Instruction* load, const ir::Instruction* alloc) { return copyWidth(load, alloc) > 0; }

bool findChain(const transform::Loop& loop, ir::Instruction* alloc, Chain* c) {
  ir::Instruction* phi = asInst(alloc->operand(0), Opcode::Phi);
  const ir::Instruction* user = alloc;
  while (phi && phi->parent == loop.header && phi->numOperands() == 2 && phi->users().size() == 1 &&
         phi->users()[0] == user) {
    c->phis.push_back(phi);
    ir::Instruction* early = asInst(incoming(phi, loop.preheader), Opcode::Load);
    ir::Value* next = incoming(phi, loop.latch);
    if (!copyable(early, alloc) || !next) return false;
    c->loads.push_back(early);
    if (ir::Instruction* ahead = asInst(next, Opcode::Load)) {
      if (!loop.contains(ahead->parent) || !copyable(ahead, alloc)) return false;
      c->loads.push_back(ahead);
      c->alloc = alloc;
      return true;
    }
    user = phi;
    phi = asInst(next, Opcode::Phi);
  }
  return false;
}

// A wgmma that may run on while the loop goes on: its result only returns
// to a header phi through the latch, and its accumulator is
//   - the phi itself, read by nothing else in the loop (c += a @ b): the
//     next iteration's wgmma accumulates into the same registers, which the
//     hardware orders; or
//   - a value of the dot's block read by nothing else, computed from the phi
//     by users that all come before the dot in that block (attention's
//     acc * alpha before acc += p @ v): a dot_wait 0 goes before the first
//     of them (`firstUse`), the next iteration's, and the wgmma accumulates
//     into the phi's registers once its operand is copied there.
struct AsyncDot {
  ir::Instruction* dot;
  ir::Instruction* phi;
  ir::Instruction* firstUse;  // null when the accumulator is the phi
};

// Registers that each iteration computes from the result of a wgmma of its
// own (through anything but a phi): they are written only after that wgmma
// was waited for, which retires every older group, the previous
// iteration's asynchronous one among them. So that one may still read last
// iteration's values from them (an attention backward's dv += p @ do, p
// computed from k @ q^T; ptxas keeps registers an in-flight wgmma reads).
bool computedFromAWgmma(const transform::Loop& loop, const ir::Value* v, int depth = 0) {
  if (v->valueKind() != ir::ValueKind::Instruction || !loop.definedInside(v) || depth > 32) return false;
  auto* i = static_cast<const ir::Instruction*>(v);
  if (i->opcode() == Opcode::Phi) return false;
  const ir::Layout* l = i->type().layout;
  if (i->opcode() == Opcode::Dot && l && l->kind == ir::LayoutKind::Mma && l->version == 3) return true;
  for (const ir::Value* op : i->operands())
    if (computedFromAWgmma(loop, op, depth + 1)) return true;
  return false;
}

bool asyncCandidate(const transform::Loop& loop, ir::Instruction* dot, AsyncDot* out) {
  const ir::Type& t = dot->type();
  if (!t.layout || t.layout->kind != ir::LayoutKind::Mma || t.layout->version != 3) return false;
  if (dot->users().size() != 1) return false;
  ir::Instruction* phi = dot->users()[0];
  if (phi->opcode() != Opcode::Phi || phi->parent != loop.header || phi->numOperands() != 2 ||
      incoming(phi, loop.latch) != dot)
    return false;
  ir::Value* acc = dot->operand(2);
  *out = {dot, phi, nullptr};
  if (acc == phi) {
    for (ir::Instruction* u : phi->users())
      if (u != dot && loop.contains(u->parent)) return false;
    return true;
  }
  auto* a = acc->valueKind() == ir::ValueKind::Instruction ? static_cast<ir::Instruction*>(acc) : nullptr;
  if (!a || a->parent != dot->parent || a->users().size() != 1) return false;
  // Every reader of the phi's registers comes before the dot, which
  // accumulates into them: the phi's readers, and the readers of views
  // that rename its registers (a slice of the accumulator), wherever they are.
  ir::BasicBlock* bb = dot->parent;
  std::vector<ir::Instruction*> readers(phi->users().begin(), phi->users().end());
  for (size_t k = 0; k < readers.size(); ++k) {
    ir::Instruction* u = readers[k];
    const bool view = k >= phi->users().size();
    if (u == dot || (!view && !loop.contains(u->parent))) continue;
    if (u->parent != bb || bb->indexOf(u) > bb->indexOf(dot)) return false;
    if (!out->firstUse || bb->indexOf(u) < bb->indexOf(out->firstUse)) out->firstUse = u;
    if (sharesOperandRegisters(*u)) readers.insert(readers.end(), u->users().begin(), u->users().end());
  }
  return out->firstUse != nullptr;
}

// Room for the scratch used outside the loop (the epilogue's conversions).
constexpr int64_t kScratchReserve = 16 * 1024;

// Bytes of the function's buffers filled from registers (local_alloc %v:
// operands staged once before a loop, or in it) but those in `except`.
int64_t stagedValueBytes(const ir::Function& f, const std::vector<const ir::Instruction*>& except) {
  int64_t bytes = 0;
  for (auto& bb : f.blocks())
    for (auto& inst : bb->instructions())
      if (inst->opcode() == Opcode::LocalAlloc && inst->numOperands() == 1 &&
          std::find(except.begin(), except.end(), inst.get()) == except.end())
        bytes += sharedStageBytes(inst->type());
  return bytes;
}

class LoopPipeliner {
 public:
  LoopPipeliner(ir::Function& f, const transform::Loop& loop, std::vector<Chain> chains,
                const transform::PipelineOptions& o)
      : f_(f), m_(*f.parent()), loop_(loop), chains_(std::move(chains)), o_(o), b_(m_) {}
  void run();

 private:
  // Synchronous dots on d + 1 stages (the copies where the loads were), or
  // on d stages (the copies after the stage's last read: `lastRead`);
  // an asynchronous wgmma with an extra stage (the copies where the loads
  // were), or on d + 1 stages (the copies after the wgmma's wait).
  enum class RingPlan { Synchronous, SynchronousReused, ExtraStage, ReusedStage };
  RingPlan chooseRing(const std::vector<AsyncDot>& asyncDots, bool canAsync, int64_t ringBytes,
                      int64_t otherBytes, ir::Instruction** lastRead) const;
  int64_t programsPerMultiprocessor(int stages, int64_t ringBytes) const;
  ir::Value* i32(int64_t v) { return m_.constInt(ir::Scalar::I32, v); }
  void insertAt(ir::Instruction* at) { b_.setInsertPoint(at->parent, at->parent->indexOf(at)); }
  void copyInto(Chain& c, ir::Instruction* load, ir::Value* stage);
  ir::Instruction* makeDotAsync(const AsyncDot& a);
  void doubleBuffer(ir::Instruction* alloc);
  bool prefetchRegisterOperand(const AsyncDot& a, ir::Instruction* read, int stages, int d);

  // The last makeDotAsync's issue, its dot_wait 1, and the dot_wait 0 before
  // its first use (or null).
  ir::Instruction* issue_ = nullptr;
  ir::Instruction* issueWait_ = nullptr;
  ir::Instruction* ready_ = nullptr;

  ir::Function& f_;
  ir::Module& m_;
  const transform::Loop& loop_;
  std::vector<Chain> chains_;
  const transform::PipelineOptions& o_;
  ir::Builder b_;
};

// At the builder's insertion point.
void LoopPipeliner::copyInto(Chain& c, ir::Instruction* load, ir::Value* stage) {
  b_.setLoc(load->loc);
  ir::Instruction* dst = b_.create(Opcode::MemIndex, c.alloc->type(), {c.ring, stage});
  std::vector<ir::Value*> ops{dst, load->operand(0)};
  if (load->numOperands() == 3) ops.push_back(load->operand(1));
  ir::Instruction* copy = b_.create(Opcode::AsyncCopy, ir::Type::voidTy(), ops);
  copy->vec = copyWidth(load, c.alloc);
}

// Returns the wait after which the previous iteration's group is retired:
// the dot_wait 0 before the first use of the sum (firstUse), else the
// dot_wait 1 that follows the issue.
ir::Instruction* LoopPipeliner::makeDotAsync(const AsyncDot& a) {
  ir::Instruction* dot = a.dot;
  ir::Instruction* phi = a.phi;
  insertAt(dot);
  b_.setLoc(dot->loc);
  ir::Instruction* issue = b_.create(Opcode::DotAsync, dot->type(), dot->operands());
  issue->setName(dot->name());
  ir::Instruction* wait = b_.create(Opcode::DotWait, dot->type(), {issue});
  wait->imm = 1;
  wait->setName(dot->name());
  dot->replaceAllUsesWith(wait);
  dot->parent->erase(dot);
  issue_ = issue;
  issueWait_ = wait;
  // The previous iteration's group is done before the loop reads its sum.
  ir::Instruction* ready = nullptr;
  if (a.firstUse) {
    insertAt(a.firstUse);
    ready = b_.create(Opcode::DotWait, phi->type(), {phi});
    ready->setName(phi->name());
    std::vector<ir::Instruction*> inside;
    for (ir::Instruction* u : phi->users())
      if (u != ready && loop_.contains(u->parent)) inside.push_back(u);
    for (ir::Instruction* u : inside)
      for (size_t k = 0; k < u->numOperands(); ++k)
        if (u->operand(k) == phi) u->setOperand(k, ready);
  }
  // At the exit, every group is waited for before the accumulator is read.
  ir::BasicBlock* exit = loop_.headerExit();
  b_.setInsertPoint(exit, exit->firstNonPhi());
  ir::Instruction* done = b_.create(Opcode::DotWait, phi->type(), {phi});
  done->setName(phi->name());
  std::vector<ir::Instruction*> outside;
  for (ir::Instruction* u : phi->users())
    if (!loop_.contains(u->parent) && u != done) outside.push_back(u);
  for (ir::Instruction* u : outside)
    for (size_t k = 0; k < u->numOperands(); ++k)
      if (u->operand(k) == phi) u->setOperand(k, done);
  ready_ = ready;
  return ready ? ready : wait;
}

// Two buffers in turn for an operand staged from registers in the loop
// (`local_alloc %v` becomes `local_store` into the buffer of the
// iteration's parity): the wgmma reading one leaves the other to the next
// iteration.
void LoopPipeliner::doubleBuffer(ir::Instruction* alloc) {
  ir::Shape shape = alloc->type().shape;
  shape.insert(shape.begin(), 2);
  const std::string name = alloc->name().empty() ? "staged" : alloc->name();
  b_.setLoc(alloc->loc);
  insertAt(loop_.preheader->terminator());
  ir::Instruction* buffers = b_.create(Opcode::LocalAlloc, alloc->type().withShape(shape), {});
  buffers->setName(name + ".buffers");
  b_.setInsertPoint(loop_.header, 0);
  ir::Instruction* parity = b_.phi(ir::Type::scalar(ir::Scalar::I32));
  parity->setName(name + ".parity");
  insertAt(alloc);
  ir::Instruction* slot = b_.create(Opcode::MemIndex, alloc->type(), {buffers, parity});
  slot->setName(name);
  b_.create(Opcode::LocalStore, ir::Type::voidTy(), {slot, alloc->operand(0)});
  alloc->replaceAllUsesWith(slot);
  alloc->parent->erase(alloc);
  insertAt(loop_.latch->terminator());
  ir::Value* next = b_.binary(Opcode::Xor, parity, i32(1));
  next->setName(name + ".parity.next");
  for (ir::BasicBlock* p : loop_.headerPredecessors) {
    parity->addOperand(p == loop_.latch ? next : i32(0));
    parity->blocks.push_back(p);
  }
}

// A register operand of the asynchronous wgmma loaded from its ring stage
// (a tf32 B stored K x N: the transposed product's A) is loaded one
// iteration ahead: the pre-header loads stage 0 into a phi, and iteration i
// issues its wgmma, then its copies, then loads stage i + 1 (once that
// stage's copies are done: async_wait d - 1 after the iteration's commit),
// then waits for the wgmma (dot_wait 0) before the latch moves those
// registers into the ones it reads. The copies and the load then overlap
// the wgmma instead of preceding it. Only when asked
// (TRITONC_REGISTER_PREFETCH=1): on the H200, with the copies before the
// issue (the first form, f30e5d5), the tf32 matmul at 4096^3 was 3-5%
// slower, and 4.5-6% in this form (aba3866); a ring read so does not take
// TMA (gpu-tma reads stages at stage.read only).
bool LoopPipeliner::prefetchRegisterOperand(const AsyncDot& a, ir::Instruction* read, int stages, int d) {
  ir::Instruction* load = a.firstUse;
  if (d < 2 || !issue_ || !issueWait_ || !ready_ || !load || load->opcode() != Opcode::LocalLoad ||
      load->users().size() != 1 || load->users()[0] != issue_)
    return false;
  ir::Instruction* stage = asInst(load->operand(0), Opcode::MemIndex);
  if (!stage || stage->operand(1) != read) return false;
  ir::BasicBlock* bb = issue_->parent;
  if (issueWait_->parent != bb || bb->indexOf(issueWait_) != bb->indexOf(issue_) + 1) return false;
  // This iteration's copies are committed in the issue's block (they move
  // after the issue, before the load ahead), so that d - 1
  // groups in flight leave the next stage's done.
  bool committed = false;
  for (size_t k = 0; k < bb->indexOf(issue_); ++k)
    committed = committed || bb->instructions()[k]->opcode() == Opcode::AsyncCommit;
  if (!committed) return false;
  ir::Instruction* ring = asInst(stage->operand(0), Opcode::LocalAlloc);
  if (!ring) return false;
  // The previous wgmma is retired at the end of its own iteration now.
  ready_->replaceAllUsesWith(ready_->operand(0));
  ready_->parent->erase(ready_);
  ready_ = nullptr;
  // The iteration's copies go after the issue too, so that the wgmma
  // overlaps them as well: they fill the stage the retired wgmma read (or
  // the extra stage), not the one this wgmma reads.
  std::vector<ir::Instruction*> copies;
  for (size_t k = 0; k < bb->indexOf(issue_); ++k) {
    ir::Instruction* i = bb->instructions()[k].get();
    if (i->opcode() == Opcode::AsyncCopy || i->opcode() == Opcode::AsyncCommit) copies.push_back(i);
  }
  for (ir::Instruction* c : copies) bb->insert(bb->indexOf(issueWait_), bb->detach(c));
  b_.setLoc(load->loc);
  // Stage 0 in the pre-header, once its copies are done.
  insertAt(loop_.preheader->terminator());
  b_.create(Opcode::AsyncWait, ir::Type::voidTy(), {})->imm = d - 1;
  ir::Instruction* first = b_.create(Opcode::LocalLoad, load->type(),
                                     {b_.create(Opcode::MemIndex, stage->type(), {ring, i32(0)})});
  const std::string name = load->name().empty() ? "registers" : load->name();
  first->setName(name);
  // Stage i + 1 after the issue; the wgmma retired before the latch.
  insertAt(issueWait_);
  b_.create(Opcode::AsyncWait, ir::Type::voidTy(), {})->imm = d - 1;
  ir::Value* after = b_.binary(Opcode::Add, read, i32(1));
  ir::Value* next = b_.select(b_.cmp(ir::CmpPred::Eq, after, i32(stages)), i32(0), after);
  next->setName("stage.ahead");
  ir::Instruction* ahead = b_.create(Opcode::LocalLoad, load->type(),
                                     {b_.create(Opcode::MemIndex, stage->type(), {ring, next})});
  ahead->setName(name + ".ahead");
  issueWait_->imm = 0;
  b_.setInsertPoint(loop_.header, 0);
  ir::Instruction* carried = b_.phi(load->type());
  carried->setName(name);
  for (ir::BasicBlock* p : loop_.headerPredecessors) {
    carried->addOperand(p == loop_.latch ? ahead : first);
    carried->blocks.push_back(p);
  }
  load->replaceAllUsesWith(carried);
  load->parent->erase(load);
  if (stage->users().empty()) stage->parent->erase(stage);
  return true;
}

void LoopPipeliner::run() {
  const int d = int(chains_[0].phis.size());
  // Asynchronous wgmma (asyncCandidate) for the dots that read the rings,
  // with a loop of one exit and room for the extra stage. Their operands
  // must stay put while they run: B a ring stage (or a buffer from before
  // the loop), A too, or registers when a dot_wait 0 comes before the next
  // iteration redefines them (firstUse, or computedFromAWgmma); a buffer written anew every
  // iteration could be overwritten under the previous iteration's wgmma.
  // Other readers (synchronous dots) are done with their stage by the end
  // of the iteration.
  std::vector<AsyncDot> asyncDots;
  bool canAsync = loop_.exitingBlocks().size() == 1 && loop_.exitingBlocks()[0] == loop_.header;
  for (ir::BasicBlock* s : loop_.header->successors())
    if (!loop_.contains(s) && f_.predecessors(s).size() != 1) canAsync = false;
  int64_t ringBytes = 0;
  auto fromRing = [&](const ir::Value* v) {
    if (ir::Instruction* t = asInst(const_cast<ir::Value*>(v), Opcode::Trans)) v = t->operand(0);  // a transposed view
    for (const Chain& c : chains_)
      if (c.alloc == v) return true;
    return false;
  };
  auto steady = [&](const ir::Value* v, bool waitedBeforeNext) {
    if (fromRing(v) || !loop_.definedInside(v)) return true;
    return (waitedBeforeNext || computedFromAWgmma(loop_, v)) && !v->type().isShared();
  };
  // A register operand loaded from its ring stage in the dot's block (a
  // tf32 wgmma's operand that is not K-contiguous, dot_plan.h): the load
  // overwrites registers the previous iteration's wgmma reads, so that
  // group is waited for (dot_wait 0) just before it; the wgmma still
  // overlaps the next iteration's waits for its stage and its copies.
  auto loadedFromRing = [&](ir::Value* v, const ir::Instruction* dot) -> ir::Instruction* {
    ir::Instruction* l = asInst(v, Opcode::LocalLoad);
    return l && l->parent == dot->parent && fromRing(l->operand(0)) ? l : nullptr;
  };
  // An operand staged in the dot's block from registers (doubleBuffer).
  auto stagedHere = [&](ir::Value* v, const ir::Instruction* dot) -> ir::Instruction* {
    ir::Instruction* a = asInst(v, Opcode::LocalAlloc);
    return a && a->numOperands() == 1 && a->parent == dot->parent && a->users().size() == 1 &&
                   a->users()[0] == dot && !fromRing(a)
               ? a
               : nullptr;
  };
  std::map<const ir::Instruction*, std::vector<ir::Instruction*>> restaged;  // per dot: its stagings to double
  for (Chain& c : chains_) {
    ringBytes += sharedStageBytes(c.alloc->type());
    std::vector<ir::Instruction*> readers;
    for (ir::Instruction* u : c.alloc->users()) {
      if (u->opcode() == Opcode::Trans)
        for (ir::Instruction* w : u->users()) readers.push_back(w);
      else
        readers.push_back(u);
    }
    for (ir::Instruction* u : readers) {
      AsyncDot a;
      if (u->opcode() != Opcode::Dot || !asyncCandidate(loop_, u, &a)) continue;
      ir::BasicBlock* bb = u->parent;
      for (size_t k = 0; k < 2; ++k)
        if (ir::Instruction* l = loadedFromRing(u->operand(k), u)) {
          if (!a.firstUse || bb->indexOf(l) < bb->indexOf(a.firstUse)) a.firstUse = l;
        }
      std::vector<ir::Instruction*> doubled;
      auto ready = [&](size_t k) {
        if (loadedFromRing(u->operand(k), u) || steady(u->operand(k), k == 0 && a.firstUse != nullptr)) return true;
        ir::Instruction* s = stagedHere(u->operand(k), u);
        if (s) doubled.push_back(s);
        return s != nullptr;
      };
      if (!ready(0) || !ready(1)) continue;
      if (!doubled.empty()) restaged[u] = doubled;
      if (std::none_of(asyncDots.begin(), asyncDots.end(), [&](const AsyncDot& d) { return d.dot == u; }))
        asyncDots.push_back(a);
    }
  }
  // The second buffers must fit beside the rings and the function's other
  // buffers (operands staged before the loop, the first buffers): else
  // those dots stay synchronous.
  int64_t doubledBytes = 0;
  for (auto& [dot, allocs] : restaged)
    for (ir::Instruction* a : allocs) doubledBytes += sharedStageBytes(a->type());
  std::vector<const ir::Instruction*> ringed;
  for (const Chain& c : chains_) ringed.push_back(c.alloc);
  const int64_t otherBytes = stagedValueBytes(f_, ringed);
  if (doubledBytes && (d + 1) * ringBytes + kScratchReserve + otherBytes + doubledBytes > maxSharedBytes(m_.target)) {
    asyncDots.erase(std::remove_if(asyncDots.begin(), asyncDots.end(),
                                   [&](const AsyncDot& a) { return restaged.count(a.dot) != 0; }),
                    asyncDots.end());
    restaged.clear();
    doubledBytes = 0;
  }
  ir::Instruction* lastRead = nullptr;
  const RingPlan plan = chooseRing(asyncDots, canAsync, ringBytes, otherBytes + doubledBytes, &lastRead);
  const int stages = d + (plan == RingPlan::SynchronousReused ? 0 : plan == RingPlan::ExtraStage ? 2 : 1);

  // The rings, in the pre-header before the first copy.
  ir::Instruction* firstLoad = chains_[0].loads[0];
  for (Chain& c : chains_)
    if (loop_.preheader->indexOf(c.loads[0]) < loop_.preheader->indexOf(firstLoad)) firstLoad = c.loads[0];
  for (Chain& c : chains_) {
    insertAt(firstLoad);
    ir::Shape shape = c.alloc->type().shape;
    shape.insert(shape.begin(), stages);
    c.ring = b_.create(Opcode::LocalAlloc, c.alloc->type().withShape(shape), {});
    c.ring->setName(c.alloc->name().empty() ? "ring" : c.alloc->name() + ".ring");
  }
  // The first d iterations' copies, one commit group per iteration.
  for (int k = 0; k < d; ++k) {
    ir::Instruction* last = nullptr;
    for (Chain& c : chains_) {
      insertAt(c.loads[size_t(k)]);
      copyInto(c, c.loads[size_t(k)], i32(k));
      if (!last || loop_.preheader->indexOf(c.loads[size_t(k)]) > loop_.preheader->indexOf(last)) last = c.loads[size_t(k)];
    }
    insertAt(last);
    b_.setInsertPoint(last->parent, last->parent->indexOf(last) + 1);
    b_.create(Opcode::AsyncCommit, ir::Type::voidTy(), {});
  }
  // Stage indices.
  b_.setInsertPoint(loop_.header, 0);
  ir::Instruction* read = b_.phi(ir::Type::scalar(ir::Scalar::I32));
  ir::Instruction* write = b_.phi(ir::Type::scalar(ir::Scalar::I32));
  read->setName("stage.read");
  write->setName("stage.write");
  // The copies d iterations ahead, after a wait for the current iteration's.
  ir::Instruction* first = chains_[0].loads.back();
  ir::Instruction* last = first;
  for (Chain& c : chains_) {
    ir::Instruction* l = c.loads.back();
    if (l->parent->indexOf(l) < first->parent->indexOf(first)) first = l;
    if (l->parent->indexOf(l) > last->parent->indexOf(last)) last = l;
  }
  insertAt(first);
  ir::Instruction* wait = b_.create(Opcode::AsyncWait, ir::Type::voidTy(), {});
  wait->imm = d - 1;
  if (plan == RingPlan::ReusedStage || plan == RingPlan::SynchronousReused) {
    // Into the stage the previous iteration's wgmma read, once it is
    // retired; or into the stage this iteration read, once it is read.
    ir::Instruction* after = plan == RingPlan::ReusedStage ? makeDotAsync(asyncDots[0]) : lastRead;
    b_.setInsertPoint(after->parent, after->parent->indexOf(after) + 1);
    for (Chain& c : chains_) copyInto(c, c.loads.back(), write);
    b_.create(Opcode::AsyncCommit, ir::Type::voidTy(), {});
  } else {
    for (Chain& c : chains_) {
      insertAt(c.loads.back());
      copyInto(c, c.loads.back(), write);
    }
    b_.setInsertPoint(last->parent, last->parent->indexOf(last) + 1);
    b_.create(Opcode::AsyncCommit, ir::Type::voidTy(), {});
  }
  // Readers take the current stage.
  for (Chain& c : chains_) {
    insertAt(c.alloc);
    ir::Instruction* stage = b_.create(Opcode::MemIndex, c.alloc->type(), {c.ring, read});
    stage->setName(c.alloc->name());
    c.alloc->replaceAllUsesWith(stage);
    c.alloc->parent->erase(c.alloc);
  }
  // Advance the indices at the latch.
  insertAt(loop_.latch->terminator());
  auto advance = [&](ir::Instruction* phi, int64_t start) {
    ir::Value* next = b_.binary(Opcode::Add, phi, i32(1));
    ir::Value* wrap = b_.cmp(ir::CmpPred::Eq, next, i32(stages));
    ir::Value* v = b_.select(wrap, i32(0), next);
    v->setName(phi->name() + ".next");
    for (ir::BasicBlock* p : loop_.headerPredecessors) {
      phi->addOperand(p == loop_.latch ? v : i32(start));
      phi->blocks.push_back(p);
    }
  };
  advance(read, 0);
  advance(write, d % stages);
  // The loads and phis are gone; exits wait for the copies still in flight.
  for (Chain& c : chains_)
    for (ir::Instruction* p : c.phis) p->dropAllOperands();
  for (Chain& c : chains_) {
    for (ir::Instruction* p : c.phis) p->parent->erase(p);
    for (ir::Instruction* l : c.loads) l->parent->erase(l);
  }
  for (ir::BasicBlock* bb : loop_.blocks)
    for (ir::BasicBlock* s : bb->successors()) {
      if (loop_.contains(s)) continue;
      size_t top = s->firstNonPhi();
      if (top < s->instructions().size() && s->instructions()[top]->opcode() == Opcode::AsyncWait) continue;
      b_.setInsertPoint(s, top);
      b_.create(Opcode::AsyncWait, ir::Type::voidTy(), {})->imm = 0;
    }
  if (plan == RingPlan::ExtraStage)
    for (const AsyncDot& a : asyncDots) makeDotAsync(a);
  // The stagings of the dots made asynchronous get their second buffer.
  for (size_t k = 0; k < asyncDots.size(); ++k)
    if ((plan == RingPlan::ExtraStage || (plan == RingPlan::ReusedStage && k == 0)) && restaged.count(asyncDots[k].dot))
      for (ir::Instruction* a : restaged[asyncDots[k].dot]) doubleBuffer(a);
  if (registerPrefetchFromEnvironment() && asyncDots.size() == 1 &&
      (plan == RingPlan::ExtraStage || plan == RingPlan::ReusedStage))
    prefetchRegisterOperand(asyncDots[0], read, stages, d);
}

int64_t LoopPipeliner::programsPerMultiprocessor(int stages, int64_t ringBytes) const {
  // The function's other buffers (an operand staged once, before the loop).
  int64_t other = 0;
  for (auto& bb : f_.blocks())
    for (auto& inst : bb->instructions())
      if (inst->opcode() == Opcode::LocalAlloc &&
          std::none_of(chains_.begin(), chains_.end(), [&](const Chain& c) { return c.alloc == inst.get(); }))
        other += sharedStageBytes(inst->type());
  const int64_t bySharedMemory = multiprocessorSharedBytes(m_.target) / (stages * ringBytes + other + 1024);
  return std::min<int64_t>(bySharedMemory, maxResidentPrograms(m_.target, o_.numWarps));
}

LoopPipeliner::RingPlan LoopPipeliner::chooseRing(const std::vector<AsyncDot>& asyncDots, bool canAsync,
                                                  int64_t ringBytes, int64_t otherBytes,
                                                  ir::Instruction** lastRead) const {
  const int d = int(chains_[0].phis.size());
  const int reuseSwitch = stageReuseFromEnvironment();
  if (!canAsync || asyncDots.empty()) {
    // Only when asked (TRITONC_REUSE_STAGE=1): measured, it did not pay
    // (the header comment says where).
    if (reuseSwitch != 1) return RingPlan::Synchronous;
    // mma.sync reading every stage into registers (local_load) in the
    // copies' block: the copies can follow the last read.
    ir::BasicBlock* bb = chains_[0].loads.back()->parent;
    bool reusable = d >= 2;
    for (const Chain& c : chains_) {
      reusable = reusable && c.loads.back()->parent == bb;
      for (ir::Instruction* u : c.alloc->users()) {
        bool toMmaSync = false;
        for (const ir::Instruction* w : u->users()) {
          const ir::Layout* l = w->type().layout;
          toMmaSync = toMmaSync || (w->opcode() == Opcode::Dot && l && l->kind == ir::LayoutKind::Mma && l->version == 2);
        }
        reusable = reusable && u->opcode() == Opcode::LocalLoad && u->parent == bb && toMmaSync;
        if (reusable && (!*lastRead || bb->indexOf(u) > bb->indexOf(*lastRead))) *lastRead = u;
      }
    }
    for (const Chain& c : chains_) reusable = reusable && *lastRead && bb->indexOf(c.loads.back()) < bb->indexOf(*lastRead);
    return reusable ? RingPlan::SynchronousReused : RingPlan::Synchronous;
  }
  const bool extraFits = (d + 2) * ringBytes + kScratchReserve + otherBytes <= maxSharedBytes(m_.target);
  // The reused stage: one asynchronous wgmma, its previous group retired
  // (by the dot_wait 0 before the first use of its sum, else by its own
  // dot_wait 1) after every copy of its block: there the copies can go.
  const AsyncDot& a = asyncDots[0];
  const ir::Instruction* retired = a.firstUse ? a.firstUse : a.dot;
  bool reusable = asyncDots.size() == 1;
  for (const Chain& c : chains_) {
    const ir::Instruction* l = c.loads.back();
    reusable = reusable && l->parent == a.dot->parent && l->parent->indexOf(l) < a.dot->parent->indexOf(retired);
  }
  bool reuse = false;
  if (reuseSwitch == 1) {
    reuse = reusable;
  } else if (reuseSwitch == -1) {
    auto programs = [&](int stages) { return programsPerMultiprocessor(stages, ringBytes); };
    // Programs paired in clusters get a producer warp (gpu-warp-specialize)
    // that refills stages as the consumers free them, without barriers: the
    // extra stage is its run-ahead (at 1000^3, 64 x 128 x 64 tiles in pairs,
    // the reused stage ran 5% slower).
    const bool producerWarp = o_.multicast && o_.tma && o_.warpSpecialize != transform::PipelineOptions::kNever;
    reuse = reusable && (!extraFits || (!producerWarp && programs(d + 2) < 2 && programs(d + 1) >= 2));
  }
  if (reuse) return RingPlan::ReusedStage;
  return extraFits ? RingPlan::ExtraStage : RingPlan::Synchronous;
}

// The shared layout a register chain is staged in: its rows as the
// registers' (a vector: one dimension); null where its layout has no order
// to follow (only 1-D vectors and blocked tiles are staged).
const ir::Layout* stagingLayout(ir::Module& m, const ir::Type& t) {
  if (t.shape.size() == 1) return sharedLayout(m, {0}, 0, 0);
  if (t.layout->kind != ir::LayoutKind::Blocked) return nullptr;
  return sharedLayout(m, t.layout->order, 0, 0);
}

// The heads of the loop's chains of pre-fetched tiles left in registers
// (vectors, and tiles that reach a dot through arithmetic; loaded in the
// pre-header and in the loop), each staged where the loop first reads it:
// after the chain's load in the loop, in its block, which must hold every
// reader.
std::vector<ir::Instruction*> stageRegisterChains(ir::Module& m, const transform::Loop& loop) {
  std::vector<ir::Instruction*> staged;
  std::vector<ir::Instruction*> phis;
  for (auto& inst : loop.header->instructions())
    if (inst->opcode() == Opcode::Phi) phis.push_back(inst.get());
  for (ir::Instruction* phi : phis) {
    const ir::Type& t = phi->type();
    if (!t.isTile() || !t.layout || !t.layout->isDistributed() || phi->numOperands() != 2 ||
        !asInst(incoming(phi, loop.preheader), Opcode::Load) || !stagingLayout(m, t))
      continue;
    ir::Instruction* tail = phi;  // the chain's load in the loop, at its end
    for (int n = 0; tail && tail->opcode() == Opcode::Phi && n < 8; ++n) {
      ir::Value* next = incoming(tail, loop.latch);
      tail = next ? asInst(next, Opcode::Phi) ? asInst(next, Opcode::Phi) : asInst(next, Opcode::Load) : nullptr;
    }
    if (!tail || tail->opcode() != Opcode::Load || !loop.contains(tail->parent)) continue;
    // Its readers, through conversions (placed where the phi is defined,
    // in the header): read from the ring in the layout each wants.
    ir::BasicBlock* bb = tail->parent;
    std::vector<std::pair<ir::Instruction*, ir::Instruction*>> readers;  // (reader, conversion it reads or null)
    bool ok = !phi->users().empty();
    for (ir::Instruction* u : phi->users()) {
      if (u->opcode() == Opcode::ConvertLayout && loop.contains(u->parent))
        for (ir::Instruction* w : u->users()) readers.push_back({w, u});
      else
        readers.push_back({u, nullptr});
    }
    ir::Instruction* first = nullptr;
    for (auto& [u, conv] : readers) {
      ok = ok && u->opcode() != Opcode::Phi && u->opcode() != Opcode::LocalAlloc && u->parent == bb &&
           bb->indexOf(u) > bb->indexOf(tail);
      if (ok && (!first || bb->indexOf(u) < bb->indexOf(first))) first = u;
    }
    if (!ok) continue;
    ir::Builder b(m);
    b.setInsertPoint(bb, bb->indexOf(first));
    b.setLoc(tail->loc);
    ir::Instruction* alloc = b.create(Opcode::LocalAlloc, t.withLayout(stagingLayout(m, t)), {phi});
    std::map<const ir::Layout*, ir::Instruction*> reads;
    for (auto& [u, conv] : readers) {
      const ir::Value* from = conv ? static_cast<const ir::Value*>(conv) : phi;
      ir::Instruction*& r = reads[from->type().layout];
      if (!r) {
        r = b.create(Opcode::LocalLoad, from->type(), {alloc});
        r->setName(phi->name());
      }
      for (size_t k = 0; k < u->numOperands(); ++k)
        if (u->operand(k) == from) u->setOperand(k, r);
    }
    std::vector<ir::Instruction*> convs;  // each once: several readers may share one
    for (auto& [u, conv] : readers)
      if (conv && std::find(convs.begin(), convs.end(), conv) == convs.end()) convs.push_back(conv);
    for (ir::Instruction* conv : convs)
      if (conv->users().empty()) conv->parent->erase(conv);
    staged.push_back(alloc);
  }
  return staged;
}

// Undoes a staging of stageRegisterChains (its reads in other layouts
// become conversions again).
void unstage(ir::Module& m, ir::Instruction* alloc) {
  ir::Value* v = alloc->operand(0);
  std::vector<ir::Instruction*> reads(alloc->users().begin(), alloc->users().end());
  for (ir::Instruction* r : reads) {
    if (r->type().layout == v->type().layout) {
      r->replaceAllUsesWith(v);
    } else {
      ir::Builder b(m);
      b.setInsertPoint(r->parent, r->parent->indexOf(r));
      b.setLoc(r->loc);
      ir::Instruction* c = b.create(Opcode::ConvertLayout, r->type(), {v});
      c->setName(r->name());
      r->replaceAllUsesWith(c);
    }
    r->parent->erase(r);
  }
  alloc->parent->erase(alloc);
}

}  // namespace

int stageReuseFromEnvironment() {
  const char* v = std::getenv("TRITONC_REUSE_STAGE");
  const std::string s = v ? v : "";
  return s == "0" ? 0 : s == "1" ? 1 : -1;
}

bool registerPrefetchFromEnvironment() {
  const char* v = std::getenv("TRITONC_REGISTER_PREFETCH");
  return v && std::string(v) == "1";
}

bool runPipeline(ir::Function& f, const transform::PipelineOptions& o) {
  bool changed = false;
  ir::DominatorTree dom(f);
  for (const transform::Loop& loop : transform::findLoops(f, dom)) {
    if (!loop.preheader || !loop.latch) continue;
    std::vector<ir::Instruction*> vectors = stageRegisterChains(*f.parent(), loop);
    std::vector<Chain> chains;
    for (ir::BasicBlock* bb : loop.blocks)
      for (auto& inst : bb->instructions()) {
        if (inst->opcode() != Opcode::LocalAlloc || inst->numOperands() != 1 ||
            std::count(vectors.begin(), vectors.end(), inst.get()))
          continue;
        Chain c;
        if (findChain(loop, inst.get(), &c)) chains.push_back(c);
      }
    // One commit group per iteration: every chain runs equally far ahead,
    // and the copies of the loop are issued from one block.
    auto joins = [&](const Chain& c) {
      return c.phis.size() == chains[0].phis.size() && c.loads.back()->parent == chains[0].loads.back()->parent &&
             c.loads.front()->parent == loop.preheader;
    };
    bool ok = !chains.empty();
    for (const Chain& c : chains) ok = ok && joins(c);
    // The staged register chains join the dot operands' rings where their
    // stages fit in shared memory beside the rest (at least distance + 1
    // of every ring, the function's other buffers and the scratch reserve:
    // a tile staged so must not make a kernel that fitted not fit), or
    // stay in registers.
    int64_t need = kScratchReserve;
    if (ok) {
      const int64_t stages = int64_t(chains[0].phis.size()) + 1;
      std::vector<const ir::Instruction*> mine(vectors.begin(), vectors.end());
      for (const Chain& c : chains) {
        need += stages * sharedStageBytes(c.alloc->type());
        mine.push_back(c.alloc);
      }
      need += stagedValueBytes(f, mine);
    }
    for (ir::Instruction* alloc : vectors) {
      Chain c;
      const int64_t bytes = ok ? int64_t(chains[0].phis.size() + 1) * sharedStageBytes(alloc->type()) : 0;
      if (ok && findChain(loop, alloc, &c) && joins(c) && need + bytes <= maxSharedBytes(f.parent()->target)) {
        chains.push_back(c);
        need += bytes;
      } else {
        unstage(*f.parent(), alloc);
      }
    }
    if (!ok) continue;
    // Stable order: as the stagings appear in the function.
    std::sort(chains.begin(), chains.end(), [](const Chain& a, const Chain& b) {
      return a.alloc->parent == b.alloc->parent ? a.alloc->parent->indexOf(a.alloc) < b.alloc->parent->indexOf(b.alloc)
                                                : a.alloc->parent->name() < b.alloc->parent->name();
    });
    LoopPipeliner(f, loop, chains, o).run();
    changed = true;
  }
  return changed;
}

}  // namespace tritonc::gpu
