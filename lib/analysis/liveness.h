// Liveness of values: which values are live into and out of each block
// (backward data flow; a phi's operand is live out of its incoming block), and
// the live interval of each value over the function's instructions numbered
// block by block in ir::definitionOrder. Shared-memory allocation and register-pressure reports
// of the GPU back end are built on it.
#pragma once
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace tritonc::analysis {

struct LiveInterval {
  size_t start = 0;  // the defining instruction (arguments: 0)
  size_t end = 0;    // the last instruction where the value is needed
};

class Liveness {
 public:
  explicit Liveness(const ir::Function& f);
  const std::set<const ir::Value*>& liveIn(const ir::BasicBlock* bb) const { return liveIn_.at(bb); }
  const std::set<const ir::Value*>& liveOut(const ir::BasicBlock* bb) const { return liveOut_.at(bb); }
  // Values (instructions and arguments) live just after `inst`.
  std::vector<const ir::Value*> liveAfter(const ir::Instruction* inst) const;
  // One backward walk over `bb` (the live sets after each of its
  // instructions, at the cost of one liveAfter): `changed(v, nowLive)` as a
  // value enters or leaves the live set (the live-out values enter first),
  // then `at(inst)` for each instruction, last to first, while the set
  // holds the values live just after it.
  void sweepBackward(const ir::BasicBlock* bb, const std::function<void(const ir::Value*, bool)>& changed,
                     const std::function<void(const ir::Instruction*)>& at) const;
  const std::map<const ir::Value*, LiveInterval>& intervals() const { return intervals_; }
  size_t indexOf(const ir::Instruction* inst) const { return index_.at(inst); }

 private:
  std::map<const ir::BasicBlock*, std::set<const ir::Value*>> liveIn_, liveOut_;
  std::map<const ir::Instruction*, size_t> index_;
  std::map<const ir::Value*, LiveInterval> intervals_;
};

// The function printed with the live-in set of each block and, after each
// instruction, the tile values live there and their total size in bytes.
std::string printLiveness(const ir::Function& f);

}  // namespace tritonc::analysis
