// Common sub-expression elimination: a pre-order walk of the dominator tree
// with a scoped table of the pure instructions seen on the path from the
// entry; an instruction equal to one in the table is replaced by it.
#include <map>
#include <tuple>
#include <unordered_set>

#include "ir/dominators.h"
#include "transform/passes.h"

namespace tritonc::transform {

namespace {

// Everything that makes two instructions compute the same value.
using Key = std::tuple<ir::Opcode, std::string, std::vector<const ir::Value*>, std::vector<const ir::BasicBlock*>,
                       uint8_t, int64_t, std::string>;

bool mergeable(const ir::Instruction& i) {
  // Loads (of global or shared memory) could be merged only with alias
  // analysis; stores and atomics never.
  return !i.hasSideEffects() && !i.readsMemory() && i.opcode() != ir::Opcode::Phi;
}

Key keyOf(const ir::Instruction& i) {
  std::vector<const ir::Value*> ops(i.operands().begin(), i.operands().end());
  std::vector<const ir::BasicBlock*> blocks(i.blocks.begin(), i.blocks.end());
  return Key{i.opcode(), ir::typeToString(i.type()), ops, blocks, i.sub, i.imm, i.text};
}

class Cse {
  using Table = std::map<Key, ir::Instruction*>;

 public:
  explicit Cse(ir::Function& f) : f_(f), dom_(f) {
    for (const ir::BasicBlock* bb : dom_.reversePostOrder())
      if (const ir::BasicBlock* p = dom_.idom(bb)) children_[p].push_back(bb);
  }

  bool run() {
    // An explicit stack instead of recursion: the dominator tree of a long
    // chain of `if`s is as deep as the chain.
    struct Frame {
      const ir::BasicBlock* bb;
      size_t next = 0;  // next child to visit
      std::vector<Table::iterator> added;  // entries to remove on leaving
    };
    if (!f_.entry()) return false;
    std::vector<Frame> stack;
    stack.push_back({f_.entry(), 0, {}});
    enter(stack.back());
    while (!stack.empty()) {
      Frame& top = stack.back();
      auto& kids = children_[top.bb];
      if (top.next < kids.size()) {
        Frame child{kids[top.next++], 0, {}};
        stack.push_back(std::move(child));
        enter(stack.back());
        continue;
      }
      for (Table::iterator it : top.added) table_.erase(it);
      stack.pop_back();
    }
    return changed_;
  }

 private:
  template <class Frame>
  void enter(Frame& fr) {
    auto* bb = const_cast<ir::BasicBlock*>(fr.bb);
    std::unordered_set<const ir::Instruction*> dead;
    for (auto& up : bb->instructions()) {
      ir::Instruction* inst = up.get();
      if (!mergeable(*inst)) continue;
      Key k = keyOf(*inst);
      auto it = table_.find(k);
      if (it != table_.end()) {
        inst->replaceAllUsesWith(it->second);
        dead.insert(inst);
        continue;
      }
      fr.added.push_back(table_.emplace(std::move(k), inst).first);
    }
    bb->eraseAll(dead);
    changed_ = changed_ || !dead.empty();
  }

  ir::Function& f_;
  ir::DominatorTree dom_;
  std::map<const ir::BasicBlock*, std::vector<const ir::BasicBlock*>> children_;
  Table table_;
  bool changed_ = false;
};

}  // namespace

bool runCommonSubexpressionElimination(ir::Function& f) { return Cse(f).run(); }

}  // namespace tritonc::transform
