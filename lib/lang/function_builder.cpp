#include "lang/function_builder.h"

#include "ir/cfg.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "support/diagnostic.h"
#include "transform/passes.h"

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

ir::BasicBlock* FunctionBuilder::newBlock(const std::string& name) {
  if (combiner_)
    throw UserError(b_.loc(), "a combine function is straight-line code: pick values with tl.where, not if, "
                              "and loop outside it");
  return fn_->addBlock(name);
}

std::vector<ir::Argument*> FunctionBuilder::beginCombiner(const std::string& name, const std::vector<ir::Type>& types) {
  if (combiner_) throw InternalError("a combine function is being built inside another");
  std::string unique = name;
  for (int n = 1; module_->function(unique) || module_->combiner(unique); ++n) unique = name + "." + std::to_string(n);
  combiner_ = module_->addCombiner(unique);
  combiner_->loc = b_.loc();
  std::vector<ir::Argument*> args;
  for (const ir::Type& t : types) args.push_back(combiner_->addArgument(t, ""));
  kernelBlock_ = b_.block();
  kernelLoc_ = b_.loc();
  ir::BasicBlock* entry = combiner_->addBlock("entry");
  b_.setInsertPoint(entry);
  ssa_.seal(entry);
  return args;
}

std::string FunctionBuilder::endCombiner(const std::vector<ir::Value*>& values) {
  if (!combiner_) throw InternalError("no combine function is being built");
  b_.ret(values);
  // What only served compile-time questions (a tile built to read its
  // dtype, as libraries' `is_floating(x)` helpers do) goes: a combine
  // function computes on scalars, element-wise.
  transform::runDeadCodeElimination(*combiner_);
  b_.setInsertPoint(kernelBlock_);
  b_.setLoc(kernelLoc_);
  std::string name = combiner_->name();
  combiner_ = nullptr;
  return name;
}

void FunctionBuilder::br(ir::BasicBlock* to) {
  ssa_.addEdge(b_.block(), to);
  b_.br(to);
}

void FunctionBuilder::condBr(ir::Value* c, ir::BasicBlock* t, ir::BasicBlock* f, int loopStages) {
  ssa_.addEdge(b_.block(), t);
  ssa_.addEdge(b_.block(), f);
  b_.condBr(c, t, f)->imm = loopStages;
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
