#include "analysis/tensor_view.h"

#include <algorithm>
#include <set>

namespace tritonc::analysis {

namespace {

using ir::Opcode;

const char kIndexMarks[2] = {0, 0};
const char kIterationMark = 0;

}  // namespace

Atom indexAtom(int dim) { return &kIndexMarks[dim]; }
Atom iterationAtom() { return &kIterationMark; }

Poly Poly::constant(int64_t c) {
  Poly p;
  if (c) p.terms[{}] = c;
  return p;
}
Poly Poly::atom(Atom a) {
  Poly p;
  p.terms[{a}] = 1;
  return p;
}
Poly Poly::operator+(const Poly& o) const {
  Poly r = *this;
  for (auto& [m, c] : o.terms)
    if ((r.terms[m] += c) == 0) r.terms.erase(m);
  return r;
}
Poly Poly::operator-(const Poly& o) const { return *this + o * constant(-1); }
Poly Poly::operator*(const Poly& o) const {
  Poly r;
  for (auto& [m1, c1] : terms)
    for (auto& [m2, c2] : o.terms) {
      std::vector<Atom> m = m1;
      m.insert(m.end(), m2.begin(), m2.end());
      std::sort(m.begin(), m.end());
      if ((r.terms[m] += c1 * c2) == 0) r.terms.erase(m);
    }
  return r;
}
bool Poly::contains(Atom a) const {
  for (auto& [m, c] : terms)
    if (std::find(m.begin(), m.end(), a) != m.end()) return true;
  return false;
}
bool Poly::isConstant() const { return terms.empty() || (terms.size() == 1 && terms.begin()->first.empty()); }
int64_t Poly::constantTerm() const {
  auto it = terms.find({});
  return it == terms.end() ? 0 : it->second;
}

namespace {

// Polynomials of the values feeding one copy. Pointers carry their base
// argument as an atom of coefficient 1 (offsets count elements).
class Forms {
 public:
  explicit Forms(const ir::DominatorTree& dom) : dom_(dom) {}

  std::optional<Poly> of(const ir::Value* v) {
    if (auto it = memo_.find(v); it != memo_.end()) return it->second;
    std::optional<Poly> p = compute(v);
    memo_[v] = p;
    return p;
  }
  const ir::BasicBlock* loop() const { return loop_; }
  std::string why;

 private:
  std::optional<Poly> fail(const std::string& w) {
    if (why.empty()) why = w;
    return std::nullopt;
  }

  std::optional<Poly> compute(const ir::Value* v) {
    const ir::Type& t = v->type();
    if (v->valueKind() == ir::ValueKind::Constant) {
      if (!t.isInt()) return fail("a non-integer constant in an address");
      return Poly::constant(static_cast<const ir::Constant*>(v)->i);
    }
    if (v->valueKind() == ir::ValueKind::Argument) {
      if (t.isTile()) return fail("a tile argument");
      return Poly::atom(v);
    }
    auto* i = static_cast<const ir::Instruction*>(v);
    switch (i->opcode()) {
      case Opcode::Add: case Opcode::Sub: case Opcode::Mul: {
        auto a = of(i->operand(0)), b = of(i->operand(1));
        if (!a || !b) return std::nullopt;
        return i->opcode() == Opcode::Add ? *a + *b : i->opcode() == Opcode::Sub ? *a - *b : *a * *b;
      }
      case Opcode::Neg: {
        auto a = of(i->operand(0));
        if (!a) return std::nullopt;
        return Poly::constant(0) - *a;
      }
      case Opcode::Gep: {
        auto a = of(i->operand(0)), b = of(i->operand(1));
        if (!a || !b) return std::nullopt;
        return *a + *b;
      }
      case Opcode::Splat: case Opcode::Broadcast: case Opcode::MultipleOf: case Opcode::MaxContiguous:
        return of(i->operand(0));
      case Opcode::Cast:
        // Integer widening and narrowing of offsets (assumed not to overflow,
        // as the axis analysis assumes).
        if (!t.isInt() || !i->operand(0)->type().isInt()) return fail("a cast in an address");
        return of(i->operand(0));
      case Opcode::Reshape: {
        auto a = of(i->operand(0));
        if (!a) return std::nullopt;
        return reshaped(*a, i->operand(0)->type().shape, t.shape);
      }
      case Opcode::Range:
        if (t.shape.size() != 1) return fail("a range of rank other than 1");
        return Poly::constant(i->imm) + Poly::atom(indexAtom(0));
      case Opcode::Phi:
        return induction(i);
      default:
        if (t.isTile()) return fail(std::string("'") + ir::opcodeName(i->opcode()) + "' computes an address tile");
        return Poly::atom(v);  // a scalar: opaque
    }
  }

