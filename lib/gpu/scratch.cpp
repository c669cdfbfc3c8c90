#include "gpu/scratch.h"

#include <algorithm>

#include "gpu/layouts.h"

namespace tritonc::gpu {

ir::Scalar reduceCombineKind(ir::Scalar k) {
  if (k == ir::Scalar::F16 || k == ir::Scalar::BF16) return ir::Scalar::F32;
  if (k == ir::Scalar::I8 || k == ir::Scalar::I16) return ir::Scalar::I32;
  return k;
}

int64_t reduceWarpSlots(const ir::Instruction& reduce) {
  LinearLayout ll = linearOf(reduce.operand(0)->type());
  size_t axis = size_t(reduce.imm);
  int64_t slots = 1;
  for (const Index& b : ll.warp)
    if (b[axis]) slots *= 2;
  return slots;
}

std::vector<int64_t> reduceFnSections(const ir::Instruction& reduce) {
  const int64_t slots = reduceWarpSlots(reduce);
  if (slots == 1) return {};
  const int64_t outElems = reduce.type().isTile() ? reduce.type().numElements() : 1;
  std::vector<int64_t> at{0};
  for (const ir::Value* v : reduce.operands())
    at.push_back(at.back() + (slots * outElems * ir::byteSize(v->type().kind) + 15) / 16 * 16);
  return at;
}

ScanPlan scanPlan(const ir::Instruction& scan) {
  ScanPlan p;
  const ir::Type& t = scan.type();
  const size_t axis = size_t(scan.imm);
  p.n = t.shape.at(axis);
  // A run doubles while a register basis steps exactly its length along
  // the axis: the thread then holds both halves of the longer run.
  if (t.layout && t.layout->isDistributed()) {
    const LinearLayout ll = linearOf(t);
    for (bool grew = true; grew && p.runLength < p.n;) {
      grew = false;
      for (const Index& b : ll.reg) {
        bool step = b[axis] == p.runLength;
        for (size_t d = 0; d < b.size(); ++d) step = step && (d == axis || b[d] == 0);
        grew = grew || step;
      }
      if (grew) p.runLength *= 2;
    }
    // The other bases must leave a run's low positions alone (positions
    // combine bases by XOR): else runs of one element, which always hold.
    for (const std::vector<Index>* bases : {&ll.reg, &ll.lane, &ll.warp})
      for (const Index& b : *bases) {
        bool runBase = b[axis] < p.runLength;
        for (size_t d = 0; d < b.size(); ++d) runBase = runBase && (d == axis || b[d] == 0);
        if (!runBase && (b[axis] & (p.runLength - 1)) != 0) p.runLength = 1;
      }
  }
  p.perRow = p.n / p.runLength;
  p.runs = t.numElements() / p.runLength;
  p.kind = reduceCombineKind(t.kind);
  if (p.perRow == 1) return p;  // (runs as long as the axis: no totals)
  if (scan.opcode() == ir::Opcode::Scan) {
    p.sections = {0};
    p.bytes = p.runs * ir::byteSize(p.kind);
    return p;
  }
  for (const ir::Value* v : scan.operands()) {
    p.sections.push_back(p.bytes);
    p.bytes += (p.runs * ir::byteSize(v->type().kind) + 15) / 16 * 16;
  }
  return p;
}

SortPlan sortPlan(const ir::Instruction& sort) {
  SortPlan p;
  const ir::Type& t = sort.operand(0)->type();
  const size_t axis = size_t(sort.imm);
  p.n = t.shape.at(axis);
  p.rows = t.numElements() / p.n;
  const ir::Module* m = sort.parent && sort.parent->parent() ? sort.parent->parent()->parent() : nullptr;
  p.threads = 32 * int64_t(m && m->numWarps > 0 ? m->numWarps : 4);
  p.keep = sort.type().shape.at(axis);
  const int64_t total = p.rows * p.n;
  const int64_t each = total / p.threads;  // keys per thread (0: fewer keys than threads)
  // (argsort: the element's key above its position)
  const bool indices = sort.opcode() == ir::Opcode::ArgSort;
  p.key = indices || ir::byteSize(sort.operand(0)->type().kind) > 4 ? ir::Scalar::I64 : ir::Scalar::I32;
  // (Lists longer than twice the keys each thread holds leave too many
  // threads idle: on the H200 k = 16 of 1024 (4 warps) ran 1.6x faster than
  // the whole sort, k = 64 of 4096 (8 warps) 1.65x slower.)
  p.partial = p.keep < p.n && p.keep * ir::byteSize(p.key) <= 256 && p.keep <= 2 * std::max<int64_t>(each, 1);
  p.chunk = std::max(p.partial ? p.keep : 1, std::min(p.n, each));
  p.perRow = p.n / p.chunk;
  p.chunks = std::max<int64_t>(1, total / (p.chunk * p.threads));
  p.active = std::min(p.threads, total / p.chunk);
  p.bytes = sortPadded(total * ir::byteSize(p.key));
  return p;
}

ScratchUse scratchOf(const ir::Instruction& inst) {
  ScratchUse s;
  switch (inst.opcode()) {
    case ir::Opcode::ConvertLayout: case ir::Opcode::Reshape: case ir::Opcode::Broadcast: case ir::Opcode::Trans:
    case ir::Opcode::ExtractSlice: {
      const ir::Type& from = inst.operand(0)->type();
      // (A transposed view of a buffer moves nothing.)
      if (!from.isTile() || from.isShared() || keepsElementsInThreads(inst)) return s;
      int64_t esize = ir::byteSize(from.kind);
      int64_t cols = from.shape.back();
      // Accesses that go down columns (a transposition, a conversion whose
      // lanes advance along another dimension than the stored rows, or a
      // source whose warps write a few elements of several rows at once, as
      // MMA accumulators do) meet different banks when rows are padded: by
      // 16 bytes when rows are written with vectors, else by 4.
      int64_t pad = 0;
      LinearLayout ll = linearOf(from);
      size_t last = from.shape.size() - 1;
      bool acrossRows = inst.opcode() == ir::Opcode::Trans;
      if (inst.opcode() == ir::Opcode::ConvertLayout || inst.opcode() == ir::Opcode::ExtractSlice) {
        acrossRows = laneFastDim(linearOf(inst.type())) != int(last);
        for (const Index& b : ll.lane)
          for (size_t d = 0; d < last; ++d) acrossRows = acrossRows || b[d] != 0;
      }
      if (acrossRows) {
        bool rowsContiguous = ll.contiguousRegs(last) > 1;
        pad = rowsContiguous ? std::max<int64_t>(1, 16 / esize) : std::max<int64_t>(1, 4 / esize);
      }
      s.pitch = cols + pad;
      s.bytes = from.numElements() / cols * s.pitch * esize;
      return s;
    }
    case ir::Opcode::Gather: {
      // The source at its row-major places, unpadded: the reads go wherever
      // the indices point.
      const ir::Type& from = inst.operand(0)->type();
      if (!from.isTile()) return s;
      s.pitch = from.shape.back();
      s.bytes = from.numElements() * ir::byteSize(from.kind);
      return s;
    }
    case ir::Opcode::Scan: case ir::Opcode::ScanFn:
      // (A tuple is computed at its leader: the others move nothing.)
      if (ir::tupleLeader(inst) == &inst) s.bytes = scanPlan(inst).bytes;
      return s;
    case ir::Opcode::Sort: case ir::Opcode::ArgSort:
      if (inst.type().isTile()) s.bytes = sortPlan(inst).bytes;
      return s;
    case ir::Opcode::Reduce: {
      int64_t slots = reduceWarpSlots(inst);
      if (slots == 1) return s;
      int64_t outElems = inst.type().isTile() ? inst.type().numElements() : 1;
      s.bytes = slots * outElems * ir::byteSize(reduceCombineKind(inst.type().kind));
      return s;
    }
    case ir::Opcode::Histogram:
      s.bytes = inst.type().numElements() * 4;  // the bins
      return s;
    case ir::Opcode::ReduceFn: {
      const std::vector<int64_t> at = reduceFnSections(inst);
      s.bytes = at.empty() || ir::tupleLeader(inst) != &inst ? 0 : at.back();
      return s;
    }
    case ir::Opcode::AtomicRmw: case ir::Opcode::AtomicCas:
      // (An atomic whose old value nobody reads hands nothing out.)
      if (!inst.type().isTile() && !inst.users().empty()) s.bytes = 8;
      return s;
    default:
      return s;
  }
}

}  // namespace tritonc::gpu
