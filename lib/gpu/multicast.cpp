// gpu-multicast (passes.h): a tensor copy that two programs next to each
// other along the grid's x axis would both make (the same box of B for the
// programs (2i, pn) and (2i+1, pn) of a matmul whose x is the row of tiles)
// is made once for the pair: launched in clusters of two, each program
// issues half of the box's swizzle blocks and the tensor memory
// accelerator writes them into both programs' stages (multicast), halving
// what the pair reads from L2. A copy qualifies on sm_90 when
//   - nothing it depends on (stage, coordinates, predicate) depends on
//     program_id(0), an atomic's result or a value read from memory (values
//     the pair may not share),
//   - no branch of the function does (both programs then make the same
//     copies, and pass the same barriers, in the same order),
//   - its box splits into two halves: an even number of swizzle blocks
//     (each program issues every other block), or else rows that halve
//     into multiples of 1024 bytes (each program issues one half of the
//     rows of each block: a K-contiguous B of 64 f16 columns, one 128-byte
//     block, as in `a @ ^b`), where the swizzle pattern, whose period is at
//     most 1024 bytes, continues across the halves.
// Then:
//   - the copy is `{multicast = 2}`;
//   - the copies of a block that precede its asynchronous dot follow it, so
//     that the barrier over the cluster they need waits while the tensor
//     cores work (measured on the H100: before the dot, the barrier made
//     the 4096^3 matmul 1.7 times slower);
//   - the tma_init of its barriers is `{cluster = 1}`: the partner's copies
//     signal this program's mbarriers, which must be initialized before;
//   - gpu-insert-barriers gives the copy a barrier over the cluster
//     (`barrier {cluster = 1}`) where its stage may still be read, since it
//     writes the partner's stage too.
// A launch whose grid has an odd extent along a pair's axis runs without
// pairs along it: each program then issues the whole box itself (the
// lowering tests %cluster_nctaid along the axis), so the kernel is correct
// either way.
// It runs for configurations with num_ctas = 2 (PipelineOptions::multicast):
// on the H100 it paid where B's loads bound the kernel (rows of 7000 f16)
// and cost up to 15% elsewhere, so the tuner decides.
// With num_ctas = 4 (multicastAlongY) a copy that varies along x but not
// along y (a matmul's A, whose box is (pm * TM, k)) is shared the same way
// by the pair of programs along y, `{multicast = 2, along = y}`: programs
// launched in clusters of 2 x 2 then read a quarter less from L2 than in
// pairs; on the H200 that paid only at 2560x7000x2560 and cost elsewhere
// (docs/PERFORMANCE.md, session 19), so it is a configuration's option.
// Where nothing is shared along x, or a branch depends on program_id(1),
// only the pairs along x remain.
#include <unordered_set>

#include "analysis/computed_from.h"
#include "gpu/passes.h"

namespace tritonc::gpu {

namespace {

using ir::Opcode;

// The values that may differ between the two programs of a pair along
// `axis`: program_id along it, atomics' results, what is read from memory
// (another program may have written it in between: a flag, a scheduler's
// counter; a buffer in shared memory is each program's own), inline
// assembly's results (it may read %ctaid or %smid), and whatever is
// computed from them.
std::unordered_set<const ir::Value*> pairVariant(const ir::Function& f, int64_t axis) {
  return analysis::computedFrom(f, [axis](const ir::Instruction& i) {
    const Opcode op = i.opcode();
    return (op == Opcode::ProgramId && i.imm == axis) || op == Opcode::AtomicRmw || op == Opcode::AtomicCas ||
           op == Opcode::Load || op == Opcode::LocalLoad || op == Opcode::InlineAsm;
  });
}

// In each block, the tensor copies that precede the block's asynchronous
// dot go right after it: the barrier over the cluster that a copy needs
// (gpu-insert-barriers) then waits while the tensor cores work, instead of
// before the dot. The copies write the stage `distance` iterations ahead,
// never the one this dot or the one in flight reads.
void issueCopiesAfterDots(ir::Function& f) {
  for (auto& bb : f.blocks()) {
    ir::Instruction* dot = nullptr;
    std::vector<ir::Instruction*> copies;
    for (auto& inst : bb->instructions()) {
      if (inst->opcode() == Opcode::DotAsync) {
        dot = inst.get();
        break;
      }
      if (inst->opcode() == Opcode::TmaCopy) copies.push_back(inst.get());
    }
    if (!dot) continue;
    ir::Instruction* after = dot;
    for (ir::Instruction* c : copies) after = bb->insert(bb->indexOf(after) + 1, bb->detach(c));
  }
}

}  // namespace

bool runMulticast(ir::Function& f, const transform::PipelineOptions& o) {
  if (f.parent()->target.rfind("sm_90", 0) != 0 || !o.multicast) return false;
  std::vector<ir::Instruction*> copies;
  for (auto& bb : f.blocks())
    for (auto& inst : bb->instructions())
      if (inst->opcode() == Opcode::TmaCopy && inst->imm == 0) copies.push_back(inst.get());
  if (copies.empty()) return false;
  // Both programs of a pair must take the same branches.
  auto uniformBranches = [&](const std::unordered_set<const ir::Value*>& variant) {
    for (auto& bb : f.blocks())
      for (auto& inst : bb->instructions())
        if (inst->opcode() == Opcode::CondBr && variant.count(inst->operand(0))) return false;
    return true;
  };
  auto sharedBy = [](ir::Instruction* c, const std::unordered_set<const ir::Value*>& variant) {
    bool shared = ir::tmaStageSplitsInHalves(c->operand(0)->type());
    for (size_t k = 1; k < c->numOperands(); ++k) shared = shared && !variant.count(c->operand(k));
    return shared;
  };
  const std::unordered_set<const ir::Value*> alongX = pairVariant(f, 0);
  if (!uniformBranches(alongX)) return false;
  std::unordered_set<const ir::Value*> barriers;
  for (ir::Instruction* c : copies) {
    if (!sharedBy(c, alongX)) continue;
    c->imm = 2;
    barriers.insert(c->operand(1));
  }
  if (barriers.empty()) return false;
  if (o.multicastAlongY) {
    const std::unordered_set<const ir::Value*> alongY = pairVariant(f, 1);
    if (uniformBranches(alongY))
      for (ir::Instruction* c : copies) {
        if (c->imm || !sharedBy(c, alongY)) continue;
        c->imm = 2;
        c->sub = 1;
        barriers.insert(c->operand(1));
      }
  }
  for (auto& bb : f.blocks())
    for (auto& inst : bb->instructions())
      if (inst->opcode() == Opcode::TmaInit && barriers.count(inst->operand(0))) inst->imm = 1;
  issueCopiesAfterDots(f);
  return true;
}

}  // namespace tritonc::gpu
