#include "target/interp/executor.h"

#include <algorithm>

#include "target/interp/wellformed.h"

namespace tritonc::interp::detail {

namespace {
// Keeps one runaway tile (e.g. from a typo in a shape) from exhausting memory.
constexpr int64_t kMaxTileElements = int64_t(1) << 24;

int64_t checkedElementCount(const ir::Type& t) {
  int64_t n = 1;
  for (int64_t d : t.shape) {
    if (d < 0 || (d != 0 && n > kMaxTileElements / d)) return -1;
    n *= d;
  }
  return n;
}
}  // namespace

Executor::Executor(const ir::Function& fn, const Grid& grid, const std::vector<KernelArg>& args,
                   const RunOptions& options)
    : fn_(fn), grid_(grid), options_(options) {
  std::string badGrid = gridProblem(grid);
  if (!badGrid.empty()) throw UserError(fn.loc, kernelText() + ": " + badGrid);
  if (fn.blocks().empty()) throw InternalError("kernel '" + fn.name() + "' has no blocks");
  numberValues();
  planBlocks();
  planCombiners();
  bindArguments(args);
}

void Executor::numberValues() {
  auto addSlot = [&](const ir::Value* v, SourceLoc loc) {
    // A buffer in shared memory (GPU IR) is held as a handle.
    int64_t n = v->type().isShared() ? 1 : checkedElementCount(v->type());
    if (n < 0)
      throw UserError(loc, kernelText() + ": the tile type " + ir::typeToString(v->type()) +
                               " is too large for the interpreter");
    slots_[v] = int(frame_.size());
    slotValues_.push_back(v);
    frame_.emplace_back(size_t(n));
  };
  // The kernel's values, then those of the module's combine functions (scalars).
  std::vector<const ir::Function*> fns{&fn_};
  if (fn_.parent())
    for (const auto& c : fn_.parent()->combiners()) fns.push_back(c.get());
  for (const ir::Function* f : fns) {
    for (const auto& a : f->arguments()) addSlot(a.get(), f->loc);
    for (const auto& bb : f->blocks())
      for (const auto& inst : bb->instructions())
        if (!inst->type().isVoid()) addSlot(inst.get(), inst->loc);
  }
  // Constants get their slot (filled once, rounded to their type) on first use.
  for (const ir::Function* f : fns) {
    for (const auto& bb : f->blocks()) {
      for (const auto& inst : bb->instructions()) {
        for (const ir::Value* v : inst->operands()) {
          if (v->valueKind() != ir::ValueKind::Constant || slots_.count(v)) continue;
          addSlot(v, inst->loc);
          const auto* c = static_cast<const ir::Constant*>(v);
          const ir::Scalar k = c->type().kind;
          Elem e = ir::isFloatKind(k) ? floatElem(roundTo(k, c->f)) : intElem(ir::wrapInt(k, c->i));
          std::fill(frame_.back().begin(), frame_.back().end(), e);
        }
      }
    }
  }
}

void Executor::planCombiners() {
  if (!fn_.parent()) return;
  for (const auto& f : fn_.parent()->combiners()) {
    if (f->blocks().size() != 1 || !f->entry()->terminator())
      throw InternalError("combine function '" + f->name() + "' is not one block ending in 'ret'");
    CombinerPlan plan;
    for (const auto& a : f->arguments()) plan.args.push_back(slots_.at(a.get()));
    for (const auto& owned : f->entry()->instructions()) {
      const ir::Instruction* inst = owned.get();
      if (inst->opcode() == ir::Opcode::Ret) {
        for (const ir::Value* v : inst->operands()) plan.results.push_back(slotOf(v, inst));
        continue;
      }
      checkWellFormed(*inst);
      Step step;
      step.inst = inst;
      step.result = slotOf(inst, inst);
      for (const ir::Value* v : inst->operands()) step.operands.push_back(slotOf(v, inst));
      plan.body.push_back(std::move(step));
    }
    combiners_[f.get()] = std::move(plan);
  }
}

int Executor::slotOf(const ir::Value* v, const ir::Instruction* user) const {
  auto it = slots_.find(v);
  if (it == slots_.end())
    throw InternalError("in kernel '" + fn_.name() + "', an operand of '" + ir::opcodeName(user->opcode()) +
                        "' is not defined in this function");
  return it->second;
}

void Executor::planBlocks() {
  for (const auto& bb : fn_.blocks()) blockIndex_[bb.get()] = int(blockIndex_.size());
  auto indexOfBlock = [&](const ir::BasicBlock* b, const ir::Instruction* user) {
    auto it = blockIndex_.find(b);
    if (it == blockIndex_.end())
      throw InternalError(std::string("'") + ir::opcodeName(user->opcode()) + "' in kernel '" + fn_.name() +
                          "' refers to a block of another function");
    return it->second;
  };
  size_t maxPhis = 0;
  for (const auto& bb : fn_.blocks()) {
    BlockPlan plan;
    for (const auto& owned : bb->instructions()) {
      const ir::Instruction* inst = owned.get();
      checkWellFormed(*inst);
      if (inst->opcode() == ir::Opcode::Phi) {
        if (!plan.body.empty() || bb.get() == fn_.entry())
          throw InternalError("phi in block '" + bb->name() + "' is not at the start of a non-entry block");
        PhiPlan phi;
        phi.inst = inst;
        phi.result = slotOf(inst, inst);
        for (size_t i = 0; i < inst->numOperands(); ++i)
          phi.incoming.emplace_back(indexOfBlock(inst->blocks[i], inst), slotOf(inst->operand(i), inst));
        plan.phis.push_back(std::move(phi));
        continue;
      }
      if (!plan.body.empty() && plan.body.back().inst->isTerminator())
        throw InternalError("block '" + bb->name() + "' has instructions after its terminator");
      Step step;
      step.inst = inst;
      step.result = inst->type().isVoid() ? -1 : slotOf(inst, inst);
      for (const ir::Value* v : inst->operands()) step.operands.push_back(slotOf(v, inst));
      for (size_t i = 0; i < inst->blocks.size() && i < 2; ++i)
        step.successors[i] = indexOfBlock(inst->blocks[i], inst);
      plan.body.push_back(std::move(step));
    }
    if (plan.body.empty() || !plan.body.back().inst->isTerminator())
      throw InternalError("block '" + bb->name() + "' in kernel '" + fn_.name() + "' has no terminator");
    maxPhis = std::max(maxPhis, plan.phis.size());
    blocks_.push_back(std::move(plan));
  }
  phiScratch_.resize(maxPhis);
}

void Executor::bindArguments(const std::vector<KernelArg>& args) {
  const size_t expected = fn_.arguments().size();
  if (args.size() != expected)
    throw UserError(fn_.loc, kernelText() + " takes " + std::to_string(expected) + " argument" +
                                 (expected == 1 ? "" : "s") + " but " + std::to_string(args.size()) +
                                 (args.size() == 1 ? " was" : " were") + " given");
  for (size_t i = 0; i < expected; ++i) {
    const ir::Argument& param = *fn_.argument(i);
    const KernelArg& arg = args[i];
    const ir::Scalar k = param.type().kind;
    const std::string who = kernelText() + ": argument " + std::to_string(i) + " ('" + param.name() +
                            "', " + ir::typeToString(param.type()) + ")";
    const char* given = arg.kind == KernelArg::Kind::Int         ? "an integer"
                        : arg.kind == KernelArg::Kind::Float     ? "a float"
                        : arg.kind == KernelArg::Kind::DevicePtr ? "a GPU address (the interpreter needs host memory)"
                        : arg.kind == KernelArg::Kind::HostPtr   ? "a host address (the interpreter needs a buffer)"
                        : arg.buffer                             ? "a buffer"
                                                                 : "a null buffer";
    Elem value;
    if (param.type().isPtr()) {
      if (arg.kind != KernelArg::Kind::Buffer || !arg.buffer)
        throw UserError(fn_.loc, who + " is a pointer and needs a buffer, but was given " + given);
      if (ir::byteSize(arg.buffer->elem) == 0)
        throw UserError(fn_.loc, who + " was given a buffer without an element type");
      if (arg.buffer->data.size() > AddressSpace::kMaxBufferBytes)
        throw UserError(fn_.loc, who + " was given a buffer too large for the interpreter");
      if (arg.offset > arg.buffer->data.size())
        throw UserError(fn_.loc, who + " points " + std::to_string(arg.offset) + " bytes into a buffer of " +
                                     std::to_string(arg.buffer->data.size()));
      const bool writable = !param.attrs.readonly && param.attrs.constantTable == 0;
      value = intElem(int64_t(memory_.add(arg.buffer, param.name(), writable) + arg.offset));
    } else if (arg.isPointer()) {
      throw UserError(fn_.loc, who + " is a scalar, but was given " + given);
    } else if (ir::isFloatKind(k)) {
      value = floatElem(arg.kind == KernelArg::Kind::Int ? intToFloat(k, arg.i) : roundTo(k, arg.f));
    } else if (ir::isIntKind(k)) {
      value = intElem(arg.kind == KernelArg::Kind::Int ? ir::wrapInt(k, arg.i) : floatToInt(k, arg.f));
      const int64_t m = param.attrs.multipleOf;
      if (options_.checkMultipleOf && m > 0 && value.i % m != 0)
        throw UserError(fn_.loc, who + " is declared multipleof(" + std::to_string(m) + ") but was given " +
                                     std::to_string(value.i));
      if (options_.checkMultipleOf && param.attrs.nonNegative && value.i < 0)
        throw UserError(fn_.loc, who + " is declared nonneg but was given " + std::to_string(value.i));
      if (options_.checkMultipleOf && param.attrs.one && value.i != 1)
        throw UserError(fn_.loc, who + " was specialized as 1 but was given " + std::to_string(value.i));
    } else {
      throw InternalError(who + " has no value type");
    }
    Tile& slot = frame_[size_t(slots_.at(&param))];
    std::fill(slot.begin(), slot.end(), value);
  }
}

void Executor::run() {
  for (int64_t z = 0; z < grid_.z; ++z)
    for (int64_t y = 0; y < grid_.y; ++y)
      for (int64_t x = 0; x < grid_.x; ++x) {
        programId_[0] = x;
        programId_[1] = y;
        programId_[2] = z;
        runProgram();
      }
}

void Executor::runProgram() {
  int block = 0;
  int64_t steps = 0;
  // Shared memory starts as garbage for every program (a NaN pattern): a
  // stage read before anything was copied into it shows in the results.
  for (Tile& b : buffers_) std::fill(b.begin(), b.end(), intElem(int64_t(0x7ff8dead0badf00dULL)));
  for (;;) {
    int next = -1;
    for (const Step& s : blocks_[size_t(block)].body) {
      if (++steps > options_.maxStepsPerProgram)
        fail(s.inst, kernelText() + ": " + programText() + " executed more than " +
                         std::to_string(options_.maxStepsPerProgram) +
                         " instructions; does it loop forever? (the limit is RunOptions::maxStepsPerProgram)");
      switch (s.inst->opcode()) {
        case ir::Opcode::Br: next = s.successors[0]; break;
        case ir::Opcode::CondBr: next = in(s, 0)[0].i ? s.successors[0] : s.successors[1]; break;
        case ir::Opcode::Ret: return;
        default: execute(s); continue;
      }
      break;  // the terminator ends the block (planBlocks put it last)
    }
    takeEdge(block, next);
    block = next;
  }
}

// All phis of the destination read their incoming values before any is
// written: a phi may feed another phi of the same block (a swap in a loop).
void Executor::takeEdge(int from, int to) {
  const BlockPlan& dest = blocks_[size_t(to)];
  for (size_t k = 0; k < dest.phis.size(); ++k) {
    const PhiPlan& phi = dest.phis[k];
    int source = -1;
    for (const auto& [pred, slot] : phi.incoming)
      if (pred == from) { source = slot; break; }
    if (source < 0)
      throw InternalError("phi in block '" + phi.inst->parent->name() + "' of kernel '" + fn_.name() +
                          "' has no value for predecessor '" + fn_.blocks()[size_t(from)]->name() + "'");
    phiScratch_[k] = frame_[size_t(source)];  // reuses the scratch tile's capacity
  }
  for (size_t k = 0; k < dest.phis.size(); ++k) std::swap(frame_[size_t(dest.phis[k].result)], phiScratch_[k]);
}

void Executor::execute(const Step& s) {
  using Op = ir::Opcode;
  const ir::Opcode op = s.inst->opcode();
  switch (op) {
    case Op::Add: case Op::Sub: case Op::Mul: case Op::Div: case Op::Rem: case Op::And:
    case Op::Or: case Op::Xor: case Op::Shl: case Op::Shr: case Op::Max: case Op::Min: case Op::UDiv:
    case Op::URem: case Op::UShr: case Op::UMax: case Op::UMin: case Op::MaxNum: case Op::MinNum:
      execBinary(s);
      return;
    case Op::Neg: case Op::Not: case Op::Exp: case Op::Log: case Op::Sqrt: case Op::Rsqrt:
    case Op::Abs: case Op::Sin: case Op::Cos: case Op::Tanh: case Op::Floor: case Op::Ceil: case Op::Exp2: case Op::Log2:
      execUnary(s);
      return;
    case Op::Cmp: execCmp(s); return;
    case Op::Cast: execCast(s); return;
    case Op::UCast: execUnsignedCast(s); return;
    case Op::Bitcast: execBitcast(s); return;
    case Op::Select: execSelect(s); return;
    case Op::Fma: execFma(s); return;
    case Op::Splat: execSplat(s); return;
    case Op::Reshape:
    case Op::MaxContiguous: {  // a hint for the compiler, not checked: Triton's users keep it at clamped edges
      const Tile& a = in(s, 0);
      std::copy(a.begin(), a.end(), out(s).begin());  // same element count (checked)
      return;
    }
    case Op::Broadcast: execBroadcast(s); return;
    case Op::Trans:
      if (s.inst->type().isShared()) return execGpu(s);  // a view of a buffer
      execTrans(s);
      return;
    case Op::Range: execRange(s); return;
    case Op::ProgramId:
      out(s)[0] = intElem(ir::wrapInt(s.inst->type().kind, programId_[s.inst->imm]));
      return;
    case Op::NumPrograms: {
      const int64_t dims[3] = {grid_.x, grid_.y, grid_.z};
      out(s)[0] = intElem(ir::wrapInt(s.inst->type().kind, dims[s.inst->imm]));
      return;
    }
    case Op::Gep: execGep(s); return;
    case Op::Load: execLoad(s); return;
    case Op::Store: execStore(s); return;
    case Op::Dot: execDot(s); return;
    case Op::Reduce: execReduce(s); return;
    case Op::Scan: execScan(s); return;
    case Op::ScanFn: execScanFn(s); return;
    case Op::ReduceFn: execReduceFn(s); return;
    case Op::AtomicRmw: execAtomicRmw(s); return;
    case Op::AtomicCas: execAtomicCas(s); return;
    case Op::MultipleOf: execMultipleOf(s); return;
    case Op::ExtractSlice: execExtractSlice(s); return;
    case Op::Gather: execGather(s); return;
    case Op::Sort: case Op::ArgSort: execSort(s); return;
    case Op::Histogram: execHistogram(s); return;
    case Op::Print: execPrint(s); return;
    case Op::InlineAsm:
      fail(s.inst, "inline PTX (inline_asm, tl.inline_asm_elementwise) runs only on the GPU: launch the kernel with "
                   "CUDA tensors");
      return;
    case Op::Assert: execAssert(s); return;
    case Op::Phi: case Op::Br: case Op::CondBr: case Op::Ret: break;
    default:
      if (ir::opcodeCategory(op) == ir::OpCategory::Gpu) return execGpu(s);
      break;
  }
  throw InternalError(std::string("the executor cannot run '") + ir::opcodeName(op) + "' here");
}

void Executor::fail(const ir::Instruction* inst, const std::string& what) const {
  throw UserError(inst->loc, what);
}

std::string Executor::programText() const {
  return "program (" + std::to_string(programId_[0]) + ", " + std::to_string(programId_[1]) + ", " +
         std::to_string(programId_[2]) + ")";
}

std::string Executor::elementText(const ir::Shape& shape, int64_t flat) {
  if (shape.empty()) return "";
  std::vector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = shape[d] ? flat % shape[d] : 0;
    flat = shape[d] ? flat / shape[d] : 0;
  }
  std::string out = ", tile element [";
  for (size_t d = 0; d < index.size(); ++d) out += (d ? ", " : "") + std::to_string(index[d]);
  return out + "]";
}

}  // namespace tritonc::interp::detail