  // Index atoms renamed across a reshape that only adds or drops dimensions of 1.
  std::optional<Poly> reshaped(const Poly& p, const ir::Shape& from, const ir::Shape& to) {
    std::vector<int> fromDims, toDims;
    for (size_t d = 0; d < from.size(); ++d)
      if (from[d] != 1) fromDims.push_back(int(d));
    for (size_t d = 0; d < to.size(); ++d)
      if (to[d] != 1) toDims.push_back(int(d));
    if (fromDims.size() != toDims.size() || to.size() > 2) return fail("a reshape that moves elements");
    std::map<Atom, Atom> rename;
    for (size_t k = 0; k < fromDims.size(); ++k) {
      if (from[size_t(fromDims[k])] != to[size_t(toDims[k])]) return fail("a reshape that moves elements");
      rename[indexAtom(fromDims[k])] = indexAtom(toDims[k]);
    }
    Poly r;
    for (auto& [m, c] : p.terms) {
      std::vector<Atom> n;
      for (Atom a : m) {
        bool isIndex = a == indexAtom(0) || a == indexAtom(1);
        if (isIndex && !rename.count(a)) return fail("a reshape of an index");
        n.push_back(isIndex ? rename[a] : a);
      }
      std::sort(n.begin(), n.end());
      r.terms[n] += c;
    }
    return r;
  }

  // phi(init from before the loop, next from its latch): init + iteration * step
  // where next - phi is the same step on every iteration.
  std::optional<Poly> induction(const ir::Instruction* phi) {
    const ir::BasicBlock* header = phi->parent;
    if (phi->numOperands() != 2) return opaque(phi, "a phi that is not a loop's induction");
    int back = -1;
    for (int k = 0; k < 2; ++k)
      if (dom_.dominates(header, phi->blocks[size_t(k)])) back = k;
    if (back < 0 || dom_.dominates(header, phi->blocks[size_t(1 - back)]))
      return opaque(phi, "a phi that is not a loop's induction");
    if (loop_ && loop_ != header) return fail("inductions of two loops");
    memo_[phi] = Poly::atom(phi);  // while its step is computed
    auto init = of(phi->operand(size_t(1 - back)));
    auto next = of(phi->operand(size_t(back)));
    memo_.erase(phi);
    if (!init || !next) return std::nullopt;
    Poly step = *next - Poly::atom(phi);
    if (step.contains(phi) || step.contains(iterationAtom()) || step.contains(indexAtom(0)) ||
        step.contains(indexAtom(1)) || init->contains(iterationAtom()))
      return opaque(phi, "a phi whose step changes from iteration to iteration");
    for (auto& [m, c] : step.terms)
      for (Atom a : m)
        if (!invariant(a, header)) return opaque(phi, "a phi whose step is computed in its loop");
    loop_ = header;
    return *init + Poly::atom(iterationAtom()) * step;
  }

  // A scalar phi that is no induction stays an opaque scalar; a tile fails.
  std::optional<Poly> opaque(const ir::Instruction* phi, const std::string& w) {
    if (phi->type().isTile()) return fail(w);
    return Poly::atom(phi);
  }

  bool invariant(Atom a, const ir::BasicBlock* header) {
    auto* v = static_cast<const ir::Value*>(a);
    if (a == indexAtom(0) || a == indexAtom(1) || a == iterationAtom()) return false;
    if (v->valueKind() != ir::ValueKind::Instruction) return true;
    const ir::BasicBlock* bb = static_cast<const ir::Instruction*>(v)->parent;
    return bb != header && !dom_.dominates(header, bb);
  }

  const ir::DominatorTree& dom_;
  std::map<const ir::Value*, std::optional<Poly>> memo_;
  const ir::BasicBlock* loop_ = nullptr;
};

bool isIndex(Atom a) { return a == indexAtom(0) || a == indexAtom(1); }

// A host-known extent: an i32 argument or a constant.
bool hostExtent(const Poly& p, const ir::Value** arg, int64_t* c) {
  if (p.isConstant()) {
    *arg = nullptr;
    *c = p.constantTerm();
    return true;
  }
  if (p.terms.size() != 1) return false;
  auto& [m, coef] = *p.terms.begin();
  if (m.size() != 1 || coef != 1 || isIndex(m[0]) || m[0] == iterationAtom()) return false;
  auto* v = static_cast<const ir::Value*>(m[0]);
  if (v->valueKind() != ir::ValueKind::Argument || v->type().kind != ir::Scalar::I32) return false;
  *arg = v;
  return true;
}

class MaskReader {
 public:
  MaskReader(Forms& forms, TensorView& view) : forms_(forms), view_(view) {}
  std::string why;

