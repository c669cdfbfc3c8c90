// PTX lowering of element-wise instructions: arithmetic, comparisons,
// selects, casts. f16/bf16 arithmetic is done in f32 and rounded back, which
// gives the interpreter's results for + - * / (one rounding of an exact f32),
// except + - * where the target has them in the kind itself (below).
#include <cstdio>

#include "target/nvptx/lowering.h"

namespace tritonc::nvptx {

using ir::Opcode;
using ir::Scalar;

namespace {

// The constant that `v` is (a scalar, or splatted/broadcast), or null.
const ir::Constant* constantOf(const ir::Value* v) {
  while (v->valueKind() == ir::ValueKind::Instruction) {
    const auto* i = static_cast<const ir::Instruction*>(v);
    if (i->opcode() != ir::Opcode::Splat && i->opcode() != ir::Opcode::Broadcast) return nullptr;
    v = i->operand(0);
  }
  return v->valueKind() == ir::ValueKind::Constant ? static_cast<const ir::Constant*>(v) : nullptr;
}
// Whether `v` is the f32 constant ln 2.
bool isLn2(const ir::Value* v) {
  const ir::Constant* c = constantOf(v);
  return c && float(c->f) == float(0.69314718055994531);
}
// The constant an integer division divides by (lowered without a div:
// lower_divide.cpp), or null.
const ir::Constant* divisorConstant(const ir::Instruction& i) { return constantOf(i.operand(1)); }
bool isHalf(Scalar k) { return k == Scalar::F16 || k == Scalar::BF16; }
const char* halfName(Scalar k) { return k == Scalar::F16 ? "f16" : "bf16"; }
// Integers narrower than 32 bits live in 32-bit registers, sign-extended.
void wrapNarrow(FunctionLowering& L, Scalar k, const std::string& r) {
  if (k == Scalar::I8) L.emit("cvt.s32.s8 " + r + ", " + r + ";");
  if (k == Scalar::I16) L.emit("cvt.s32.s16 " + r + ", " + r + ";");
}
// PTX says float-to-integer conversions map NaN to 0, but the H200 does
// not for every pair (f64 to u32 gave 2^31, f32 to u64 2^63, f64 to u8 128,
// 2026-11-29): where a conversion's hardware form may differ from the
// 32-bit one, select 0 for NaN explicitly.
void zeroWhereNaN(FunctionLowering& L, Scalar xf, const std::string& x, Scalar to, const std::string& r) {
  std::string nan = L.newReg(RegClass::Pred);
  L.emit(std::string("setp.nan.") + ptxType(xf) + " " + nan + ", " + x + ", " + x + ";");
  L.emit(std::string("selp.b") + (to == Scalar::I64 ? "64 " : "32 ") + r + ", 0, " + r + ", " + nan + ";");
}
// The bits of a narrow integer as an unsigned number, for the unsigned
// operations whose result depends on the value (udiv, urem, ushr, ucast).
// (Sign extension keeps the unsigned order of same-width values, so
// comparisons, umax and umin need none.)
std::string zeroExtended(FunctionLowering& L, Scalar k, const std::string& r) {
  if (k != Scalar::I8 && k != Scalar::I16) return r;
  std::string z = L.newReg(RegClass::B32);
  L.emit("and.b32 " + z + ", " + r + ", " + (k == Scalar::I8 ? "255;" : "65535;"));
  return z;
}
// An unsigned power of two 2^k (k returned), or -1.
int unsignedLog2(Scalar kind, int64_t v) {
  const int w = ir::bitWidth(kind);
  const uint64_t u = w >= 64 ? uint64_t(v) : uint64_t(v) & ((uint64_t(1) << w) - 1);
  if (u == 0 || (u & (u - 1)) != 0) return -1;
  int k = 0;
  while ((uint64_t(1) << k) != u) ++k;
  return k;
}
}  // namespace

std::string FunctionLowering::toF32(Scalar k, const std::string& r) {
  std::string f = newReg(RegClass::F32);
  if (k == Scalar::F16) {
    emit("cvt.f32.f16 " + f + ", " + r + ";");
  } else {
    // bf16 is the top half of an f32.
    std::string w = newReg(RegClass::B32);
    emit("cvt.u32.u16 " + w + ", " + r + ";");
    emit("shl.b32 " + w + ", " + w + ", 16;");
    emit("mov.b32 " + f + ", " + w + ";");
  }
  return f;
}

// An integer (PTX type `it`: s32 s64 u32 u64) to f16 or bf16 with one
// rounding, as the interpreter. f16: through f32, exact below 2^24, and
// at and above it both roundings overflow to inf. bf16, finite far beyond:
// truncated to f32 with the lowest bit set where that was inexact (round
// to odd keeps the sticky information), then rounded to bf16 once.
std::string FunctionLowering::intToHalf(Scalar k, const std::string& x, const char* it) {
  if (k == Scalar::F16) {
    std::string f = newReg(RegClass::F32);
    emit(std::string("cvt.rn.f32.") + it + " " + f + ", " + x + ";");
    return fromF32(k, f);
  }
  return fromF32(k, f32RoundedToOdd(x, it));
}

// `x` (PTX type `from`: an integer, or f64) as f32 rounded to odd: toward
// zero, the lowest bit set where that was inexact (the sticky bit), so that
// rounding it once more to a type at least two bits narrower (bf16) rounds
// `x` once.
std::string FunctionLowering::f32RoundedToOdd(const std::string& x, const std::string& from) {
  const bool isFloat = from[0] == 'f', wide = from[1] == '6';
  std::string f = newReg(RegClass::F32), bits = newReg(RegClass::B32), inexact = newReg(RegClass::Pred);
  std::string back = newReg(isFloat ? RegClass::F64 : wide ? RegClass::B64 : RegClass::B32);
  emit("cvt.rz.f32." + from + " " + f + ", " + x + ";");
  emit((isFloat ? "cvt.f64.f32 " : "cvt.rzi." + from + ".f32 ") + back + ", " + f + ";");
  emit((isFloat ? std::string("setp.neu.f64 ") : std::string("setp.ne.") + (wide ? "b64 " : "b32 ")) + inexact +
       ", " + back + ", " + x + ";");  // (a NaN is inexact: the or keeps it a NaN)
  emit("mov.b32 " + bits + ", " + f + ";");
  emit("@" + inexact + " or.b32 " + bits + ", " + bits + ", 1;");
  emit("mov.b32 " + f + ", " + bits + ";");
  return f;
}

// Dequantizing kernels convert every weight they read, and cvt from an
// integer is a quarter-rate instruction (two of them for f16/bf16, through
// f32): an int8 weight tile converted on the cores that feed the tensor
// cores bounded the w8a16 matmul. Instead, the integer, biased to be
// non-negative, is added into the low bits of a float whose last mantissa
// bit is worth 1 (2^23 in f32; 1024 in f16, for 8 bits), and that float
// plus the bias is subtracted in float arithmetic: exact, and two
// full-rate instructions. From 8 bits f16 and bf16 are exact; from 16 bits
// only f32 is (f16 and bf16 keep cvt, which ptxas makes one I2F.F16: the
// f32 route would add a rounding conversion to the two instructions).
// Tried and not kept: bytes to f16 two at a time (lop3 each, a prmt, one
// sub.f16x2): 3-9% slower than one at a time in the w8a16 matmul.
static bool smallIntToFloatApplies(Scalar from, Scalar to) {
  return (from == Scalar::I8 && (to == Scalar::F32 || to == Scalar::F16 || to == Scalar::BF16)) ||
         (from == Scalar::I16 && to == Scalar::F32);
}

std::string FunctionLowering::smallIntToFloat(Scalar to, const std::string& x, int bits, bool isUnsigned) {
  const uint32_t bias = isUnsigned ? 0 : 1u << (bits - 1);
  auto hex = [](uint32_t v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%08X", v);
    return std::string(buf);
  };
  std::string t = newReg(RegClass::B32);
  if (to == Scalar::F16 && bits == 8) {
    const uint32_t magic = 0x6400 + bias;  // f16 1024 + u, u < 256
    std::string h = newReg(RegClass::B16), c = newReg(RegClass::B16), r = newReg(RegClass::B16);
    emit("add.s32 " + t + ", " + x + ", " + std::to_string(magic) + ";");
    emit("cvt.u16.u32 " + h + ", " + t + ";");
    emit("mov.b16 " + c + ", 0x" + hex(magic).substr(4) + ";");
    emit("sub.f16 " + r + ", " + h + ", " + c + ";");
    return r;
  }
  const uint32_t magic = 0x4B000000u + bias;  // f32 2^23 + u, u < 2^16
  std::string f = newReg(RegClass::F32), r = newReg(RegClass::F32);
  emit("add.s32 " + t + ", " + x + ", " + std::to_string(magic) + ";");
  emit("mov.b32 " + f + ", " + t + ";");
  emit("sub.f32 " + r + ", " + f + ", 0f" + hex(magic) + ";");
  if (to == Scalar::F32) return r;
  // bf16 from 8 bits (smallIntToFloatApplies): exact, f32's top half
  std::string lo = newReg(RegClass::B16), hi = newReg(RegClass::B16);
  emit("mov.b32 {" + lo + ", " + hi + "}, " + r + ";");
  return hi;
}

// Bytes read from shared memory as words (a dequantizing matmul's weight
// tile) go to f16 two at a time straight from their word: its bytes (their
// sign bits flipped, once per word, for signed ones) under 0x64 halves by a
// prmt, then 1024 (+ 128) off both halves by one sub.f16x2. Elements not so
// paired take smallIntToFloat.
std::vector<std::string> FunctionLowering::bytePairsToF16(const ir::Value* v, size_t n, bool isUnsigned) {
  std::vector<std::string> out(n);
  std::map<std::string, std::string> flipped;  // word -> its bytes' sign bits flipped
  std::string magic, bias;
  bool any = false;
  for (size_t e = 0; e + 1 < n; e += 2) {
    auto a = byteOfWord_.find(elem(v, e)), b = byteOfWord_.find(elem(v, e + 1));
    if (a == byteOfWord_.end() || b == byteOfWord_.end() || a->second.first != b->second.first ||
        a->second.second % 2 != 0 || b->second.second != a->second.second + 1)
      continue;
    if (magic.empty()) {
      magic = newReg(RegClass::B32);
      bias = newReg(RegClass::B32);
      emit("mov.b32 " + magic + ", 0x64646464;");
      emit("mov.b32 " + bias + ", " + (isUnsigned ? "0x64006400" : "0x64806480") + ";");
    }
    std::string word = a->second.first;
    if (!isUnsigned) {
      auto [it, fresh] = flipped.emplace(word, "");
      if (fresh) {
        it->second = newReg(RegClass::B32);
        emit("xor.b32 " + it->second + ", " + word + ", 0x80808080;");
      }
      word = it->second;
    }
    const int lo = a->second.second;  // bytes lo, lo + 1 under 0x64 (byte 4: the magic's)
    char sel[8];
    std::snprintf(sel, sizeof sel, "0x4%d4%d", lo + 1, lo);
    std::string p = newReg(RegClass::B32);
    emit("prmt.b32 " + p + ", " + word + ", " + magic + ", " + sel + ";");
    emit("sub.f16x2 " + p + ", " + p + ", " + bias + ";");
    out[e] = newReg(RegClass::B16);
    out[e + 1] = newReg(RegClass::B16);
    emit("mov.b32 {" + out[e] + ", " + out[e + 1] + "}, " + p + ";");
    any = true;
  }
  if (!any) return {};
  for (size_t e = 0; e < n; ++e)
    if (out[e].empty()) {
      std::string x = elem(v, e);
      out[e] = smallIntToFloat(Scalar::F16, isUnsigned ? zeroExtended(*this, Scalar::I8, x) : x, 8, isUnsigned);
    }
  return out;
}

std::string FunctionLowering::fromF32(Scalar k, const std::string& f) {
  std::string h = newReg(RegClass::B16);
  emit(std::string("cvt.rn.") + halfName(k) + ".f32 " + h + ", " + f + ";");
  return h;
}

namespace {
// When every operand is the same in all elements (scalars, splats), so is
// the result: one register.
bool uniformOperands(FunctionLowering& L, const ir::Instruction& i) {
  for (ir::Value* v : i.operands())
    if (L.regs(v).size() != 1) return false;
  return true;
}
}  // namespace

void FunctionLowering::lowerElementwise(const ir::Instruction& i) {
  const ir::Type& t = i.type();
  Opcode op = i.opcode();
  size_t n = uniformOperands(*this, i) ? 1 : numRegs(t);
  std::vector<std::string> out(n);
  Scalar k = op == Opcode::Cmp ? i.operand(0)->type().kind : t.kind;
  bool half = isHalf(k);
  Scalar ck = half ? Scalar::F32 : k;  // the kind computed in
  const char* ty = ptxType(ck);
  bool isF = ir::isFloatKind(ck);
  // Registers that repeat another's value (constant runs) copy its register.
  std::vector<size_t> same = n == 1 ? std::vector<size_t>{0} : equalElements(&i);
  for (size_t e = 0; e < n; ++e) {
    elementTag_ = int(e);
    if (same[e] != e) {
      out[e] = out[same[e]];
      continue;
    }
    auto operand = [&](size_t j) {
      std::string r = elem(i.operand(j), e);
      return half && i.operand(j)->type().kind == k ? toF32(k, r) : r;
    };
    if (op == Opcode::Select) {
      std::string c = elem(i.operand(0), e), a = elem(i.operand(1), e), b = elem(i.operand(2), e);
      std::string r = newReg(regClassOf(t.kind));
      if (t.kind == Scalar::I1) {
        std::string x = newReg(RegClass::Pred), y = newReg(RegClass::Pred), nc = newReg(RegClass::Pred);
        emit("and.pred " + x + ", " + c + ", " + a + ";");
        emit("not.pred " + nc + ", " + c + ";");
        emit("and.pred " + y + ", " + nc + ", " + b + ";");
        emit("or.pred " + r + ", " + x + ", " + y + ";");
      } else {
        const char* st = regClassOf(t.kind) == RegClass::B16 ? "b16" : t.isPtr() ? "u64" : ptxType(t.kind);
        emit(std::string("selp.") + st + " " + r + ", " + a + ", " + b + ", " + c + ";");
      }
      out[e] = r;
      continue;
    }
    if (op == Opcode::Cmp) {
      static const char* const intPred[] = {"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"};
      static const char* const fltPred[] = {"eq", "neu", "lt", "le", "gt", "ge"};
      const bool unsignedPred = ir::isUnsignedPred(ir::CmpPred(i.sub));
      std::string a = operand(0), b = operand(1), r = newReg(RegClass::Pred);
      if (k == Scalar::I1) {
        // Booleans compare as 0/1 integers.
        std::string x = newReg(RegClass::B32), y = newReg(RegClass::B32);
        emit("selp.s32 " + x + ", 1, 0, " + a + ";");
        emit("selp.s32 " + y + ", 1, 0, " + b + ";");
        emit(std::string("setp.") + intPred[i.sub] + (unsignedPred ? ".u32 " : ".s32 ") + r + ", " + x + ", " + y + ";");
      } else {
        const char* pt = isF ? fltPred[i.sub] : intPred[i.sub];
        // Narrow integers are sign-extended, which keeps their unsigned order.
        const char* cty = k == Scalar::Ptr ? "u64" : unsignedPred ? (ck == Scalar::I64 ? "u64" : "u32") : ty;
        emit(std::string("setp.") + pt + "." + cty + " " + r + ", " + a + ", " + b + ";");
      }
      out[e] = r;
      continue;
    }
    // + - * of f16 (and of bf16 from sm_90) in the kind itself, rounded once
    // (.rn: ptxas contracts nothing, as the f32 path rounds each result):
    // f32 holds at least 2p+2 bits of either kind's p, so the f32 result
    // rounded back is that same correctly rounded value. Nothing is widened
    // to f32 (Liger's bf16 RoPE: 62 registers left alone, Triton's PTX of
    // it, which computes in bf16, 32).
    if (half && (op == Opcode::Add || op == Opcode::Sub || op == Opcode::Mul) &&
        (k == Scalar::F16 || opts().smVersion() >= 90)) {
      std::string x = elem(i.operand(0), e), y = elem(i.operand(1), e);
      if (x[0] == '%' && y[0] == '%') {
        std::string h = newReg(regClassOf(k));
        emit(std::string(op == Opcode::Add ? "add" : op == Opcode::Sub ? "sub" : "mul") + ".rn." + halfName(k) + " " + h +
             ", " + x + ", " + y + ";");
        out[e] = h;
        continue;
      }
    }
    std::string r = newReg(regClassOf(ck));
    if (op == Opcode::Fma) {
      // One rounding, in the kind itself: fma.rn.f16 and .bf16 too.
      std::string x = elem(i.operand(0), e), y = elem(i.operand(1), e), z = elem(i.operand(2), e);
      std::string f = half ? newReg(regClassOf(k)) : r;
      emit(std::string("fma.rn.") + (k == Scalar::F16 ? "f16" : k == Scalar::BF16 ? "bf16" : ty) + " " + f + ", " + x +
           ", " + y + ", " + z + ";");
      out[e] = f;
      continue;
    }
    if (ir::opcodeCategory(op) == ir::OpCategory::Unary) {
      std::string a = operand(0);
      if (t.kind == Scalar::I1) {
        if (op != Opcode::Not) throw UserError(i.loc, std::string("'") + ir::opcodeName(op) + "' on booleans");
        std::string p = newReg(RegClass::Pred);
        emit("not.pred " + p + ", " + a + ";");
        out[e] = p;
        continue;
      }
      switch (op) {
        case Opcode::Neg: emit(std::string("neg.") + ty + " " + r + ", " + a + ";"); break;
        case Opcode::Not: emit(std::string("not.b") + (ck == Scalar::I64 ? "64 " : "32 ") + r + ", " + a + ";"); break;
        case Opcode::Abs: emit(std::string("abs.") + ty + " " + r + ", " + a + ";"); break;
        case Opcode::Sqrt: emit(std::string("sqrt.rn.") + ty + " " + r + ", " + a + ";"); break;
        case Opcode::Floor: emit(std::string("cvt.rmi.") + ty + "." + ty + " " + r + ", " + a + ";"); break;
        case Opcode::Ceil: emit(std::string("cvt.rpi.") + ty + "." + ty + " " + r + ", " + a + ";"); break;
        default: {
          if (ck != Scalar::F32)
            throw UserError(i.loc, std::string("'") + ir::opcodeName(op) + "' on " + ir::scalarName(k) +
                                       " is not supported by the GPU back end yet (f32, f16, bf16 only)");
          // Subnormal results flush to zero unless enable_reflect_ftz is
          // off (the non-ftz ex2 costs three more instructions per element).
          const std::string ex2 = opts().reflectFtz ? "ex2.approx.ftz.f32 " : "ex2.approx.f32 ";
          switch (op) {
            case Opcode::Exp: {
              // e^x = 2^(x log2 e), with ex2 as above;
              // e^(a - b), softmax's exp(x - max), is 2^(a log2 e - b log2 e)
              // in one fma (b log2 e is one value across a broadcast row).
              // Rounding b log2 e adds a relative error of about 6e-8 |b|
              // to ex2.approx's (as rounding x log2 e does with |x|), and b
              // beyond 2.3e38 would overflow it (docs/ARCHITECTURE.md).
              std::string s = newReg(RegClass::F32);
              const ir::Value* x = i.operand(0);
              const auto* sub = x->valueKind() == ir::ValueKind::Instruction
                                    ? static_cast<const ir::Instruction*>(x) : nullptr;
              if (sub && sub->opcode() == Opcode::Mul && !half && sub->type().kind == Scalar::F32 &&
                  isLn2(sub->operand(1))) {
                // e^(y ln 2) is 2^y, one ex2 (written so by hand; the
                // DSL's tl.exp2 is the exp2 op).
                s = elem(sub->operand(0), e);
              } else if (sub && sub->opcode() == Opcode::Sub && !half && sub->type().kind == Scalar::F32) {
                std::string nb = newReg(RegClass::F32);
                emit("mul.f32 " + nb + ", " + elem(sub->operand(1), e) + ", 0fBFB8AA3B;");
                emit("fma.rn.f32 " + s + ", " + elem(sub->operand(0), e) + ", 0f3FB8AA3B, " + nb + ";");
              } else {
                emit("mul.f32 " + s + ", " + a + ", 0f3FB8AA3B;");
              }
              emit(ex2 + r + ", " + s + ";");
              break;
            }
            case Opcode::Exp2: emit(ex2 + r + ", " + a + ";"); break;
            case Opcode::Log2: emit("lg2.approx.f32 " + r + ", " + a + ";"); break;
            case Opcode::Log: {  // ln x = log2(x) ln 2
              std::string s = newReg(RegClass::F32);
              emit("lg2.approx.f32 " + s + ", " + a + ";");
              emit("mul.f32 " + r + ", " + s + ", 0f3F317218;");
              break;
            }
            case Opcode::Rsqrt: emit("rsqrt.approx.f32 " + r + ", " + a + ";"); break;
            case Opcode::Sin: emit("sin.approx.f32 " + r + ", " + a + ";"); break;
            case Opcode::Cos: emit("cos.approx.f32 " + r + ", " + a + ";"); break;
            case Opcode::Tanh: emit("tanh.approx.f32 " + r + ", " + a + ";"); break;
            default: throw InternalError("unary op");
          }
        }
      }
      wrapNarrow(*this, t.kind, r);
      out[e] = half ? fromF32(k, r) : r;
      continue;
    }
    std::string a = operand(0), b = operand(1);
    if (t.kind == Scalar::I1) {
      const char* pop = op == Opcode::And ? "and" : op == Opcode::Or ? "or" : op == Opcode::Xor ? "xor" : nullptr;
      std::string p = newReg(RegClass::Pred);
      if (pop) {
        emit(std::string(pop) + ".pred " + p + ", " + a + ", " + b + ";");
      } else {
        throw UserError(i.loc, std::string("'") + ir::opcodeName(op) + "' on booleans is not supported by the GPU back end");
      }
      out[e] = p;
      continue;
    }
    std::string bits = ck == Scalar::I64 ? "64" : "32";
    // A shift's amount as PTX takes it, a u32: an i64 amount clamped to 64
    // first (its high bits would be dropped); an i8/i16 one zero-extended
    // (a negative amount is a large one).
    auto shiftAmount = [&](const std::string& amount, Scalar kind) {
      if (const ir::Constant* c = constantOf(i.operand(1))) {
        const int w = ir::bitWidth(kind);
        const uint64_t u = w >= 64 ? uint64_t(c->i) : uint64_t(c->i) & ((uint64_t(1) << w) - 1);
        return std::to_string(std::min<uint64_t>(u, uint64_t(w)));
      }
      if (kind == Scalar::I64) {
        std::string wide = newReg(RegClass::B64), s = newReg(RegClass::B32);
        emit("min.u64 " + wide + ", " + amount + ", 64;");
        emit("cvt.u32.u64 " + s + ", " + wide + ";");
        return s;
      }
      return zeroExtended(*this, kind, amount);
    };
    // An integer quotient by zero is -1, a remainder the dividend
    // (docs/IR.md; PTX leaves both undefined): a selp after div/rem where
    // the divisor is not a constant other than zero.
    auto byZero = [&](const std::string& divisor, const std::string& onZero) {
      const ir::Constant* d = divisorConstant(i);
      if (d && d->i != 0) return;
      if (d) {
        emit("mov.b" + bits + " " + r + ", " + onZero + ";");
        return;
      }
      std::string zero = newReg(RegClass::Pred);
      emit("setp.eq.s" + bits + " " + zero + ", " + divisor + ", 0;");
      emit("selp.b" + bits + " " + r + ", " + onZero + ", " + r + ", " + zero + ";");
    };
    // Float add, sub and mul carry no rounding modifier, so that ptxas may
    // contract a mul and an add into one fma (as Triton does by default,
    // enable_fp_fusion): attention's s * scale + bias is one instruction.
    // With enable_fp_fusion off, `.rn` rounds each result (no contraction).
    const std::string rounding = isF && !opts().fpFusion ? "rn." : "";
    switch (op) {
      case Opcode::Add: emit("add." + rounding + ty + " " + r + ", " + a + ", " + b + ";"); break;
      case Opcode::Sub: emit("sub." + rounding + ty + " " + r + ", " + a + ", " + b + ";"); break;
      case Opcode::Mul: emit(std::string("mul") + (isF ? "." + rounding : ".lo.") + ty + " " + r + ", " + a + ", " + b + ";"); break;
      // f32 division is div.full (within 2 ulp, as Triton's `/`); f64 is exact.
      case Opcode::Div:
        if (!isF && divisorConstant(i) && lowerDivideByConstant(false, ck == Scalar::I64 ? 64 : 32, a, divisorConstant(i)->i, r))
          break;
        emit(std::string("div") + (ck == Scalar::F32 ? ".full." : isF ? ".rn." : ".") + ty + " " + r + ", " + a + ", " + b + ";");
        if (!isF) byZero(b, "-1");
        break;
      case Opcode::Rem:
        if (isF) {
          lowerFloatRemainder(ck, a, b, r);
        } else if (!divisorConstant(i) ||
                   !lowerDivideByConstant(true, ck == Scalar::I64 ? 64 : 32, a, divisorConstant(i)->i, r)) {
          emit(std::string("rem.") + ty + " " + r + ", " + a + ", " + b + ";");
          byZero(b, a);
        }
        break;
      case Opcode::And: emit("and.b" + bits + " " + r + ", " + a + ", " + b + ";"); break;
      case Opcode::Or: emit("or.b" + bits + " " + r + ", " + a + ", " + b + ";"); break;
      case Opcode::Xor: emit("xor.b" + bits + " " + r + ", " + a + ", " + b + ";"); break;
      case Opcode::Shl:
      case Opcode::Shr:
        // PTX clamps the amount (unsigned) to the register's width: of the
        // width or more, 0 or the sign, as the interpreter (scalar_ops.h);
        // narrow kinds live sign-extended in 32 bits, which gives the same.
        emit(std::string(op == Opcode::Shl ? "shl.b" : "shr.s") + bits + " " + r + ", " + a + ", " +
             shiftAmount(b, ck) + ";");
        break;
      case Opcode::Max: case Opcode::Min: {
        const char* m = op == Opcode::Max ? "max" : "min";
        emit(std::string(m) + (ck == Scalar::F32 ? ".NaN." : ".") + ty + " " + r + ", " + a + ", " + b + ";");
        if (ck == Scalar::F64) {  // f64 has no .NaN form: a NaN operand wins by hand
          std::string nan = newReg(RegClass::Pred);
          emit("setp.nan.f64 " + nan + ", " + a + ", " + b + ";");
          emit("@" + nan + " mov.f64 " + r + ", 0d7FF8000000000000;");
        }
        break;
      }
      // PTX's max/min without .NaN return the operand that is not NaN.
      case Opcode::MaxNum: emit(std::string("max.") + ty + " " + r + ", " + a + ", " + b + ";"); break;
      case Opcode::MinNum: emit(std::string("min.") + ty + " " + r + ", " + a + ", " + b + ";"); break;
      case Opcode::UMax: emit("max.u" + bits + " " + r + ", " + a + ", " + b + ";"); break;
      case Opcode::UMin: emit("min.u" + bits + " " + r + ", " + a + ", " + b + ";"); break;
      case Opcode::UShr:
        emit("shr.u" + bits + " " + r + ", " + zeroExtended(*this, t.kind, a) + ", " + shiftAmount(b, ck) + ";");
        break;
      case Opcode::UDiv:
      case Opcode::URem: {
        // By a power of two: a shift or a mask (ptxas expands div.u by an
        // immediate into the generic sequence); otherwise div.u / rem.u.
        std::string x = zeroExtended(*this, t.kind, a);
        const ir::Constant* d = divisorConstant(i);
        const int log2 = d ? unsignedLog2(t.kind, d->i) : -1;
        if (log2 >= 0 && op == Opcode::UDiv) {
          emit("shr.u" + bits + " " + r + ", " + x + ", " + std::to_string(log2) + ";");
        } else if (log2 >= 0) {
          const uint64_t mask = log2 >= 64 ? ~uint64_t(0) : (uint64_t(1) << log2) - 1;
          emit("and.b" + bits + " " + r + ", " + x + ", " + std::to_string(mask) + ";");
        } else {
          const std::string y = zeroExtended(*this, t.kind, b);
          emit(std::string(op == Opcode::UDiv ? "div.u" : "rem.u") + bits + " " + r + ", " + x + ", " + y + ";");
          byZero(y, op == Opcode::UDiv ? "-1" : x);
        }
        break;
      }
      default: throw InternalError(std::string("binary op ") + ir::opcodeName(op));
    }
    wrapNarrow(*this, t.kind, r);
    out[e] = half ? fromF32(k, r) : r;
  }
  define(&i, std::move(out));
}

void FunctionLowering::lowerCast(const ir::Instruction& i) {
  Scalar from = i.operand(0)->type().kind, to = i.type().kind;
  if (i.opcode() == Opcode::Bitcast) return lowerBitcast(i);
  // A ucast to or from a boolean, or narrowing, converts as cast.
  const bool castAlike = to == Scalar::I1 || from == Scalar::I1 || from == to ||
                         (ir::isIntKind(from) && ir::isIntKind(to) && ir::bitWidth(to) < ir::bitWidth(from));
  if (i.opcode() == Opcode::UCast && !castAlike) return lowerUnsignedCast(i);
  size_t n = uniformOperands(*this, i) ? 1 : numRegs(i.type());
  std::vector<std::string> out(n);
  if (from == Scalar::I8 && to == Scalar::F16 && opts().smallIntArithmetic) {
    out = bytePairsToF16(i.operand(0), n, false);
    if (!out.empty()) return define(&i, std::move(out));
    out.assign(n, "");
  }
  for (size_t e = 0; e < n; ++e) {
    elementTag_ = int(e);
    std::string a = elem(i.operand(0), e);
    std::string r = newReg(regClassOf(to));
    bool fromF = ir::isFloatKind(from), toF = ir::isFloatKind(to);
    if (ir::isFp8Kind(from) || ir::isFp8Kind(to)) {
      r = castFp8(from, to, a);  // between floats only (the verifier's rule)
    } else if (from == Scalar::Ptr || to == Scalar::Ptr) {
      emit("mov.b64 " + r + ", " + a + ";");
    } else if (to == Scalar::I1) {
      if (from == Scalar::I1) r = a;
      else if (fromF) emit(std::string("setp.neu.") + (from == Scalar::F64 ? "f64 " : "f32 ") + r + ", " + (isHalf(from) ? toF32(from, a) : a) + ", 0" + (from == Scalar::F64 ? "d0000000000000000;" : "f00000000;"));
      else emit(std::string("setp.ne.") + ptxType(from) + " " + r + ", " + a + ", 0;");
    } else if (from == Scalar::I1) {
      if (toF) {
        std::string f = newReg(RegClass::F32);
        emit("selp.f32 " + f + ", 0f3F800000, 0f00000000, " + a + ";");
        if (to == Scalar::F64) emit("cvt.f64.f32 " + r + ", " + f + ";");
        else r = isHalf(to) ? fromF32(to, f) : f;
      } else {
        emit(std::string("selp.") + ptxType(to) + " " + r + ", 1, 0, " + a + ";");
      }
    } else if (fromF && toF) {
      std::string x = isHalf(from) ? toF32(from, a) : a;
      Scalar xf = isHalf(from) ? Scalar::F32 : from;
      if (isHalf(to)) {
        if (xf == Scalar::F64 && to == Scalar::BF16 && opts().arch.rfind("sm_9", 0) != 0) {
          r = fromF32(to, f32RoundedToOdd(x, "f64"));  // (cvt.rn.bf16.f64 is sm_90's)
        } else if (xf == Scalar::F64) {
          emit(std::string("cvt.rn.") + (to == Scalar::F16 ? "f16" : "bf16") + ".f64 " + r + ", " + x + ";");
        } else {
          r = fromF32(to, x);
        }
      } else if (xf == to) {
        r = x;
      } else {
        emit(std::string("cvt") + (to == Scalar::F32 ? ".rn" : "") + "." + ptxType(to) + "." + ptxType(xf) + " " + r + ", " + x + ";");
      }
    } else if (fromF) {
      // Float to int: truncate toward zero; PTX saturates and maps NaN to 0.
      std::string x = isHalf(from) ? toF32(from, a) : a;
      Scalar xf = isHalf(from) ? Scalar::F32 : from;
      const char* it = to == Scalar::I64 ? "s64" : to == Scalar::I32 ? "s32" : to == Scalar::I16 ? "s16" : "s8";
      if (to == Scalar::I8 || to == Scalar::I16) {
        std::string w = newReg(RegClass::B32);
        emit(std::string("cvt.rzi.sat.") + it + "." + ptxType(xf) + " " + w + ", " + x + ";");
        emit(std::string("cvt.s32.") + it + " " + r + ", " + w + ";");
      } else {
        emit(std::string("cvt.rzi.") + it + "." + ptxType(xf) + " " + r + ", " + x + ";");
      }
      if (to == Scalar::I64 || xf == Scalar::F64) zeroWhereNaN(*this, xf, x, to, r);
    } else if (toF) {
      const char* it = from == Scalar::I64 ? "s64" : "s32";
      if (smallIntToFloatApplies(from, to) && opts().smallIntArithmetic) {
        r = smallIntToFloat(to, a, int(ir::bitWidth(from)), false);
      } else if (isHalf(to)) {
        r = intToHalf(to, a, it);
      } else {
        emit(std::string("cvt.rn.") + ptxType(to) + "." + it + " " + r + ", " + a + ";");
      }
    } else {
      // Integer to integer: truncate or sign-extend.
      if (to == Scalar::I64 && from != Scalar::I64) emit("cvt.s64.s32 " + r + ", " + a + ";");
      else if (from == Scalar::I64 && to != Scalar::I64) {
        emit("cvt.u32.u64 " + r + ", " + a + ";");
        wrapNarrow(*this, to, r);
      } else {
        emit("mov.b32 " + r + ", " + a + ";");
        wrapNarrow(*this, to, r);
      }
    }
    out[e] = r;
  }
  define(&i, std::move(out));
}

// ucast: as cast with the integer side unsigned: integers zero-extend,
// unsigned integers convert to floats, floats saturate to [0, 2^n - 1]
// (PTX's cvt.rzi.uN clamps and maps NaN to 0). Booleans and narrowing are
// cast's (lowerCast sends only the other conversions here).
void FunctionLowering::lowerUnsignedCast(const ir::Instruction& i) {
  Scalar from = i.operand(0)->type().kind, to = i.type().kind;
  size_t n = uniformOperands(*this, i) ? 1 : numRegs(i.type());
  std::vector<std::string> out(n);
  if (from == Scalar::I8 && to == Scalar::F16 && opts().smallIntArithmetic) {
    out = bytePairsToF16(i.operand(0), n, true);
    if (!out.empty()) return define(&i, std::move(out));
    out.assign(n, "");
  }
  for (size_t e = 0; e < n; ++e) {
    elementTag_ = int(e);
    std::string a = elem(i.operand(0), e);
    std::string r = newReg(regClassOf(to));
    if (ir::isFloatKind(from)) {
      std::string x = isHalf(from) ? toF32(from, a) : a;
      Scalar xf = isHalf(from) ? Scalar::F32 : from;
      const char* it = to == Scalar::I64 ? "u64" : to == Scalar::I32 ? "u32" : to == Scalar::I16 ? "u16" : "u8";
      if (to == Scalar::I8 || to == Scalar::I16) {
        emit(std::string("cvt.rzi.sat.") + it + "." + ptxType(xf) + " " + r + ", " + x + ";");
        wrapNarrow(*this, to, r);
      } else {
        emit(std::string("cvt.rzi.") + it + "." + ptxType(xf) + " " + r + ", " + x + ";");
      }
      if (to == Scalar::I64 || xf == Scalar::F64) zeroWhereNaN(*this, xf, x, to, r);
    } else if (ir::isFloatKind(to)) {
      std::string x = zeroExtended(*this, from, a);
      const char* it = from == Scalar::I64 ? "u64" : "u32";
      if (smallIntToFloatApplies(from, to) && opts().smallIntArithmetic) {
        r = smallIntToFloat(to, x, int(ir::bitWidth(from)), true);
      } else if (isHalf(to)) {
        r = intToHalf(to, x, it);
      } else {
        emit(std::string("cvt.rn.") + ptxType(to) + "." + it + " " + r + ", " + x + ";");
      }
    } else if (to == Scalar::I64) {
      emit("cvt.u64.u32 " + r + ", " + zeroExtended(*this, from, a) + ";");
    } else {  // widening within 32-bit registers
      emit("mov.b32 " + r + ", " + zeroExtended(*this, from, a) + ";");
    }
    out[e] = r;
  }
  define(&i, std::move(out));
}

// bitcast: the same bits in another register class. Narrow integers live
// sign-extended in 32-bit registers, f16/bf16 in 16-bit ones.
void FunctionLowering::lowerBitcast(const ir::Instruction& i) {
  Scalar from = i.operand(0)->type().kind, to = i.type().kind;
  size_t n = uniformOperands(*this, i) ? 1 : numRegs(i.type());
  std::vector<std::string> out(n);
  for (size_t e = 0; e < n; ++e) {
    elementTag_ = int(e);
    std::string a = elem(i.operand(0), e);
    if (from == to) {
      out[e] = a;
      continue;
    }
    std::string r = newReg(regClassOf(to));
    const int w = ir::bitWidth(from);
    if (w == 8 && to == Scalar::I8) {
      emit("cvt.s32.s8 " + r + ", " + a + ";");  // fp8 bits, sign-extended as an i8
    } else if (w == 8) {
      emit("and.b32 " + r + ", " + a + ", 255;");  // the byte of an i8 or another fp8
    } else if (w == 16 && to == Scalar::I16) {
      emit("cvt.s32.s16 " + r + ", " + a + ";");  // f16/bf16 bits, sign-extended
    } else if (w == 16 && from == Scalar::I16) {
      emit("cvt.u16.u32 " + r + ", " + a + ";");  // the low half
    } else {
      emit("mov.b" + std::to_string(w) + " " + r + ", " + a + ";");
    }
    out[e] = r;
  }
  define(&i, std::move(out));
}

}  // namespace tritonc::nvptx
