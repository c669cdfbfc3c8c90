#include "lang/readonly_stores.h"

#include <set>

namespace tritonc::lang {

namespace {

// The parameters a pointer value may point into: walks back through every
// pointer-typed operand (gep bases, splats, broadcasts, selects, phis, casts).
std::set<unsigned> rootsOf(const ir::Value* ptr) {
  std::set<unsigned> roots;  // parameter indices, so warnings come in parameter order
  std::set<const ir::Value*> seen{ptr};
  std::vector<const ir::Value*> work{ptr};
  while (!work.empty()) {
    const ir::Value* v = work.back();
    work.pop_back();
    if (v->valueKind() == ir::ValueKind::Argument) {
      roots.insert(static_cast<const ir::Argument*>(v)->index());
      continue;
    }
    if (v->valueKind() != ir::ValueKind::Instruction) continue;
    for (const ir::Value* op : static_cast<const ir::Instruction*>(v)->operands())
      if (op->type().isPtr() && seen.insert(op).second) work.push_back(op);
  }
  return roots;
}

bool writesMemory(const ir::Instruction& i) {
  return i.opcode() == ir::Opcode::Store || i.opcode() == ir::Opcode::AtomicRmw ||
         i.opcode() == ir::Opcode::AtomicCas;
}

}  // namespace

std::vector<Warning> dropBrokenReadonly(ir::Function& f, const std::map<const ir::Argument*, ReadonlyOrigin>& origins) {
  std::vector<Warning> warnings;
  for (auto& bb : f.blocks())
    for (auto& inst : bb->instructions()) {
      if (!writesMemory(*inst)) continue;
      for (unsigned root : rootsOf(inst->operand(0))) {
        ir::Argument* arg = f.argument(root);
        if (!arg->attrs.readonly || arg->attrs.constantTable > 0) continue;
        arg->attrs.readonly = false;  // warned once: the next stores find it cleared
        auto it = origins.find(arg);
        std::string declared = it == origins.end() ? "readonly" : it->second.qualifier;
        std::string where = it != origins.end() && it->second.loc.known()
                                ? " (line " + std::to_string(it->second.loc.line) + ")" : "";
        warnings.push_back({inst->loc, "store through '" + arg->name() + "', which is declared " + declared + where +
                                           ": the buffer is written, so " + declared + " is ignored"});
      }
    }
  return warnings;
}

}  // namespace tritonc::lang
