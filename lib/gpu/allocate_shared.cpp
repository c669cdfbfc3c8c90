// gpu-allocate-shared (passes.h): places every buffer (local_alloc) and
// every scratch (scratch.h) in shared memory by live ranges. A buffer lives
// from its allocation to the last use of it or of a stage of it (mem_index),
// as liveness over the CFG says (so a ring read in a loop lives through the
// loop); a scratch lives only at its instruction. Offsets are given largest
// first, each at the lowest offset that overlaps no live-range neighbour
// placed before it (first fit); the function records the total.
#include <algorithm>

#include "analysis/liveness.h"
#include "gpu/passes.h"
#include "gpu/scratch.h"
#include "gpu/shared_memory.h"

namespace tritonc::gpu {

namespace {

struct Buffer {
  ir::Instruction* owner;
  int64_t bytes, align;
  size_t start, end;  // instructions, in block layout order
  int64_t offset = -1;
};

bool overlaps(const Buffer& a, const Buffer& b) { return a.start <= b.end && b.start <= a.end; }

// The last instruction using `v`, a stage of it or a transposed view of it.
void extendByUses(const analysis::Liveness& live, const ir::Value* v, size_t& end) {
  auto it = live.intervals().find(v);
  if (it != live.intervals().end()) end = std::max(end, it->second.end);
  for (const ir::Instruction* u : v->users()) {
    end = std::max(end, live.indexOf(u));
    if (u->opcode() == ir::Opcode::MemIndex || u->opcode() == ir::Opcode::Trans) extendByUses(live, u, end);
  }
}

}  // namespace

bool runAllocateShared(ir::Function& f, const transform::PipelineOptions&) {
  if (!f.parent()->isGpu()) return false;
  analysis::Liveness live(f);
  std::vector<Buffer> buffers;
  for (auto& bb : f.blocks())
    for (auto& inst : bb->instructions()) {
      ir::Instruction* i = inst.get();
      size_t at = live.indexOf(i);
      if (i->opcode() == ir::Opcode::LocalAlloc) {
        size_t end = at;
        extendByUses(live, i, end);
        buffers.push_back({i, sharedBytes(i->type()), sharedAlignment(i->type()), at, end});
        continue;
      }
      ScratchUse s = scratchOf(*i);
      if (s.bytes > 0) buffers.push_back({i, s.bytes, 16, at, at});
      else i->smem = -1;
    }
  std::vector<Buffer*> order;
  for (Buffer& b : buffers) order.push_back(&b);
  std::stable_sort(order.begin(), order.end(), [](const Buffer* a, const Buffer* b) { return a->bytes > b->bytes; });
  int64_t total = 0;
  std::vector<Buffer*> placed;
  for (Buffer* b : order) {
    // Candidate offsets: 0 and the end of every placed neighbour, lowest first.
    std::vector<int64_t> candidates{0};
    for (Buffer* p : placed)
      if (overlaps(*b, *p)) candidates.push_back(p->offset + p->bytes);
    std::sort(candidates.begin(), candidates.end());
    for (int64_t c : candidates) {
      int64_t at = (c + b->align - 1) / b->align * b->align;
      bool free = true;
      for (Buffer* p : placed)
        if (overlaps(*b, *p) && at < p->offset + p->bytes && p->offset < at + b->bytes) free = false;
      if (free) {
        b->offset = at;
        break;
      }
    }
    placed.push_back(b);
    b->owner->smem = b->offset;
    total = std::max(total, b->offset + b->bytes);
  }
  int64_t limit = maxSharedBytes(f.parent()->target);
  if (total > limit)
    throw UserError(f.loc, "kernel '" + f.name() + "' needs " + std::to_string(total) +
                               " bytes of shared memory, more than the " + std::to_string(limit) + " of " +
                               f.parent()->target + " (try smaller tiles or fewer stages)");
  f.sharedBytes = (total + 15) / 16 * 16;
  return true;
}

}  // namespace tritonc::gpu
