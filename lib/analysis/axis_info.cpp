#include "analysis/axis_info.h"

#include <algorithm>
#include <numeric>

#include "ir/dominators.h"
#include "ir/printer.h"

namespace tritonc::analysis {

namespace {

using ir::Opcode;

int64_t pow2Factor(int64_t v) {
  if (v == 0) return kMaxDivisibility;
  uint64_t u = v < 0 ? 0 - uint64_t(v) : uint64_t(v);
  return std::min<int64_t>(int64_t(u & (~u + 1)), kMaxDivisibility);
}
int64_t gcd(int64_t a, int64_t b) { return std::gcd(a, b); }
size_t rankOf(const ir::Type& t) { return t.isTile() ? t.shape.size() : 1; }
int64_t dimOf(const ir::Type& t, size_t d) { return t.isTile() ? t.shape[d] : 1; }

// Nothing known: runs of one, divisible by one.
AxisInfo unknown(const ir::Type& t) {
  size_t r = rankOf(t);
  return AxisInfo{std::vector<int64_t>(r, 1), std::vector<int64_t>(r, 1), std::vector<int64_t>(r, 1)};
}
// A value equal everywhere, divisible by `div`.
AxisInfo uniform(const ir::Type& t, int64_t div) {
  AxisInfo a = unknown(t);
  for (size_t d = 0; d < rankOf(t); ++d) {
    a.divisibility[d] = div;
    a.constancy[d] = dimOf(t, d);
  }
  return a;
}
// Divisibility of every element (not only of the first of each run).
int64_t elementDiv(const AxisInfo& a, size_t d) { return a.contiguity[d] > 1 ? 1 : a.divisibility[d]; }

// What divides a's values at the first of every run of c values along d,
// for c dividing a's own runs (or a without runs): a's divisibility where
// its runs are c long; inside longer runs, only what also divides c steps
// (`step` per element: 1, or a pointer's element size).
int64_t divisibilityAt(const AxisInfo& a, size_t d, int64_t c, int64_t step) {
  if (a.contiguity[d] <= 1 || a.contiguity[d] == c) return a.divisibility[d];
  return gcd(a.divisibility[d], std::min(pow2Factor(c) * step, kMaxDivisibility));
}

// What divides the first value of every run of a slice [start, start + len)
// whose runs are c long, cut from source runs of a.contiguity[d] that start
// at multiples of a.divisibility[d]: a slice run starts (start mod C) + j*c
// into its source run, for each j below len / c.
int64_t sliceRunStartDivisibility(const AxisInfo& a, size_t d, int64_t c, int64_t start, int64_t len, int64_t step) {
  const int64_t C = a.contiguity[d];
  if (C <= 1 || c < 1 || C % c != 0) return divisibilityAt(a, d, c, step);
  int64_t offsets = start % C;
  if (len > c) offsets = gcd(offsets, c);
  if (offsets == 0) return a.divisibility[d];
  return gcd(a.divisibility[d], std::min(offsets * step, kMaxDivisibility));
}

bool isIntOrPtr(const ir::Type& t) { return t.isInt() || t.isPtr(); }

}  // namespace

AxisInfoAnalysis::AxisInfoAnalysis(const ir::Function& f) {
  for (auto& a : f.arguments()) {
    const ir::Type& t = a->type();
    int64_t div = 1;
    if (t.isPtr() && a->attrs.aligned) div = pow2Factor(a->attrs.aligned);
    if (!t.isPtr() && a->attrs.multipleOf) div = pow2Factor(a->attrs.multipleOf);
    info_[a.get()] = uniform(t, div);
    info_[a.get()].nonNegative = t.isInt() && a->attrs.nonNegative;
  }
  // Iterate to a fixed point: phis start optimistic (absent = top) and only
  // go down; every other rule is monotone.
  ir::DominatorTree dom(f);
  for (int iter = 0; iter < 64; ++iter) {
    bool changed = false;
    for (const ir::BasicBlock* bb : dom.reversePostOrder())
      for (auto& inst : bb->instructions()) {
        if (inst->type().isVoid()) continue;
        AxisInfo a = compute(*inst);
        auto it = info_.find(inst.get());
        if (it == info_.end() || !(it->second == a)) {
          info_[inst.get()] = a;
          changed = true;
        }
      }
    if (!changed) break;
  }
}

AxisInfo AxisInfoAnalysis::get(const ir::Value* v) const {
  auto it = info_.find(v);
  if (it != info_.end()) return it->second;
  if (v->valueKind() == ir::ValueKind::Constant) {
    auto* c = static_cast<const ir::Constant*>(v);
    AxisInfo a = uniform(v->type(), c->type().isInt() ? pow2Factor(c->i) : 1);
    a.nonNegative = c->type().isInt() && c->i >= 0;
    return a;
  }
  return unknown(v->type());
}

AxisInfo AxisInfoAnalysis::compute(const ir::Instruction& i) const {
  AxisInfo out = computeRuns(i);
  out.nonNegative = nonNegative(i);
  return out;
}

bool AxisInfoAnalysis::nonNegative(const ir::Instruction& i) const {
  if (!i.type().isInt()) return false;
  auto nn = [&](size_t k) { return get(i.operand(k)).nonNegative; };
  switch (i.opcode()) {
    case Opcode::Range: return i.imm >= 0;
    case Opcode::ProgramId:
    case Opcode::NumPrograms:
    case Opcode::ArgSort: return true;  // positions
    case Opcode::Splat:
    case Opcode::Broadcast:
    case Opcode::Reshape:
    case Opcode::Trans:
    case Opcode::ConvertLayout:
    case Opcode::MultipleOf:
    case Opcode::MaxContiguous:
    case Opcode::ExtractSlice:
    case Opcode::Gather:  // picks elements of its source
    case Opcode::Sort:    // permutes them
    case Opcode::Rem:  // C's remainder has the dividend's sign
      return nn(0);
    case Opcode::Cast:  // sign extension keeps the sign
      return i.operand(0)->type().isInt() && ir::bitWidth(i.type().kind) >= ir::bitWidth(i.operand(0)->type().kind) &&
             nn(0);
    case Opcode::Div: {
      // A non-negative dividend over a divisor of unknown sign is taken as
      // non-negative, as in Triton (whose analysis ignores signs): index
      // arithmetic divides by counts (group sizes, `min(n - first, G)` in
      // grouped program orders) that a working kernel keeps positive. A
      // divisor known to be negative is not assumed away.
      const ir::Value* d = i.operand(1);
      if (d->valueKind() == ir::ValueKind::Constant && static_cast<const ir::Constant*>(d)->i < 0) return false;
      return nn(0);
    }
    case Opcode::Add:
    case Opcode::Mul:
    case Opcode::Min: return nn(0) && nn(1);
    case Opcode::Max:
    case Opcode::And: return nn(0) || nn(1);
    case Opcode::Phi:
    case Opcode::Select: {
      bool any = false;
      for (size_t k = i.opcode() == Opcode::Select ? 1 : 0; k < i.numOperands(); ++k) {
        const ir::Value* v = i.operand(k);
        if (v->valueKind() == ir::ValueKind::Instruction && !info_.count(v)) continue;  // not computed yet
        if (!get(v).nonNegative) return false;
        any = true;
      }
      return any;
    }
    default: return false;
  }
}

AxisInfo AxisInfoAnalysis::computeRuns(const ir::Instruction& i) const {
  const ir::Type& t = i.type();
  size_t r = rankOf(t);
  AxisInfo out = unknown(t);
  auto op = [&](size_t k) { return get(i.operand(k)); };
  switch (i.opcode()) {
    case Opcode::Range:
      out.contiguity[0] = t.shape[0];
      out.divisibility[0] = pow2Factor(i.imm);
      return out;
    case Opcode::Splat: return uniform(t, get(i.operand(0)).divisibility[0]);
    case Opcode::MultipleOf: {
      // Triton's promise: the first value of every run (of every value where
      // there are no runs) is a multiple of the divisor; of a pointer, the
      // byte address. Runs stay as they are. On a tile of two or more
      // dimensions, only along those with runs or constant stretches:
      // `tl.multiple_of(ptrs, [16, 16])` on rows of pointers says nothing of
      // the elements down a column (the interpreter checks it so).
      AxisInfo a = op(0);
      int64_t p = pow2Factor(i.imm);
      for (size_t d = 0; d < r; ++d)
        if (r == 1 || a.contiguity[d] > 1 || a.constancy[d] > 1) a.divisibility[d] = std::max(a.divisibility[d], p);
      return a;
    }
    case Opcode::MaxContiguous: {
      // The promise of runs of n consecutive values along the axis (at most
      // the dimension): `max_contiguous(multiple_of(x, 64), 64)` over an
      // index that `where` clamps at the edge. What the analysis proved
      // constant there stays so (the promise cannot hold).
      AxisInfo a = op(0);
      size_t d = i.sub;
      if (d < r && a.constancy[d] <= 1)
        a.contiguity[d] = std::max(a.contiguity[d], std::min(pow2Factor(i.imm), dimOf(t, d)));
      return a;
    }
    case Opcode::Add:
    case Opcode::Sub:
    case Opcode::Gep: {
      if (!isIntOrPtr(t)) return out;
      AxisInfo a = op(0), b = op(1);
      int64_t scale = i.opcode() == Opcode::Gep ? ir::byteSize(t.pointee) : 1;
      for (size_t d = 0; d < r; ++d) {
        // a + b is consecutive where one side is and the other is constant;
        // a - b only where a is (b constant).
        int64_t c1 = gcd(a.contiguity[d], b.constancy[d]);
        int64_t c2 = i.opcode() == Opcode::Sub ? 1 : gcd(b.contiguity[d], a.constancy[d]);
        out.contiguity[d] = std::max(c1, c2);
        out.constancy[d] = gcd(a.constancy[d], b.constancy[d]);
        int64_t da = divisibilityAt(a, d, out.contiguity[d], i.opcode() == Opcode::Gep ? scale : 1);
        int64_t db = divisibilityAt(b, d, out.contiguity[d], 1);
        out.divisibility[d] = std::min(gcd(da, std::min(db * scale, kMaxDivisibility)), kMaxDivisibility);
      }
      return out;
    }
    case Opcode::Mul: {
      if (!t.isInt()) return out;
      AxisInfo a = op(0), b = op(1);
      for (size_t d = 0; d < r; ++d) {
        out.constancy[d] = gcd(a.constancy[d], b.constancy[d]);
        out.divisibility[d] = std::min(elementDiv(a, d) * elementDiv(b, d), kMaxDivisibility);
      }
      return out;
    }
    case Opcode::Div:
    case Opcode::Rem: {
      // a / b and a % b for a >= 0 and b constant over runs: within a run of
      // consecutive a whose start and length are multiples of a power of two
      // g that divides b, a / b is constant and a % b consecutive (starting
      // at a multiple of g). Negative dividends round toward zero and break
      // the runs.
      if (!t.isInt()) return out;
      AxisInfo a = op(0), b = op(1);
      for (size_t d = 0; d < r; ++d) {
        out.constancy[d] = gcd(a.constancy[d], b.constancy[d]);
        if (!a.nonNegative || a.contiguity[d] <= 1 || b.constancy[d] <= 1) continue;
        int64_t g = std::min({a.contiguity[d], b.constancy[d], gcd(a.divisibility[d], elementDiv(b, d))});
        if (g <= 1) continue;
        if (i.opcode() == Opcode::Div) {
          out.constancy[d] = std::max(out.constancy[d], g);
        } else {
          out.contiguity[d] = g;
          out.divisibility[d] = g;
        }
      }
      if (i.opcode() == Opcode::Rem)  // constant runs: every value a multiple of gcd(a, b)'s factors
        for (size_t d = 0; d < r; ++d)
          if (out.contiguity[d] <= 1) out.divisibility[d] = gcd(elementDiv(a, d), elementDiv(b, d));
      return out;
    }
    case Opcode::Neg: {
      // -x is a multiple of whatever x is (block pointers' lower bounds,
      // `offs >= -off`, would otherwise lose the mask's constancy).
      if (!t.isInt()) return out;
      AxisInfo a = op(0);
      for (size_t d = 0; d < r; ++d) {
        out.constancy[d] = a.constancy[d];
        out.divisibility[d] = elementDiv(a, d);
      }
      return out;
    }
    case Opcode::Max:
    case Opcode::Min: {
      // Each element is one of the two: what both promise.
      if (!t.isInt()) return out;
      AxisInfo a = op(0), b = op(1);
      for (size_t d = 0; d < r; ++d) {
        out.constancy[d] = gcd(a.constancy[d], b.constancy[d]);
        out.divisibility[d] = gcd(elementDiv(a, d), elementDiv(b, d));
      }
      return out;
    }
    case Opcode::Shl: {
      if (!t.isInt()) return out;
      AxisInfo a = op(0);
      const ir::Value* s = i.operand(1);
      for (size_t d = 0; d < r; ++d) out.constancy[d] = gcd(a.constancy[d], get(s).constancy[d]);
      if (s->valueKind() == ir::ValueKind::Constant) {
        int64_t k = static_cast<const ir::Constant*>(s)->i;
        if (k >= 0 && k < 30)
          for (size_t d = 0; d < r; ++d) out.divisibility[d] = std::min(elementDiv(a, d) << k, kMaxDivisibility);
      }
      return out;
    }
    case Opcode::Broadcast: {
      AxisInfo a = op(0);
      const ir::Shape& from = i.operand(0)->type().shape;
      for (size_t d = 0; d < r; ++d) {
        if (from[d] == t.shape[d]) {
          out.contiguity[d] = a.contiguity[d];
          out.divisibility[d] = a.divisibility[d];
          out.constancy[d] = a.constancy[d];
        } else {  // a size-1 dimension replicated
          out.divisibility[d] = a.divisibility[d];
          out.constancy[d] = t.shape[d];
        }
      }
      return out;
    }
    case Opcode::Reshape: {
      // Only reshapes that add or remove size-1 dimensions keep what is known.
      AxisInfo a = op(0);
      const ir::Shape& from = i.operand(0)->type().shape;
      std::vector<size_t> srcDims, dstDims;
      for (size_t d = 0; d < from.size(); ++d)
        if (from[d] != 1) srcDims.push_back(d);
      for (size_t d = 0; d < t.shape.size(); ++d)
        if (t.shape[d] != 1) dstDims.push_back(d);
      bool sameNonUnit = srcDims.size() == dstDims.size();
      for (size_t k = 0; sameNonUnit && k < srcDims.size(); ++k)
        sameNonUnit = from[srcDims[k]] == t.shape[dstDims[k]];
      if (!sameNonUnit) return out;
      // Along a new size-1 dimension every element starts its own run.
      int64_t everyElement = kMaxDivisibility;
      for (size_t d = 0; d < a.divisibility.size(); ++d) everyElement = std::min(everyElement, elementDiv(a, d));
      for (size_t d = 0; d < r; ++d) out.divisibility[d] = everyElement, out.constancy[d] = 1;
      for (size_t k = 0; k < srcDims.size(); ++k) {
        out.contiguity[dstDims[k]] = a.contiguity[srcDims[k]];
        out.divisibility[dstDims[k]] = a.divisibility[srcDims[k]];
        out.constancy[dstDims[k]] = a.constancy[srcDims[k]];
      }
      return out;
    }
    case Opcode::ExtractSlice: {
      // Runs and constant stretches stay where the slice's start and length
      // keep them aligned; the first value of a run is then an old one.
      AxisInfo a = op(0);
      const size_t axis = i.sub;
      if (axis >= r) return out;
      const int64_t align = gcd(pow2Factor(i.imm), pow2Factor(t.shape[axis]));
      const int64_t step = t.isPtr() ? ir::byteSize(t.pointee) : 1;
      const int64_t c = std::min(a.contiguity[axis], align);
      a.divisibility[axis] = sliceRunStartDivisibility(a, axis, c, i.imm, t.shape[axis], step);
      a.contiguity[axis] = c;
      a.constancy[axis] = std::min(a.constancy[axis], align);
      return a;
    }
    case Opcode::Trans: {
      AxisInfo a = op(0);
      const std::vector<int> perm = ir::transPermutation(i);
      if (perm.size() != r) return out;
      for (size_t d = 0; d < r; ++d) {
        out.contiguity[d] = a.contiguity[size_t(perm[d])];
        out.divisibility[d] = a.divisibility[size_t(perm[d])];
        out.constancy[d] = a.constancy[size_t(perm[d])];
      }
      return out;
    }
    case Opcode::ConvertLayout:  // the same values, held by other threads
      return op(0);
    case Opcode::Cast:
      if (t.isInt() && i.operand(0)->type().isInt() && ir::bitWidth(t.kind) >= ir::bitWidth(i.operand(0)->type().kind))
        return op(0);
      return out;
    case Opcode::Select:
    case Opcode::Phi: {
      // The meet of the incoming facts; incoming values not computed yet (the
      // loop's back edge on the first pass) do not constrain.
      // The runs first, then what divides every input at their starts (a
      // run of 64 met with a constant keeps no multiple of 64 in its middle).
      std::vector<AxisInfo> in;
      size_t first = i.opcode() == Opcode::Select ? 1 : 0;
      for (size_t k = first; k < i.numOperands(); ++k) {
        const ir::Value* v = i.operand(k);
        if (v->valueKind() == ir::ValueKind::Instruction && !info_.count(v)) continue;
        in.push_back(get(v));
      }
      if (in.empty()) return unknown(t);
      out = in[0];
      for (const AxisInfo& a : in)
        for (size_t d = 0; d < r; ++d) {
          out.contiguity[d] = gcd(out.contiguity[d], a.contiguity[d]);
          out.constancy[d] = gcd(out.constancy[d], a.constancy[d]);
        }
      if (i.opcode() == Opcode::Select && i.operand(0)->type().isTile()) {
        AxisInfo c = op(0);
        for (size_t d = 0; d < r; ++d) {
          out.contiguity[d] = gcd(out.contiguity[d], c.constancy[d]);
          out.constancy[d] = gcd(out.constancy[d], c.constancy[d]);
        }
      }
      const int64_t step = t.isPtr() ? ir::byteSize(t.pointee) : 1;
      for (size_t d = 0; d < r; ++d) {
        out.divisibility[d] = kMaxDivisibility;
        for (const AxisInfo& a : in)
          out.divisibility[d] = gcd(out.divisibility[d], divisibilityAt(a, d, out.contiguity[d], step));
      }
      return out;
    }
    case Opcode::Cmp: {
      // x < y and x >= y, with x consecutive values whose runs start on
      // multiples of a power of two p that also divides y (constant over those
      // runs): a run [kp, kp+p) lies wholly below y = mp or wholly at or above
      // it, so the result is constant over runs of p. Not so for x > y and
      // x <= y: the run starting at y itself splits after its first element
      // (`i > 0` over i = 0, 1, 2, 3 is false, true, true, true). Mirrored,
      // y > x and y <= x are the constant ones.
      AxisInfo a = op(0), b = op(1);
      auto pred = ir::CmpPred(i.sub);
      using P = ir::CmpPred;
      const bool leftRuns = pred == P::Lt || pred == P::Ge || pred == P::Ult || pred == P::Uge;
      const bool rightRuns = pred == P::Gt || pred == P::Le || pred == P::Ugt || pred == P::Ule;
      for (size_t d = 0; d < r; ++d) {
        int64_t c = gcd(a.constancy[d], b.constancy[d]);
        if (leftRuns && a.contiguity[d] > 1 && b.constancy[d] > 1)
          c = std::max(c, std::min({a.contiguity[d], b.constancy[d], gcd(a.divisibility[d], elementDiv(b, d))}));
        if (rightRuns && b.contiguity[d] > 1 && a.constancy[d] > 1)
          c = std::max(c, std::min({b.contiguity[d], a.constancy[d], gcd(b.divisibility[d], elementDiv(a, d))}));
        out.constancy[d] = c;
      }
      return out;
    }
    default: {
      // Element-wise results are at least as constant as all their operands.
      // (Only unary and binary operations: the GPU IR's own instructions,
      // such as mem_index, take operands of other ranks.)
      ir::OpCategory cat = ir::opcodeCategory(i.opcode());
      bool elementwise = cat == ir::OpCategory::Unary || cat == ir::OpCategory::Binary;
      if (elementwise && i.numOperands() > 0) {
        for (size_t d = 0; d < r; ++d) {
          int64_t c = dimOf(t, d);
          for (ir::Value* v : i.operands()) {
            AxisInfo a = get(v);
            c = a.constancy.size() == r ? gcd(c, a.constancy[d]) : 1;
          }
          out.constancy[d] = c;
        }
      }
      return out;
    }
  }
}

int64_t AxisInfoAnalysis::vectorWidth(const ir::Value* ptr, int64_t maxBytes, size_t* dim) const {
  const ir::Type& t = ptr->type();
  if (dim) *dim = 0;
  if (!t.isPtr() || !t.isTile()) return 1;
  AxisInfo a = get(ptr);
  int64_t elem = ir::byteSize(t.pointee);
  int64_t best = 1;
  // The most contiguous dimension wins (the back end orders threads along it).
  for (size_t d = 0; d < t.shape.size(); ++d) {
    int64_t v = std::min<int64_t>(a.contiguity[d], maxBytes / elem);
    // Every vector must start on a multiple of its size in bytes.
    while (v > 1 && (a.divisibility[d] % (v * elem)) != 0) v /= 2;
    if (v > best) {
      best = v;
      if (dim) *dim = d;
    }
  }
  return best;
}

std::string printAxisInfo(const ir::Function& f) {
  AxisInfoAnalysis ax(f);
  auto list = [](const std::vector<int64_t>& v) {
    std::string s = "[";
    for (size_t k = 0; k < v.size(); ++k) s += (k ? ", " : "") + std::to_string(v[k]);
    return s + "]";
  };
  std::string out = "; axis info of @" + f.name() + "\n";
  for (auto& a : f.arguments())
    if (isIntOrPtr(a->type())) {
      AxisInfo i = ax.get(a.get());
      out += ";   %" + a->name() + ": divisibility=" + list(i.divisibility) + "\n";
    }
  for (auto& bb : f.blocks()) {
    out += bb->name() + ":\n";
    for (auto& inst : bb->instructions()) {
      out += "  " + ir::printInstruction(*inst);
      const ir::Type& t = inst->type();
      if (isIntOrPtr(t)) {
        AxisInfo i = ax.get(inst.get());
        out += "  ; contiguity=" + list(i.contiguity) + " divisibility=" + list(i.divisibility) +
               " constancy=" + list(i.constancy) + (i.nonNegative ? " nonneg" : "");
      }
      if (inst->opcode() == Opcode::Load || inst->opcode() == Opcode::Store) {
        size_t dim = 0;
        int64_t w = ax.vectorWidth(inst->operand(0), 16, &dim);
        out += "  ; vector width " + std::to_string(w);
        if (w > 1) out += " along dimension " + std::to_string(dim);
      }
      out += "\n";
    }
  }
  return out;
}

}  // namespace tritonc::analysis
