// gpu-defer-dot-waits (passes.h): a synchronous wgmma in a loop waits for
// its result where the result (or its accumulator's registers) is first
// read, not right after its issue, so that independent dots of one
// iteration run back to back on the tensor cores and overlap what comes
// between them. An attention backward's iteration
//   pT = k @ q^T;  dv += pT @ do;  dpT = v @ do^T;  dsT = pT * (dpT - delta);  dk += dsT @ q
// issues dv's and dpT's wgmmas together and waits once before dsT; dk's
// wait goes to the end of the iteration.
//
//   dot a, b, c            ->   dot_async a, b, c   (its group is committed)
//   ...                         ...                 (nothing that reads its result)
//   first reader                dot_wait 0          (every group of this warp done)
//                               first reader
//
// Only where the wait stays in the dot's block and nothing can change what
// the dot reads before it: its shared operands are a ring's stage (their
// copies write other stages) or buffers from before the loop (live through
// it, so no scratch is placed over them); its register operands are SSA
// values of the same iteration (it writes fresh registers, or those of the
// phi its sum returns to, which nothing reads after it). dot_wait 0 waits for every group, so a
// dot waited for later than another is done too. The pipeliner's own
// asynchronous dots (across iterations) and warp-specialized loops are left
// as they are.
#include "gpu/passes.h"
#include "ir/builder.h"
#include "transform/loops.h"

namespace tritonc::gpu {

namespace {

using ir::Opcode;

ir::Instruction* asInst(ir::Value* v) {
  return v->valueKind() == ir::ValueKind::Instruction ? static_cast<ir::Instruction*>(v) : nullptr;
}

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
// issue on: nothing in the loop may read the phi after the dot.
bool phiDeadAfter(const transform::Loop& loop, ir::Instruction* dot) {
  ir::BasicBlock* bb = dot->parent;
  for (ir::Instruction* phi : dot->users()) {
    if (phi->opcode() != Opcode::Phi) continue;
    for (ir::Instruction* u : phi->users())
      if (u != dot && loop.contains(u->parent) && (u->parent != bb || bb->indexOf(u) > bb->indexOf(dot)))
        return false;
  }
  return true;
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
      // Innermost blocks only: a nested loop's dots are its own loop's.
      bool inner = true;
      for (const transform::Loop& other : loops)
        if (&other != &loop && other.contains(bb) && other.blocks.size() < loop.blocks.size()) inner = false;
      if (!inner) continue;
      std::vector<ir::Instruction*> dots;
      for (auto& inst : bb->instructions())
        if (wgmma(*inst) && steadyBuffer(loop, inst->operand(1)) &&
            (!inst->operand(0)->type().isShared() || steadyBuffer(loop, inst->operand(0))) &&
            phiDeadAfter(loop, inst.get()))
          dots.push_back(inst.get());
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
        changed = true;
      }
    }
  }
  return changed;
}

}  // namespace tritonc::gpu
