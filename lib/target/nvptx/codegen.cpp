// PTX emission driver: module header, kernel parameters, registers, layouts
// and the walk over the blocks; op families are lowered in lower_*.cpp.
#include "target/nvptx/codegen.h"

#include <cmath>
#include <cstring>

#include "ir/printer.h"
#include "target/nvptx/lowering.h"

namespace tritonc::nvptx {

using ir::Scalar;

RegClass regClassOf(Scalar k) {
  switch (k) {
    case Scalar::I1: return RegClass::Pred;
    case Scalar::F16: case Scalar::BF16: return RegClass::B16;
    case Scalar::I8: case Scalar::I16: case Scalar::I32: return RegClass::B32;
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
    case Scalar::F32: return "f32";
    case Scalar::F64: return "f64";
    default: return "?";
  }
}

const char* memoryType(Scalar k) {
  switch (k) {
    case Scalar::I1: return "u8";
    case Scalar::I8: return "s8";
    case Scalar::I16: return "s16";
    case Scalar::I32: return "s32";
    case Scalar::I64: return "s64";
    case Scalar::Ptr: return "u64";
    case Scalar::F16: case Scalar::BF16: return "b16";
    case Scalar::F32: return "f32";
    case Scalar::F64: return "f64";
    default: return "?";
  }
}

std::string ptxVersionFor(const std::string& arch) {
  // PTX 8.0 is the first with sm_90a; 7.0 covers sm_80.
  if (arch.rfind("sm_90", 0) == 0) return "8.0";
  if (arch == "sm_89") return "7.8";
  if (arch == "sm_86") return "7.1";
  return "7.0";
}

int64_t maxSharedBytes(const std::string& arch) {
  // Per block, with the opt-in for more than 48 KB.
  if (arch.rfind("sm_90", 0) == 0) return 227 * 1024;
  if (arch == "sm_80" || arch == "sm_87") return 163 * 1024;
  return 99 * 1024;  // sm_86, sm_89
}

std::string floatLiteral(Scalar k, double v) {
  char buf[32];
  if (k == Scalar::F64) {
    uint64_t u;
    std::memcpy(&u, &v, 8);
    std::snprintf(buf, sizeof buf, "0d%016llX", (unsigned long long)u);
  } else {
    float f = float(v);
    uint32_t u;
    std::memcpy(&u, &f, 4);
    std::snprintf(buf, sizeof buf, "0f%08X", u);
  }
  return buf;
}

static std::string shapeKey(const ir::Shape& s) { return ir::shapeToString(s); }

FunctionLowering::FunctionLowering(const ir::Function& f, const TargetOptions& opts)
    : f_(f), opts_(opts), axis_(f) {}

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
      std::string f = newReg(RegClass::F32);
      emit("mov.f32 " + f + ", " + floatLiteral(Scalar::F32, c->f) + ";");
      emit(std::string("cvt.rn.") + (k == Scalar::F16 ? "f16" : "bf16") + ".f32 " + r + ", " + f + ";");
      break;
    }
    case RegClass::B32: emit("mov.s32 " + r + ", " + std::to_string(c->i) + ";"); break;
    case RegClass::F32: emit("mov.f32 " + r + ", " + floatLiteral(Scalar::F32, c->f) + ";"); break;
    case RegClass::B64: emit("mov.s64 " + r + ", " + std::to_string(c->i) + ";"); break;
    case RegClass::F64: emit("mov.f64 " + r + ", " + floatLiteral(Scalar::F64, c->f) + ";"); break;
  }
  return r;
}

const std::vector<std::string>& FunctionLowering::regs(const ir::Value* v) {
  if (isMma(v)) {
    // Consumers that are not mma-aware see the value in the blocked layout.
    auto c = converted_.find(v);
    if (c != converted_.end()) return c->second;
    return converted_[v] = mmaToBlocked(v);
  }
  auto it = regs_.find(v);
  if (it != regs_.end()) return it->second;
  if (v->valueKind() == ir::ValueKind::Constant) {
    // Constants are materialized where first used; blocks are emitted in an
    // order where the first use dominates the later ones only within a block,
    // so they are materialized in the prologue instead (see prologue()).
    throw InternalError("constant used before materialization");
  }
  throw InternalError("value used before definition in PTX lowering");
}

