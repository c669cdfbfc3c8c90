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
//
// With AVX-512 the multiply by 2^n is one instruction, vscalefps (which
// also gives subnormal and infinite results rightly), that the loop
// vectorizer cannot produce from element-wise code: each element then calls
// an internal function carrying a 16-lane variant written with it
// ("vector-function-abi-variant"), which the vectorizer calls per 16 lanes;
// both are inlined after vectorization (optimizeModule's kInlineAfterVectorizing).
// 15 instructions per 16 lanes instead of 29; the results are the same.
// exp2 (2^x) is the same with n = round(x) and r = (x - n) ln 2 (x - n is
// exact; one rounding of r, |r| <= ln2 / 2), x clamped to [-150, 128].
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsX86.h>
#include <llvm/Transforms/Utils/ModuleUtils.h>

#include "target/cpu/jit.h"
#include "target/cpu/lowering.h"

namespace tritonc::cpu::detail {

namespace {

// The scalar functions and their 16-lane variants, of exp and of exp2.
constexpr const char* kScalarFastExp[2] = {"tritonc_cpu_fast_exp_f32", "tritonc_cpu_fast_exp2_f32"};
constexpr const char* kFastExpVariant[2] = {"tritonc_cpu_fast_exp_f32_v16", "tritonc_cpu_fast_exp2_f32_v16"};

llvm::Value* call(llvm::IRBuilder<>& b, llvm::Intrinsic::ID id, llvm::ArrayRef<llvm::Value*> args) {
  llvm::Function* f = llvm::Intrinsic::getDeclaration(b.GetInsertBlock()->getModule(), id, {args[0]->getType()});
  return b.CreateCall(f, args);
}

// exp (or exp2, `base2`) of `x` (f32 or a vector of f32) as the file
// comment says; 2^n by vscalefps when `scalef` (x a vector of 16), else by
// exponent fields.
llvm::Value* fastExp(llvm::IRBuilder<>& b, llvm::Value* x, bool scalef, bool base2) {
  llvm::Type* ft = x->getType();
  auto c = [&](float v) { return llvm::ConstantFP::get(ft, double(v)); };
  auto fma = [&](llvm::Value* a, llvm::Value* m, llvm::Value* s) { return call(b, llvm::Intrinsic::fmuladd, {a, m, s}); };
  const float lo = base2 ? -150.0f : -104.0f, hi = base2 ? 128.0f : 89.0f;
  llvm::Value* lowClamped = b.CreateSelect(b.CreateFCmpOLT(x, c(lo)), c(lo), x);
  llvm::Value* xc = b.CreateSelect(b.CreateFCmpOGT(lowClamped, c(hi)), c(hi), lowClamped);
  llvm::Value* n;
  llvm::Value* r;
  if (base2) {
    n = call(b, llvm::Intrinsic::roundeven, {xc});
    r = b.CreateFMul(b.CreateFSub(xc, n), c(0.693147180559945309f));
  } else {
    n = call(b, llvm::Intrinsic::roundeven, {b.CreateFMul(xc, c(1.44269504088896341f))});
    r = fma(n, c(-0.693359375f), xc);
    r = fma(n, c(2.12194440e-4f), r);
  }
  llvm::Value* p = c(1.9875691500e-4f);
  for (float k : {1.3981999507e-3f, 8.3334519073e-3f, 4.1665795894e-2f, 1.6666665459e-1f, 5.0000001201e-1f})
    p = fma(p, r, c(k));
  llvm::Value* e = b.CreateFAdd(fma(p, b.CreateFMul(r, r), r), c(1.0f));
  if (scalef) {  // e 2^n, NaN passing through (the clamps keep it)
    llvm::Function* f = llvm::Intrinsic::getDeclaration(b.GetInsertBlock()->getModule(),
                                                        llvm::Intrinsic::x86_avx512_mask_scalef_ps_512);
    return b.CreateCall(f, {e, n, llvm::UndefValue::get(ft), b.getInt16(0xFFFF), b.getInt32(4)});
  }
  // 2^n = 2^n1 2^n2, each a normal float's exponent field.
  llvm::Type* it = ft->getWithNewType(b.getInt32Ty());
  auto k = [&](int v) { return llvm::ConstantInt::get(it, uint64_t(int64_t(v))); };
  llvm::Value* ni = b.CreateFPToSI(n, it);
  llvm::Value* n1 = b.CreateAShr(ni, k(1));
  llvm::Value* n2 = b.CreateSub(ni, n1);
  auto pow2 = [&](llvm::Value* m) { return b.CreateBitCast(b.CreateShl(b.CreateAdd(m, k(127)), k(23)), ft); };
  llvm::Value* y = b.CreateFMul(b.CreateFMul(e, pow2(n1)), pow2(n2));
  return b.CreateSelect(b.CreateFCmpUNO(x, x), x, y);
}

llvm::Function* defineFunction(llvm::Module& m, const char* name, llvm::Type* t, bool scalef, bool base2) {
  auto* fn = llvm::Function::Create(llvm::FunctionType::get(t, {t}, false), llvm::Function::InternalLinkage, name, m);
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  fn->addFnAttr(llvm::Attribute::WillReturn);
  fn->addFnAttr(llvm::Attribute::NoInline);  // until the vectorizer has seen its calls
  fn->addFnAttr(kInlineAfterVectorizing);
  fn->setDoesNotAccessMemory();
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(m.getContext(), "entry", fn));
  b.CreateRet(fastExp(b, fn->getArg(0), scalef, base2));
  return fn;
}

}  // namespace

llvm::Value* Lowering::expF32Fast(llvm::Value* x, bool base2) {
  if (vectorBits_ < 512) return fastExp(b_, x, false, base2);
  const char* name = kScalarFastExp[base2];
  const char* vectorName = kFastExpVariant[base2];
  llvm::Function* scalar = mod_.getFunction(name);
  if (!scalar) {
    llvm::Type* f32 = b_.getFloatTy();
    scalar = defineFunction(mod_, name, f32, false, base2);
    llvm::Function* variant = defineFunction(mod_, vectorName, llvm::FixedVectorType::get(f32, 16), true, base2);
    scalar->addFnAttr("vector-function-abi-variant", std::string("_ZGV_LLVM_N16v_") + name + "(" + vectorName + ")");
    llvm::appendToCompilerUsed(mod_, {variant});  // unused until the vectorizer calls it
  }
  return b_.CreateCall(scalar, {x});
}

}  // namespace tritonc::cpu::detail
