// Lowering of print and assert. A print hands each of its values, laid out
// contiguously in the frame, to tritonc_cpu_print (runtime_support.cpp),
// which writes the lines of ir/debug_output.h. An assertion finds the first
// false element of its condition; the program then leaves that element's
// position in its frame and stops with the assertion's error code, which
// CpuKernel::run turns into the same located error as the interpreter's.
#include "target/cpu/lowering.h"

namespace tritonc::cpu::detail {

void Lowering::lowerPrint(const ir::Instruction& inst) {
  llvm::Type* i32 = b_.getInt32Ty();
  llvm::Type* ptr = b_.getPtrTy();
  // Not helper(): it reads memory and writes to stdout.
  auto* type = llvm::FunctionType::get(b_.getVoidTy(), {ptr, i32, i32, i32, i32, i32, ptr, ptr, i32, i32, i32}, false);
  llvm::FunctionCallee print = mod_.getOrInsertFunction("tritonc_cpu_print", type);
  if (auto* fn = llvm::dyn_cast<llvm::Function>(print.getCallee())) fn->setDoesNotThrow();
  llvm::Value* prefix = b_.CreateGlobalString(inst.text, "print.prefix");
  const int n = int(inst.numOperands());
  auto call = [&](int operand, const ir::Type& t, llvm::Value* shape, llvm::Value* data) {
    b_.CreateCall(print, {prefix, b_.getInt32(inst.sub == ir::kPrintHex), b_.getInt32(uint32_t(operand)),
                          b_.getInt32(uint32_t(n)), b_.getInt32(uint32_t(t.kind)), b_.getInt32(uint32_t(t.shape.size())),
                          shape, data, programId_[0], programId_[1], programId_[2]});
  };
  llvm::Value* null = llvm::ConstantPointerNull::get(b_.getPtrTy());
  if (n == 0) call(-1, ir::Type::voidTy(), null, null);
  for (int k = 0; k < n; ++k) {
    const ir::Type& t = inst.operand(size_t(k))->type();
    Tile v = get(inst.operand(size_t(k)));
    llvm::Value* shape = null;
    Tile data;
    if (v.isScalar()) {
      data = newTile(t.withShape({1}));
      storeElement(data, i64(0), v.scalar);
    } else {
      data = contiguous(v);
      std::vector<uint64_t> dims(t.shape.begin(), t.shape.end());
      auto* init = llvm::ConstantDataArray::get(ctx_, dims);
      shape = new llvm::GlobalVariable(mod_, init->getType(), /*isConstant=*/true, llvm::GlobalValue::PrivateLinkage,
                                       init, "print.shape");
    }
    call(k, t, shape, data.base);
  }
}

void Lowering::lowerAssert(const ir::Instruction& inst) {
  const ir::Value* cond = inst.operand(0);
  const ir::Shape& shape = cond->type().shape;
  Tile c = get(cond);
  llvm::Type* i64t = b_.getInt64Ty();
  llvm::Value* failedAt;  // the row-major position of the first false element, or -1
  if (!c.hasBase()) {
    failedAt = b_.CreateSelect(c.scalar, i64(-1), i64(0));
  } else {
    llvm::AllocaInst* first = variable(i64t, "assert.first");
    b_.CreateStore(i64(-1), first);
    forEach(shape, {rowMajorStrides(shape), c.strides}, [&](const std::vector<llvm::Value*>& o) {
      llvm::Value* isFalse = b_.CreateNot(loadElement(c, o[1]));
      llvm::Value* seen = b_.CreateLoad(i64t, first);
      llvm::Value* isFirst = b_.CreateAnd(isFalse, b_.CreateICmpSLT(seen, i64(0)));
      b_.CreateStore(b_.CreateSelect(isFirst, o[0], seen), first);
    });
    failedAt = b_.CreateLoad(i64t, first);
  }
  const int code = addErrorSite(inst, inst.text);
  errors_.back().assertion = true;
  errors_.back().shape = shape;
  if (assertElementOffset_ < 0) {
    frameBytes_ = (frameBytes_ + 7) / 8 * 8;
    assertElementOffset_ = int64_t(frameBytes_);
    frameBytes_ += 8;
  }
  llvm::BasicBlock* fail = llvm::BasicBlock::Create(ctx_, "assert.failed", program_);
  llvm::BasicBlock* cont = llvm::BasicBlock::Create(ctx_, "assert.ok", program_);
  b_.CreateCondBr(b_.CreateICmpSGE(failedAt, i64(0)), fail, cont);
  b_.SetInsertPoint(fail);
  b_.CreateStore(failedAt, b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), frame_, uint64_t(assertElementOffset_)));
  b_.CreateStore(b_.getInt32(uint32_t(code)), status_);
  b_.CreateBr(errorExit_);
  b_.SetInsertPoint(cont);
}

}  // namespace tritonc::cpu::detail
