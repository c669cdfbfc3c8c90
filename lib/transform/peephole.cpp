// Tile peephole rules. Each rule looks at one instruction and, when it
// applies, replaces the instruction's uses with a simpler value (or rewrites
// the instruction in place); dead leftovers are left to DCE.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>

#include "ir/builder.h"
#include "transform/passes.h"
#include "transform/pattern.h"

namespace tritonc::transform {

namespace {

using ir::Opcode;

bool isAllTrue(ir::Value* v) {
  ir::Constant* c = splatConstant(v);
  return c && c->type().isBool() && c->i != 0;
}
bool isAllFalse(ir::Value* v) {
  ir::Constant* c = splatConstant(v);
  return c && c->type().isBool() && c->i == 0;
}

// The additive identity of `x + c`: 0 for integers, -0.0 for floats (+0.0 is
// not one: -0.0 + +0.0 is +0.0).
bool isAddIdentity(ir::Value* c) {
  ir::Constant* k = splatConstant(c);
  if (!k) return false;
  return k->type().isFloat() ? (k->f == 0 && std::signbit(k->f)) : k->i == 0;
}
// x - c is x when c is +0.0 (floats) or 0 (integers).
bool isSubIdentity(ir::Value* c) {
  ir::Constant* k = splatConstant(c);
  if (!k) return false;
  return k->type().isFloat() ? (k->f == 0 && !std::signbit(k->f)) : k->i == 0;
}

// Whether `a` and `b` are one value: the same, or splats of one constant
// (constants are interned, so the same constant is the same object).
bool sameSplat(ir::Value* a, ir::Value* b) {
  if (a == b) return true;
  ir::Constant* c = splatConstant(a);
  return c && c == splatConstant(b) && a->type() == b->type();
}

// The least and greatest value an integer tile or scalar can take, where
// known: constants and their splats, ranges, and broadcasts, reshapes, sums
// and differences of such (when the result cannot wrap in its width).
struct Bounds {
  int64_t lo, hi;
};
std::optional<Bounds> boundsOf(ir::Value* v, int depth = 0) {
  const ir::Type& t = v->type();
  if (depth > 8 || !t.isInt() || t.kind == ir::Scalar::I1) return std::nullopt;
  if (ir::Constant* c = splatConstant(v)) return Bounds{c->i, c->i};
  if (v->valueKind() != ir::ValueKind::Instruction) return std::nullopt;
  auto* i = static_cast<ir::Instruction*>(v);
  switch (i->opcode()) {
    case Opcode::Range: return Bounds{i->imm, i->imm + t.shape[0] - 1};
    case Opcode::Broadcast: case Opcode::Reshape: case Opcode::ConvertLayout: return boundsOf(i->operand(0), depth + 1);
    case Opcode::Add: case Opcode::Sub: {
      auto a = boundsOf(i->operand(0), depth + 1), b = boundsOf(i->operand(1), depth + 1);
      if (!a || !b || i->operand(0)->type().kind != t.kind || i->operand(1)->type().kind != t.kind) return std::nullopt;
      // Operands of at most 32 bits in an i64: their sum or difference is exact.
      const int bits = ir::bitWidth(t.kind);
      if (bits > 32 && (std::max({std::llabs(a->lo), std::llabs(a->hi), std::llabs(b->lo), std::llabs(b->hi)}) >
                        (int64_t(1) << 32)))
        return std::nullopt;
      Bounds r = i->opcode() == Opcode::Add ? Bounds{a->lo + b->lo, a->hi + b->hi} : Bounds{a->lo - b->hi, a->hi - b->lo};
      if (bits < 64 && (r.lo < -(int64_t(1) << (bits - 1)) || r.hi >= (int64_t(1) << (bits - 1)))) return std::nullopt;
      return r;
    }
    default: return std::nullopt;
  }
}

// An integer comparison that the operands' bounds decide (a block pointer's
// check `rows < 64` of a 64-row block whose rows are `range(0, 64)`).
std::optional<bool> decideByBounds(ir::CmpPred p, ir::Value* x, ir::Value* y) {
  auto a = boundsOf(x), b = boundsOf(y);
  if (!a || !b) return std::nullopt;
  if (ir::isUnsignedPred(p)) {  // non-negative operands compare alike either way
    if (a->lo < 0 || b->lo < 0) return std::nullopt;
    p = ir::CmpPred(uint8_t(p) - uint8_t(ir::CmpPred::Ult) + uint8_t(ir::CmpPred::Lt));
  }
  switch (p) {
    case ir::CmpPred::Lt: if (a->hi < b->lo) return true; if (a->lo >= b->hi) return false; break;
    case ir::CmpPred::Le: if (a->hi <= b->lo) return true; if (a->lo > b->hi) return false; break;
    case ir::CmpPred::Gt: if (a->lo > b->hi) return true; if (a->hi <= b->lo) return false; break;
    case ir::CmpPred::Ge: if (a->lo >= b->hi) return true; if (a->hi < b->lo) return false; break;
    case ir::CmpPred::Eq: case ir::CmpPred::Ne:
      if (a->hi < b->lo || b->hi < a->lo) return p == ir::CmpPred::Ne;
      break;
    default: break;
  }
  return std::nullopt;
}

// `s`'s scalar splat to another shape, still a guard if `s` was one.
ir::Value* resplat(ir::Builder& b, ir::Instruction* s, const ir::Shape& shape) {
  ir::Value* r = b.splat(s->operand(0), shape);
  static_cast<ir::Instruction*>(r)->sub = s->sub;
  return r;
}

// Whether `perm` keeps the order of the dimensions of `from` longer than 1
// (a trans that only moves dimensions of size 1 is a reshape).
bool keepsNonUnitOrder(const std::vector<int>& perm, const ir::Shape& from) {
  int last = -1;
  for (int p : perm) {
    if (from[size_t(p)] == 1) continue;
    if (p < last) return false;
    last = p;
  }
  return true;
}

bool onlyReshapesRead(const ir::Instruction* inst) {
  if (inst->users().empty()) return false;
  for (const ir::Instruction* u : inst->users())
    if (u->opcode() != Opcode::Reshape) return false;
  return true;
}

// A slice of a reshape, taken before it: where the reshape only adds or
// removes dimensions of size 1 (the axis is one of the others), or splits
// one dimension in two and the slice is along the outer part.
ir::Value* sliceBeforeReshape(ir::Instruction* slice, ir::Instruction* reshape, ir::Builder& b) {
  ir::Value* y = reshape->operand(0);
  const ir::Shape& from = y->type().shape;
  const ir::Shape& to = reshape->type().shape;
  const size_t axis = slice->sub;
  const int64_t length = slice->type().shape[axis];
  if (to[axis] == 1) return nullptr;
  std::vector<size_t> fromDims, toDims;
  for (size_t d = 0; d < from.size(); ++d)
    if (from[d] != 1) fromDims.push_back(d);
  for (size_t d = 0; d < to.size(); ++d)
    if (to[d] != 1) toDims.push_back(d);
  bool sameNonUnit = fromDims.size() == toDims.size();
  for (size_t k = 0; sameNonUnit && k < fromDims.size(); ++k) sameNonUnit = from[fromDims[k]] == to[toDims[k]];
  if (sameNonUnit) {
    size_t k = size_t(std::find(toDims.begin(), toDims.end(), axis) - toDims.begin());
    return b.reshape(b.extractSlice(y, fromDims[k], slice->imm, length), slice->type().shape);
  }
  // to = from[:e] + [A, B] + from[e+1:], A * B = from[e], sliced along A.
  if (to.size() != from.size() + 1 || axis + 1 >= to.size()) return nullptr;
  for (size_t d = 0; d < axis; ++d)
    if (from[d] != to[d]) return nullptr;
  for (size_t d = axis + 1; d < from.size(); ++d)
    if (from[d] != to[d + 1]) return nullptr;
  const int64_t inner = to[axis + 1];
  if (to[axis] * inner != from[axis]) return nullptr;
  return b.reshape(b.extractSlice(y, axis, slice->imm * inner, length * inner), slice->type().shape);
}

// Returns the value `inst` simplifies to, or nullptr. May instead rewrite
// `inst` in place (returning `inst` itself to report a change).
ir::Value* simplify(ir::Instruction* inst, ir::Builder& b) {
  ir::Value* x = inst->numOperands() > 0 ? inst->operand(0) : nullptr;
  ir::Value* y = inst->numOperands() > 1 ? inst->operand(1) : nullptr;
  const ir::Type& t = inst->type();
  switch (inst->opcode()) {
    case Opcode::Phi: {
      // A phi whose incoming values are all one value (besides itself) is that
      // value: the front end leaves such phis where a branch was removed.
      ir::Value* same = nullptr;
      for (ir::Value* v : inst->operands()) {
        if (v == inst || v == same) continue;
        if (same) return nullptr;
        same = v;
      }
      return same;
    }
    case Opcode::Trans: {
      // Two permutations in a row are one (none when they undo each other);
      // the identity is none.
      const std::vector<int> outer = ir::transPermutation(*inst);
      bool same = !outer.empty();
      for (size_t d = 0; d < outer.size(); ++d) same = same && outer[d] == int(d);
      if (same && x->type() == t) return x;
      // One that only moves dimensions of size 1 is a reshape, where it
      // folds into a reshape next to it (alone, a reshape that moves a unit
      // dimension goes through shared memory on the GPU; the trans does not).
      if (!t.layout && !outer.empty() && keepsNonUnitOrder(outer, x->type().shape) &&
          (asInst(x, Opcode::Reshape) || onlyReshapesRead(inst)))
        return b.reshape(x, t.shape);
      ir::Instruction* inner = asInst(x, Opcode::Trans);
      if (!inner || t.layout) return nullptr;
      const std::vector<int> first = ir::transPermutation(*inner);
      std::vector<int> both(outer.size());
      bool identity = true;
      for (size_t d = 0; d < outer.size(); ++d) {
        both[d] = first[size_t(outer[d])];
        identity = identity && both[d] == int(d);
      }
      if (identity) return inner->operand(0);
      return b.permute(inner->operand(0), both);
    }
    case Opcode::ExtractSlice: {
      // The whole axis is the tile; a slice of a splat is a splat; before a
      // trans or a reshape, the slice takes the elements where they come from
      // (the persistent-matmul epilogue's halves, through reshape, permute
      // and split, become slices of the accumulator).
      if (x->type() == t) return x;
      if (ir::Instruction* s = asInst(x, Opcode::Splat)) return resplat(b, s, t.shape);
      if (t.layout) return nullptr;
      if (ir::Instruction* tr = asInst(x, Opcode::Trans)) {
        const std::vector<int> perm = ir::transPermutation(*tr);
        if (perm.empty()) return nullptr;
        ir::Value* inner = b.extractSlice(tr->operand(0), size_t(perm[inst->sub]), inst->imm, t.shape[inst->sub]);
        return b.permute(inner, perm);
      }
      if (ir::Instruction* r = asInst(x, Opcode::Reshape)) return sliceBeforeReshape(inst, r, b);
      return nullptr;
    }
    case Opcode::Broadcast:
    case Opcode::Reshape:
      if (x->type() == t) return x;
      // A splat broadcast or reshaped is a splat of the new shape.
      if (ir::Instruction* s = asInst(x, Opcode::Splat)) return resplat(b, s, t.shape);
      if (inst->opcode() == Opcode::Reshape)
        if (ir::Instruction* r = asInst(x, Opcode::Reshape)) return b.reshape(r->operand(0), t.shape);
      return nullptr;
    case Opcode::Cast: case Opcode::UCast: case Opcode::Bitcast: {
      if (x->type() == t) return x;
      // C's `m ? *p : 0` on char tiles computes in int (the integer
      // promotions), then narrows back: narrow(select(m, widen(v), o)) is
      // select(m, v, narrow(o)), since widening an integer is exact. Without
      // this rule the select hides the masked load of an int8 tile.
      ir::Instruction* sel = asInst(x, Opcode::Select);
      ir::Instruction* wide = sel ? asInst(sel->operand(1), Opcode::Cast) : nullptr;
      if (inst->opcode() != Opcode::Cast || !wide || sel->users().size() != 1 || wide->operand(0)->type() != t ||
          !t.isInt() || t.kind == ir::Scalar::I1 || !x->type().isInt() ||
          ir::byteSize(x->type().kind) <= ir::byteSize(t.kind))
        return nullptr;
      ir::Value* other;
      if (ir::Constant* k = splatConstant(sel->operand(2))) {  // (narrowed now: the load's `other` is one)
        const int bits = 8 * ir::byteSize(t.kind);
        const int64_t narrow = int64_t(uint64_t(k->i) << (64 - bits)) >> (64 - bits);
        ir::Constant* c = b.module().constInt(t.kind, narrow);
        other = t.isTile() ? b.splat(c, t.shape) : static_cast<ir::Value*>(c);
      } else {
        other = b.create(Opcode::Cast, t, {sel->operand(2)});
      }
      return b.create(Opcode::Select, t, {sel->operand(0), wide->operand(0), other});
    }
    case Opcode::Add: {
      if (isAddIdentity(y)) return x;
      if (isAddIdentity(x)) return y;
      // c + dot(a, b, 0) accumulates into c: dot(a, b, c), as `C = dot(a, b, C)`.
      for (int side = 0; side < 2; ++side) {
        ir::Instruction* d = asInst(side ? x : y, Opcode::Dot);
        ir::Value* acc = side ? y : x;
        if (d && d->users().size() == 1 && isConstantValue(d->operand(2), 0) && acc->type() == t)
          return b.dot(d->operand(0), d->operand(1), acc);
      }
      return nullptr;
    }
    case Opcode::Sub:
      if (isSubIdentity(y)) return x;
      // (z + c1) - c2 is z + (c1 - c2) on integers (they wrap alike): the
      // rounding-up idiom (n + d - 1) / d then adds one constant, and the
      // axis analysis can see that the sum of non-negatives stays so.
      if (t.isInt() && !t.isTile())
        if (ir::Instruction* inner = asInst(x, Opcode::Add)) {
          ir::Constant* c1 = splatConstant(inner->operand(1));
          ir::Constant* c2 = splatConstant(y);
          if (c1 && c2 && inner->operand(1)->type() == t && y->type() == t)
            return b.binary(Opcode::Add, inner->operand(0), b.module().constInt(t.kind, ir::wrapInt(t.kind, int64_t(uint64_t(c1->i) - uint64_t(c2->i)))));
        }
      return nullptr;
    case Opcode::Mul:
      if (isConstantValue(y, 1)) return x;
      if (isConstantValue(x, 1)) return y;
      return nullptr;
    case Opcode::Div: case Opcode::UDiv:
      return isConstantValue(y, 1) ? x : nullptr;
    case Opcode::And: {
      if (t.isBool() && (isAllTrue(y) || isAllFalse(x))) return x;
      if (t.isBool() && (isAllTrue(x) || isAllFalse(y))) return y;
      if (!t.isTile()) return nullptr;
      // A scalar condition joins the smallest tile of a conjunction, before
      // the broadcasts: and(broadcast(m), splat(c)) = broadcast(and(m,
      // splat(c))), and(and(p, q), splat(c)) = and(and(p, splat(c)), q) for
      // a broadcast p (the one of fewer elements). The loop conditions the
      // pre-fetching adds to `rows < M && cols < k` then cost one operation
      // per row or column, not one per element.
      for (int side = 0; side < 2; ++side) {
        ir::Instruction* s = asInst(side ? x : y, Opcode::Splat);
        ir::Value* other = side ? y : x;
        if (!s || s->operand(0)->type().isTile()) continue;
        if (ir::Instruction* bc = asInst(other, Opcode::Broadcast)) {
          ir::Value* m = bc->operand(0);
          return b.broadcast(b.binary(Opcode::And, m, resplat(b, s, m->type().shape)), t.shape);
        }
        ir::Instruction* conj = asInst(other, Opcode::And);
        if (!conj || conj->users().size() != 1) continue;
        ir::Instruction* p = nullptr;
        size_t pSide = 0;
        for (size_t k = 0; k < 2; ++k) {
          ir::Instruction* c = asInst(conj->operand(k), Opcode::Broadcast);
          if (c && (!p || c->operand(0)->type().numElements() < p->operand(0)->type().numElements())) {
            p = c;
            pSide = k;
          }
        }
        if (!p || asInst(conj->operand(1 - pSide), Opcode::Splat)) continue;
        return b.binary(Opcode::And, b.binary(Opcode::And, p, s), conj->operand(1 - pSide));
      }
      return nullptr;
    }
    case Opcode::Cmp: {
      std::optional<bool> r = decideByBounds(ir::CmpPred(inst->sub), x, y);
      if (!r || (!t.isTile() && splatConstant(x) && splatConstant(y))) return nullptr;  // constants: constant folding's
      ir::Constant* c = b.module().constBool(*r);
      return t.isTile() ? b.splat(c, t.shape) : static_cast<ir::Value*>(c);
    }
    case Opcode::Or:
      if (t.isBool() && (isAllFalse(y) || isAllTrue(x))) return x;
      if (t.isBool() && (isAllFalse(x) || isAllTrue(y))) return y;
      return nullptr;
    case Opcode::Select:
      if (isAllTrue(x)) return y;
      if (isAllFalse(x)) return inst->operand(2);
      if (y == inst->operand(2)) return y;
      // `m ? *p : o` is a load masked by m that yields o where m is false,
      // then a select of it by m with o: the select changes nothing. Without
      // this rule the select hides the load from the pre-fetching of loops.
      if (ir::Instruction* l = asInst(y, Opcode::Load)) {
        if (l->numOperands() == 3 && l->operand(1) == x && sameSplat(l->operand(2), inst->operand(2))) return l;
        // `m ? *p : -inf` from a load masked by m that yields another
        // constant (the Triton-C form of a masked load, which yields 0): the
        // load yields the select's constant instead, when nothing else reads it.
        ir::Constant* other = splatConstant(inst->operand(2));
        if (l->numOperands() == 3 && l->operand(1) == x && other && l->users().size() == 1 &&
            splatConstant(l->operand(2))) {
          ir::BasicBlock* bb = l->parent;
          b.setInsertPoint(bb, bb->indexOf(l));
          l->setOperand(2, t.isTile() ? b.splat(other, t.shape) : static_cast<ir::Value*>(other));
          b.setInsertPoint(inst->parent, inst->parent->indexOf(inst));
          return l;
        }
      }
      return nullptr;
    case Opcode::Gep: {
      if (isConstantValue(y, 0) && x->type() == t) return x;
      // gep(broadcast(gep(splat p, r)), k) is gep(splat p, broadcast(r) + k)
      // when r and k are tiles of one kind, i32 or i64: C's `A + rows * lda +
      // cols` as the Python form `A + (rows * lda + cols)` is written (and as
      // Triton combines its addptr chains). One address per access instead
      // of two 64-bit multiply-adds. The offsets then add in their own width,
      // as Triton's do: an element offset past that width needs wider ones.
      if (!t.isTile() || !y->type().isTile() || asInst(y, Opcode::Splat)) return nullptr;
      ir::Value* inner = x;
      while (ir::Instruction* bc = asInst(inner, Opcode::Broadcast)) inner = bc->operand(0);
      ir::Instruction* g = asInst(inner, Opcode::Gep);
      if (!g) return nullptr;
      ir::Instruction* s = asInst(g->operand(0), Opcode::Splat);
      ir::Value* r = g->operand(1);
      const ir::Scalar kind = y->type().kind;
      if (!s || s->operand(0)->type().isTile() || !r->type().isTile() || r->type().kind != kind ||
          (kind != ir::Scalar::I32 && kind != ir::Scalar::I64))
        return nullptr;
      if (r->type().shape != t.shape) r = b.broadcast(r, t.shape);
      return b.gep(b.splat(s->operand(0), t.shape), b.binary(Opcode::Add, r, y));
    }
    case Opcode::Load:
      // A mask that is all true is no mask.
      if (inst->numOperands() == 3 && isAllTrue(inst->operand(1))) {
        inst->removeOperand(2);
        inst->removeOperand(1);
        return inst;
      }
      return nullptr;
    case Opcode::Store:
    case Opcode::AtomicRmw:
      if (inst->numOperands() == 3 && isAllTrue(inst->operand(2))) {
        inst->removeOperand(2);
        return inst;
      }
      return nullptr;
    case Opcode::AtomicCas:
      if (inst->numOperands() == 4 && isAllTrue(inst->operand(3))) {
        inst->removeOperand(3);
        return inst;
      }
      return nullptr;
    default:
      return nullptr;
  }
}

}  // namespace

bool runPeephole(ir::Function& f) {
  bool changed = false;
  ir::Builder b(*f.parent());
  for (bool again = true; again;) {
    again = false;
    for (auto& bb : f.blocks()) {
      for (size_t idx = 0; idx < bb->instructions().size(); ++idx) {
        ir::Instruction* inst = bb->instructions()[idx].get();
        b.setInsertPoint(bb.get(), idx);
        b.setLoc(inst->loc);
        ir::Value* v = simplify(inst, b);
        if (!v) continue;
        if (v != inst) {
          if (v->valueKind() == ir::ValueKind::Instruction && v->name().empty()) v->setName(inst->name());
          inst->replaceAllUsesWith(v);
        }
        // New instructions went in before `inst`: find it again.
        idx = bb->indexOf(inst);
        changed = again = true;
        if (v != inst && inst->users().empty() && !inst->hasSideEffects()) {
          bb->erase(inst);
          --idx;
        }
      }
    }
  }
  return changed;
}

}  // namespace tritonc::transform
