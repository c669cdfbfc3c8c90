// exp of f32 elements that vectorizes and still gives the interpreter's
// results bit for bit: exp computed in double by libm, rounded once to f32.
//
// Each element is a call to the runtime's scalar tritonc_cpu_exp_f32 (that
// very computation), declared with vector variants ("vector-function-abi-
// variant"), so the loop vectorizer calls a variant per W elements. A
// variant computes exp in double vectors: n = round(x log2 e),
// r = x - n ln 2 (ln 2 in two parts, so n ln2_hi is exact), a degree-13
// Taylor polynomial of exp(r) on |r| <= 0.35 (truncation below 2^-57), times
// 2^n, within a few units of the last place of the double result y. Rounding
// y to f32 then gives libm's f32 unless an f32 rounding boundary lies
// between them, which needs y within those few units of a midpoint between
// two floats: the 29 bits below the f32's last place within 64 of
// 0x10000000. Such lanes, and lanes outside |x| <= 87 (where results leave
// the normal floats) or NaN, are recomputed by the scalar function: Ziv's
// rounding test. About one lane in 4 million takes that path.
#include <llvm/IR/Intrinsics.h>
#include <llvm/Transforms/Utils/ModuleUtils.h>

#include "target/cpu/lowering.h"

namespace tritonc::cpu::detail {

namespace {

constexpr const char* kScalarExp = "tritonc_cpu_exp_f32";
constexpr unsigned kVariantWidths[] = {4, 8, 16};

std::string variantName(unsigned width) { return "tritonc_cpu_exp_f32_v" + std::to_string(width); }

llvm::Value* intrinsic(llvm::IRBuilder<>& b, llvm::Intrinsic::ID id, llvm::ArrayRef<llvm::Value*> args) {
  llvm::Function* f = llvm::Intrinsic::getDeclaration(b.GetInsertBlock()->getModule(), id, {args[0]->getType()});
  return b.CreateCall(f, args);
}

// The variant of `width` lanes (see the file comment).
void defineVariant(llvm::Module& m, llvm::Function* scalar, unsigned width) {
  llvm::LLVMContext& ctx = m.getContext();
  llvm::Type* f32 = llvm::Type::getFloatTy(ctx);
  llvm::Type* f64 = llvm::Type::getDoubleTy(ctx);
  llvm::Type* i64 = llvm::Type::getInt64Ty(ctx);
  auto* vf = llvm::FixedVectorType::get(f32, width);
  auto* vd = llvm::FixedVectorType::get(f64, width);
  auto* vi = llvm::FixedVectorType::get(i64, width);
  auto* fn = llvm::Function::Create(llvm::FunctionType::get(vf, {vf}, false), llvm::Function::InternalLinkage,
                                    variantName(width), m);
  fn->addFnAttr(llvm::Attribute::NoUnwind);
  fn->addFnAttr(llvm::Attribute::WillReturn);
  fn->setDoesNotAccessMemory();
  llvm::BasicBlock* entry = llvm::BasicBlock::Create(ctx, "entry", fn);
  llvm::BasicBlock* fix = llvm::BasicBlock::Create(ctx, "fix", fn);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx, "done", fn);
  llvm::IRBuilder<> b(entry);
  auto dconst = [&](double v) { return llvm::ConstantFP::get(vd, v); };
  llvm::Value* x = fn->getArg(0);
  llvm::Value* xd = b.CreateFPExt(x, vd);
  llvm::Value* n = intrinsic(b, llvm::Intrinsic::roundeven, {b.CreateFMul(xd, dconst(0x1.71547652b82fep+0))});
  llvm::Value* r = intrinsic(b, llvm::Intrinsic::fmuladd, {n, dconst(-0x1.62e42fefa3800p-1), xd});
  r = intrinsic(b, llvm::Intrinsic::fmuladd, {n, dconst(-0x1.ef35793c76730p-45), r});
  // Horner from the degree-13 coefficient down to 1/0!.
  double factorial = 1;
  std::vector<double> coefficient(14);
  for (int k = 0; k < 14; ++k) {
    if (k > 0) factorial *= k;
    coefficient[size_t(k)] = 1.0 / factorial;
  }
  llvm::Value* p = dconst(coefficient[13]);
  for (int k = 12; k >= 0; --k) p = intrinsic(b, llvm::Intrinsic::fmuladd, {p, r, dconst(coefficient[size_t(k)])});
  // 2^n from its exponent bits (|n| <= 126 here; other lanes are redone).
  llvm::Value* bias = b.CreateAdd(b.CreateFPToSI(n, vi), llvm::ConstantInt::get(vi, 1023));
  llvm::Value* scale = b.CreateBitCast(b.CreateShl(bias, llvm::ConstantInt::get(vi, 52)), vd);
  llvm::Value* y = b.CreateFMul(p, scale);
  llvm::Value* result = b.CreateFPTrunc(y, vf);
  // Lanes to redo: near a midpoint, out of range, or NaN (unordered compare).
  llvm::Value* low = b.CreateAnd(b.CreateBitCast(y, vi), llvm::ConstantInt::get(vi, 0x1FFFFFFF));
  llvm::Value* offset = b.CreateSub(low, llvm::ConstantInt::get(vi, 0x10000000 - 64));
  llvm::Value* nearMidpoint = b.CreateICmpULE(offset, llvm::ConstantInt::get(vi, 128));
  llvm::Value* outside = b.CreateFCmpUGT(intrinsic(b, llvm::Intrinsic::fabs, {x}), llvm::ConstantFP::get(vf, 87.0));
  llvm::Value* redo = b.CreateOr(nearMidpoint, outside);
  llvm::Value* any = b.CreateCall(
      llvm::Intrinsic::getDeclaration(&m, llvm::Intrinsic::vector_reduce_or, {redo->getType()}), {redo});
  b.CreateCondBr(any, fix, done);
  // One branch per lane: only the lanes to redo call the scalar function.
  b.SetInsertPoint(fix);
  llvm::Value* fixed = result;
  for (unsigned lane = 0; lane < width; ++lane) {
    llvm::BasicBlock* call = llvm::BasicBlock::Create(ctx, "lane", fn);
    llvm::BasicBlock* next = llvm::BasicBlock::Create(ctx, "next", fn);
    llvm::BasicBlock* from = b.GetInsertBlock();
    b.CreateCondBr(b.CreateExtractElement(redo, uint64_t(lane)), call, next);
    b.SetInsertPoint(call);
    llvm::Value* exact = b.CreateCall(scalar, {b.CreateExtractElement(x, uint64_t(lane))});
    llvm::Value* patched = b.CreateInsertElement(fixed, exact, uint64_t(lane));
    b.CreateBr(next);
    b.SetInsertPoint(next);
    llvm::PHINode* phi = b.CreatePHI(vf, 2);
    phi->addIncoming(fixed, from);
    phi->addIncoming(patched, call);
    fixed = phi;
  }
  llvm::BasicBlock* fixEnd = b.GetInsertBlock();
  b.CreateBr(done);
  b.SetInsertPoint(done);
  llvm::PHINode* out = b.CreatePHI(vf, 2);
  out->addIncoming(result, entry);
  out->addIncoming(fixed, fixEnd);
  b.CreateRet(out);
}

}  // namespace

