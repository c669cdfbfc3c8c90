// The GPU IR's verifier rules (docs/GPU_IR.md, "Verifier"): every tile has a
// layout of the right rank, shared layouts only on buffers, and each
// instruction's layouts agree the way its lowering needs them to. The
// Triton-IR rules (verifier_rules.cpp) run as well and compare whole types,
// layouts included, wherever an instruction keeps the type of its operands.
#include "ir/op_rules.h"

#include <cstdint>

namespace tritonc::ir {

namespace {

std::string str(const Type& t) { return typeToString(t); }

// The rank of the tiles a layout describes (shared: of one stage).
size_t layoutRank(const Layout* l) {
  switch (l->kind) {
    case LayoutKind::Blocked: return l->sizePerThread.size();
    case LayoutKind::Slice: return layoutRank(l->parent) - 1;
    case LayoutKind::Mma: case LayoutKind::DotOperand: return 2;
    case LayoutKind::Shared: return l->order.size();
  }
  return 0;
}

bool distributed(const Type& t) { return t.isTile() && t.layout && t.layout->isDistributed(); }
bool shared(const Type& t) { return t.isTile() && t.isShared(); }
// The mbarriers of a ring of TMA copies: i64<stages, 1> in shared memory.
bool barriers(const Type& t) { return shared(t) && t.kind == Scalar::I64 && t.shape.size() == 2 && t.shape[1] == 1; }
// The same elements and shape, whatever the layouts.
bool sameTile(const Type& a, const Type& b) { return a.withLayout(nullptr) == b.withLayout(nullptr); }

// The warps a distributed layout spreads over.
int64_t warpsOf(const Layout* l) {
  while (l->kind == LayoutKind::Slice || l->kind == LayoutKind::DotOperand) l = l->parent;
  int64_t w = 1;
  for (int64_t x : l->warpsPerCta) w *= x;
  return w;
}

// The elements a thread holds contiguously along a blocked layout's fastest
// dimension, which vectors of an access may not exceed (other layouts: any).
int64_t contiguousPerThread(const Layout* l) {
  return l->kind == LayoutKind::Blocked ? l->sizePerThread[size_t(l->order[0])] : INT64_MAX;
}

// An operand buffer of wgmma: swizzled; MN-major (its contiguous dimension
// not K) only with the 128-byte swizzle.
std::string checkWgmmaBuffer(const Type& t, int kDim, const char* name) {
  if (!t.layout->swizzle) return std::string("wgmma reads swizzled buffers: ") + name + " is " + str(t);
  if (t.layout->order[0] != kDim && byteSize(t.kind) != 2)
    return std::string("wgmma reads 8-bit and tf32 operands K-major only: ") + name + " is " + str(t);
  if (t.layout->order[0] != kDim && t.layout->swizzle != 128)
    return std::string("wgmma reads an MN-major buffer with the 128-byte swizzle only: ") + name + " is " + str(t);
  return "";
}

std::string checkDotLayouts(const Instruction& inst) {
  const Type& a = inst.operand(0)->type();
  const Type& b = inst.operand(1)->type();
  const Layout* r = inst.type().layout;
  bool async = inst.opcode() == Opcode::DotAsync;
  auto operandOf = [&](const Type& t, int op) {
    return distributed(t) && t.layout->kind == LayoutKind::DotOperand && t.layout->opIdx == op && t.layout->parent == r;
  };
  if (r->kind == LayoutKind::Mma && r->version == 3 && r->transposed) {
    if (!shared(a) || !operandOf(b, 1) || a.kind != Scalar::F32)
      return "a transposed wgmma dot (C^T = B^T A^T) reads A from shared memory and B from registers (dot_operand 1 "
             "of its result), tf32 only";
    return checkWgmmaBuffer(a, 1, "A");
  }
  if (r->kind == LayoutKind::Mma && r->version == 3) {
    if (!(shared(a) || operandOf(a, 0)) || !shared(b))
      return "a wgmma dot reads B from shared memory and A from shared memory or registers (dot_operand 0 of its result)";
    std::string problem = shared(a) ? checkWgmmaBuffer(a, 1, "A") : "";
    return problem.empty() ? checkWgmmaBuffer(b, 0, "B") : problem;
  }
  if (async) return "'dot_async' is a wgmma: its result needs an mma<v=3> layout";
  if (r->kind == LayoutKind::Mma) {
    if (!operandOf(a, 0) || !operandOf(b, 1))
      return "an mma.sync dot takes its operands as dot_operand 0 and 1 of its result's layout";
    return "";
  }
  if (r->kind == LayoutKind::Blocked) {
    if (!shared(a) || !shared(b)) return "an FMA dot (blocked result) reads both operands from shared memory";
    return "";
  }
  return "a dot's result needs an mma or blocked layout";
}

std::string checkGpuOp(const Instruction& inst) {
  const Type& r = inst.type();
  auto op = [&](size_t k) -> const Type& { return inst.operand(k)->type(); };
  switch (inst.opcode()) {
    case Opcode::ConvertLayout:
      if (!distributed(op(0)) || !distributed(r) || !sameTile(op(0), r))
        return "'convert_layout' changes only the layout of a distributed tile (" + str(op(0)) + " to " + str(r) + ")";
      return "";
    case Opcode::LocalAlloc:
      if (!shared(r)) return "'local_alloc' makes a buffer in shared memory: its type needs a shared layout";
      if (inst.numOperands() == 1 && (!distributed(op(0)) || !sameTile(op(0), r)))
        return "'local_alloc' stores a distributed tile of its own shape and element type, not " + str(op(0));
      return "";
    case Opcode::LocalLoad:
      if (!shared(op(0)) || !distributed(r) || !sameTile(op(0), r))
        return "'local_load' reads a buffer (" + str(op(0)) + ") into a distributed tile of its shape, not " + str(r);
      return "";
    case Opcode::LocalStore:
      if (!shared(op(0)) || !distributed(op(1)) || !sameTile(op(0), op(1)))
        return "'local_store' writes a distributed tile into a buffer of its shape";
      return "";
    case Opcode::MemIndex: {
      const Type& b = op(0);
      if (!shared(b) || b.shape.size() != layoutRank(b.layout) + 1)
        return "'mem_index' selects a stage of a buffer with a leading stage dimension, not " + str(b);
      if (op(1).withLayout(nullptr) != Type::scalar(Scalar::I32)) return "'mem_index' takes an i32 stage index";
      Type expected = b.withShape(Shape(b.shape.begin() + 1, b.shape.end()));
      if (r != expected) return "'mem_index' result must be " + str(expected) + ", not " + str(r);
      const Value* stage = inst.operand(1);
      const auto* c = stage->valueKind() == ValueKind::Constant ? static_cast<const Constant*>(stage) : nullptr;
      if (c && (c->i < 0 || c->i >= b.shape[0]))
        return "'mem_index' selects stage " + std::to_string(c->i) + " of a buffer of " + std::to_string(b.shape[0]) +
               " stages";
      return "";
    }
    case Opcode::AsyncCopy: {
      const Type& dst = op(0);
      const Type& p = op(1);
      if (!shared(dst) || dst.shape.size() != layoutRank(dst.layout))
        return "'async_copy' writes one buffer (a single stage), not " + str(dst);
      if (!p.isPtr() || !distributed(p)) return "'async_copy' reads through a distributed tile of pointers";
      if (dst.shape != p.shape || dst.kind != p.pointee)
        return "'async_copy' destination " + str(dst) + " does not match the pointers " + str(p);
      if (inst.numOperands() == 3 && op(2) != Type::scalar(Scalar::I1).withShape(p.shape).withLayout(p.layout))
        return "'async_copy' mask must be i1 of the pointers' shape and layout";
      if (inst.vec && inst.vec * byteSize(dst.kind) != 4 && inst.vec * byteSize(dst.kind) != 8 &&
          inst.vec * byteSize(dst.kind) != 16)
        return "'async_copy' copies 4, 8 or 16 bytes at a time, not " + std::to_string(inst.vec) + " x " +
               scalarName(dst.kind);
      return "";
    }
    case Opcode::TmaInit: case Opcode::TmaWait: {
      std::string what = inst.opcode() == Opcode::TmaInit ? "'tma_init'" : "'tma_wait'";
      if (inst.imm != 0 && (inst.imm != 1 || inst.opcode() != Opcode::TmaInit)) return what + ": only 'cluster = 1' on tma_init";
      if (!barriers(op(0))) return what + " takes a buffer of barriers (i64<stages, 1>), not " + str(op(0));
      for (size_t k = 1; k < inst.numOperands(); ++k)
        if (op(k) != Type::scalar(Scalar::I32)) return what + " takes an i32 stage and phase";
      return "";
    }
    case Opcode::StageInit:
      if (inst.imm < 1) return "'stage_init' needs a positive number of arrivals per phase";
      if (!barriers(op(0))) return "'stage_init' takes a buffer of barriers (i64<stages, 1>), not " + str(op(0));
      return "";
    case Opcode::StageRelease:
      if (!barriers(op(0))) return "'stage_release' takes a buffer of barriers (i64<stages, 1>), not " + str(op(0));
      if (op(1) != Type::scalar(Scalar::I32) || op(2) != Type::scalar(Scalar::I1))
        return "'stage_release' takes an i32 stage and a scalar i1 predicate";
      return "";
    case Opcode::TmaCopy: {
      const Type& dst = op(0);
      if (!shared(dst) || dst.shape.size() != 2 || layoutRank(dst.layout) != 2 || !dst.layout->swizzle)
        return "'tma_copy' writes one stage of a swizzled 2-D buffer, not " + str(dst);
      if (!barriers(op(1))) return "'tma_copy' signals a buffer of barriers (i64<stages, 1>), not " + str(op(1));
      if (!op(3).isPtr() || op(3).isTile() || op(3).pointee != dst.kind)
        return "'tma_copy' reads from a scalar pointer to the buffer's elements, not " + str(op(3));
      for (size_t k : {size_t(2), size_t(4), size_t(5), size_t(6), size_t(7), size_t(8)})
        if (op(k) != Type::scalar(Scalar::I32))
          return "'tma_copy' takes i32 scalars for its stage, leading stride, extents and coordinates";
      if (op(9) != Type::scalar(Scalar::I1)) return "'tma_copy' takes a scalar i1 predicate";
      if (inst.numOperands() == 11 && op(10) != Type::scalar(Scalar::I1))
        return "'tma_copy' takes a scalar i1 issue predicate";
      if (inst.imm != 0 && inst.imm != 2) return "'tma_copy' is multicast to a pair of programs or not at all";
      if (inst.sub != 0 && (inst.sub != 1 || !inst.imm)) return "'along = y' marks a multicast 'tma_copy'";
      if (inst.imm && !tmaStageSplitsInHalves(dst))
        return "a multicast 'tma_copy' needs a stage that splits in halves, one per program: an even number of "
               "swizzle blocks, or rows that halve into multiples of 1024 bytes";
      return "";
    }
    case Opcode::AsyncWait: case Opcode::DotWait:
      if (inst.imm < 0) return "the number of pending groups must not be negative";
      if (inst.opcode() == Opcode::DotWait && op(0) != r) return "'dot_wait' returns its operand's type";
      return "";
    case Opcode::Barrier:
      return inst.imm >= 0 && inst.imm <= kBarrierClusterWait
                 ? ""
                 : "a 'barrier' synchronizes the program, or its cluster (cluster = 1, or split: arrive, wait)";
    case Opcode::AsyncCommit: case Opcode::FenceAsyncShared:
      return "";
    case Opcode::DotAsync:
      return checkDotLayouts(inst);
    default:
      return "";
  }
}

}  // namespace

std::string checkLayoutFitsType(const Type& t) {
  if (!t.layout) return "";
  if (!t.isTile()) return "a scalar has no layout";
  size_t rank = layoutRank(t.layout);
  if (t.layout->isShared()) {
    if (t.shape.size() != rank && t.shape.size() != rank + 1)
      return "shared layout of rank " + std::to_string(rank) + " on " + str(t);
  } else if (t.shape.size() != rank) {
    return "layout of rank " + std::to_string(rank) + " on " + str(t);
  }
  // (A buffer's leading dimension of stages may have any size.)
  size_t first = t.layout->isShared() && t.shape.size() == rank + 1 ? 1 : 0;
  for (size_t k = first; k < t.shape.size(); ++k)
    if (t.shape[k] & (t.shape[k] - 1)) return "GPU IR tiles have power-of-two dimensions, not " + str(t);
  return "";
}

std::string checkGpuInstruction(const Instruction& inst) {
  Opcode o = inst.opcode();
  const Type& r = inst.type();
  for (size_t k = 0; k <= inst.numOperands(); ++k) {
    const Type& t = k < inst.numOperands() ? inst.operand(k)->type() : r;
    if (t.isTile() && !t.layout) return std::string(k < inst.numOperands() ? "an operand" : "the result") + " has no layout";
    std::string problem = checkLayoutFitsType(t);
    if (!problem.empty()) return problem;
  }
  // Every distributed layout spreads over the function's warps, or over a
  // part of them that the others repeat.
  const Module* m = inst.parent && inst.parent->parent() ? inst.parent->parent()->parent() : nullptr;
  for (size_t k = 0; m && m->numWarps > 0 && k <= inst.numOperands(); ++k) {
    const Type& t = k < inst.numOperands() ? inst.operand(k)->type() : r;
    if (t.isTile() && t.layout && t.layout->isDistributed() && m->numWarps % warpsOf(t.layout) != 0)
      return "the layout of " + str(t) + " spreads over " + std::to_string(warpsOf(t.layout)) +
             " warps, which the " + std::to_string(m->numWarps) + " of num_warps do not cover";
  }
  // A vector of an access is contiguous in its thread: at most what the
  // layout gives it along the fastest dimension, and a divisor of it.
  if (inst.vec > 1 && (o == Opcode::Load || o == Opcode::Store || o == Opcode::AsyncCopy)) {
    const Type& p = o == Opcode::AsyncCopy ? inst.operand(1)->type() : inst.operand(0)->type();
    int64_t contiguous = p.isTile() && p.layout ? contiguousPerThread(p.layout) : 1;
    if (contiguous != INT64_MAX && contiguous % inst.vec != 0)
      return "{vec = " + std::to_string(inst.vec) + "} needs " + std::to_string(inst.vec) +
             " elements contiguous in each thread; the layout of " + str(p) + " gives " + std::to_string(contiguous);
  }
  bool makesBuffer = o == Opcode::LocalAlloc || o == Opcode::MemIndex;
  if (o == Opcode::Trans && inst.operand(0)->type().isShared() && !r.isShared())
    return "a transposed buffer is a buffer";
  if (o == Opcode::Trans && r.isShared()) {
    // A transposed view of a buffer: the same bytes, the dimensions swapped.
    const Type& a = inst.operand(0)->type();
    const Layout* l = a.layout;
    if (!a.isShared() || a.shape.size() != 2 || l->order.size() != 2 || r.layout->order != std::vector<int>{l->order[1], l->order[0]} ||
        r.layout->pad != l->pad || r.layout->swizzle != l->swizzle)
      return "a transposed buffer is the same buffer with its order swapped";
    return "";
  }
  if (r.isShared() && !makesBuffer && o != Opcode::Phi)
    return "only local_alloc, mem_index and trans make buffers in shared memory";
  if (opcodeCategory(o) == OpCategory::Gpu) return checkGpuOp(inst);
  switch (o) {
    case Opcode::Dot: return checkDotLayouts(inst);
    case Opcode::Reduce:
      if (r.isTile() && (r.layout->kind != LayoutKind::Slice || r.layout->parent != inst.operand(0)->type().layout ||
                         r.layout->dim != inst.imm))
        return "'reduce' result must have the slice of its operand's layout along the axis";
      return "";
    case Opcode::Broadcast:
      if (inst.operand(0)->type().layout != r.layout) return "'broadcast' keeps its operand's layout";
      return "";
    case Opcode::Scan: case Opcode::Sort: case Opcode::ArgSort:
      if (inst.operand(0)->type().layout != r.layout)
        return std::string("'") + ir::opcodeName(o) + "' keeps its operand's layout";
      return "";
    case Opcode::ScanFn:
      for (Value* v : inst.operands())
        if (v->type().layout != r.layout) return "'scan_fn' operands and result have one layout";
      return "";
    case Opcode::Histogram:
      if (inst.numOperands() == 2 && inst.operand(1)->type().layout != inst.operand(0)->type().layout)
        return "'histogram' mask has the counted tile's layout";
      return "";
    case Opcode::ReduceFn:
      for (Value* v : inst.operands())
        if (v->type().layout != inst.operand(0)->type().layout) return "'reduce_fn' operands have one layout";
      if (r.isTile() && (r.layout->kind != LayoutKind::Slice || r.layout->parent != inst.operand(0)->type().layout ||
                         r.layout->dim != inst.imm))
        return "'reduce_fn' result must have the slice of its operands' layout along the axis";
      return "";
    case Opcode::Gather:
      if (inst.operand(1)->type().layout != r.layout) return "'gather' result takes its index's layout";
      if (inst.operand(0)->type().isShared()) return "a buffer in shared memory is read by local_load or a dot";
      return "";
    default:
      for (Value* v : inst.operands())
        if (v->type().isShared() && o != Opcode::Phi) return "a buffer in shared memory is read by local_load or a dot";
      return "";
  }
}

}  // namespace tritonc::ir
