// exp of f32 elements in f32 arithmetic, for the default (not exact) math
// of the CPU back end: within 2 units in the last place of the correctly
// rounded result (cpu_exp_test DefaultMathWithinTwoUlps), where the exact math
// (exact_exp.cpp) gives the interpreter's bits at several times the cost.
//
// exp(x) = 2^n e^r with n = round(x log2 e) and r = x - n ln 2, ln 2 in two
// parts so that n ln2_hi is exact; e^r on |r| <= ln2 / 2 by the degree-7
// minimax form 1 + r + r^2 (p5 + r (p4 + ...)) (the coefficients are
// Cephes's expf fit, public domain); 2^n as two powers of two, so that n
// from -150 to 128 scales through the subnormals and overflows to infinity.
// x is clamped to [-104, 89] first (exp(-inf) is 0, exp(+inf) infinity) and
// NaN passes through. Written element-wise: the loop vectorizer makes it
// vector code, with no calls.
#include <llvm/IR/Intrinsics.h>

#include "target/cpu/lowering.h"

namespace tritonc::cpu::detail {

namespace {

llvm::Value* call(llvm::IRBuilder<>& b, llvm::Intrinsic::ID id, llvm::ArrayRef<llvm::Value*> args) {
  llvm::Function* f = llvm::Intrinsic::getDeclaration(b.GetInsertBlock()->getModule(), id, {args[0]->getType()});
  return b.CreateCall(f, args);
}

}  // namespace

llvm::Value* Lowering::expF32Fast(llvm::Value* x) {
  llvm::Type* f32 = b_.getFloatTy();
  llvm::Type* i32 = b_.getInt32Ty();
  auto c = [&](float v) { return llvm::ConstantFP::get(f32, double(v)); };
  auto fma = [&](llvm::Value* a, llvm::Value* m, llvm::Value* s) { return call(b_, llvm::Intrinsic::fmuladd, {a, m, s}); };
  llvm::Value* lowClamped = b_.CreateSelect(b_.CreateFCmpOLT(x, c(-104.0f)), c(-104.0f), x);
  llvm::Value* xc = b_.CreateSelect(b_.CreateFCmpOGT(lowClamped, c(89.0f)), c(89.0f), lowClamped);
  llvm::Value* n = call(b_, llvm::Intrinsic::roundeven, {b_.CreateFMul(xc, c(1.44269504088896341f))});
  llvm::Value* r = fma(n, c(-0.693359375f), xc);
  r = fma(n, c(2.12194440e-4f), r);
  llvm::Value* p = c(1.9875691500e-4f);
  for (float k : {1.3981999507e-3f, 8.3334519073e-3f, 4.1665795894e-2f, 1.6666665459e-1f, 5.0000001201e-1f})
    p = fma(p, r, c(k));
  llvm::Value* e = b_.CreateFAdd(fma(p, b_.CreateFMul(r, r), r), c(1.0f));
  // 2^n = 2^n1 2^n2, each a normal float's exponent field.
  llvm::Value* ni = b_.CreateFPToSI(n, i32);
  llvm::Value* n1 = b_.CreateAShr(ni, 1);
  llvm::Value* n2 = b_.CreateSub(ni, n1);
  auto pow2 = [&](llvm::Value* k) {
    return b_.CreateBitCast(b_.CreateShl(b_.CreateAdd(k, b_.getInt32(127)), 23), f32);
  };
  llvm::Value* y = b_.CreateFMul(b_.CreateFMul(e, pow2(n1)), pow2(n2));
  return b_.CreateSelect(b_.CreateFCmpUNO(x, x), x, y);
}

}  // namespace tritonc::cpu::detail
