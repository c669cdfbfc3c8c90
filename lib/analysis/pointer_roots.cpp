#include "analysis/pointer_roots.h"

#include <vector>

namespace tritonc::analysis {

bool pointerRoots(const ir::Value* p, std::set<const ir::Argument*>* roots) {
  std::set<const ir::Value*> seen;
  std::vector<const ir::Value*> work{p};
  while (!work.empty()) {
    const ir::Value* v = work.back();
    work.pop_back();
    if (!seen.insert(v).second) continue;
    if (v->valueKind() == ir::ValueKind::Argument) {
      roots->insert(static_cast<const ir::Argument*>(v));
      continue;
    }
    if (v->valueKind() != ir::ValueKind::Instruction) return false;  // a constant pointer
    const auto* i = static_cast<const ir::Instruction*>(v);
    // A pointer read from memory (a load's, an atomic's old value) or made by
    // inline assembly, whatever their operands point to.
    const ir::Opcode op = i->opcode();
    if (op == ir::Opcode::Load || op == ir::Opcode::LocalLoad || op == ir::Opcode::AtomicRmw ||
        op == ir::Opcode::AtomicCas || op == ir::Opcode::InlineAsm)
      return false;
    bool fromPointer = false;
    for (const ir::Value* op : i->operands())
      if (op->type().isPtr()) {
        work.push_back(op);
        fromPointer = true;
      }
    if (!fromPointer) return false;  // cast from an integer, or made otherwise
  }
  return true;
}

}  // namespace tritonc::analysis
