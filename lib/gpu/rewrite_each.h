// Replaces, in a function and in its module's combine functions (scan_fn
// and reduce_fn write them inline into the kernel), each instruction that
// `matches` by the value `rewrite(builder, inst)` builds in its place (the
// builder set just before it, at its location). The passes that expand one
// operation into arithmetic (gpu-expand-f64-math, gpu-expand-f32-math) share
// it. Returns whether anything was replaced.
#pragma once

#include <vector>

#include "ir/builder.h"

namespace tritonc::gpu {

template <class Match, class Rewrite>
bool rewriteEach(ir::Function& f, Match matches, Rewrite rewrite) {
  auto in = [&](ir::Function& fn) {
    std::vector<ir::Instruction*> todo;
    for (auto& bb : fn.blocks())
      for (auto& inst : bb->instructions())
        if (matches(*inst)) todo.push_back(inst.get());
    ir::Builder b(*fn.parent());
    for (ir::Instruction* inst : todo) {
      ir::BasicBlock* bb = inst->parent;
      b.setInsertPoint(bb, bb->indexOf(inst));
      b.setLoc(inst->loc);
      inst->replaceAllUsesWith(rewrite(b, *inst));
      bb->erase(inst);
    }
    return !todo.empty();
  };
  bool changed = in(f);
  if (f.parent())
    for (auto& c : f.parent()->combiners()) changed = in(*c) || changed;
  return changed;
}

}  // namespace tritonc::gpu
