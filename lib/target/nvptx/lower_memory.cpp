// PTX lowering of address arithmetic, loads, stores and atomics. Tile
// accesses move the number of elements their {vec = N} says at a time (the
// layout pass proved the registers contiguous, the addresses aligned and
// the mask uniform over them); replicated elements are written by their
// first owner only.
#include "ir/memory_hints.h"
#include "target/nvptx/lowering.h"

namespace tritonc::nvptx {

using ir::Opcode;
using ir::Scalar;

namespace {

std::string braces(const std::vector<std::string>& r, size_t from, size_t n) {
  return nvptx::braces(std::vector<std::string>(r.begin() + long(from), r.begin() + long(from + n)));
}

}  // namespace

void FunctionLowering::lowerMemory(const ir::Instruction& i) {
  const ir::Type& t = i.type();
  if (i.opcode() == Opcode::Gep) {
    Scalar ok = i.operand(1)->type().kind;
    int64_t size = ir::byteSize(t.pointee);
    bool uniform = regs(i.operand(0)).size() == 1 && regs(i.operand(1)).size() == 1;
    std::vector<std::string> out(uniform ? 1 : numRegs(t));
    if (!uniform) out = lowerGepWithImmediates(i);
    for (size_t e = 0; e < out.size(); ++e) {
      if (!elementNeeded(&i, e) || !out[e].empty()) continue;
      std::string r = newReg(RegClass::B64);
      if (ok == Scalar::I64) {
        emit("mad.lo.s64 " + r + ", " + elem(i.operand(1), e) + ", " + std::to_string(size) + ", " + elem(i.operand(0), e) + ";");
      } else {
        emit("mad.wide.s32 " + r + ", " + elem(i.operand(1), e) + ", " + std::to_string(size) + ", " + elem(i.operand(0), e) + ";");
      }
      out[e] = r;
    }
    define(&i, std::move(out));
    return;
  }

  const ir::Value* ptr = i.operand(0);
  const ir::Type& pt = ptr->type();
  Scalar k = pt.pointee;
  const ir::Value* mask = i.mask();
  size_t n = numRegs(pt);
  int64_t size = ir::byteSize(k);

  size_t vec = size_t(std::max(1, i.vec));
  std::string owner = i.opcode() == Opcode::Load ? "" : pt.isTile() ? placement(pt).owner : scalarOwner();

  auto predicateFor = [&](size_t e) -> std::string {
    std::string p = owner;
    if (mask) {
      std::string m = elem(mask, e);
      if (p.empty()) return m;
      std::string q = newReg(RegClass::Pred);
      emit("and.pred " + q + ", " + p + ", " + m + ";");
      return q;
    }
    return p;
  };
  auto guarded = [&](const std::string& pred, const std::string& text) {
    emit(pred.empty() ? text : "@" + pred + " " + text);
  };
  // The opcode with its cache operator (ld.global.cg, st.global.cs) or, for
  // a volatile load, ld.volatile.global (docs/IR.md: `cache`, `volatile`).
  // An eviction priority ({evict = first/last}) is L1's (where no cache
  // operator is given: PTX takes one or the other) and L2's, through a
  // cache policy operand (`hint`) made here by createpolicy (sm_80 on).
  const bool plainAccess = i.opcode() == Opcode::Load || i.opcode() == Opcode::Store;  // (an atomic's sub is its kind)
  const bool isVolatile = plainAccess && (i.sub & ir::kLoadVolatile) && i.opcode() == Opcode::Load;
  const ir::CacheOp cache = plainAccess ? ir::CacheOp(i.sub & ir::kLoadCacheMask) : ir::CacheOp::Default;
  const ir::Evict evict = plainAccess && !isVolatile ? ir::evictOf(i.sub) : ir::Evict::Normal;
  std::string cacheSuffix = cache == ir::CacheOp::Default ? "" : std::string(".") + ir::cacheOpName(cache);
  std::string hint;
  if (evict != ir::Evict::Normal) {
    const std::string priority = std::string("evict_") + ir::evictName(evict);
    if (cache == ir::CacheOp::Default) cacheSuffix += ".L1::" + priority;
    hint = newReg(RegClass::B64);
    emit("createpolicy.fractional.L2::" + priority + ".b64 " + hint + ", 1.0;");
    cacheSuffix += ".L2::cache_hint";
    hint = ", " + hint;
  }
  const std::string ld = isVolatile ? "ld.volatile.global" : "ld.global" + cacheSuffix;
  const std::string st = "st.global" + cacheSuffix;

  if (i.opcode() == Opcode::Load) {
    std::vector<std::string> out(n);
    RegClass rc = regClassOf(k);
    for (size_t e = 0; e < n; e += vec) {
      std::string pred = predicateFor(e);
      std::string addr = elem(ptr, e);
      // Masked-off lanes keep `other` (zero when absent).
      std::vector<std::string> dst(vec);
      for (size_t v = 0; v < vec; ++v) {
        dst[v] = newReg(k == Scalar::I1 ? RegClass::B32 : rc);
        if (i.numOperands() == 3 && k != Scalar::I1) {
          const char* mt = rc == RegClass::B16 ? "b16" : rc == RegClass::B64 ? "b64" : rc == RegClass::F32 ? "f32"
                           : rc == RegClass::F64 ? "f64" : "b32";
          emit(std::string("mov.") + mt + " " + dst[v] + ", " + elem(i.operand(2), e + v) + ";");
        } else if (mask && k != Scalar::I1) {
          emit(std::string("mov.b") + std::to_string(rc == RegClass::B16 ? 16 : size == 8 ? 64 : 32) + " " + dst[v] + ", 0;");
        }
      }
      if (vec == 1) {
        guarded(pred, ld + "." + memoryType(k) + " " + dst[0] + ", [" + addr + "]" + hint + ";");
      } else if (size == 1 && vec > 4) {
        // 8 or 16 bytes (PTX vectors of bytes stop at 4): 32-bit words,
        // each split into four bytes, under the predicate (else `other` stays).
        std::vector<std::string> w(vec / 4);
        for (auto& x : w) {
          x = newReg(RegClass::B32);
          emit("mov.b32 " + x + ", 0;");
        }
        guarded(pred, ld + ".v" + std::to_string(w.size()) + ".b32 " + braces(w, 0, w.size()) + ", [" + addr + "]" + hint + ";");
        for (size_t v = 0; v < vec; ++v)
          guarded(pred, "bfe.s32 " + dst[v] + ", " + w[v / 4] + ", " + std::to_string(8 * (v % 4)) + ", 8;");
      } else if (size == 2 && vec == 8 && rc == RegClass::B16) {
        // 8 f16/bf16: four 32-bit words holding `other` (or zeros) where
        // the load does not run, each split into two halves: no select
        // per element.
        std::vector<std::string> w(4);
        for (size_t q = 0; q < 4; ++q) {
          w[q] = newReg(RegClass::B32);
          if (i.numOperands() == 3)
            emit("mov.b32 " + w[q] + ", {" + dst[2 * q] + ", " + dst[2 * q + 1] + "};");
          else
            emit("mov.b32 " + w[q] + ", 0;");
        }
        guarded(pred, ld + ".v4.b32 " + braces(w, 0, 4) + ", [" + addr + "]" + hint + ";");
        for (size_t q = 0; q < 4; ++q) {
          dst[2 * q] = newReg(RegClass::B16);
          dst[2 * q + 1] = newReg(RegClass::B16);
          emit("mov.b32 {" + dst[2 * q] + ", " + dst[2 * q + 1] + "}, " + w[q] + ";");
        }
      } else if (size == 2 && vec == 8) {
        // 8 x 16-bit integers: four 32-bit words, each split into two halves.
        std::vector<std::string> w(4);
        for (auto& x : w) {
          x = newReg(RegClass::B32);
          emit("mov.b32 " + x + ", 0;");
        }
        guarded(pred, ld + ".v4.b32 " + braces(w, 0, 4) + ", [" + addr + "]" + hint + ";");
        for (size_t q = 0; q < 4; ++q) {
          // Keep `other` where the load did not run: unpack only under the predicate.
          std::string lo = newReg(RegClass::B16), hi = newReg(RegClass::B16);
          emit("mov.b32 {" + lo + ", " + hi + "}, " + w[q] + ";");
          guarded(pred, "cvt.s32.s16 " + dst[2 * q] + ", " + lo + ";");  // (sign-extended in 32 bits)
          guarded(pred, "cvt.s32.s16 " + dst[2 * q + 1] + ", " + hi + ";");
        }
      } else {
        guarded(pred, ld + ".v" + std::to_string(vec) + "." + memoryType(k) + " " + braces(dst, 0, vec) +
                          ", [" + addr + "]" + hint + ";");
      }
      for (size_t v = 0; v < vec; ++v) {
        if (k == Scalar::I1) {
          std::string p = newReg(RegClass::Pred);
          emit("setp.ne.u32 " + p + ", " + dst[v] + ", 0;");
          if (i.numOperands() == 3) {
            // Masked-off lanes yield `other`.
            std::string q = newReg(RegClass::Pred), nm = newReg(RegClass::Pred), x = newReg(RegClass::Pred);
            emit("and.pred " + q + ", " + p + ", " + pred + ";");
            emit("not.pred " + nm + ", " + pred + ";");
            emit("and.pred " + x + ", " + nm + ", " + elem(i.operand(2), e + v) + ";");
            emit("or.pred " + p + ", " + q + ", " + x + ";");
          }
          out[e + v] = p;
        } else {
          out[e + v] = dst[v];
        }
      }
    }
    define(&i, std::move(out));
    return;
  }

  if (i.opcode() == Opcode::Store) {
    const ir::Value* val = i.operand(1);
    for (size_t e = 0; e < n; e += vec) {
      std::string pred = predicateFor(e);
      std::string addr = elem(ptr, e);
      std::vector<std::string> src(vec);
      for (size_t v = 0; v < vec; ++v) {
        src[v] = elem(val, e + v);
        if (k == Scalar::I1) {
          std::string b = newReg(RegClass::B32);
          emit("selp.u32 " + b + ", 1, 0, " + src[v] + ";");
          src[v] = b;
        }
      }
      if (vec == 1) {
        guarded(pred, st + "." + memoryType(k) + " [" + addr + "], " + src[0] + hint + ";");
      } else if (size == 1 && vec > 4) {
        std::vector<std::string> w = packBytes(src);
        guarded(pred, st + ".v" + std::to_string(w.size()) + ".b32 [" + addr + "], " + braces(w, 0, w.size()) + hint + ";");
      } else if (size == 2 && vec == 8) {
        std::vector<std::string> w(4);
        for (size_t q = 0; q < 4; ++q) {
          w[q] = newReg(RegClass::B32);
          emit("mov.b32 " + w[q] + ", {" + toHalfWord(k, src[2 * q]) + ", " + toHalfWord(k, src[2 * q + 1]) + "};");
        }
        guarded(pred, st + ".v4.b32 [" + addr + "], " + braces(w, 0, 4) + hint + ";");
      } else {
        guarded(pred, st + ".v" + std::to_string(vec) + "." + memoryType(k) + " [" + addr + "], " +
                          braces(src, 0, vec) + hint + ";");
      }
    }
    return;
  }

  // Atomics: one per element, by its owner; masked-off lanes yield 0.
  bool cas = i.opcode() == Opcode::AtomicCas;
  const char* ty;
  switch (k) {
    case Scalar::I32: ty = "s32"; break;
    case Scalar::I64: ty = "s64"; break;
    case Scalar::F32: ty = "f32"; break;
    case Scalar::F64: ty = "f64"; break;
    case Scalar::F16: case Scalar::BF16: case Scalar::I16:
      // 16 bits: atomic_cas (atom.cas.b16), and additions of f16 and bf16
      // (atom.add.noftz; bf16 from sm_90).
      ty = k == Scalar::F16 ? "noftz.f16" : k == Scalar::BF16 ? "noftz.bf16" : "b16";
      if (!cas && (k == Scalar::I16 || ir::AtomicKind(i.sub) != ir::AtomicKind::Add))
        throw UserError(i.loc, std::string("atomics on ") + ir::scalarName(k) + " other than atomic_cas" +
                                   (k == Scalar::I16 ? "" : " and atomic_add") +
                                   " are not supported by the GPU back end");
      if (!cas && k == Scalar::BF16 && opts().arch.rfind("sm_9", 0) != 0)
        throw UserError(i.loc, "atomic_add on bf16 needs sm_90 or later (PTX's atom.add.noftz.bf16); this is " +
                                   opts().arch);
      break;
    default:
      throw UserError(i.loc, std::string("atomics on ") + ir::scalarName(k) + " are not supported by the GPU back end yet");
  }
  const char* opName;
  if (cas) {
    opName = "cas";
  } else {
    switch (ir::AtomicKind(i.sub)) {
      case ir::AtomicKind::Add:  // (no atom.add.s64: two's complement adds alike)
        opName = "add";
        if (k == Scalar::I64) ty = "u64";
        break;
      case ir::AtomicKind::Xchg: opName = "exch"; break;
      case ir::AtomicKind::Max: opName = "max"; break;
      case ir::AtomicKind::Min: opName = "min"; break;
      case ir::AtomicKind::And: opName = "and"; break;
      case ir::AtomicKind::UMax: opName = "max"; ty = size == 8 ? "u64" : "u32"; break;
      case ir::AtomicKind::UMin: opName = "min"; ty = size == 8 ? "u64" : "u32"; break;
      case ir::AtomicKind::Xor: opName = "xor"; break;
      default: opName = "or"; break;
    }
  }
  bool bitwise = cas || std::string(opName) == "exch" || std::string(opName) == "and" || std::string(opName) == "or" ||
                 std::string(opName) == "xor";
  std::string aty = bitwise ? (size == 8 ? "b64" : size == 2 ? "b16" : "b32") : ty;
  // i16 lives sign-extended in 32-bit registers; atom.cas.b16 takes 16-bit ones.
  auto narrow16 = [&](const std::string& r) {
    if (k != Scalar::I16) return r;
    std::string h = newReg(RegClass::B16);
    emit("cvt.u16.u32 " + h + ", " + r + ";");
    return h;
  };
  // Float max and min have no PTX atom: as integers, the bits of a float
  // whose sign bit is clear order like the floats (signed max), those of one
  // whose sign bit is set in reverse (unsigned min, the sign bit making any
  // of them larger than the others): the operand's sign bit picks the
  // instruction (as Triton's; -0.0 takes the second, and NaNs order by their
  // bits: docs/IR.md).
  const bool floatMinMax = !bitwise && ir::isFloatKind(k) && std::string(opName) != "add";
  const std::string ib = size == 8 ? "64" : "32";
  auto floatMinMaxParts = [&](const std::string& v, const std::string& pred, std::string& bits, std::string& nonNeg,
                              std::string& neg) {
    bits = newReg(size == 8 ? RegClass::B64 : RegClass::B32);
    emit("mov.b" + ib + " " + bits + ", " + v + ";");
    nonNeg = newReg(RegClass::Pred);
    neg = newReg(RegClass::Pred);
    emit("setp.lt.s" + ib + " " + neg + ", " + bits + ", 0;");
    emit("not.pred " + nonNeg + ", " + neg + ";");
    if (!pred.empty()) {
      emit("and.pred " + nonNeg + ", " + nonNeg + ", " + pred + ";");
      emit("and.pred " + neg + ", " + neg + ", " + pred + ";");
    }
  };
  const bool isMax = std::string(opName) == "max";
  const std::string nonNegOp = std::string(isMax ? "max" : "min") + ".s" + ib;
  const std::string negOp = std::string(isMax ? "min" : "max") + ".u" + ib;
  // Its state space, scope and memory order, spelled out even where they
  // are PTX's defaults (relaxed at GPU scope). ptxas takes the qualifiers in
  // any order; they are printed in Triton's (scope before order, and order
  // before scope for a compare-and-swap) so that searches of Triton's PTX
  // find ours.
  const auto sem = ir::MemSem(i.imm & 3);
  const auto scope = ir::MemScope((i.imm >> 2) & 3);
  const std::string semName = std::string(".") + ir::memSemName(sem);
  const std::string scopeName = std::string(".") + ir::memScopeName(scope);
  const std::string qualifiers = cas ? ".global" + semName + scopeName : ".global" + scopeName + semName;
  // A scalar atomic runs in thread 0 alone: with release semantics, the
  // other threads' accesses before it are ordered first by a barrier (a
  // lock's critical section written by every thread); with acquire
  // semantics, their accesses after it wait for it at a barrier (the
  // broadcast of a used result below has one).
  const bool releases = sem == ir::MemSem::Release || sem == ir::MemSem::AcqRel;
  const bool acquires = sem == ir::MemSem::Acquire || sem == ir::MemSem::AcqRel;
  if (!t.isTile() && releases) barrier();
  // A tile atomic whose old values nobody reads is a reduction (red: no
  // value comes back); f32 additions go several at a time where sm_90 has
  // vector reductions and the layout pass proved them contiguous ({vec =
  // N}). A scalar one stays an atom, as Triton writes it (ptxas makes an
  // atom whose result is dead a reduction itself).
  if (ir::isReduction(i) && t.isTile()) {
    size_t rv = k == Scalar::F32 && std::string(opName) == "add" && opts().arch.rfind("sm_90", 0) == 0
                    ? size_t(std::max(1, i.vec)) : 1;
    size_t count = t.isTile() ? numRegs(t) : 1;
    for (size_t e = 0; e < count; e += rv) {
      std::string pred = predicateFor(e);
      if (floatMinMax) {
        std::string bits, nonNeg, neg;
        floatMinMaxParts(elem(i.operand(1), e), pred, bits, nonNeg, neg);
        guarded(nonNeg, "red" + qualifiers + "." + nonNegOp + " [" + elem(ptr, e) + "], " + bits + ";");
        guarded(neg, "red" + qualifiers + "." + negOp + " [" + elem(ptr, e) + "], " + bits + ";");
        continue;
      }
      std::vector<std::string> vals;
      for (size_t v = 0; v < rv; ++v) vals.push_back(elem(i.operand(1), e + v));
      std::string op = "red" + qualifiers + "." + std::string(opName) + (rv > 1 ? ".v" + std::to_string(rv) : "") +
                       "." + aty;
      guarded(pred, op + " [" + elem(ptr, e) + "], " + (rv > 1 ? braces(vals, 0, rv) : vals[0]) + ";");
    }
    define(&i, {"0"});  // (never read)
    return;
  }
  const std::string width = size == 8 ? "b64" : size == 2 ? "b16" : "b32";
  std::vector<std::string> out(numRegs(t));
  for (size_t e = 0; e < out.size(); ++e) {
    std::string pred = predicateFor(e);
    std::string r = newReg(k == Scalar::I16 ? RegClass::B16 : regClassOf(k));
    emit("mov." + width + " " + r + ", 0;");
    if (floatMinMax) {
      std::string bits, nonNeg, neg, old = newReg(size == 8 ? RegClass::B64 : RegClass::B32);
      floatMinMaxParts(elem(i.operand(1), e), pred, bits, nonNeg, neg);
      emit("mov.b" + ib + " " + old + ", 0;");
      guarded(nonNeg, "atom" + qualifiers + "." + nonNegOp + " " + old + ", [" + elem(ptr, e) + "], " + bits + ";");
      guarded(neg, "atom" + qualifiers + "." + negOp + " " + old + ", [" + elem(ptr, e) + "], " + bits + ";");
      emit("mov.b" + ib + " " + r + ", " + old + ";");
      out[e] = r;
      continue;
    }
    std::string args = "[" + elem(ptr, e) + "], " + narrow16(elem(i.operand(1), e));
    if (cas) args += ", " + narrow16(elem(i.operand(2), e));
    guarded(pred, "atom" + qualifiers + "." + opName + "." + aty + " " + r + ", " + args + ";");
    if (k == Scalar::I16) {  // back to a sign-extended 32-bit register
      std::string w = newReg(regClassOf(k));
      emit("cvt.s32.s16 " + w + ", " + r + ";");
      r = w;
    }
    out[e] = r;
  }
  if (!t.isTile() && i.users().empty() && acquires) barrier();
  if (!t.isTile() && !i.users().empty()) {
    // Scalar atomics ran in thread 0 only: share the old value with every
    // thread through the instruction's scratch.
    std::string at = sharedAddress(i.smem);
    guarded(owner, "st.shared." + width + " [" + at + "], " + out[0] + ";");
    barrier();
    std::string r = newReg(regClassOf(k));
    emit("ld.shared." + (k == Scalar::I16 ? std::string("s16") : width) + " " + r + ", [" + at + "];");
    out[0] = r;
  }
  define(&i, std::move(out));
}

namespace {

// Whether every user of `gep` reads it only as the address of a load or store.
bool onlyAddressed(const ir::Instruction& gep) {
  for (const ir::Instruction* u : gep.users()) {
    if (u->opcode() != Opcode::Load && u->opcode() != Opcode::Store) return false;
    for (size_t k = 1; k < u->numOperands(); ++k)
      if (u->operand(k) == &gep) return false;
  }
  return !gep.users().empty();
}

bool powerOfTwo(int64_t x) { return x > 0 && (x & (x - 1)) == 0; }

}  // namespace

std::vector<std::string> FunctionLowering::lowerGepWithImmediates(const ir::Instruction& i) {
  const ir::Type& t = i.type();
  std::vector<std::string> out(numRegs(t));
  if (!t.isTile() || !onlyAddressed(i) || i.operand(1)->type().kind == Scalar::I64) return out;
  const ir::Value* offsets = i.operand(1);
  if (!offsets->type().isTile() || numRegs(offsets->type()) != out.size()) return out;
  if (!axis_) axis_ = std::make_unique<analysis::AxisInfoAnalysis>(f_);
  analysis::AxisInfo info = axis_->get(offsets);
  // An element's index is its register part plus its thread's part, whose
  // bits differ (linear_layout.h): two registers' elements are at a distance
  // along a dimension that is the same in every thread, and in the same run
  // of consecutive offsets where their register parts agree above the run.
  const gpu::LinearLayout& ll = placement(offsets->type()).ll;
  int64_t size = ir::byteSize(t.pointee);
  std::vector<size_t> firsts;  // elements computed by a multiply-add
  for (size_t e = 0; e < out.size(); ++e) {
    if (!elementNeeded(&i, e)) continue;
    gpu::Index at = ll.regIndex(e);
    for (size_t f : firsts) {
      if (elem(i.operand(0), f) != elem(i.operand(0), e)) continue;
      gpu::Index from = ll.regIndex(f);
      int differing = 0;
      size_t dim = 0;
      for (size_t d = 0; d < at.size(); ++d)
        if (at[d] != from[d]) ++differing, dim = d;
      if (differing != 1) continue;
      int64_t run = info.contiguity[dim];
      if (!powerOfTwo(run) || run < 2 || at[dim] / run != from[dim] / run) continue;
      int64_t delta = (at[dim] - from[dim]) * size;
      out[e] = out[f] + (delta > 0 ? "+" : "") + std::to_string(delta);
      break;
    }
    if (out[e].empty()) {
      firsts.push_back(e);
      std::string r = newReg(RegClass::B64);
      emit("mad.wide.s32 " + r + ", " + elem(offsets, e) + ", " + std::to_string(size) + ", " + elem(i.operand(0), e) + ";");
      out[e] = r;
    }
  }
  return out;
}

}  // namespace tritonc::nvptx
