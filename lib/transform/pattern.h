// Small matchers over IR values shared by the simplifying passes.
#pragma once
#include <optional>

#include "ir/ir.h"

namespace tritonc::transform {

// The instruction that defines `v`, or nullptr (arguments, constants).
inline ir::Instruction* asInst(ir::Value* v) {
  return v->valueKind() == ir::ValueKind::Instruction ? static_cast<ir::Instruction*>(v) : nullptr;
}

inline ir::Instruction* asInst(ir::Value* v, ir::Opcode op) {
  if (v->valueKind() != ir::ValueKind::Instruction) return nullptr;
  auto* i = static_cast<ir::Instruction*>(v);
  return i->opcode() == op ? i : nullptr;
}

// The scalar constant that `v` is, or that every element of `v` is (a splat
// of a constant); nullptr otherwise.
inline ir::Constant* splatConstant(ir::Value* v) {
  if (v->valueKind() == ir::ValueKind::Constant) return static_cast<ir::Constant*>(v);
  if (ir::Instruction* s = asInst(v, ir::Opcode::Splat)) return splatConstant(s->operand(0));
  if (ir::Instruction* b = asInst(v, ir::Opcode::Broadcast)) return splatConstant(b->operand(0));
  return nullptr;
}

// Whether `v` is the constant `x` in every element (as a number: 0 matches
// both +0.0 and -0.0; callers that care about the sign check it).
inline bool isConstantValue(ir::Value* v, double x) {
  ir::Constant* c = splatConstant(v);
  if (!c) return false;
  return c->type().isFloat() ? c->f == x : double(c->i) == x;
}

}  // namespace tritonc::transform
