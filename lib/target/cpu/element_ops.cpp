// The element semantics of Triton-IR in LLVM IR: the interpreter's
// scalar_ops.h and elementwise_exec.cpp, one element at a time. Every
// function here works on SSA values (scalars, or one element inside a loop).
//
// Rounding: the interpreter computes in double and rounds once to the
// result's kind. For + - * / sqrt of f32 operands the f32 instruction gives
// the same result; for f16/bf16 the f32 result rounded to 16 bits does too
// (f32 has more than twice their precision plus two bits, so the double
// rounding is innocuous). Transcendental functions are computed in double
// by libm, like the interpreter, and a double is narrowed to f16/bf16 with
// one correct rounding through round-to-odd f32 (see roundF64).
#include <llvm/IR/Intrinsics.h>

#include "target/cpu/lowering.h"
#include "target/interp/scalar_ops.h"

namespace tritonc::cpu::detail {

using ir::Scalar;

llvm::Type* Lowering::valueType(Scalar k) {
  switch (k) {
    case Scalar::I1: return b_.getInt1Ty();
    case Scalar::I8: return b_.getInt8Ty();
    case Scalar::I16: return b_.getInt16Ty();
    case Scalar::I32: return b_.getInt32Ty();
    case Scalar::I64: return b_.getInt64Ty();
    case Scalar::F16: return b_.getHalfTy();
    case Scalar::BF16: return b_.getInt16Ty();  // its bits: conversions are ours (see bf16FromF32)
    case Scalar::F32: return b_.getFloatTy();
    case Scalar::F64: return b_.getDoubleTy();
    case Scalar::Ptr: return b_.getPtrTy();
    case Scalar::F8E4M3: case Scalar::F8E5M2: return b_.getInt8Ty();  // its bits: see fp8ToF64
    case Scalar::Void: break;
  }
  throw InternalError("no LLVM type for void");
}

llvm::Type* Lowering::storageType(Scalar k) { return k == Scalar::I1 ? b_.getInt8Ty() : valueType(k); }

llvm::Type* Lowering::computeType(Scalar k) {
  return k == Scalar::F16 || k == Scalar::BF16 || ir::isFp8Kind(k) ? b_.getFloatTy() : valueType(k);
}

llvm::Value* Lowering::constant(const ir::Constant& c) {
  const Scalar k = c.type().kind;
  if (ir::isFloatKind(k)) {
    const double v = interp::detail::roundTo(k, c.f);  // as the interpreter holds it
    if (k == Scalar::F16) return llvm::ConstantFP::get(b_.getHalfTy(), llvm::APFloat(llvm::APFloat::IEEEhalf(), llvm::APInt(16, doubleToHalf(v))));
    if (k == Scalar::BF16) return b_.getInt16(doubleToBf16(v));
    if (k == Scalar::F8E4M3) return b_.getInt8(doubleToE4m3(v));
    if (k == Scalar::F8E5M2) return b_.getInt8(doubleToE5m2(v));
    return llvm::ConstantFP::get(valueType(k), v);
  }
  if (k == Scalar::Ptr) return llvm::ConstantExpr::getIntToPtr(b_.getInt64(uint64_t(c.i)), b_.getPtrTy());
  return llvm::ConstantInt::get(valueType(k), uint64_t(ir::wrapInt(k, c.i)), /*isSigned=*/true);
}

llvm::Value* Lowering::zero(Scalar k) { return llvm::Constant::getNullValue(valueType(k)); }

namespace {

// f32 -> bf16 bits, round to nearest even; a NaN stays a quiet NaN with its
// sign and top payload bits (as support/float16.cpp).
llvm::Value* bf16FromF32(llvm::IRBuilder<>& b, llvm::Value* f) {
  llvm::Value* u = b.CreateBitCast(f, b.getInt32Ty());
  llvm::Value* lsb = b.CreateAnd(b.CreateLShr(u, 16), 1);
  llvm::Value* rounded = b.CreateLShr(b.CreateAdd(b.CreateAdd(u, b.getInt32(0x7fff)), lsb), 16);
  llvm::Value* isNan = b.CreateICmpUGT(b.CreateAnd(u, 0x7fffffff), b.getInt32(0x7f800000));
  llvm::Value* quiet = b.CreateOr(b.CreateLShr(u, 16), 0x40);
  return b.CreateTrunc(b.CreateSelect(isNan, quiet, rounded), b.getInt16Ty());
}

// double -> float rounded to odd: truncate toward zero, and set the last bit
// when inexact. Rounding that to any format with at most 22 fraction bits
// (f16, bf16) equals rounding the double directly.
llvm::Value* roundToOddF32(llvm::IRBuilder<>& b, llvm::Value* d) {
  llvm::Value* t = b.CreateFPTrunc(d, b.getFloatTy());
  llvm::Value* back = b.CreateFPExt(t, b.getDoubleTy());
  llvm::Value* keep = b.CreateOr(b.CreateFCmpOEQ(back, d), b.CreateFCmpUNO(d, d));
  llvm::Function* fabs = llvm::Intrinsic::getDeclaration(b.GetInsertBlock()->getModule(), llvm::Intrinsic::fabs,
                                                         {b.getDoubleTy()});
  llvm::Value* over = b.CreateFCmpOGT(b.CreateCall(fabs, {back}), b.CreateCall(fabs, {d}));
  llvm::Value* bits = b.CreateBitCast(t, b.getInt32Ty());
  bits = b.CreateSelect(over, b.CreateSub(bits, b.getInt32(1)), bits);  // one step toward zero
  llvm::Value* odd = b.CreateBitCast(b.CreateOr(bits, 1), b.getFloatTy());
  return b.CreateSelect(keep, t, odd);
}

llvm::Value* callIntrinsic(llvm::IRBuilder<>& b, llvm::Intrinsic::ID id, llvm::ArrayRef<llvm::Value*> args,
                           llvm::ArrayRef<llvm::Type*> types) {
  llvm::Function* f = llvm::Intrinsic::getDeclaration(b.GetInsertBlock()->getModule(), id, types);
  return b.CreateCall(f, args);
}

}  // namespace

// fp8 bits <-> f64 through the runtime's helpers (support/float8.h): fp8 is
// converted at casts only (the verifier keeps arithmetic off it), so a call
// costs little and keeps one definition of the rounding.
llvm::Value* Lowering::fp8ToF64(Scalar k, llvm::Value* bits) {
  const char* name = k == Scalar::F8E4M3 ? "tritonc_cpu_e4m3_to_f64" : "tritonc_cpu_e5m2_to_f64";
  return b_.CreateCall(helper(name, llvm::FunctionType::get(b_.getDoubleTy(), {b_.getInt8Ty()}, false)), {bits});
}

llvm::Value* Lowering::f64ToFp8(Scalar k, llvm::Value* d) {
  const char* name = k == Scalar::F8E4M3 ? "tritonc_cpu_f64_to_e4m3" : "tritonc_cpu_f64_to_e5m2";
  return b_.CreateCall(helper(name, llvm::FunctionType::get(b_.getInt8Ty(), {b_.getDoubleTy()}, false)), {d});
}

llvm::Value* Lowering::toCompute(Scalar k, llvm::Value* v) {
  if (ir::isFp8Kind(k)) return b_.CreateFPTrunc(fp8ToF64(k, v), b_.getFloatTy());  // exact
  if (k == Scalar::F16) return b_.CreateFPExt(v, b_.getFloatTy());
  if (k == Scalar::BF16) return b_.CreateBitCast(b_.CreateShl(b_.CreateZExt(v, b_.getInt32Ty()), 16), b_.getFloatTy());
  return v;
}

llvm::Value* Lowering::fromCompute(Scalar k, llvm::Value* v) {
  if (ir::isFp8Kind(k)) return f64ToFp8(k, b_.CreateFPExt(v, b_.getDoubleTy()));
  if (k == Scalar::F16) return b_.CreateFPTrunc(v, b_.getHalfTy());
  if (k == Scalar::BF16) return bf16FromF32(b_, v);
  return v;
}

llvm::Value* Lowering::roundF64(Scalar k, llvm::Value* d) {
  switch (k) {
    case Scalar::F64: return d;
    case Scalar::F32: return b_.CreateFPTrunc(d, b_.getFloatTy());
    case Scalar::F16: return b_.CreateFPTrunc(roundToOddF32(b_, d), b_.getHalfTy());
    case Scalar::BF16: return bf16FromF32(b_, roundToOddF32(b_, d));
    case Scalar::F8E4M3: case Scalar::F8E5M2: return f64ToFp8(k, d);
    default: throw InternalError(std::string("roundF64 to ") + ir::scalarName(k));
  }
}

llvm::FunctionCallee Lowering::libm(const char* name, llvm::Type* t) {
  llvm::FunctionCallee f = mod_.getOrInsertFunction(name, llvm::FunctionType::get(t, {t}, false));
  if (auto* fn = llvm::dyn_cast<llvm::Function>(f.getCallee())) {
    fn->setDoesNotThrow();
    fn->setWillReturn();
    fn->setDoesNotAccessMemory();  // errno aside, which nothing here reads
  }
  return f;
}

llvm::FunctionCallee Lowering::helper(const char* name, llvm::FunctionType* t) {
  llvm::FunctionCallee f = mod_.getOrInsertFunction(name, t);
  if (auto* fn = llvm::dyn_cast<llvm::Function>(f.getCallee())) {
    fn->setDoesNotThrow();
    fn->setWillReturn();
    fn->setDoesNotAccessMemory();
  }
  return f;
}

llvm::Value* Lowering::fusedMultiplyAdd(Scalar k, llvm::Value* a, llvm::Value* b, llvm::Value* c) {
  if (k == Scalar::F32 || k == Scalar::F64) return callIntrinsic(b_, llvm::Intrinsic::fma, {a, b, c}, {a->getType()});
  // The narrower floats: in f64, where their product is exact, then rounded once.
  auto wide = [&](llvm::Value* v) {
    return ir::isFp8Kind(k) ? fp8ToF64(k, v) : b_.CreateFPExt(toCompute(k, v), b_.getDoubleTy());
  };
  llvm::Value* d = callIntrinsic(b_, llvm::Intrinsic::fma, {wide(a), wide(b), wide(c)}, {b_.getDoubleTy()});
  return roundF64(k, d);
}

llvm::Value* Lowering::binary(ir::Opcode op, Scalar k, llvm::Value* a, llvm::Value* b) {
  using Op = ir::Opcode;
  if (ir::isFloatKind(k)) {
    llvm::Value* x = toCompute(k, a);
    llvm::Value* y = toCompute(k, b);
    llvm::Value* r = nullptr;
    switch (op) {
      case Op::Add: r = b_.CreateFAdd(x, y); break;
      case Op::Sub: r = b_.CreateFSub(x, y); break;
      case Op::Mul: r = b_.CreateFMul(x, y); break;
      case Op::Div: r = b_.CreateFDiv(x, y); break;
      case Op::Rem: r = b_.CreateFRem(x, y); break;  // fmod: exact
      // IEEE maximum/minimum: NaN propagates, -0 < +0 (scalar_ops.h floatMax). The NaN
      // is selected explicitly: LLVM narrows maximum of widened halves to half's, whose
      // x86 expansion returned a signed zero for (0, NaN).
      case Op::Max: case Op::Min: {
        llvm::Value* m = callIntrinsic(b_, op == Op::Max ? llvm::Intrinsic::maximum : llvm::Intrinsic::minimum,
                                       {x, y}, {x->getType()});
        r = b_.CreateSelect(b_.CreateFCmpUNO(x, y), b_.CreateFAdd(x, y), m);
        break;
      }
      // maxnum/minnum: the other operand where one is NaN, else maximum/minimum (-0 < +0).
      case Op::MaxNum: case Op::MinNum: {
        llvm::Value* m = callIntrinsic(b_, op == Op::MaxNum ? llvm::Intrinsic::maximum : llvm::Intrinsic::minimum, {x, y},
                                       {x->getType()});
        r = b_.CreateSelect(b_.CreateFCmpUNO(x, x), y, b_.CreateSelect(b_.CreateFCmpUNO(y, y), x, m));
        break;
      }
      default: throw InternalError(std::string("no float '") + ir::opcodeName(op) + "'");
    }
    return fromCompute(k, r);
  }
  const bool isBool = k == Scalar::I1;
  const unsigned width = unsigned(ir::bitWidth(k));
  switch (op) {
    case Op::Add: return b_.CreateAdd(a, b);
    case Op::Sub: return b_.CreateSub(a, b);
    case Op::Mul: return b_.CreateMul(a, b);
    case Op::And: return b_.CreateAnd(a, b);
    case Op::Or: return b_.CreateOr(a, b);
    case Op::Xor: return b_.CreateXor(a, b);
    // Amounts of the width or more (read unsigned) shift every bit out: 0, or
    // the sign for shr (scalar_ops.h); i1 holds 0 or 1, so its shr is ushr.
    case Op::Shl: case Op::UShr: case Op::Shr: {
      llvm::Value* amount = b_.CreateAnd(b, llvm::ConstantInt::get(a->getType(), width - 1));
      llvm::Value* allOut = b_.CreateICmpUGE(b, llvm::ConstantInt::get(a->getType(), width));
      if (op == Op::Shr && !isBool)
        return b_.CreateAShr(a, b_.CreateSelect(allOut, llvm::ConstantInt::get(a->getType(), width - 1), amount));
      llvm::Value* shifted = op == Op::Shl ? b_.CreateShl(a, amount) : b_.CreateLShr(a, amount);
      return b_.CreateSelect(allOut, llvm::ConstantInt::get(a->getType(), 0), shifted);
    }
    // i1 holds 0 or 1 in the interpreter: unsigned order.
    case Op::Max: return callIntrinsic(b_, isBool ? llvm::Intrinsic::umax : llvm::Intrinsic::smax, {a, b}, {a->getType()});
    case Op::Min: return callIntrinsic(b_, isBool ? llvm::Intrinsic::umin : llvm::Intrinsic::smin, {a, b}, {a->getType()});
    case Op::UMax: return callIntrinsic(b_, llvm::Intrinsic::umax, {a, b}, {a->getType()});
    case Op::UMin: return callIntrinsic(b_, llvm::Intrinsic::umin, {a, b}, {a->getType()});
    case Op::UDiv:
    case Op::URem: {  // by zero: all ones, or the dividend (docs/IR.md); nothing else traps
      llvm::Value* isZero = b_.CreateICmpEQ(b, llvm::ConstantInt::get(b->getType(), 0));
      llvm::Value* safe = b_.CreateSelect(isZero, llvm::ConstantInt::get(b->getType(), 1), b);
      if (op == Op::UDiv) return b_.CreateSelect(isZero, llvm::Constant::getAllOnesValue(a->getType()), b_.CreateUDiv(a, safe));
      return b_.CreateSelect(isZero, a, b_.CreateURem(a, safe));
    }
    case Op::Div:
    case Op::Rem: {
      // x / 0 is -1 and x % 0 is x (docs/IR.md); x / -1 is negation
      // (wrapping at the minimum) and x % -1 is 0, which the hardware would
      // trap on: neither reaches sdiv.
      llvm::Value* isZero = b_.CreateICmpEQ(b, llvm::ConstantInt::get(b->getType(), 0));
      llvm::Value* isMinusOne = b_.CreateICmpEQ(b, llvm::ConstantInt::getSigned(b->getType(), -1));
      llvm::Value* safe = b_.CreateSelect(b_.CreateOr(isZero, isMinusOne), llvm::ConstantInt::get(b->getType(), 1), b);
      if (op == Op::Div)
        return b_.CreateSelect(isZero, llvm::Constant::getAllOnesValue(a->getType()),
                               b_.CreateSelect(isMinusOne, b_.CreateSub(llvm::ConstantInt::get(a->getType(), 0), a),
                                               b_.CreateSDiv(a, safe)));
      return b_.CreateSelect(isZero, a,
                             b_.CreateSelect(isMinusOne, llvm::ConstantInt::get(a->getType(), 0), b_.CreateSRem(a, safe)));
    }
    default: break;
  }
  throw InternalError(std::string("no integer '") + ir::opcodeName(op) + "'");
}

// x * (1 / (d s)) * s, with s a power of two (1, or 2^-64 / 2^64 where |d|
// is above 2^125 / below 2^-125) so that the reciprocal is a normal number:
// two roundings, within 2 ulp as the GPU's div.full.f32, with zeros,
// infinities and NaN as division gives them. The reciprocal and s depend on
// d only, so LLVM computes them once outside the loop, and each element
// costs two multiplies where a divide costs several times more.
llvm::Value* Lowering::divideByUniform(llvm::Value* x, llvm::Value* d) {
  llvm::Type* f32 = b_.getFloatTy();
  auto c = [&](double v) { return llvm::ConstantFP::get(f32, v); };
  llvm::Value* magnitude = callIntrinsic(b_, llvm::Intrinsic::fabs, {d}, {f32});
  llvm::Value* s = b_.CreateSelect(b_.CreateFCmpOGT(magnitude, c(0x1p125)), c(0x1p-64),
                                   b_.CreateSelect(b_.CreateFCmpOLT(magnitude, c(0x1p-125)), c(0x1p64), c(1.0)));
  llvm::Value* reciprocal = b_.CreateFDiv(c(1.0), b_.CreateFMul(d, s));
  return b_.CreateFMul(b_.CreateFMul(x, reciprocal), s);
}

llvm::Value* Lowering::unary(ir::Opcode op, Scalar k, llvm::Value* a) {
  using Op = ir::Opcode;
  if (!ir::isFloatKind(k)) {
    switch (op) {
      case Op::Neg: return b_.CreateSub(llvm::ConstantInt::get(a->getType(), 0), a);
      case Op::Abs:
        if (k == Scalar::I1) return a;  // 0 or 1
        return callIntrinsic(b_, llvm::Intrinsic::abs, {a, b_.getFalse()}, {a->getType()});  // abs(min) wraps
      case Op::Not: return b_.CreateNot(a);
      default: throw InternalError(std::string("no integer '") + ir::opcodeName(op) + "'");
    }
  }
  llvm::Value* x = toCompute(k, a);
  llvm::Type* ct = x->getType();
  switch (op) {
    case Op::Neg: return fromCompute(k, b_.CreateFNeg(x));
    case Op::Abs: return fromCompute(k, callIntrinsic(b_, llvm::Intrinsic::fabs, {x}, {ct}));
    case Op::Floor: return fromCompute(k, callIntrinsic(b_, llvm::Intrinsic::floor, {x}, {ct}));
    case Op::Ceil: return fromCompute(k, callIntrinsic(b_, llvm::Intrinsic::ceil, {x}, {ct}));
    case Op::Sqrt: return fromCompute(k, callIntrinsic(b_, llvm::Intrinsic::sqrt, {x}, {ct}));
    case Op::Exp:
      if (!exactMath_ && k != Scalar::F64) return fromCompute(k, expF32Fast(x));  // f32 within 2 ulp (fast_exp.cpp)
      if (k == Scalar::F32) return expF32(x);  // the interpreter's result, vectorizable (exact_exp.cpp)
      break;
    case Op::Exp2:
      if (!exactMath_ && k != Scalar::F64) return fromCompute(k, expF32Fast(x, /*base2=*/true));
      break;
    default: break;
  }
  // In double, as the interpreter, then rounded once.
  llvm::Value* d = k == Scalar::F64 ? x : b_.CreateFPExt(x, b_.getDoubleTy());
  llvm::Type* dt = b_.getDoubleTy();
  llvm::Value* r = nullptr;
  switch (op) {
    case Op::Exp: r = b_.CreateCall(libm("exp", dt), {d}); break;
    case Op::Exp2: r = b_.CreateCall(libm("exp2", dt), {d}); break;
    case Op::Log2: r = b_.CreateCall(libm("log2", dt), {d}); break;
    case Op::Log: r = b_.CreateCall(libm("log", dt), {d}); break;
    case Op::Sin: r = b_.CreateCall(libm("sin", dt), {d}); break;
    case Op::Cos: r = b_.CreateCall(libm("cos", dt), {d}); break;
    case Op::Tanh: r = b_.CreateCall(libm("tanh", dt), {d}); break;
    case Op::Rsqrt:
      r = b_.CreateFDiv(llvm::ConstantFP::get(dt, 1.0), callIntrinsic(b_, llvm::Intrinsic::sqrt, {d}, {dt}));
      break;
    default: throw InternalError(std::string("no float '") + ir::opcodeName(op) + "'");
  }
  return roundF64(k, r);
}

llvm::Value* Lowering::compare(ir::CmpPred p, Scalar k, llvm::Value* a, llvm::Value* b) {
  using P = ir::CmpPred;
  if (ir::isFloatKind(k)) {
    llvm::Value* x = toCompute(k, a);
    llvm::Value* y = toCompute(k, b);
    switch (p) {
      case P::Eq: return b_.CreateFCmpOEQ(x, y);
      case P::Ne: return b_.CreateFCmpUNE(x, y);  // true on NaN
      case P::Lt: return b_.CreateFCmpOLT(x, y);
      case P::Le: return b_.CreateFCmpOLE(x, y);
      case P::Gt: return b_.CreateFCmpOGT(x, y);
      case P::Ge: return b_.CreateFCmpOGE(x, y);
      default: throw InternalError("an unsigned comparison of floats");
    }
  }
  const bool u = k == Scalar::I1 || k == Scalar::Ptr;  // i1: 0 < 1
  switch (p) {
    case P::Eq: return b_.CreateICmpEQ(a, b);
    case P::Ne: return b_.CreateICmpNE(a, b);
    case P::Lt: return u ? b_.CreateICmpULT(a, b) : b_.CreateICmpSLT(a, b);
    case P::Le: return u ? b_.CreateICmpULE(a, b) : b_.CreateICmpSLE(a, b);
    case P::Gt: return u ? b_.CreateICmpUGT(a, b) : b_.CreateICmpSGT(a, b);
    case P::Ge: return u ? b_.CreateICmpUGE(a, b) : b_.CreateICmpSGE(a, b);
    case P::Ult: return b_.CreateICmpULT(a, b);
    case P::Ule: return b_.CreateICmpULE(a, b);
    case P::Ugt: return b_.CreateICmpUGT(a, b);
    case P::Uge: return b_.CreateICmpUGE(a, b);
  }
  throw InternalError("bad comparison predicate");
}

llvm::Value* Lowering::convert(Scalar from, Scalar to, llvm::Value* v) {
  if (from == to) return v;
  const bool fromFloat = ir::isFloatKind(from), toFloat = ir::isFloatKind(to);
  if (to == Scalar::I1) {  // `!= 0`; NaN is not 0
    if (fromFloat) return b_.CreateFCmpUNE(toCompute(from, v), llvm::ConstantFP::get(computeType(from), 0.0));
    if (from == Scalar::Ptr) v = b_.CreatePtrToInt(v, b_.getInt64Ty());
    return b_.CreateICmpNE(v, llvm::ConstantInt::get(v->getType(), 0));
  }
  if (fromFloat && toFloat) {
    if (from == Scalar::F64) return roundF64(to, v);
    llvm::Value* x = toCompute(from, v);  // f32, exact
    if (to == Scalar::F64) return b_.CreateFPExt(x, b_.getDoubleTy());
    if (to == Scalar::F32) return x;
    return fromCompute(to, x);
  }
  if (fromFloat) {  // truncate toward zero, saturate, NaN -> 0
    llvm::Value* x = toCompute(from, v);
    return callIntrinsic(b_, llvm::Intrinsic::fptosi_sat, {x}, {valueType(to), x->getType()});
  }
  if (toFloat) {
    const bool u = from == Scalar::I1;
    if (from == Scalar::Ptr) v = b_.CreatePtrToInt(v, b_.getInt64Ty());
    auto toFp = [&](llvm::Type* t) { return u ? b_.CreateUIToFP(v, t) : b_.CreateSIToFP(v, t); };
    switch (to) {
      case Scalar::F64: return toFp(b_.getDoubleTy());
      case Scalar::F32: return toFp(b_.getFloatTy());
      // Below 2^24 the f32 is exact; above, both roundings overflow f16 to inf.
      case Scalar::F16: return b_.CreateFPTrunc(toFp(b_.getFloatTy()), b_.getHalfTy());
      case Scalar::BF16:
        if (ir::bitWidth(from) <= 16) return bf16FromF32(b_, toFp(b_.getFloatTy()));  // exact in f32
        if (from == Scalar::I32) return roundF64(to, toFp(b_.getDoubleTy()));        // exact in f64
        return b_.CreateCall(helper("tritonc_cpu_i64_to_bf16",
                                    llvm::FunctionType::get(b_.getInt16Ty(), {b_.getInt64Ty()}, false)),
                             {v});
      default: break;
    }
  }
  // Integers and pointers: truncate or sign-extend (i1 is 0 or 1: zero-extend).
  if (from == Scalar::Ptr && to == Scalar::Ptr) return v;
  if (from == Scalar::Ptr) v = b_.CreatePtrToInt(v, b_.getInt64Ty()), from = Scalar::I64;
  if (to == Scalar::Ptr) {
    llvm::Value* w = from == Scalar::I1 ? b_.CreateZExt(v, b_.getInt64Ty()) : b_.CreateSExtOrTrunc(v, b_.getInt64Ty());
    return b_.CreateIntToPtr(w, b_.getPtrTy());
  }
  if (from == to) return v;
  if (from == Scalar::I1) return b_.CreateZExt(v, valueType(to));
  return b_.CreateSExtOrTrunc(v, valueType(to));
}

// ucast: the integer side unsigned (scalar_ops.h floatToUnsigned and
// unsignedToFloat; zero-extension between integers).
llvm::Value* Lowering::convertUnsigned(Scalar from, Scalar to, llvm::Value* v) {
  if (from == to) return v;
  const bool fromFloat = ir::isFloatKind(from), toFloat = ir::isFloatKind(to);
  if (to == Scalar::I1) return convert(from, to, v);  // `!= 0` either way
  if (fromFloat) {  // truncate toward zero, saturate to [0, 2^n - 1], NaN -> 0
    llvm::Value* x = toCompute(from, v);
    return callIntrinsic(b_, llvm::Intrinsic::fptoui_sat, {x}, {valueType(to), x->getType()});
  }
  if (toFloat) {
    switch (to) {
      case Scalar::F64: return b_.CreateUIToFP(v, b_.getDoubleTy());
      case Scalar::F32: return b_.CreateUIToFP(v, b_.getFloatTy());
      // Below 2^24 the f32 is exact; above, both roundings overflow f16 to inf.
      case Scalar::F16: return b_.CreateFPTrunc(b_.CreateUIToFP(v, b_.getFloatTy()), b_.getHalfTy());
      case Scalar::BF16:
        if (ir::bitWidth(from) <= 16) return bf16FromF32(b_, b_.CreateUIToFP(v, b_.getFloatTy()));  // exact
        if (from == Scalar::I32) return roundF64(to, b_.CreateUIToFP(v, b_.getDoubleTy()));        // exact
        return b_.CreateCall(helper("tritonc_cpu_u64_to_bf16",
                                    llvm::FunctionType::get(b_.getInt16Ty(), {b_.getInt64Ty()}, false)),
                             {v});
      default: break;
    }
  }
  return b_.CreateZExtOrTrunc(v, valueType(to));
}

// bitcast: the bits of one number as another of the same width (bf16 is
// held as its bits already).
llvm::Value* Lowering::reinterpret(Scalar from, Scalar to, llvm::Value* v) {
  if (from == to) return v;
  llvm::Type* bits = b_.getIntNTy(unsigned(ir::bitWidth(from)));
  llvm::Value* raw = v->getType() == bits ? v : b_.CreateBitCast(v, bits);
  return valueType(to) == bits ? raw : b_.CreateBitCast(raw, valueType(to));
}

}  // namespace tritonc::cpu::detail
