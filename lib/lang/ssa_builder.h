// SSA construction directly from the AST (Braun et al., CC 2013, "Simple and
// Efficient Construction of Static Single Assignment Form"): variables are
// written and read per block; reads in unsealed blocks create incomplete phis,
// completed when the block's predecessors are all known; trivial phis are
// removed on the fly.
#pragma once
#include <map>
#include <set>
#include <vector>

#include "ir/builder.h"

namespace tritonc::lang {

class SsaBuilder {
 public:
  explicit SsaBuilder(ir::Module& m) : module_(m) {}

  // Declares a variable of type `t` (its name names the phis); returns its id.
  int newVariable(const ir::Type& t, const std::string& name = "");
  void write(int var, ir::BasicBlock* bb, ir::Value* v);
  ir::Value* read(int var, ir::BasicBlock* bb);
  // Records the edge pred -> succ (call when emitting a branch).
  void addEdge(ir::BasicBlock* pred, ir::BasicBlock* succ) { preds_[succ].push_back(pred); }
  // Declares that `bb` will get no more predecessors.
  void seal(ir::BasicBlock* bb);
  bool sealed(ir::BasicBlock* bb) const { return sealed_.count(bb) != 0; }
  // Erases the phis found trivial (kept until now so that no pointer dangles).
  void finalize();

 private:
  ir::Value* addPhiOperands(int var, ir::Instruction* phi);
  ir::Value* tryRemoveTrivialPhi(ir::Instruction* phi);
  // Replaces `phi` by the one value it merges and returns that value, adding
  // the phi's users to `users`; returns `phi` when it merges two values.
  ir::Value* removeIfTrivial(ir::Instruction* phi, std::vector<ir::Instruction*>& users);
  ir::Value* zeroOf(const ir::Type& t, ir::BasicBlock* bb);
  ir::Instruction* newPhi(int var, ir::BasicBlock* bb);

  ir::Module& module_;
  std::vector<ir::Type> varTypes_;
  std::vector<std::string> varNames_;
  std::map<ir::BasicBlock*, std::map<int, ir::Value*>> defs_;
  std::map<ir::BasicBlock*, std::vector<ir::BasicBlock*>> preds_;
  std::map<ir::BasicBlock*, std::map<int, ir::Instruction*>> incomplete_;
  std::set<ir::BasicBlock*> sealed_;
  std::map<ir::Instruction*, ir::Value*> replacedBy_;  // trivial phis, not yet erased
  ir::Value* resolve(ir::Value* v) const;
};

}  // namespace tritonc::lang
