// PTX lowering of control flow. Branch conditions are scalars, uniform over
// the program's threads, so branches are `bra.uni`. A phi owns registers;
// each edge into its block copies the incoming values in, through
// temporaries so that phis that read each other (swaps) stay right.
#include "target/nvptx/lowering.h"

namespace tritonc::nvptx {

using ir::Opcode;

namespace {

const char* movType(RegClass c) {
  switch (c) {
    case RegClass::Pred: return "pred";
    case RegClass::B16: return "b16";
    case RegClass::B32: return "b32";
    case RegClass::F32: return "f32";
    case RegClass::B64: return "b64";
    case RegClass::F64: return "f64";
  }
  return "b32";
}

// Copies the values flowing from `from` into the phis of `to`.
void copyPhis(FunctionLowering& L, const ir::BasicBlock* from, const ir::BasicBlock* to) {
  struct Move {
    std::string phiReg, tmp;
    RegClass cls;
  };
  std::vector<Move> moves;
  for (auto& inst : to->instructions()) {
    if (inst->opcode() != Opcode::Phi) break;
    if (L.isAsyncPhi(inst.get())) continue;  // its tiles are in shared memory already
    size_t k = 0;
    while (k < inst->blocks.size() && inst->blocks[k] != from) ++k;
    if (k == inst->blocks.size()) throw InternalError("phi without an entry for a predecessor");
    RegClass c = regClassOf(inst->type().kind);
    if (L.isMma(inst.get())) {
      // Accumulators carried in the mma layout.
      const auto& dst = L.mmaRegs(inst.get());
      std::vector<std::string> src = L.fragmentRegs(inst->operand(k), L.mmaLayoutOf(inst.get()));
      for (size_t e = 0; e < dst.size(); ++e) {
        if (src[e] == dst[e]) continue;  // updated in place (a pipelined wgmma's accumulator)
        std::string tmp = L.newReg(c);
        L.emit(std::string("mov.") + movType(c) + " " + tmp + ", " + src[e] + ";");
        moves.push_back({dst[e], tmp, c});
      }
      continue;
    }
    const auto& dst = L.regs(inst.get());
    for (size_t e = 0; e < dst.size(); ++e) {
      if (dst[e].empty()) continue;  // never read (a sparse pointer tile)
      std::string tmp = L.newReg(c);
      L.emit(std::string("mov.") + movType(c) + " " + tmp + ", " + L.elem(inst->operand(k), e) + ";");
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
      // Copies that a loop pre-fetched but never used must land before exit.
      if (hasAsyncCopies()) emit("cp.async.wait_all;");
      if (pipelinedWgmma_) emit("wgmma.wait_group.sync.aligned 0;");  // nothing in flight at exit
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