std::string FunctionLowering::elem(const ir::Value* v, size_t k) {
  const auto& r = regs(v);
  const std::string& out = r.size() == 1 ? r[0] : r.at(k);
  if (out.empty()) throw InternalError("element " + std::to_string(k) + " of a sparse pointer tile is read");
  return out;
}

const BlockedLayout& FunctionLowering::layoutOf(const ir::Type& t) {
  std::string key = shapeKey(t.shape);
  auto it = layouts_.find(key);
  if (it != layouts_.end()) return it->second;
  // Coalescing: threads go along the dimension where the memory accesses of
  // this shape are most contiguous, with the widest vector alignment allows.
  size_t r = t.shape.size();
  int fast = int(r) - 1;
  int64_t vec = 1;
  for (auto& bb : f_.blocks())
    for (auto& inst : bb->instructions()) {
      if (inst->opcode() != ir::Opcode::Load && inst->opcode() != ir::Opcode::Store) continue;
      const ir::Type& pt = inst->operand(0)->type();
      if (pt.shape != t.shape) continue;
      size_t dim = 0;
      int64_t w = axis_.vectorWidth(inst->operand(0), 16, &dim);
      analysis::AxisInfo ai = axis_.get(inst->operand(0));
      if (w > vec || (w == vec && ai.contiguity[dim] > ai.contiguity[size_t(fast)])) {
        vec = std::max(vec, w);
        fast = int(dim);
      }
    }
  std::vector<int> order{fast};
  for (int d = int(r) - 1; d >= 0; --d)
    if (d != fast) order.push_back(d);
  return layouts_[key] = makeBlockedLayout(t.shape, opts_.numWarps, order, vec);
}

size_t FunctionLowering::numOwned(const ir::Type& t) {
  if (!t.isTile()) return 1;
  const BlockedLayout& l = layoutOf(t);
  size_t n = 1;
  for (size_t d = 0; d < t.shape.size(); ++d) n *= size_t(l.elementsPerThread(t.shape, d));
  return n;
}

const std::vector<std::string>& FunctionLowering::threadPositions(const ir::Type& t) {
  std::string key = shapeKey(t.shape);
  auto it = positions_.find(key);
  if (it != positions_.end()) return it->second;
  const BlockedLayout& l = layoutOf(t);
  InSetup inSetup(*this);
  std::vector<std::string> pos(t.shape.size());
  int64_t laneStride = 1, warpStride = 1;
  for (int d : l.order) {
    // This thread's lane and warp coordinates along d, in the layout's order.
    std::string lane = newReg(RegClass::B32), warp = newReg(RegClass::B32), p = newReg(RegClass::B32);
    emit("div.u32 " + lane + ", " + laneId_ + ", " + std::to_string(laneStride) + ";");
    emit("rem.u32 " + lane + ", " + lane + ", " + std::to_string(l.threadsPerWarp[size_t(d)]) + ";");
    emit("div.u32 " + warp + ", " + warpId_ + ", " + std::to_string(warpStride) + ";");
    emit("rem.u32 " + warp + ", " + warp + ", " + std::to_string(l.warpsPerCTA[size_t(d)]) + ";");
    laneStride *= l.threadsPerWarp[size_t(d)];
    warpStride *= l.warpsPerCTA[size_t(d)];
    emit("mad.lo.s32 " + p + ", " + warp + ", " + std::to_string(l.threadsPerWarp[size_t(d)]) + ", " + lane + ";");
    emit("mul.lo.s32 " + p + ", " + p + ", " + std::to_string(l.sizePerThread[size_t(d)]) + ";");
    pos[size_t(d)] = p;
  }
  return positions_[key] = pos;
}

