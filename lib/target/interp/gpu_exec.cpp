// The GPU IR's own instructions on the interpreter, so that the GPU passes
// are checked like the others: a program's buffers in shared memory are
// arrays of its own (one per local_alloc, reused each time it runs), a
// buffer value is a handle (buffer number, element offset of the stage);
// copies happen at once (masked-off elements become zeros, as cp.async's
// zero-fill), so commits, barriers and fences do nothing (waits check the
// barriers' phases, below), and layout
// conversions are copies. Whether the pipeliner reads each stage after its
// copy and before the copy that overwrites it is what this checks.
// The mbarriers of rings count their completed phases: a tma_copy completes
// one of its stage's barrier, a stage_release (warp specialization: the
// consumers free a stage for the producer) one of its own, and a tma_wait
// for a phase that no earlier instruction completed is an error: in program
// order the waiter would wait for ever (on the GPU, for an instruction that
// comes later, which warp specialization may only do across roles).
#include <algorithm>
#include <cmath>

#include "target/interp/executor.h"

namespace tritonc::interp::detail {

namespace {

// Bit 31 of the offset word marks a transposed view (of a 2-D stage).
constexpr int64_t kTransposed = int64_t(1) << 31;
Elem handle(int64_t buffer, int64_t offset) { return intElem((buffer << 32) | offset); }
int64_t bufferOf(const Elem& e) { return e.i >> 32; }
int64_t offsetOf(const Elem& e) { return e.i & 0x7fffffff; }
bool transposed(const Elem& e) { return (e.i & kTransposed) != 0; }

// Elements of one stage of a buffer type (the whole buffer when it has no
// stage dimension).
int64_t stageElements(const ir::Type& t) {
  int64_t n = 1;
  size_t rank = t.layout ? t.layout->order.size() : t.shape.size();
  for (size_t d = t.shape.size() - rank; d < t.shape.size(); ++d) n *= t.shape[d];
  return n;
}

}  // namespace

Tile& Executor::bufferAt(const Elem& h, int64_t elements, const ir::Instruction* user) {
  int64_t b = bufferOf(h);
  if (b < 0 || size_t(b) >= buffers_.size() || offsetOf(h) + elements > int64_t(buffers_[size_t(b)].size()))
    fail(user, kernelText() + ": '" + ir::opcodeName(user->opcode()) + "' outside its buffer in shared memory in " +
                   programText());
  return buffers_[size_t(b)];
}

Tile Executor::operandTile(const Step& s, size_t i) {
  const ir::Type& t = inType(s, i);
  if (!t.isShared()) return in(s, i);
  const Elem& h = in(s, i)[0];
  int64_t n = stageElements(t);
  Tile& buf = bufferAt(h, n, s.inst);
  Tile out(buf.begin() + offsetOf(h), buf.begin() + offsetOf(h) + n);
  if (!transposed(h)) return out;
  // The view's element (r, c) is the buffer's (c, r).
  int64_t rows = t.shape[t.shape.size() - 2], cols = t.shape.back();
  Tile view(out.size());
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) view[size_t(r * cols + c)] = out[size_t(c * rows + r)];
  return view;
}

