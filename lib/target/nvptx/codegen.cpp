// PTX emission driver: Triton-IR through the GPU IR passes, then the module
// header, kernel parameters, registers and the walk over the blocks; op
// families are lowered in lower_*.cpp.
#include "target/nvptx/codegen.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "gpu/occupancy.h"
#include "gpu/passes.h"
#include "gpu/scratch.h"
#include "gpu/shared_memory.h"
#include "ir/block_order.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "support/float16.h"
#include "target/interp/scalar_ops.h"
#include "target/nvptx/lowering.h"
#include "transform/pass_manager.h"

namespace tritonc::nvptx {

using ir::Scalar;

RegClass regClassOf(Scalar k) {
  switch (k) {
    case Scalar::I1: return RegClass::Pred;
    case Scalar::F16: case Scalar::BF16: return RegClass::B16;
    case Scalar::I8: case Scalar::I16: case Scalar::I32: return RegClass::B32;
    case Scalar::F8E4M3: case Scalar::F8E5M2: return RegClass::B32;  // the bits in the low byte
    case Scalar::F32: return RegClass::F32;
    case Scalar::I64: case Scalar::Ptr: return RegClass::B64;
    case Scalar::F64: return RegClass::F64;
    default: throw InternalError("no register class for void");
  }
}

const char* ptxType(Scalar k) {
  switch (k) {
    case Scalar::I1: return "pred";
    case Scalar::I8: case Scalar::I16: case Scalar::I32: return "s32";
    case Scalar::I64: return "s64";
    case Scalar::Ptr: return "u64";
    case Scalar::F16: case Scalar::BF16: return "b16";
    case Scalar::F8E4M3: case Scalar::F8E5M2: return "b32";
    case Scalar::F32: return "f32";
    case Scalar::F64: return "f64";
    default: return "?";
  }
}

// Narrow integers load extended (s8, s16: sign); words move as bits, into
// registers of any type of their size (ld.global.v4.b32, as Triton's PTX).
const char* memoryType(Scalar k) {
  switch (k) {
    case Scalar::I1: return "u8";
    case Scalar::I8: return "s8";
    case Scalar::F8E4M3: case Scalar::F8E5M2: return "u8";
    case Scalar::I16: return "s16";
    case Scalar::I32: case Scalar::F32: return "b32";
    case Scalar::I64: case Scalar::F64: case Scalar::Ptr: return "b64";
    case Scalar::F16: case Scalar::BF16: return "b16";
    default: return "?";
  }
}

const char* movType(RegClass c) {
  switch (c) {
    case RegClass::Pred: return "pred";
    case RegClass::B16: return "b16";
    case RegClass::B32: return "b32";
    case RegClass::F32: return "f32";
    case RegClass::B64: return "b64";
    case RegClass::F64: return "f64";
  }
  return "b32";
}

std::string braces(const std::vector<std::string>& r) {
  std::string s = "{";
  for (size_t k = 0; k < r.size(); ++k) s += (k ? ", " : "") + r[k];
  return s + "}";
}

std::string targetProblem(const std::string& arch) {
  for (const char* known : {"sm_80", "sm_86", "sm_87", "sm_89", "sm_90", "sm_90a"})
    if (arch == known) return "";
  return "unknown GPU target '" + arch +
         "': tritonc emits PTX for sm_80, sm_86, sm_87, sm_89, sm_90 and sm_90a (later GPUs run sm_90's or sm_89's code)";
}

std::string ptxVersionFor(const std::string& arch) {
  // PTX 8.1 has sm_90a, vector reductions (red.global.add.v4.f32) and fp8
  // conversions on sm_89; 7.4 covers sm_80 to sm_87 with eviction
  // priorities and createpolicy (eviction_policy; CUDA 11.4's drivers on).
  if (arch.rfind("sm_90", 0) == 0) return "8.1";
  if (arch == "sm_89") return "8.1";  // 8.1: fp8 conversions (cvt ...e4m3x2) on sm_89
  return "7.4";
}

int64_t maxSharedBytes(const std::string& arch) { return gpu::maxSharedBytes(arch); }

std::string floatLiteral(Scalar k, double v) {
  char buf[32];
  if (k == Scalar::F64) {
    uint64_t u;
    std::memcpy(&u, &v, 8);
    std::snprintf(buf, sizeof buf, "0d%016llX", (unsigned long long)u);
  } else {
    // A NaN keeps its payload bits, as the interpreter holds it (a
    // conversion to float would quiet a signaling one).
    float f = float(v);
    uint32_t u;
    std::memcpy(&u, &f, 4);
    if (std::isnan(v)) u = uint32_t(interp::detail::bitsOfNan(v, 8, 23));
    std::snprintf(buf, sizeof buf, "0f%08X", u);
  }
  return buf;
}

FunctionLowering::FunctionLowering(const ir::Function& f, const TargetOptions& opts) : f_(f), opts_(opts) {}

std::string FunctionLowering::newReg(RegClass c) {
  static const char* const prefix[] = {"%p", "%h", "%r", "%f", "%rd", "%fd"};
  return prefix[int(c)] + std::to_string(regCount_[c]++);
}

std::string FunctionLowering::newLabel(const std::string& hint) { return "$L_" + hint + "_" + std::to_string(labelCount_++); }

std::string FunctionLowering::blockLabel(const ir::BasicBlock* bb) {
  auto it = labels_.find(bb);
  if (it != labels_.end()) return it->second;
  std::string name;
  for (char c : bb->name()) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return labels_[bb] = newLabel(name);
}

std::string FunctionLowering::constantReg(const ir::Constant* c) {
  Scalar k = c->type().kind;
  std::string r = newReg(regClassOf(k));
  switch (regClassOf(k)) {
    case RegClass::Pred: emit(std::string("setp.ne.s32 ") + r + ", " + std::to_string(c->i) + ", 0;"); break;
    case RegClass::B16: {
      // The element's bits, rounded once from the constant (through f32 a
      // halfway case could round twice) and NaN payloads kept, as the
      // interpreter's encodeElem.
      uint8_t bits[2];
      interp::detail::encodeElem(k, interp::detail::floatElem(c->f), bits);
      char hex[16];
      std::snprintf(hex, sizeof hex, "0x%04X", unsigned(bits[0] | (bits[1] << 8)));
      emit("mov.b16 " + r + ", " + hex + ";");
      break;
    }
    case RegClass::B32:
      if (ir::isFp8Kind(k)) {  // its bits, rounded as the interpreter rounds
        uint8_t bits = 0;
        interp::detail::encodeElem(k, interp::detail::floatElem(c->f), &bits);
        emit("mov.b32 " + r + ", " + std::to_string(unsigned(bits)) + ";");
        break;
      }
      emit("mov.s32 " + r + ", " + std::to_string(c->i) + ";");
      break;
    case RegClass::F32: emit("mov.f32 " + r + ", " + floatLiteral(Scalar::F32, c->f) + ";"); break;
    case RegClass::B64: emit("mov.s64 " + r + ", " + std::to_string(c->i) + ";"); break;
    case RegClass::F64: emit("mov.f64 " + r + ", " + floatLiteral(Scalar::F64, c->f) + ";"); break;
  }
  return r;
}

const std::vector<std::string>& FunctionLowering::regs(const ir::Value* v) {
  auto it = regs_.find(v);
  if (it != regs_.end()) return it->second;
  throw InternalError("value used before definition in PTX lowering: " +
                      (v->valueKind() == ir::ValueKind::Instruction
                           ? ir::printInstruction(*static_cast<const ir::Instruction*>(v))
                           : "%" + v->name()));
}

std::string FunctionLowering::toHalfWord(Scalar k, const std::string& r) {
  if (regClassOf(k) == RegClass::B16) return r;
  std::string h = newReg(RegClass::B16);
  emit("cvt.u16.u32 " + h + ", " + r + ";");
  return h;
}

std::vector<std::string> FunctionLowering::packBytes(const std::vector<std::string>& bytes) {
  std::vector<std::string> words;
  for (size_t q = 0; q < bytes.size(); q += 4) {
    std::string w = newReg(RegClass::B32);
    emit("mov.b32 " + w + ", " + bytes[q] + ";");
    for (size_t b = 1; b < 4 && q + b < bytes.size(); ++b)
      emit("bfi.b32 " + w + ", " + bytes[q + b] + ", " + w + ", " + std::to_string(8 * b) + ", 8;");
    words.push_back(w);
  }
  return words;
}

std::string FunctionLowering::fromHalfWord(Scalar k, const std::string& h) {
  if (regClassOf(k) == RegClass::B16) return h;
  std::string r = newReg(regClassOf(k));
  emit("cvt.s32.s16 " + r + ", " + h + ";");
  return r;
}

std::string FunctionLowering::elem(const ir::Value* v, size_t k) {
  const auto& r = regs(v);
  const std::string& out = r.size() == 1 ? r[0] : r.at(k);
  if (out.empty()) throw InternalError("element " + std::to_string(k) + " of a sparse pointer tile is read");
  return out;
}

bool FunctionLowering::isSplat(const ir::Value* v) {
  if (!v->type().isTile()) return true;
  const auto& r = regs(v);
  if (r.size() != 1) return false;
  if (numRegs(v->type()) > 1) return true;  // the compact form only a splat takes
  if (v->valueKind() != ir::ValueKind::Instruction) return false;
  const auto& i = static_cast<const ir::Instruction&>(*v);
  switch (i.opcode()) {
    case ir::Opcode::Splat: return true;
    case ir::Opcode::Reshape: case ir::Opcode::Broadcast: case ir::Opcode::Trans: case ir::Opcode::ConvertLayout:
    case ir::Opcode::MultipleOf: case ir::Opcode::MaxContiguous: case ir::Opcode::ExtractSlice: case ir::Opcode::Cmp: case ir::Opcode::Cast: case ir::Opcode::UCast:
    case ir::Opcode::Bitcast: case ir::Opcode::Select: case ir::Opcode::Fma:
      break;
    default:
      if (ir::opcodeCategory(i.opcode()) != ir::OpCategory::Binary &&
          ir::opcodeCategory(i.opcode()) != ir::OpCategory::Unary)
        return false;
  }
  for (size_t k = 0; k < i.numOperands(); ++k)
    if (!isSplat(i.operand(k))) return false;
  return true;
}

std::string FunctionLowering::sharedAddress(int64_t offset) {
  std::string r = newReg(RegClass::B32);
  emit("add.s32 " + r + ", " + sharedBase_ + ", " + std::to_string(offset) + ";");
  return r;
}

bool FunctionLowering::zeroAccumulator(const ir::Instruction& dot) {
  const ir::Value* v = dot.operand(2);
  while (v->valueKind() == ir::ValueKind::Instruction) {
    auto* i = static_cast<const ir::Instruction*>(v);
    if (i->opcode() != ir::Opcode::Splat && i->opcode() != ir::Opcode::Broadcast) return false;
    v = i->operand(0);
  }
  return v->valueKind() == ir::ValueKind::Constant && static_cast<const ir::Constant*>(v)->f == 0 &&
         static_cast<const ir::Constant*>(v)->i == 0;
}

std::vector<std::string> FunctionLowering::accumulatorRegs(const ir::Instruction& dot, bool zeroFree) {
  // dot_async whose sum returns to its loop's phi (through a dot_wait): the
  // pipeliner made sure the phi is dead here, so the wgmma accumulates in
  // the phi's registers, in place; an accumulator other than the phi
  // (attention's acc * alpha) is copied there first.
  const ir::Value* acc = dot.operand(2);
  // (f32 accumulators, or int32 ones of an int8 dot)
  const RegClass rc = regClassOf(dot.type().kind);
  const std::string mov = rc == RegClass::F32 ? "mov.f32 " : "mov.b32 ";
  if (dot.opcode() == ir::Opcode::DotAsync)
    for (const ir::Instruction* w : dot.users()) {
      if (w->opcode() != ir::Opcode::DotWait || w->operand(0) != &dot) continue;
      for (const ir::Instruction* phi : w->users()) {
        if (phi->opcode() != ir::Opcode::Phi) continue;
        const std::vector<std::string>& in = regs(phi);
        // (A dot_wait of the phi names the phi's registers: nothing to copy.)
        if (acc != phi)
          for (size_t e = 0; e < in.size(); ++e)
            if (elem(acc, e) != in[e]) emit(mov + in[e] + ", " + elem(acc, e) + ";");
        return in;
      }
    }
  // Otherwise a copy: the tensor cores update their accumulators in place.
  std::vector<std::string> out;
  size_t n = numRegs(dot.type());
  bool unset = zeroFree && zeroAccumulator(dot);
  for (size_t e = 0; e < n; ++e) {
    std::string c = newReg(rc);
    if (!unset) emit(mov + c + ", " + elem(acc, e) + ";");
    out.push_back(c);
  }
  return out;
}

void FunctionLowering::prologue() {
  tid_ = newReg(RegClass::B32);
  laneId_ = newReg(RegClass::B32);
  warpId_ = newReg(RegClass::B32);
  emit("mov.u32 " + tid_ + ", %tid.x;");
  emit("and.b32 " + laneId_ + ", " + tid_ + ", 31;");
  // The warp index read back from lane 0: the same value, but one ptxas
  // knows to be uniform over the warp, so what is computed from it alone
  // (wgmma descriptors, per-warp shared offsets) lives in uniform registers.
  std::string warpOfLane = newReg(RegClass::B32);
  emit("shr.u32 " + warpOfLane + ", " + tid_ + ", 5;");
  emit("shfl.sync.idx.b32 " + warpId_ + ", " + warpOfLane + ", 0, 31, -1;");
  if (f_.sharedBytes > 0) {
    sharedBase_ = newReg(RegClass::B32);
    emit("mov.u32 " + sharedBase_ + ", scratch;");
  }
  for (auto& a : f_.arguments()) {
    const ir::Type& t = a->type();
    std::string r = newReg(regClassOf(t.kind));
    std::string pname = "param_" + std::to_string(a->index());
    if (t.isPtr()) {
      emit("ld.param.u64 " + r + ", [" + pname + "];");
      emit("cvta.to.global.u64 " + r + ", " + r + ";");
    } else if (t.kind == Scalar::I1) {
      std::string b = newReg(RegClass::B32);
      emit("ld.param.u32 " + b + ", [" + pname + "];");
      emit("setp.ne.u32 " + r + ", " + b + ", 0;");
    } else if (regClassOf(t.kind) == RegClass::B16) {
      emit("ld.param.b16 " + r + ", [" + pname + "];");
    } else {
      emit(std::string("ld.param.") + ptxType(t.kind) + " " + r + ", [" + pname + "];");
    }
    define(a.get(), {r});
  }
  // Constants are materialized once, up front, so that every use is
  // dominated (those of the combine functions written inline too).
  std::vector<const ir::Function*> fns{&f_};
  if (f_.parent())
    for (auto& c : f_.parent()->combiners()) fns.push_back(c.get());
  for (const ir::Function* f : fns)
    for (auto& bb : f->blocks())
      for (auto& inst : bb->instructions())
        for (ir::Value* v : inst->operands())
          if (v->valueKind() == ir::ValueKind::Constant && !regs_.count(v))
            define(v, {constantReg(static_cast<const ir::Constant*>(v))});
}

void FunctionLowering::lowerInstruction(const ir::Instruction& i) {
  using ir::Opcode;
  switch (i.opcode()) {
    case Opcode::Load: case Opcode::Store: case Opcode::Gep: case Opcode::AtomicRmw: case Opcode::AtomicCas:
      return lowerMemory(i);
    case Opcode::Splat: case Opcode::Reshape: case Opcode::Broadcast: case Opcode::Trans: case Opcode::ConvertLayout:
    case Opcode::Range: case Opcode::ProgramId: case Opcode::NumPrograms: case Opcode::MultipleOf:
    case Opcode::MaxContiguous: case Opcode::ExtractSlice: case Opcode::Gather:
      return lowerTile(i);
    case Opcode::Reduce:
      return lowerReduce(i);
    case Opcode::ReduceFn:
      return lowerReduceFn(i);
    case Opcode::Scan:
      return lowerScan(i);
    case Opcode::ScanFn:
      return lowerScanFn(i);
    case Opcode::Sort: case Opcode::ArgSort:
      return lowerSort(i);
    case Opcode::Histogram:
      return lowerHistogram(i);
    case Opcode::Dot:
      if (i.type().layout->kind == ir::LayoutKind::Mma && i.type().layout->version == 3) return lowerWgmma(i);
      return lowerDot(i);
    case Opcode::DotAsync: case Opcode::DotWait:
      return lowerWgmma(i);
    case Opcode::LocalAlloc: case Opcode::LocalLoad: case Opcode::LocalStore: case Opcode::MemIndex:
    case Opcode::AsyncCopy: case Opcode::AsyncCommit: case Opcode::AsyncWait: case Opcode::Barrier:
    case Opcode::FenceAsyncShared:
      return lowerShared(i);
    case Opcode::TmaInit: case Opcode::TmaCopy: case Opcode::TmaWait: case Opcode::StageInit: case Opcode::StageRelease:
      return lowerTma(i);
    case Opcode::Phi: case Opcode::Br: case Opcode::CondBr: case Opcode::Ret:
      return lowerControl(i);
    case Opcode::Cast: case Opcode::UCast: case Opcode::Bitcast:
      return lowerCast(i);
    case Opcode::Print:
      return lowerPrint(i);
    case Opcode::InlineAsm:
      return lowerInlineAsm(i);
    case Opcode::Assert:
      return lowerAssert(i);
    default:
      return lowerElementwise(i);
  }
}

// Element-wise instructions: each element's lines depend on that element
// of the operands only (or on a scalar), so a run of them may go out element
// by element (element_order.h); a splat (one register) does not end a run.
static bool elementWise(const ir::Instruction& i) {
  const ir::Opcode op = i.opcode();
  const ir::OpCategory c = ir::opcodeCategory(op);
  return c == ir::OpCategory::Binary || c == ir::OpCategory::Unary || op == ir::Opcode::Cmp ||
         op == ir::Opcode::Select || op == ir::Opcode::Cast || op == ir::Opcode::UCast ||
         op == ir::Opcode::Bitcast || op == ir::Opcode::Fma || op == ir::Opcode::Splat;
}

void FunctionLowering::writeBlock(const ir::BasicBlock* bb) {
  label(blockLabel(bb));
  if (!opts_.elementOrder) {
    for (auto& inst : bb->instructions())
      if (runs(*inst)) lowerInstruction(*inst);
    return;
  }
  std::vector<ElementLine> lines;
  size_t runEnd = 0;  // lines[0, runEnd): the element-wise run so far
  auto flush = [&](size_t end) {
    for (const std::string& l : orderByElement({lines.begin(), lines.begin() + long(runEnd)})) body_ << l << "\n";
    for (size_t n = runEnd; n < end; ++n) body_ << lines[n].text << "\n";
    lines.clear();
    runEnd = 0;
  };
  runLines_ = &lines;
  for (auto& inst : bb->instructions()) {
    if (!runs(*inst)) continue;
    elementTag_ = -1;
    lowerInstruction(*inst);
    if (elementWise(*inst)) runEnd = lines.size();
    else flush(lines.size());
  }
  flush(lines.size());
  runLines_ = nullptr;
  elementTag_ = -1;
}

// Buffers and scratch within the function's shared(N), at their alignment
// (what gpu-allocate-shared decides; GPU IR written by hand may not).
static void checkSharedPlacement(const ir::Function& f) {
  for (auto& bb : f.blocks())
    for (auto& inst : bb->instructions()) {
      if (inst->smem < 0) continue;
      const bool buffer = inst->opcode() == ir::Opcode::LocalAlloc;
      int64_t bytes = buffer ? gpu::sharedBytes(inst->type()) : gpu::scratchOf(*inst).bytes;
      int64_t align = buffer ? gpu::sharedAlignment(inst->type()) : 16;
      std::string what = std::string("'") + ir::opcodeName(inst->opcode()) + "' at {smem = " +
                         std::to_string(inst->smem) + "}";
      if (inst->smem % align != 0)
        throw UserError(inst->loc, what + " is not " + std::to_string(align) + "-byte aligned");
      if (inst->smem + bytes > f.sharedBytes)
        throw UserError(inst->loc, what + " needs " + std::to_string(bytes) + " bytes, past the function's shared(" +
                                       std::to_string(f.sharedBytes) + ")");
    }
}

std::string FunctionLowering::run() {
  if (f_.sharedBytes < 0) throw InternalError("PTX lowering needs allocated shared memory");
  checkSharedPlacement(f_);
  prologue();
  planPointerGroups();
  // Phis get their registers before any block is lowered: branches into a
  // block copy into them.
  for (auto& bb : f_.blocks())
    for (auto& inst : bb->instructions())
      if (inst->opcode() == ir::Opcode::Phi) {
        std::vector<std::string> r;
        for (size_t k = 0; k < numRegs(inst->type()); ++k)
          r.push_back(elementNeeded(inst.get(), k) ? newReg(regClassOf(inst->type().kind)) : "");
        define(inst.get(), r);
      }
  std::string prologueText = body_.str();
  body_.str("");
  // Every branch names its target, so blocks go out in an order that defines
  // values before their uses (ir/block_order.h).
  ir::DominatorTree dom(f_);
  const std::vector<const ir::BasicBlock*> order = ir::definitionOrder(f_, dom);
  auto writeBlocks = [&] {
    for (const ir::BasicBlock* bb : order) writeBlock(bb);
  };
  if (!f_.producerWarps) {
    writeBlocks();
  } else {
    // Warp specialization (gpu/warp_specialize.cpp): the warps after the
    // program's own branch to the producer's copy of the body, which keeps
    // only their instructions; the consumers' copy keeps the others.
    std::string producer = newReg(RegClass::Pred), producerLabel = newLabel("producer");
    emit("setp.ge.u32 " + producer + ", " + warpId_ + ", " + std::to_string(opts_.numWarps) + ";");
    emit("@" + producer + " bra.uni " + producerLabel + ";");
    writing_ = Writing::Consumers;
    writeBlocks();
    writing_ = Writing::Producer;
    labels_.clear();
    label(producerLabel);
    writeBlocks();
    writing_ = Writing::Everything;
  }
  bool swizzled = false;
  for (auto& bb : f_.blocks())
    for (auto& inst : bb->instructions())
      if (inst->type().isShared() && inst->type().layout->swizzle) swizzled = true;
  std::ostringstream out;
  out << ".visible .entry " << f_.name() << "(";
  for (size_t k = 0; k < f_.arguments().size(); ++k) {
    const ir::Type& t = f_.argument(k)->type();
    std::string pt = t.isPtr() ? "u64" : t.kind == Scalar::I1 ? "u32" : regClassOf(t.kind) == RegClass::B16 ? "b16" : ptxType(t.kind);
    out << (k ? ",\n    " : "\n    ") << ".param ." << pt << " param_" << k;
  }
  // CUtensorMaps, which the launch encodes (gpu_runner.cpp) from the lines below.
  for (size_t k = 0; k < tensorMaps_.size(); ++k)
    out << (k || !f_.arguments().empty() ? ",\n    " : "\n    ") << ".param .align 64 .b8 param_tmap" << k << "[128]";
  // .minnctapersm: without it ptxas caps registers (at 64 for 128 threads)
  // to fit several programs per SM, and spills instead; with 1 it may take
  // 255 and leave room for one program; gpu/occupancy.h asks for two where
  // the kernel's registers fit them.
  // With a fallback, the launch asks for that many where this spills
  // (occupancy_fallback.h).
  const int warps = opts_.numWarps + f_.producerWarps;
  const gpu::OccupancyTarget occupancy = gpu::occupancyTarget(f_, warps);
  out << ")\n.maxntid " << 32 * warps << ", 1, 1\n";
  if (opts_.maxRegisters > 0) {
    // maxnreg: the user's cap on registers decides the occupancy instead.
    out << ".maxnreg " << opts_.maxRegisters << "\n{\n";
  } else {
    out << ".minnctapersm " << occupancy.programs << "\n{\n";
    if (occupancy.fallback) out << "  // tritonc: occupancy_fallback " << occupancy.fallback << "\n";
    if (occupancy.natural) out << "  // tritonc: occupancy_natural\n";
    if (occupancy.halfway) out << "  // tritonc: occupancy_halfway " << occupancy.halfway << "\n";
  }
  static const char* const decl[] = {".pred %p", ".b16 %h", ".b32 %r", ".f32 %f", ".b64 %rd", ".f64 %fd"};
  for (auto& [c, n] : regCount_) out << "  .reg " << decl[int(c)] << "<" << n << ">;\n";
  // Up to 48 KB of shared memory is static; more must be dynamic, which the
  // launch requests (gpu_runner reads the size from the comment line).
  if (f_.sharedBytes > kMaxStaticShared) out << "  // tritonc: dynamic_shared_bytes " << f_.sharedBytes << "\n";
  else if (f_.sharedBytes > 0)
    out << "  .shared .align " << (swizzled ? 1024 : 16) << " .b8 scratch[" << f_.sharedBytes << "];\n";
  if (printBufferBytes_ > 0) out << "  .local .align 8 .b8 printbuf[" << printBufferBytes_ << "];\n";
  for (size_t k = 0; k < tensorMaps_.size(); ++k)
    out << "  // tritonc: tensor_map " << k << " " << tensorMaps_[k].first << "\n";
  // Multicast copies: the launch groups programs in pairs along x (and y)
  // when it can.
  if (!multicast_[0].whole.empty()) out << "  // tritonc: cluster_x 2\n";
  if (!multicast_[1].whole.empty()) out << "  // tritonc: cluster_y 2\n";
  // A producer warp: the launch adds its threads to the block.
  if (f_.producerWarps) out << "  // tritonc: producer_warps " << f_.producerWarps << "\n";
  out << prologueText << setup_.str() << body_.str() << "}\n";
  return out.str();
}

bool TargetOptions::tmaFromEnvironment() {
  const char* v = std::getenv("TRITONC_TMA");
  return !(v && std::string(v) == "0");
}

bool TargetOptions::elementOrderFromEnvironment() {
  const char* v = std::getenv("TRITONC_ELEMENT_ORDER");
  return !(v && std::string(v) == "0");
}

bool TargetOptions::smallIntArithmeticFromEnvironment() {
  const char* v = std::getenv("TRITONC_SMALL_INT_CVT");
  return !(v && std::string(v) == "1");
}

bool TargetOptions::multicastFromEnvironment() {
  const char* v = std::getenv("TRITONC_MULTICAST");
  return !(v && std::string(v) == "0");
}

transform::PipelineOptions::WarpSpecialize TargetOptions::warpSpecializeFromEnvironment() {
  const char* v = std::getenv("TRITONC_WARP_SPECIALIZE");
  if (v && std::string(v) == "1") return transform::PipelineOptions::kEvery;
  if (v && std::string(v) == "0") return transform::PipelineOptions::kNever;
  return transform::PipelineOptions::kPairs;
}

std::string TargetOptions::warpSpecializeKey() {
  switch (warpSpecializeFromEnvironment()) {
    case transform::PipelineOptions::kEvery: return " with a producer warp in every loop";
    case transform::PipelineOptions::kNever: return " without producer warps";
    default: return "";
  }
}

void TargetOptions::setNumCtas(const std::string& numCtas) {
  if (!numCtas.empty() && numCtas != "1" && numCtas != "2" && numCtas != "4")
    throw UserError(SourceLoc{}, "num_ctas must be 1, 2 (programs paired in clusters along x) or 4 (clusters of 2 x 2), "
                                 "got '" + numCtas + "'");
  multicast = numCtas == "2" || numCtas == "4";
  multicastAlongY = numCtas == "4";
}

const std::vector<std::string>& TargetOptions::configurationNames() {
  static const std::vector<std::string> names = {"num_ctas", "enable_fp_fusion", "enable_reflect_ftz", "maxnreg"};
  return names;
}

bool TargetOptions::isConfigurationName(const std::string& name) {
  const auto& names = configurationNames();
  return std::find(names.begin(), names.end(), name) != names.end();
}

void TargetOptions::configure(const std::string& name, const std::string& value) {
  auto flag = [&](bool& field) {
    if (!value.empty() && value != "0" && value != "1")
      throw UserError(SourceLoc{}, name + " must be 0 or 1, got '" + value + "'");
    field = value != "0";
  };
  if (name == "num_ctas") {
    setNumCtas(value);
  } else if (name == "enable_fp_fusion") {
    flag(fpFusion);
  } else if (name == "enable_reflect_ftz") {
    flag(reflectFtz);
  } else if (name == "maxnreg") {
    // A thread has at most 255; ptxas raises a count under its floor (24
    // for sm_90a) to it, with a warning.
    char* end = nullptr;
    const long n = value.empty() ? 0 : std::strtol(value.c_str(), &end, 10);
    if (!value.empty() && (*end || n < 1 || n > 255))
      throw UserError(SourceLoc{}, "maxnreg must be a number of registers from 1 to 255, got '" + value + "'");
    maxRegisters = int(n);
  } else {
    throw InternalError("unknown configuration value '" + name + "'");
  }
}

std::vector<std::string> TargetOptions::gpuPasses() const {
  // enable_fp_fusion off: no contraction in the IR (and .rn keeps ptxas from it).
  std::vector<std::string> passes = transform::gpuPipeline();
  if (!fpFusion) passes.erase(std::remove(passes.begin(), passes.end(), "gpu-contract-fma"), passes.end());
  return passes;
}

std::string emitPtx(ir::Module& m, const TargetOptions& opts) {
  if (std::string problem = targetProblem(opts.arch); !problem.empty()) throw UserError(SourceLoc{}, problem);
  if (opts.numWarps <= 0 || opts.numWarps > 32 || (opts.numWarps & (opts.numWarps - 1)))
    throw UserError(SourceLoc{}, "num_warps must be a power of two between 1 and 32, got " + std::to_string(opts.numWarps));
  if (!m.isGpu()) {
    transform::PipelineOptions po;
    po.target = opts.arch;
    po.numWarps = opts.numWarps;
    po.wgmma = opts.wgmma;
    po.allowTf32 = opts.allowTf32;
    po.tma = opts.tma;
    po.multicast = opts.multicast && TargetOptions::multicastFromEnvironment();
    po.multicastAlongY = po.multicast && opts.multicastAlongY;
    po.warpSpecialize = opts.warpSpecialize;
    transform::runPasses(m, opts.gpuPasses(), po);
  } else {
    // GPU IR as given (written by hand): in place, and what is live at
    // once not sharing bytes of shared memory.
    for (auto& f : m.functions()) {
      if (f->sharedBytes < 0) continue;  // (lowering refuses it)
      checkSharedPlacement(*f);
      if (std::string overlap = gpu::sharedOverlap(*f); !overlap.empty())
        throw UserError(f->loc, "kernel '" + f->name() + "': " + overlap);
    }
  }
  std::ostringstream out;
  out << "//\n// Generated by tritonc\n//\n.version " << ptxVersionFor(opts.arch) << "\n.target " << opts.arch
      << "\n.address_size 64\n\n";
  std::string kernels, globals;
  bool vprintf = false, assertfail = false;
  for (auto& f : m.functions()) {
    FunctionLowering lowering(*f, opts);
    kernels += lowering.run() + "\n";
    for (const std::string& g : lowering.globals()) globals += g + "\n";
    vprintf = vprintf || lowering.usesVprintf();
    assertfail = assertfail || lowering.usesAssertfail();
  }
  // CUDA's device printf and assertion handler (print and assert).
  if (vprintf)
    out << ".extern .func (.param .b32 vprintf_status) vprintf(.param .b64 vprintf_format, .param .b64 vprintf_args);\n";
  if (assertfail)
    out << ".extern .func __assertfail(.param .b64 assert_message, .param .b64 assert_file, .param .b32 assert_line, "
           ".param .b64 assert_function, .param .b64 assert_char_size);\n";
  if (!globals.empty()) out << globals;
  if (vprintf || assertfail || !globals.empty()) out << "\n";
  if (kernels.find("// tritonc: dynamic_shared_bytes") != std::string::npos)
    out << ".extern .shared .align " << (kernels.find("wgmma.") != std::string::npos ? 1024 : 16)
        << " .b8 scratch[];\n\n";
  out << kernels;
  return out.str();
}

}  // namespace tritonc::nvptx
