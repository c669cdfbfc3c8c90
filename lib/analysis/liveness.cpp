#include "analysis/liveness.h"

#include <algorithm>

#include "ir/block_order.h"
#include "ir/printer.h"

namespace tritonc::analysis {

namespace {
bool tracked(const ir::Value* v) { return v->valueKind() != ir::ValueKind::Constant; }
}  // namespace

Liveness::Liveness(const ir::Function& f) {
  // Instructions are numbered block by block in ir::definitionOrder (then
  // the unreachable blocks): definitions come before their uses outside
  // phis, whatever the layout, so that the intervals cover every point where
  // a value is live.
  std::vector<const ir::BasicBlock*> order;
  {
    ir::DominatorTree dom(f);
    order = ir::definitionOrder(f, dom);
    for (auto& bb : f.blocks())
      if (!dom.isReachable(bb.get())) order.push_back(bb.get());
  }
  // use/def per block; a phi's operands are uses at the end of its incoming block.
  std::map<const ir::BasicBlock*, std::set<const ir::Value*>> use, def, phiUses;
  size_t n = 0;
  for (const ir::BasicBlock* bb : order) {
    auto& u = use[bb];
    auto& d = def[bb];
    liveIn_[bb];
    liveOut_[bb];
    for (auto& inst : bb->instructions()) {
      index_[inst.get()] = ++n;
      if (inst->opcode() == ir::Opcode::Phi) {
        for (size_t k = 0; k < inst->numOperands(); ++k)
          if (tracked(inst->operand(k))) phiUses[inst->blocks[k]].insert(inst->operand(k));
      } else {
        for (ir::Value* v : inst->operands())
          if (tracked(v) && !d.count(v)) u.insert(v);
      }
      d.insert(inst.get());
    }
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const ir::BasicBlock* bb = *it;
      std::set<const ir::Value*> out = phiUses[bb];
      for (ir::BasicBlock* s : bb->successors())
        for (const ir::Value* v : liveIn_[s])
          // A successor's own phis are defined there, not live into it from here.
          if (!(v->valueKind() == ir::ValueKind::Instruction &&
                static_cast<const ir::Instruction*>(v)->parent == s))
            out.insert(v);
      std::set<const ir::Value*> in = use[bb];
      for (const ir::Value* v : out)
        if (!def[bb].count(v)) in.insert(v);
      if (out != liveOut_[bb] || in != liveIn_[bb]) {
        liveOut_[bb] = std::move(out);
        liveIn_[bb] = std::move(in);
        changed = true;
      }
    }
  }
  // Intervals over the numbering: from the definition to the last use, and
  // to the end of every block the value is live out of.
  for (auto& a : f.arguments()) intervals_[a.get()] = LiveInterval{0, 0};
  for (const ir::BasicBlock* bb : order) {
    size_t first = bb->instructions().empty() ? 0 : index_[bb->instructions().front().get()];
    size_t last = bb->instructions().empty() ? 0 : index_[bb->instructions().back().get()];
    for (auto& inst : bb->instructions()) {
      size_t at = index_[inst.get()];
      if (!inst->type().isVoid()) {
        auto& iv = intervals_[inst.get()];
        iv.start = at;
        iv.end = std::max(iv.end, at);
      }
      if (inst->opcode() == ir::Opcode::Phi) continue;
      for (ir::Value* v : inst->operands())
        if (tracked(v)) intervals_[v].end = std::max(intervals_[v].end, at);
    }
    for (const ir::Value* v : liveOut_[bb]) intervals_[v].end = std::max(intervals_[v].end, last);
    for (const ir::Value* v : liveIn_[bb]) {
      auto& iv = intervals_[v];
      iv.end = std::max(iv.end, first);
    }
  }
}

std::vector<const ir::Value*> Liveness::liveAfter(const ir::Instruction* inst) const {
  // Live after `inst`: live out of its block, plus used later in the block,
  // minus what is defined later in the block.
  const ir::BasicBlock* bb = inst->parent;
  std::set<const ir::Value*> live = liveOut_.at(bb);
  const auto& insts = bb->instructions();
  for (size_t k = insts.size(); k-- > 0;) {
    const ir::Instruction* i = insts[k].get();
    if (i == inst) break;
    live.erase(i);
    if (i->opcode() != ir::Opcode::Phi)
      for (ir::Value* v : i->operands())
        if (tracked(v)) live.insert(v);
  }
  return std::vector<const ir::Value*>(live.begin(), live.end());
}

void Liveness::sweepBackward(const ir::BasicBlock* bb, const std::function<void(const ir::Value*, bool)>& changed,
                             const std::function<void(const ir::Instruction*)>& at) const {
  std::set<const ir::Value*> live = liveOut_.at(bb);
  for (const ir::Value* v : live) changed(v, true);
  const auto& insts = bb->instructions();
  for (size_t k = insts.size(); k-- > 0;) {
    const ir::Instruction* i = insts[k].get();
    at(i);
    if (live.erase(i)) changed(i, false);
    if (i->opcode() != ir::Opcode::Phi)
      for (ir::Value* v : i->operands())
        if (tracked(v) && live.insert(v).second) changed(v, true);
  }
}

std::string printLiveness(const ir::Function& f) {
  Liveness lv(f);
  // Print in program order (arguments, then instructions), not pointer order.
  auto order = [&](const ir::Value* v) -> size_t {
    if (v->valueKind() == ir::ValueKind::Argument) return static_cast<const ir::Argument*>(v)->index();
    return f.arguments().size() + lv.indexOf(static_cast<const ir::Instruction*>(v));
  };
  auto sorted = [&](auto&& values) {
    std::vector<const ir::Value*> out(values.begin(), values.end());
    std::sort(out.begin(), out.end(), [&](const ir::Value* a, const ir::Value* b) { return order(a) < order(b); });
    return out;
  };
  // Values are named as the printer names them, through the printed text.
  auto nameOf = [](const ir::Value* v) {
    if (v->valueKind() == ir::ValueKind::Argument) return "%" + v->name();
    std::string s = ir::printInstruction(*static_cast<const ir::Instruction*>(v));
    return s.substr(0, s.find(' '));
  };
  std::string out = "; liveness of @" + f.name() + "\n";
  for (auto& bb : f.blocks()) {
    std::string in;
    for (const ir::Value* v : sorted(lv.liveIn(bb.get()))) in += " " + nameOf(v);
    out += bb->name() + ":  ; live-in:" + (in.empty() ? " (none)" : in) + "\n";
    for (auto& inst : bb->instructions()) {
      std::string tiles;
      int64_t bytes = 0;
      for (const ir::Value* v : sorted(lv.liveAfter(inst.get())))
        if (v->type().isTile()) {
          tiles += " " + nameOf(v);
          bytes += v->type().numElements() * ir::byteSize(v->type().kind);
        }
      out += "  " + ir::printInstruction(*inst) + "  ; live tiles:" + (tiles.empty() ? " (none)" : tiles) + " (" +
             std::to_string(bytes) + " bytes)\n";
    }
  }
  return out;
}

}  // namespace tritonc::analysis
