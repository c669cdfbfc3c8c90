// gpu-contract-fma (passes.h): a float32 or float64 product used only by an
// addition or subtraction in its own block becomes one fused multiply-add,
// rounded once:
//   a * b + c, c + a * b  ->  fma(a, b, c)
//   a * b - c             ->  fma(a, b, -c)   (scalars: see negatesTile)
//   c - a * b             ->  fma(-a, b, c)   (scalars)
// ptxas contracts such pairs itself when their add and mul carry no
// rounding modifier (what Triton's enable_fp_fusion allows, on by default);
// doing it here makes the decision visible in the GPU IR and the PTX
// (fma.rn.f32), as in Triton's. The back end leaves this pass out when
// enable_fp_fusion is off, and then rounds each add, sub and mul (.rn), so
// that nothing is contracted at all. Products with other users stay (their
// value is needed rounded), and so do those computed in another block (a
// product hoisted out of a loop would come back into it with its two
// operands live instead of one). float16 and bfloat16 arithmetic is rounded
// at each operation (add.rn.f16) and is not contracted; nor is anything on
// the interpreter and the CPU back end, which do not run this pass.
#include <vector>

#include "gpu/passes.h"
#include "ir/builder.h"

namespace tritonc::gpu {

namespace {

using ir::Opcode;
using ir::Scalar;
using ir::Value;

bool contractsKind(const ir::Type& t) { return t.kind == Scalar::F32 || t.kind == Scalar::F64; }

// A sub contracts with a negated operand (the subtrahend, or the product's
// first factor): on a tile that is a neg per element, which ptxas folds into
// its FFMA but only after holding the negated copies in registers (computed
// where the pass put them: a broadcast row's negation, made before a wgmma's
// wait, was 32 registers more across it, and spilled an attention backward
// at 255). So tile subs are left to ptxas's own contraction (it negates in
// the FFMA), and only scalar ones are contracted here.
bool negatesTile(const ir::Instruction& sub, const ir::Instruction& product, size_t productSlot) {
  const Value* negated = productSlot == 0 ? sub.operand(1) : product.operand(0);
  return negated->type().isTile();
}

bool contractIn(ir::Function& fn) {
  // The product operand (0 or 1) an add or sub may take into an fma, if any
  // (users() has an entry per operand slot: a * b + a * b, one product
  // twice, is not contracted).
  auto product = [](const ir::Instruction& sum, size_t k) -> ir::Instruction* {
    Value* v = sum.operand(k);
    auto* p = v->valueKind() == ir::ValueKind::Instruction ? static_cast<ir::Instruction*>(v) : nullptr;
    if (!p || p->opcode() != Opcode::Mul || p->parent != sum.parent || !(p->type() == sum.type())) return nullptr;
    return p->users().size() == 1 ? p : nullptr;
  };
  struct Contraction {
    ir::Instruction* sum;
    ir::Instruction* mul;
    size_t productSlot;
  };
  std::vector<Contraction> todo;
  for (auto& bb : fn.blocks())
    for (auto& inst : bb->instructions()) {
      const Opcode op = inst->opcode();
      if ((op != Opcode::Add && op != Opcode::Sub) || !contractsKind(inst->type())) continue;
      for (size_t k = 0; k < 2; ++k)
        if (ir::Instruction* p = product(*inst, k); p && (op == Opcode::Add || !negatesTile(*inst, *p, k))) {
          todo.push_back({inst.get(), p, k});
          break;
        }
    }
  ir::Builder b(*fn.parent());
  for (const Contraction& c : todo) {
    ir::BasicBlock* bb = c.sum->parent;
    b.setInsertPoint(bb, bb->indexOf(c.sum));
    b.setLoc(c.sum->loc);
    Value* x = c.mul->operand(0);
    Value* y = c.mul->operand(1);
    Value* addend = c.sum->operand(1 - c.productSlot);
    if (c.sum->opcode() == Opcode::Sub) {
      if (c.productSlot == 0)
        addend = b.unary(Opcode::Neg, addend);  // a * b - c
      else
        x = b.unary(Opcode::Neg, x);  // c - a * b
    }
    Value* fused = b.fma(x, y, addend);
    fused->setName(c.sum->name());
    c.sum->replaceAllUsesWith(fused);
    bb->erase(c.sum);
    c.mul->parent->erase(c.mul);
  }
  return !todo.empty();
}

}  // namespace

bool runContractFma(ir::Function& f, const transform::PipelineOptions& o) {
  if (o.target.rfind("sm_", 0) != 0) return false;
  bool changed = contractIn(f);
  if (f.parent())
    for (auto& c : f.parent()->combiners()) changed = contractIn(*c) || changed;
  return changed;
}

}  // namespace tritonc::gpu
