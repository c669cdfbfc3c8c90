// gpu-allocate-shared (passes.h): places every buffer (local_alloc) and
// every scratch (scratch.h) in shared memory by live ranges. A buffer lives
// from its allocation to the last uses of it or of a stage of it (mem_index),
// as liveness over the CFG says, block by block (so a ring read in a loop
// lives through the loop, and two loops' rings share their bytes); a
// scratch lives only at its instruction. Offsets are given largest
// first, each at the lowest offset that overlaps no live-range neighbour
// placed before it (first fit); the function records the total.
// sharedOverlap checks offsets given otherwise (GPU IR written by hand) by
// the same live ranges.
#include <algorithm>
#include <map>

#include "analysis/liveness.h"
#include "gpu/passes.h"
#include "gpu/scratch.h"
#include "gpu/shared_memory.h"

namespace tritonc::gpu {

namespace {

// Where a buffer is live: spans of the instruction numbering, one per block
// (a block's instructions are numbered consecutively), so that two loops one
// after the other never look live at once, whatever the numbering's order.
using Span = std::pair<size_t, size_t>;

struct Buffer {
  const ir::Instruction* owner;
  int64_t bytes, align;
  std::vector<Span> spans;
  int64_t offset = -1;
};

bool overlaps(const Buffer& a, const Buffer& b) {
  for (const Span& x : a.spans)
    for (const Span& y : b.spans)
      if (x.first <= y.second && y.first <= x.second) return true;
  return false;
}

// The spans of `v` and of its stages and transposed views (mem_index, trans):
// in each block, from the block's start (live in) or the definition to the
// block's end (live out) or the last use there.
void addSpans(const analysis::Liveness& live, const ir::Value* v, std::map<const ir::BasicBlock*, Span>& spans) {
  auto widen = [&](const ir::BasicBlock* bb, size_t lo, size_t hi) {
    auto [it, fresh] = spans.try_emplace(bb, lo, hi);
    if (!fresh) it->second = {std::min(it->second.first, lo), std::max(it->second.second, hi)};
  };
  auto* def = static_cast<const ir::Instruction*>(v);
  const ir::Function& f = *def->parent->parent();
  for (auto& bb : f.blocks()) {
    if (bb->instructions().empty()) continue;
    size_t first = live.indexOf(bb->instructions().front().get()), last = live.indexOf(bb->instructions().back().get());
    bool in = live.liveIn(bb.get()).count(v) > 0, out = live.liveOut(bb.get()).count(v) > 0;
    if (in || out) widen(bb.get(), in ? first : live.indexOf(def), out ? last : first);
  }
  widen(def->parent, live.indexOf(def), live.indexOf(def));
  for (const ir::Instruction* u : v->users()) {
    if (u->opcode() != ir::Opcode::Phi) widen(u->parent, live.indexOf(u), live.indexOf(u));
    if (u->opcode() == ir::Opcode::MemIndex || u->opcode() == ir::Opcode::Trans) addSpans(live, u, spans);
  }
}

// Every buffer (local_alloc) and scratch of `f` with where it is live,
// its offset the one it has (-1 where none).
std::vector<Buffer> liveBuffers(const ir::Function& f, const analysis::Liveness& live) {
  std::vector<Buffer> buffers;
  for (auto& bb : f.blocks())
    for (auto& inst : bb->instructions()) {
      const ir::Instruction* i = inst.get();
      if (i->opcode() == ir::Opcode::LocalAlloc) {
        std::map<const ir::BasicBlock*, Span> spans;
        addSpans(live, i, spans);
        Buffer b{i, sharedBytes(i->type()), sharedAlignment(i->type()), {}, i->smem};
        for (auto& [bb, span] : spans) b.spans.push_back(span);
        buffers.push_back(b);
      } else if (ScratchUse s = scratchOf(*i); s.bytes > 0) {
        buffers.push_back({i, s.bytes, 16, {{live.indexOf(i), live.indexOf(i)}}, i->smem});
      }
    }
  return buffers;
}

std::string describe(const Buffer& b) {
  const std::string name = b.owner->name().empty() ? "" : " %" + b.owner->name();
  return std::string("'") + ir::opcodeName(b.owner->opcode()) + "'" + name + " at {smem = " +
         std::to_string(b.offset) + "} (" + std::to_string(b.bytes) + " bytes)";
}

}  // namespace

std::string sharedOverlap(const ir::Function& f) {
  analysis::Liveness live(f);
  std::vector<Buffer> buffers = liveBuffers(f, live);
  for (size_t x = 0; x < buffers.size(); ++x)
    for (size_t y = x + 1; y < buffers.size(); ++y) {
      const Buffer &a = buffers[x], &b = buffers[y];
      if (a.offset < 0 || b.offset < 0 || !overlaps(a, b)) continue;
      if (a.offset < b.offset + b.bytes && b.offset < a.offset + a.bytes)
        return describe(a) + " and " + describe(b) + " share bytes while both are live";
    }
  return "";
}

bool runAllocateShared(ir::Function& f, const transform::PipelineOptions&) {
  if (!f.parent()->isGpu()) return false;
  analysis::Liveness live(f);
  std::vector<Buffer> buffers = liveBuffers(f, live);
  for (auto& bb : f.blocks())
    for (auto& inst : bb->instructions()) inst->smem = -1;
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
    const_cast<ir::Instruction*>(b->owner)->smem = b->offset;
    total = std::max(total, b->offset + b->bytes);
  }
  int64_t limit = maxSharedBytes(f.parent()->target);
  if (total > limit)
    throw OutOfResourcesError(f.loc,
                              "kernel '" + f.name() + "' needs " + std::to_string(total) +
                                  " bytes of shared memory, more than the " + std::to_string(limit) + " of " +
                                  f.parent()->target + " (try smaller tiles or fewer stages)",
                              total, limit, "shared memory");
  f.sharedBytes = (total + 15) / 16 * 16;
  return true;
}

}  // namespace tritonc::gpu