const std::vector<std::vector<std::string>>& FunctionLowering::elementIndices(const ir::Type& t) {
  std::string key = shapeKey(t.shape);
  auto it = indices_.find(key);
  if (it != indices_.end()) return it->second;
  const BlockedLayout& l = layoutOf(t);
  const std::vector<std::string>& pos = threadPositions(t);
  InSetup inSetup(*this);
  size_t r = t.shape.size();
  // base = position mod min(shape, cta tile): replicated threads wrap onto
  // the same elements.
  std::vector<std::string> base(r);
  for (size_t d = 0; d < r; ++d) {
    base[d] = newReg(RegClass::B32);
    emit("rem.u32 " + base[d] + ", " + pos[d] + ", " + std::to_string(std::min(t.shape[d], l.ctaTile(d))) + ";");
  }
  // Elements in `order` (fastest dimension innermost, see localCoords), so
  // that a thread's contiguous elements are adjacent registers.
  std::vector<std::vector<int64_t>> coords = localCoords(t);
  std::vector<std::vector<std::string>> out(coords.size(), std::vector<std::string>(r));
  for (size_t k = 0; k < coords.size(); ++k)
    for (size_t d = 0; d < r; ++d) {
      int64_t j = coords[k][d];
      int64_t spt = std::min(l.sizePerThread[d], t.shape[d]);
      int64_t offset = (j / spt) * l.ctaTile(d) + j % spt;
      std::string reg = newReg(RegClass::B32);
      emit("add.s32 " + reg + ", " + base[d] + ", " + std::to_string(offset) + ";");
      out[k][d] = reg;
    }
  return indices_[key] = out;
}

std::vector<std::vector<int64_t>> FunctionLowering::localCoords(const ir::Type& t) {
  const BlockedLayout& l = layoutOf(t);
  size_t r = t.shape.size();
  std::vector<int64_t> count(r);
  size_t total = 1;
  for (size_t d = 0; d < r; ++d) {
    count[d] = l.elementsPerThread(t.shape, d);
    total *= size_t(count[d]);
  }
  std::vector<std::vector<int64_t>> out(total, std::vector<int64_t>(r));
  for (size_t k = 0; k < total; ++k) {
    size_t rest = k;
    for (int d : l.order) {
      out[k][size_t(d)] = int64_t(rest % size_t(count[size_t(d)]));
      rest /= size_t(count[size_t(d)]);
    }
  }
  return out;
}

std::string FunctionLowering::ownerPred(const ir::Type& t) {
  InSetup inSetup(*this);
  if (!t.isTile()) {
    // Scalars: every thread computes them; thread 0 writes them.
    auto it = owners_.find("scalar");
    if (it != owners_.end()) return it->second;
    std::string p = newReg(RegClass::Pred);
    emit("setp.eq.u32 " + p + ", " + tid_ + ", 0;");
    return owners_["scalar"] = p;
  }
  std::string key = shapeKey(t.shape);
  auto it = owners_.find(key);
  if (it != owners_.end()) return it->second;
  // A thread owns its elements if its unwrapped position is inside the shape.
  const std::vector<std::string>& pos = threadPositions(t);
  std::string p = newReg(RegClass::Pred);
  emit("setp.eq.u32 " + p + ", 1, 1;");
  for (size_t d = 0; d < t.shape.size(); ++d) {
    std::string q = newReg(RegClass::Pred);
    emit("setp.lt.s32 " + q + ", " + pos[d] + ", " + std::to_string(t.shape[d]) + ";");
    emit("and.pred " + p + ", " + p + ", " + q + ";");
  }
  return owners_[key] = p;
}

void FunctionLowering::prologue() {
  tid_ = newReg(RegClass::B32);
  laneId_ = newReg(RegClass::B32);
  warpId_ = newReg(RegClass::B32);
  emit("mov.u32 " + tid_ + ", %tid.x;");
  emit("and.b32 " + laneId_ + ", " + tid_ + ", 31;");
  emit("shr.u32 " + warpId_ + ", " + tid_ + ", 5;");
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
  // Constants are materialized once, up front, so that every use is dominated.
  for (auto& bb : f_.blocks())
    for (auto& inst : bb->instructions())
      for (ir::Value* v : inst->operands())
        if (v->valueKind() == ir::ValueKind::Constant && !regs_.count(v))
          define(v, {constantReg(static_cast<const ir::Constant*>(v))});
}

