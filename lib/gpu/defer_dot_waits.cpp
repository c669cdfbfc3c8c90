// gpu-defer-dot-waits (passes.h): a synchronous wgmma in a loop waits for
// its result where the result is first read, not right after its issue, so
// that independent dots of one iteration run back to back on the tensor
// cores and overlap the work between them. An attention backward's iteration
//   pT = k @ q^T;  dv += pT @ do;  dpT = v @ do^T;  dsT = pT * (dpT - delta);  dk += dsT @ q
// issues dv's and dpT's wgmmas together and waits before dsT; dk's wait
// goes to the end of the iteration. A dot whose operands are ready at an
// earlier dot, with only register work between them, is first moved up to
// be issued right after it (dq's q @ k^T and do @ v^T: the softmax
// arithmetic of the first then overlaps the second).
//
//   dot a, b, c            ->   dot_async a, b, c   (its group is committed)
//   ...                         ...                 (nothing that reads its result)
//   first reader                dot_wait N          (N: the groups issued since, which may run on)
//                               first reader
//
// Only where the wait stays in the dot's block and nothing can change what
// the dot reads before it: its shared operands are a ring's stage (their
// copies write other stages) or buffers from before the loop (live through
// it, so no scratch is placed over them); its register operands are SSA
// values of the same iteration (it writes fresh registers, or those of the
// phi its sum returns to, which nothing reads after it). Groups complete in
// order, so the wait for a dot leaves in flight only the dots issued after
// it, and a dot waited for later than another is done too. The pipeliner's
// own asynchronous dots (across iterations) and warp-specialized loops are
// left as they are.
#include <algorithm>

#include "gpu/layouts.h"
#include "gpu/passes.h"
#include "ir/builder.h"
#include "transform/loops.h"
#include "transform/pattern.h"

