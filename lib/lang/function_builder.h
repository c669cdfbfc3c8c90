// FunctionBuilder: builds one kernel of Triton-IR for a front end other than
// Triton-C's (the Python DSL, python/tritonc/codegen.py, through bindings).
// It owns the module, the insertion point, the source location and the SSA
// construction of variables (Braun et al., as Triton-C's IR generation does),
// so that the front end only decides *what* to build: types and semantic
// checks are the caller's; the verifier checks the result in finish().
#pragma once
#include <memory>
#include <string>

#include "ir/builder.h"
#include "lang/ssa_builder.h"

namespace tritonc::lang {

class FunctionBuilder {
 public:
  // `sourceFile` names the file in diagnostics and in the module's text.
  FunctionBuilder(const std::string& kernelName, const std::string& sourceFile);

  ir::Builder& builder() { return b_; }
  ir::Module& module() { return *module_; }
  ir::Function& function() { return *fn_; }

  ir::Argument* addParam(const std::string& name, const ir::Type& t);
  void setLoc(uint32_t line, uint32_t col) { b_.setLoc(SourceLoc{line, col}); }

  // Blocks and branches (edges are recorded for the SSA construction).
  ir::BasicBlock* newBlock(const std::string& name);
  void setBlock(ir::BasicBlock* bb) { b_.setInsertPoint(bb); }
  ir::BasicBlock* block() const { return b_.block(); }
  bool terminated() const { return b_.block()->terminator() != nullptr; }
  void br(ir::BasicBlock* to);
  // loopStages: a loop header's own num_stages (ir/loop_hints.h; 0: none).
  void condBr(ir::Value* c, ir::BasicBlock* t, ir::BasicBlock* f, int loopStages = 0);
  // `ret`, then a fresh unreachable block to go on in (dropped in finish()).
  void ret();
  void seal(ir::BasicBlock* bb) { ssa_.seal(bb); }

  // Variables: written and read in the current block.
  int newVariable(const ir::Type& t, const std::string& name) { return ssa_.newVariable(t, name); }
  void write(int var, ir::Value* v) { ssa_.write(var, b_.block(), v); }
  ir::Value* read(int var) { return ssa_.read(var, b_.block()); }

  // A combine function (of scan_fn and reduce_fn): what is built after
  // begin goes into its one block, on its arguments (scalars of `types`;
  // a new block is refused); end makes it return `values`, goes back to
  // the kernel where it was and gives its name (`name`, made unique in the
  // module).
  std::vector<ir::Argument*> beginCombiner(const std::string& name, const std::vector<ir::Type>& types);
  std::string endCombiner(const std::vector<ir::Value*>& values);
  bool inCombiner() const { return combiner_ != nullptr; }

  // Ends the kernel (a `ret` where the body falls through), completes the
  // SSA form, drops unreachable blocks and verifies; returns the module's
  // text with locations. Throws InternalError when the verifier objects
  // (the front end checks what users can get wrong).
  std::string finish();

 private:
  std::unique_ptr<ir::Module> module_;
  ir::Function* fn_ = nullptr;
  ir::Function* combiner_ = nullptr;  // being built
  ir::BasicBlock* kernelBlock_ = nullptr;  // where the kernel goes on after it, and at which line
  SourceLoc kernelLoc_;
  ir::Builder b_;
  SsaBuilder ssa_;
};

}  // namespace tritonc::lang
