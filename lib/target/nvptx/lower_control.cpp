// PTX lowering of control flow. Branch conditions are scalars, uniform over
// the program's threads, so branches are `bra.uni`. A phi owns registers;
// each edge into its block copies the incoming values in, through
// temporaries so that phis that read each other (swaps) stay right.
#include "target/nvptx/lowering.h"

namespace tritonc::nvptx {

using ir::Opcode;

namespace {

// Copies the values flowing from `from` into the phis of `to`.
void copyPhis(FunctionLowering& L, const ir::BasicBlock* from, const ir::BasicBlock* to) {
  struct Move {
    std::string phiReg, tmp;
    RegClass cls;
  };
  std::vector<Move> moves;
  for (auto& inst : to->instructions()) {
    if (inst->opcode() != Opcode::Phi) break;
    if (!L.runs(*inst)) continue;  // the other role's (warp specialization)
    size_t k = 0;
    while (k < inst->blocks.size() && inst->blocks[k] != from) ++k;
    if (k == inst->blocks.size()) throw InternalError("phi without an entry for a predecessor");
    RegClass c = inst->type().isShared() ? RegClass::B32 : regClassOf(inst->type().kind);
    const auto& dst = L.regs(inst.get());
    for (size_t e = 0; e < dst.size(); ++e) {
      if (dst[e].empty()) continue;  // never read (a sparse pointer tile)
      std::string src = L.elem(inst->operand(k), e);
      if (src == dst[e]) continue;  // updated in place (an asynchronous wgmma's accumulator)
      std::string tmp = L.newReg(c);
      L.emit(std::string("mov.") + movType(c) + " " + tmp + ", " + src + ";");
      moves.push_back({dst[e], tmp, c});
    }
  }
  // Second half of the parallel copy.
  for (const Move& m : moves) L.emit(std::string("mov.") + movType(m.cls) + " " + m.phiReg + ", " + m.tmp + ";");
}

}  // namespace

void FunctionLowering::lowerControl(const ir::Instruction& i) {
  switch (i.opcode()) {
    case Opcode::Phi:
      return;  // registers assigned up front; filled by the incoming edges
    case Opcode::Ret:
      emit("ret;");
      return;
    case Opcode::Br:
      copyPhis(*this, i.parent, i.blocks[0]);
      emit("bra.uni " + blockLabel(i.blocks[0]) + ";");
      return;
    case Opcode::CondBr: {
      std::string onFalse = newLabel("else");
      std::string notTaken = newReg(RegClass::Pred);
      emit("not.pred " + notTaken + ", " + elem(i.operand(0), 0) + ";");
      emit("@" + notTaken + " bra.uni " + onFalse + ";");
      copyPhis(*this, i.parent, i.blocks[0]);
      emit("bra.uni " + blockLabel(i.blocks[0]) + ";");
      label(onFalse);
      copyPhis(*this, i.parent, i.blocks[1]);
      emit("bra.uni " + blockLabel(i.blocks[1]) + ";");
      return;
    }
    default:
      throw InternalError("control op");
  }
}

}  // namespace tritonc::nvptx