void FunctionLowering::lowerInstruction(const ir::Instruction& i) {
  using ir::Opcode;
  converted_.clear();  // conversions are made where used, never reused across instructions
  switch (i.opcode()) {
    case Opcode::Load: case Opcode::Store: case Opcode::Gep: case Opcode::AtomicRmw: case Opcode::AtomicCas:
      return lowerMemory(i);
    case Opcode::Splat: case Opcode::Reshape: case Opcode::Broadcast: case Opcode::Trans:
    case Opcode::Range: case Opcode::Reduce: case Opcode::Dot: case Opcode::ProgramId: case Opcode::NumPrograms:
    case Opcode::MultipleOf:
      return lowerTile(i);
    case Opcode::Phi: case Opcode::Br: case Opcode::CondBr: case Opcode::Ret:
      return lowerControl(i);
    case Opcode::Cast:
      return lowerCast(i);
    default:
      return lowerElementwise(i);
  }
}

std::string FunctionLowering::run() {
  prologue();
  // Phis get their registers before any block is lowered: branches into a
  // block copy into them.
  assignMmaLayouts();
  planPointerGroups();
  for (auto& bb : f_.blocks())
    for (auto& inst : bb->instructions())
      if (inst->opcode() == ir::Opcode::Phi && !isAsyncPhi(inst.get())) {
        std::vector<std::string> r;
        size_t n = isMma(inst.get()) ? mmaElements(mmaLayoutOf(inst.get())) : numOwned(inst->type());
        for (size_t k = 0; k < n; ++k)
          r.push_back(elementNeeded(inst.get(), k) ? newReg(regClassOf(inst->type().kind)) : "");
        if (isMma(inst.get())) mmaRegs(inst.get()) = r;
        else define(inst.get(), r);
      }
  std::ostringstream prologueText;
  prologueText << body_.str();
  body_.str("");
  for (auto& bb : f_.blocks()) {
    label(blockLabel(bb.get()));
    currentBlock_ = bb.get();
    asyncRingLive_ = false;
    assumePendingReads();
    if (!asyncLoopBlocks_.count(bb.get()))
      for (const ir::BasicBlock* p : f_.predecessors(bb.get()))
        if (asyncLoopBlocks_.count(p)) {
          // Leaving a loop with copies in flight (zero-fills of iterations
          // past the end): they must land before the ring's memory is reused.
          emit("cp.async.wait_all;");
          // And pipelined wgmmas: the accumulator is read from here on.
          if (pipelinedWgmma_) emit("wgmma.wait_group.sync.aligned 0;");
          break;
        }
    for (auto& inst : bb->instructions()) lowerInstruction(*inst);
  }
  // The scratch's second half starts after the largest use that alternated;
  // needScratch counted the uses from their half's start.
  const int64_t half = (halfBytes_ + 15) / 16 * 16;
  if (usedSecondHalf_) {
    scratchBytes_ = std::max(scratchBytes_, 2 * half);
    if (secondHalfWhileRingLive_) scratchWhileRingLive_ = std::max(scratchWhileRingLive_, 2 * half);
  }
  // Asynchronous rings go after the scratch needed while one is live (they
  // overlap the rest), the others after everything (see allocateRing).
  auto align16 = [](int64_t n) { return (n + 15) / 16 * 16; };
  // Swizzled wgmma tiles must start where the swizzle pattern does.
  int64_t asyncBase = usesWgmma_ ? (scratchWhileRingLive_ + 1023) / 1024 * 1024 : align16(scratchWhileRingLive_);
  int64_t syncBase = align16(std::max(scratchBytes_, asyncBase + asyncRingBytes_));
  // Rings stored from registers overlap the scratch only when they would not
  // fit otherwise: then each such dot waits for the scratch's readers first.
  bool overlapRings = ringBytes_ > 0 && syncBase + ringBytes_ > maxSharedBytes(opts_.arch);
  if (overlapRings) syncBase = align16(asyncBase + asyncRingBytes_);
  if (asyncRingBytes_ > 0) scratchBytes_ = std::max(scratchBytes_, asyncBase + asyncRingBytes_);
  if (ringBytes_ > 0) scratchBytes_ = std::max(scratchBytes_, syncBase + ringBytes_);
  std::string text = body_.str();
  for (size_t at = text.find(kScratchHalf); at != std::string::npos; at = text.find(kScratchHalf, at))
    text.replace(at, std::strlen(kScratchHalf), std::to_string(half));
  const std::string ringBarrier = std::string("  ") + kRingBarrier + "\n";
  for (size_t at = text.find(ringBarrier); at != std::string::npos; at = text.find(ringBarrier, at))
    text.replace(at, ringBarrier.size(), overlapRings ? "  bar.sync 0;\n" : "");
  int removedBarriers = 0;
  text = removeRedundantBarriers(text, &removedBarriers);
  for (auto [placeholder, base] : {std::pair<const char*, int64_t>{kAsyncRingBase, asyncBase}, {kRingBase, syncBase}})
    for (size_t at = text.find(placeholder); at != std::string::npos; at = text.find(placeholder, at))
      text.replace(at, std::strlen(placeholder), std::to_string(base));
  std::ostringstream out;
  out << ".visible .entry " << f_.name() << "(";
  for (size_t k = 0; k < f_.arguments().size(); ++k) {
    const ir::Type& t = f_.argument(k)->type();
    std::string pt = t.isPtr() ? "u64" : t.kind == Scalar::I1 ? "u32" : regClassOf(t.kind) == RegClass::B16 ? "b16" : ptxType(t.kind);
    out << (k ? ",\n    " : "\n    ") << ".param ." << pt << " param_" << k;
  }
  // .minnctapersm 1: without it ptxas caps registers (at 64 for 128 threads)
  // to fit several programs per SM, and spills instead.
  out << ")\n.maxntid " << 32 * opts_.numWarps << ", 1, 1\n.minnctapersm 1\n{\n";
  static const char* const decl[] = {".pred %p", ".b16 %h", ".b32 %r", ".f32 %f", ".b64 %rd", ".f64 %fd"};
  for (auto& [c, n] : regCount_) out << "  .reg " << decl[int(c)] << "<" << n << ">;\n";
  // Up to 48 KB of shared memory is static; more must be dynamic, which the
  // launch requests (gpu_runner reads the size from the comment line).
  if (removedBarriers) out << "  // tritonc: " << removedBarriers << " redundant barriers removed\n";
  if (scratchBytes_ > kMaxStaticShared) out << "  // tritonc: dynamic_shared_bytes " << scratchBytes_ << "\n";
  else if (scratchBytes_ > 0)
    out << "  .shared .align " << (usesWgmma_ ? 1024 : 16) << " .b8 scratch[" << scratchBytes_ << "];\n";
  out << prologueText.str() << setup_.str() << text << "}\n";
  return out.str();
}