namespace tritonc::gpu {

namespace {

using ir::Opcode;

using transform::asInst;

// A shared operand that stays as it is while an iteration runs: a stage of
// a ring (mem_index), a buffer defined before the loop, or a transposed
// view of either.
bool steadyBuffer(const transform::Loop& loop, ir::Value* v) {
  ir::Instruction* i = asInst(v);
  if (i && i->opcode() == Opcode::Trans) return steadyBuffer(loop, i->operand(0));
  if (!loop.definedInside(v)) return true;
  return i && i->opcode() == Opcode::MemIndex && !loop.definedInside(i->operand(0));
}

bool wgmma(const ir::Instruction& dot) {
  const ir::Layout* l = dot.type().layout;
  return dot.opcode() == Opcode::Dot && l && l->kind == ir::LayoutKind::Mma && l->version == 3;
}

// Where the wait for `dot` goes in its block: before the first instruction
// after it that reads its result, or the terminator.
size_t waitPosition(ir::BasicBlock* bb, ir::Instruction* dot) {
  size_t at = bb->indexOf(dot) + 1;
  for (; at < bb->instructions().size(); ++at) {
    ir::Instruction* u = bb->instructions()[at].get();
    if (u->isTerminator()) break;
    bool reads = false;
    for (ir::Value* op : u->operands()) reads = reads || op == dot;
    if (reads) break;
  }
  return at;
}

// A wgmma whose sum returns to a loop phi accumulates in the phi's
// registers once asynchronous (codegen.cpp: accumulatorRegs), from its
// issue on: nothing may read those registers after the dot, neither the
// phi's readers nor the readers of views that rename its registers (a
// slice of the accumulator), wherever they are; no phi reads it (at the
// back edge, after the dot); and the loop leaves from its header only,
// where the phi holds the final sum (a do-while or a break would leave
// with the phi's registers overwritten).
bool phiDeadAfter(const transform::Loop& loop, ir::Instruction* dot) {
  ir::BasicBlock* bb = dot->parent;
  for (ir::Instruction* phi : dot->users()) {
    if (phi->opcode() != Opcode::Phi) continue;
    std::vector<ir::BasicBlock*> exits = loop.exitingBlocks();
    if (exits.size() != 1 || exits[0] != loop.header) return false;
    std::vector<ir::Instruction*> readers(phi->users().begin(), phi->users().end());
    for (size_t k = 0; k < readers.size(); ++k) {
      ir::Instruction* u = readers[k];
      const bool view = k >= phi->users().size();
      if (u == dot || (!view && !loop.contains(u->parent))) continue;
      if (u->opcode() == Opcode::Phi || u->parent != bb || bb->indexOf(u) > bb->indexOf(dot)) return false;
      if (sharesOperandRegisters(*u)) readers.insert(readers.end(), u->users().begin(), u->users().end());
    }
  }
  return true;
}

// Moves `later` (and what it needs that is computed between the two) to
// just after `earlier`, both wgmma dots of one block, where only register
// work lies between them: no side effects (no waits for copies, no
// barriers, no shared-memory writes), no reads of memory, no other dot;
// `later` neither reads `earlier` nor returns to a phi. Then neither is
// read before the other is issued (dq's q @ k^T and do @ v^T). Returns
// whether it moved.
bool issueAfter(ir::BasicBlock* bb, ir::Instruction* earlier, ir::Instruction* later) {
  for (ir::Instruction* u : later->users())
    if (u->opcode() == Opcode::Phi) return false;
  size_t from = bb->indexOf(earlier), to = bb->indexOf(later);
  std::vector<ir::Instruction*> needed{later};
  for (size_t k = 0; k < needed.size(); ++k)
    for (ir::Value* op : needed[k]->operands()) {
      ir::Instruction* d = asInst(op);
      if (d == earlier) return false;
      if (!d || d->parent != bb || bb->indexOf(d) < from || std::count(needed.begin(), needed.end(), d)) continue;
      needed.push_back(d);
    }
  for (size_t at = from + 1; at < to; ++at) {
    const ir::Instruction& i = *bb->instructions()[at];
    if (i.hasSideEffects() || i.readsMemory() || i.opcode() == Opcode::Dot || i.opcode() == Opcode::Phi) return false;
  }
  if (to == from + 1) return false;
  std::sort(needed.begin(), needed.end(),
            [&](ir::Instruction* a, ir::Instruction* c) { return bb->indexOf(a) < bb->indexOf(c); });
  size_t at = from + 1;
  for (ir::Instruction* i : needed) bb->insert(at++, bb->detach(i));
  return true;
}

// What the wait for `issue` at `wait` may leave in flight: the groups
// committed after it (wgmma groups complete in order), unless a
// synchronous dot between them waited for everything already.
int64_t groupsIssuedSince(ir::BasicBlock* bb, ir::Instruction* issue, ir::Instruction* wait) {
  int64_t later = 0;
  for (size_t at = bb->indexOf(issue) + 1; at < bb->indexOf(wait); ++at) {
    Opcode op = bb->instructions()[at]->opcode();
    if (op == Opcode::Dot) return 0;
    if (op == Opcode::DotAsync) ++later;
  }
  return later;
}

}  // namespace

bool runDeferDotWaits(ir::Function& f, const transform::PipelineOptions&) {
  if (f.producerWarps > 0) return false;
  bool changed = false;
  ir::DominatorTree dom(f);
  ir::Builder b(*f.parent());
  const std::vector<transform::Loop> loops = transform::findLoops(f, dom);
  for (const transform::Loop& loop : loops) {
    for (ir::BasicBlock* bb : loop.blocks) {
      std::vector<ir::Instruction*> dots;
      for (auto& inst : bb->instructions())
        if (wgmma(*inst) && steadyBuffer(loop, inst->operand(1)) &&
            (!inst->operand(0)->type().isShared() || steadyBuffer(loop, inst->operand(0))) &&
            phiDeadAfter(loop, inst.get()))
          dots.push_back(inst.get());
      if (dots.empty()) continue;
      // Innermost blocks only: a nested loop's dots are its own loop's.
      bool inner = true;
      for (const transform::Loop& other : loops)
        if (&other != &loop && other.contains(bb) && other.blocks.size() < loop.blocks.size()) inner = false;
      if (!inner) continue;
      for (size_t k = 1; k < dots.size(); ++k) changed = issueAfter(bb, dots[k - 1], dots[k]) || changed;
      std::vector<ir::Instruction*> waits;
      for (ir::Instruction* dot : dots) {
        size_t at = waitPosition(bb, dot);
        if (at == bb->indexOf(dot) + 1) continue;  // read at once: nothing to overlap
        b.setInsertPoint(bb, bb->indexOf(dot));
        b.setLoc(dot->loc);
        ir::Instruction* issue = b.create(Opcode::DotAsync, dot->type(), dot->operands());
        issue->setName(dot->name());
        // (The issue went in before the dot: the reader is one further on.)
        b.setInsertPoint(bb, at + 1);
        ir::Instruction* wait = b.create(Opcode::DotWait, dot->type(), {issue});
        wait->imm = 0;
        wait->setName(dot->name());
        dot->replaceAllUsesWith(wait);
        bb->erase(dot);
        waits.push_back(wait);
        changed = true;
      }
      for (ir::Instruction* w : waits) w->imm = groupsIssuedSince(bb, asInst(w->operand(0)), w);
    }
  }
  return changed;
}

}  // namespace tritonc::gpu