llvm::Value* Lowering::expF32(llvm::Value* x) {
  llvm::Function* scalar = mod_.getFunction(kScalarExp);
  if (!scalar) {
    llvm::Type* f32 = b_.getFloatTy();
    scalar = llvm::Function::Create(llvm::FunctionType::get(f32, {f32}, false), llvm::Function::ExternalLinkage,
                                    kScalarExp, mod_);
    scalar->setDoesNotThrow();
    scalar->setWillReturn();
    scalar->setDoesNotAccessMemory();  // libm's errno aside, which nothing here reads
    std::string variants;
    std::vector<llvm::GlobalValue*> keep;
    for (unsigned w : kVariantWidths) {
      defineVariant(mod_, scalar, w);
      variants += (variants.empty() ? "" : ",") + std::string("_ZGV_LLVM_N") + std::to_string(w) + "v_" + kScalarExp +
                  "(" + variantName(w) + ")";
      keep.push_back(mod_.getFunction(variantName(w)));
    }
    scalar->addFnAttr("vector-function-abi-variant", variants);
    // Unused until the vectorizer calls them: kept from dead-code elimination.
    llvm::appendToCompilerUsed(mod_, keep);
  }
  return b_.CreateCall(scalar, {x});
}

}  // namespace tritonc::cpu::detail