std::string FunctionLowering::layoutText(const ir::Value* v) {
  if (isMma(v)) {
    const MmaLayout& L = mmaLayoutOf(v);
    return "#mma<m16n8k16, warps=[" + std::to_string(L.wm) + ", " + std::to_string(L.wn) + "]>";
  }
  return layoutOf(v->type()).toString();
}

std::string printLayouts(const ir::Module& m, const TargetOptions& opts) {
  std::string out;
  for (auto& f : m.functions()) {
    FunctionLowering L(*f, opts);
    L.assignMmaLayouts();
    out += "; layouts of @" + f->name() + " (num_warps=" + std::to_string(opts.numWarps) + ")\n";
    for (auto& bb : f->blocks()) {
      out += bb->name() + ":\n";
      for (auto& inst : bb->instructions()) {
        out += "  " + ir::printInstruction(*inst);
        if (inst->type().isTile()) out += "  ; " + L.layoutText(inst.get());
        out += "\n";
      }
    }
  }
  return out;
}

std::string emitPtx(const ir::Module& m, const TargetOptions& opts) {
  if (opts.numWarps <= 0 || opts.numWarps > 32 || (opts.numWarps & (opts.numWarps - 1)))
    throw UserError(SourceLoc{}, "num_warps must be a power of two between 1 and 32, got " + std::to_string(opts.numWarps));
  std::ostringstream out;
  out << "//\n// Generated by tritonc\n//\n.version " << ptxVersionFor(opts.arch) << "\n.target " << opts.arch
      << "\n.address_size 64\n\n";
  std::string kernels;
  for (auto& f : m.functions()) kernels += FunctionLowering(*f, opts).run() + "\n";
  if (kernels.find("// tritonc: dynamic_shared_bytes") != std::string::npos)
    out << ".extern .shared .align " << (kernels.find("wgmma.") != std::string::npos ? 1024 : 16)
        << " .b8 scratch[];\n\n";
  out << kernels;
  return out.str();
}

}  // namespace tritonc::nvptx