void Executor::execGpu(const Step& s) {
  using Op = ir::Opcode;
  const ir::Instruction& inst = *s.inst;
  switch (inst.opcode()) {
    case Op::ConvertLayout: case Op::DotWait:
      out(s) = in(s, 0);
      return;
    case Op::DotAsync:
      execDot(s);
      return;
    case Op::LocalAlloc: {
      auto [it, fresh] = bufferIndex_.try_emplace(&inst, int(buffers_.size()));
      if (fresh) buffers_.emplace_back(size_t(inst.type().numElements()));
      out(s)[0] = handle(it->second, 0);
      for (auto p = phases_.begin(); p != phases_.end();)
        p = p->first.first == it->second ? phases_.erase(p) : std::next(p);
      if (inst.numOperands() == 1) {
        const Tile& v = in(s, 0);
        Tile& buf = buffers_[size_t(it->second)];
        for (size_t j = 0; j < buf.size(); ++j) buf[j] = v[v.size() == 1 ? 0 : j];
      }
      return;
    }
    case Op::MemIndex: {
      const Elem& h = in(s, 0)[0];
      if (transposed(h)) throw InternalError("mem_index of a transposed view");
      int64_t stages = inType(s, 0).shape[0], index = in(s, 1)[0].i;
      if (index < 0 || index >= stages)
        fail(s.inst, kernelText() + ": stage " + std::to_string(index) + " of a buffer of " + std::to_string(stages) +
                         " stages in " + programText());
      out(s)[0] = handle(bufferOf(h), offsetOf(h) + index * stageElements(inst.type()));
      return;
    }
    case Op::LocalLoad:
      out(s) = operandTile(s, 0);
      return;
    case Op::Trans:  // of a buffer: a transposed view
      out(s)[0] = intElem(in(s, 0)[0].i ^ kTransposed);
      return;
    case Op::LocalStore: {
      const Elem& h = in(s, 0)[0];
      if (transposed(h)) throw InternalError("local_store into a transposed view");
      int64_t n = stageElements(inType(s, 0));
      Tile& buf = bufferAt(h, n, s.inst);
      const Tile& v = in(s, 1);
      for (int64_t j = 0; j < n; ++j) buf[size_t(offsetOf(h) + j)] = v[v.size() == 1 ? 0 : size_t(j)];
      return;
    }
    case Op::AsyncCopy: {
      const Elem& h = in(s, 0)[0];
      if (transposed(h)) throw InternalError("async_copy into a transposed view");
      int64_t n = stageElements(inType(s, 0));
      Tile& buf = bufferAt(h, n, s.inst);
      const ir::Scalar kind = inType(s, 1).pointee;
      const Tile& ptrs = in(s, 1);
      const Elem* mask = s.operands.size() == 3 ? in(s, 2).data() : nullptr;
      size_t sm = s.operands.size() == 3 ? strideOf(s, 2) : 0;
      const int size = ir::byteSize(kind);
      for (int64_t j = 0; j < n; ++j) {
        Elem& dst = buf[size_t(offsetOf(h) + j)];
        if (mask && !mask[size_t(j) * sm].i) {
          dst = ir::isFloatKind(kind) ? floatElem(0) : intElem(0);
          continue;
        }
        const uint64_t addr = uint64_t(ptrs[size_t(j)].i);
        const uint8_t* host = memory_.resolve(addr, size, false);
        if (!host) host = access(s, addr, kind, false, j);
        dst = decodeElem(kind, host);
      }
      return;
    }
    case Op::TmaCopy: {
      // The box at (row, col) of the rows x cols tensor at base (leading
      // stride ld); what lies outside it, or everything when the predicate
      // is false, becomes zeros, as the tensor-memory accelerator fills.
      // Under a false issue predicate no copy is made: the stage holds
      // garbage (NaN, or all ones), which a program that reads it shows.
      const Elem& h = in(s, 0)[0];
      const ir::Type& t = inType(s, 0);
      int64_t boxRows = t.shape[0], boxCols = t.shape[1];
      Tile& buf = bufferAt(h, boxRows * boxCols, s.inst);
      const ir::Scalar kind = t.kind;
      if (inst.numOperands() == 11 && !in(s, 10)[0].i) {
        ++phases_[{bufferOf(in(s, 1)[0]), in(s, 2)[0].i}];
        for (int64_t j = 0; j < boxRows * boxCols; ++j)
          buf[size_t(offsetOf(h) + j)] = ir::isFloatKind(kind) ? floatElem(std::nan("")) : intElem(-1);
        return;
      }
      const int size = ir::byteSize(kind);
      const uint64_t base = uint64_t(in(s, 3)[0].i);
      const int64_t ld = in(s, 4)[0].i, rows = in(s, 5)[0].i, cols = in(s, 6)[0].i;
      const int64_t row = in(s, 7)[0].i, col = in(s, 8)[0].i;
      const bool pred = in(s, 9)[0].i != 0;
      ++phases_[{bufferOf(in(s, 1)[0]), in(s, 2)[0].i}];  // the copy's bytes arrive, even outside the tensor
      // The stage's contiguous dimension runs along the tensor's rows: a
      // stage contiguous along dimension 0 (B of `a @ b` stored as its
      // transpose) holds the box transposed, element (r, c) from row c, column r.
      const bool across = t.layout && !t.layout->order.empty() && t.layout->order[0] == 0;
      for (int64_t r = 0; r < boxRows; ++r)
        for (int64_t c = 0; c < boxCols; ++c) {
          int64_t j = r * boxCols + c, gr = row + (across ? c : r), gc = col + (across ? r : c);
          Elem& dst = buf[size_t(offsetOf(h) + j)];
          if (!pred || gr < 0 || gr >= rows || gc < 0 || gc >= cols) {
            dst = ir::isFloatKind(kind) ? floatElem(0) : intElem(0);
            continue;
          }
          const uint64_t addr = base + uint64_t((gr * ld + gc) * size);
          const uint8_t* host = memory_.resolve(addr, size, false);
          if (!host) host = access(s, addr, kind, false, j);
          dst = decodeElem(kind, host);
        }
      return;
    }
    case Op::StageRelease:
      if (in(s, 2)[0].i) ++phases_[{bufferOf(in(s, 0)[0]), in(s, 1)[0].i}];
      return;
    case Op::TmaWait: {
      int64_t stage = in(s, 1)[0].i, parity = in(s, 2)[0].i;
      int64_t done = phases_[{bufferOf(in(s, 0)[0]), stage}];
      // try_wait.parity(p) passes once the barrier's current phase has the other parity.
      if ((done & 1) == (parity & 1))
        fail(s.inst, kernelText() + ": 'tma_wait' for phase parity " + std::to_string(parity) + " of stage " +
                         std::to_string(stage) + " (" + std::to_string(done) +
                         " phases completed): nothing before it completes that phase, in " + programText());
      return;
    }
    case Op::AsyncCommit: case Op::AsyncWait: case Op::Barrier: case Op::FenceAsyncShared: case Op::TmaInit:
    case Op::StageInit:
      return;
    default:
      throw InternalError(std::string("the executor cannot run '") + ir::opcodeName(inst.opcode()) + "' here");
  }
}

}  // namespace tritonc::interp::detail
