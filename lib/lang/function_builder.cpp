#include "lang/function_builder.h"

#include "ir/cfg.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "support/diagnostic.h"

namespace tritonc::lang {

FunctionBuilder::FunctionBuilder(const std::string& kernelName, const std::string& sourceFile)
    : module_(std::make_unique<ir::Module>()), b_(*module_), ssa_(*module_) {
  module_->sourceFile = sourceFile;
  fn_ = module_->addFunction(kernelName);
  ir::BasicBlock* entry = fn_->addBlock("entry");
  b_.setInsertPoint(entry);
  ssa_.seal(entry);
}

ir::Argument* FunctionBuilder::addParam(const std::string& name, const ir::Type& t) {
  return fn_->addArgument(t, name);
}

void FunctionBuilder::br(ir::BasicBlock* to) {
  ssa_.addEdge(b_.block(), to);
  b_.br(to);
}

void FunctionBuilder::condBr(ir::Value* c, ir::BasicBlock* t, ir::BasicBlock* f) {
  ssa_.addEdge(b_.block(), t);
  ssa_.addEdge(b_.block(), f);
  b_.condBr(c, t, f);
}

void FunctionBuilder::ret() {
  b_.ret();
  ir::BasicBlock* after = fn_->addBlock("after.return");
  b_.setInsertPoint(after);
  ssa_.seal(after);
}

std::string FunctionBuilder::finish() {
  if (!terminated()) b_.ret();
  ssa_.finalize();
  ir::removeUnreachableBlocks(*fn_);
  std::string problems = ir::verifyModule(*module_);
  if (!problems.empty()) throw InternalError("the Python front end built invalid Triton-IR:\n" + problems);
  ir::PrintOptions po;
  po.locations = true;
  return ir::printModule(*module_, po);
}

}  // namespace tritonc::lang