  // Walks the conjunction `v` (dimension d of v is dimension dims[d] of the tile).
  bool read(const ir::Value* v, std::vector<int> dims) {
    if (v->valueKind() == ir::ValueKind::Constant) {
      if (static_cast<const ir::Constant*>(v)->i) return true;
      return fail("a mask that is false");
    }
    if (v->valueKind() != ir::ValueKind::Instruction) return fail("a mask argument");
    auto* i = static_cast<const ir::Instruction*>(v);
    switch (i->opcode()) {
      case Opcode::And:
        if (!v->type().isTile()) break;
        return read(i->operand(0), dims) && read(i->operand(1), dims);
      case Opcode::Broadcast:
        return read(i->operand(0), dims);
      case Opcode::Splat:
        if (i->operand(0)->type().isTile()) return fail("a splat of a tile");
        (i->sub == ir::kSplatIterationGuard ? view_.guards : view_.predicates).push_back(const_cast<ir::Value*>(i->operand(0)));
        return true;
      case Opcode::Reshape: {
        const ir::Shape& from = i->operand(0)->type().shape;
        const ir::Shape& to = v->type().shape;
        std::vector<int> toDims, fromDims;
        for (size_t d = 0; d < to.size(); ++d)
          if (to[d] != 1) toDims.push_back(dims[d]);
        for (size_t d = 0; d < from.size(); ++d)
          if (from[d] != 1) fromDims.push_back(int(d));
        if (toDims.size() != fromDims.size()) return fail("a reshape in the mask");
        std::vector<int> inner(from.size(), -1);
        for (size_t k = 0; k < fromDims.size(); ++k) inner[size_t(fromDims[k])] = toDims[k];
        return read(i->operand(0), inner);
      }
      case Opcode::Cmp:
        return compare(*i, dims);
      default:
        break;
    }
    if (!v->type().isTile()) {
      view_.predicates.push_back(const_cast<ir::Value*>(v));
      return true;
    }
    return fail(std::string("'") + ir::opcodeName(i->opcode()) + "' in the mask");
  }

 private:
  bool fail(const std::string& w) {
    if (why.empty()) why = w;
    return false;
  }

  // Index atoms of the compared tiles renamed to the tile's dimensions.
  std::optional<Poly> renamed(const Poly& p, const std::vector<int>& dims) {
    Poly r;
    for (auto& [m, c] : p.terms) {
      std::vector<Atom> n;
      for (Atom a : m) {
        if (isIndex(a)) {
          int d = a == indexAtom(0) ? 0 : 1;
          if (size_t(d) >= dims.size() || dims[size_t(d)] < 0) return std::nullopt;
          a = indexAtom(dims[size_t(d)]);
        }
        n.push_back(a);
      }
      std::sort(n.begin(), n.end());
      r.terms[n] += c;
    }
    return r;
  }

  bool compare(const ir::Instruction& c, const std::vector<int>& dims) {
    auto a = forms_.of(c.operand(0)), b = forms_.of(c.operand(1));
    if (!a || !b) return fail("a mask compare: " + forms_.why);
    auto ra = renamed(*a, dims), rb = renamed(*b, dims);
    if (!ra || !rb) return fail("a mask compare across dimensions");
    // lo < hi  <=>  hi - lo > 0
    Poly e;
    switch (ir::CmpPred(c.sub)) {
      case ir::CmpPred::Lt: e = *rb - *ra; break;
      case ir::CmpPred::Le: e = *rb - *ra + Poly::constant(1); break;
      case ir::CmpPred::Gt: e = *ra - *rb; break;
      case ir::CmpPred::Ge: e = *ra - *rb + Poly::constant(1); break;
      default: return fail("an equality in the mask");
    }
    int dim = -1;
    for (int d = 0; d < 2; ++d)
      if (e.contains(indexAtom(d))) dim = dim < 0 ? d : 2;
    if (dim < 0 || dim == 2) return fail("a mask compare that is not along one dimension");
    bool fast = dim == view_.fastDim;
    Poly coord = (fast ? view_.col : view_.row) + Poly::atom(indexAtom(dim));
    // e = bound - coord (an upper bound) or e = coord + 1 (coord >= 0).
    Poly bound = e + coord;
    if (!bound.contains(indexAtom(dim)) && !bound.contains(iterationAtom())) {
      const ir::Value* arg = nullptr;
      int64_t k = 0;
      if (!hostExtent(bound, &arg, &k))
        return fail("a mask bound that the host does not know (neither an i32 argument nor a constant)");
      const ir::Value*& have = fast ? view_.colsArg : view_.rowsArg;
      int64_t& haveConst = fast ? view_.colsConst : view_.rowsConst;
      bool set = have || haveConst != kUnbounded;
      if (set && (have != arg || (!arg && haveConst != k))) return fail("two different bounds on one dimension");
      have = arg;
      haveConst = arg ? 0 : k;
      return true;
    }
    if (e - coord == Poly::constant(1)) return true;  // coord >= 0: TMA reads nothing below 0
    return fail("a mask compare that is not a bound of the coordinates");
  }

  Forms& forms_;
  TensorView& view_;
};

}  // namespace

std::optional<TensorView> tensorView(const ir::Value* ptr, const ir::Value* mask, const ir::DominatorTree& dom,
                                     std::string* whyNot) {
  auto no = [&](const std::string& w) -> std::optional<TensorView> {
    if (whyNot) *whyNot = w;
    return std::nullopt;
  };
  const ir::Type& t = ptr->type();
  if (!t.isPtr() || t.shape.size() != 2 || t.shape[0] < 2 || t.shape[1] < 2) return no("not a 2-D tile of pointers");
  Forms forms(dom);
  auto p = forms.of(ptr);
  if (!p) return no(forms.why);
  TensorView view;
  view.rowsConst = view.colsConst = kUnbounded;
  // The base: one pointer argument of coefficient 1.
  Poly offset;
  for (auto& [m, c] : p->terms) {
    bool pointer = false;
    for (Atom a : m)
      if (!isIndex(a) && a != iterationAtom() && static_cast<const ir::Value*>(a)->type().isPtr()) pointer = true;
    if (!pointer) {
      offset.terms[m] = c;
      continue;
    }
    auto* b = static_cast<const ir::Value*>(m[0]);
    if (view.base || m.size() != 1 || c != 1 || b->valueKind() != ir::ValueKind::Argument)
      return no("the address is not an argument pointer plus offsets");
    view.base = static_cast<const ir::Argument*>(b);
  }
  if (!view.base) return no("the address is not an argument pointer plus offsets");
  // The fast dimension: index coefficient 1; the other: the leading stride.
  view.fastDim = offset.terms.count({indexAtom(1)}) && offset.terms.at({indexAtom(1)}) == 1 ? 1
               : offset.terms.count({indexAtom(0)}) && offset.terms.at({indexAtom(0)}) == 1 ? 0 : -1;
  if (view.fastDim < 0) return no("no dimension along which the elements are contiguous");
  Atom fastIndex = indexAtom(view.fastDim), outerIndex = indexAtom(1 - view.fastDim);
  Poly rest;
  for (auto& [m, c] : offset.terms) {
    bool hasFast = std::count(m.begin(), m.end(), fastIndex) > 0;
    bool hasOuter = std::count(m.begin(), m.end(), outerIndex) > 0;
    if (hasFast && (m.size() != 1 || c != 1)) return no("the fast index is scaled");
    if (hasFast) continue;
    if (hasOuter) {
      if (view.ld || m.size() != 2 || c != 1) return no("the rows are not one argument apart");
      auto* ld = static_cast<const ir::Value*>(m[0] == outerIndex ? m[1] : m[0]);
      if (ld->valueKind() != ir::ValueKind::Argument || ld->type().kind != ir::Scalar::I32)
        return no("the rows are not one argument apart");
      view.ld = static_cast<const ir::Argument*>(ld);
      continue;
    }
    rest.terms[m] = c;
  }
  if (!view.ld) return no("the rows are not one argument apart");
  // Element (0, 0): terms with the stride as a factor give its row.
  for (auto& [m, c] : rest.terms) {
    auto at = std::find(m.begin(), m.end(), static_cast<Atom>(view.ld));
    if (at == m.end()) {
      view.col.terms[m] = c;
      continue;
    }
    std::vector<Atom> r = m;
    r.erase(r.begin() + (at - m.begin()));
    if (std::count(r.begin(), r.end(), static_cast<Atom>(view.ld))) return no("the stride squared");
    view.row.terms[r] = c;
  }
  if (mask) {
    MaskReader reader(forms, view);
    if (!reader.read(mask, {0, 1})) return no(reader.why);
  }
  view.loopHeader = forms.loop();
  return view;
}

}  // namespace tritonc::analysis
