// gpu-assign-layouts (passes.h): Triton-IR to GPU IR.
//
// Layouts come from anchors and flow from there (Triton's TritonGPU passes
// decide the same things: coalescing, then propagation, then removal of
// conversions; this is one pass over our SSA form):
//   1. anchors: each dot's result takes the accumulator layout of the
//      instruction it runs on (dot_plan.cpp); each load and atomic the
//      blocked layout that coalesces its accesses (threads along the most
//      contiguous dimension of its pointers, as many elements per thread as
//      alignment allows);
//   2. forward: values computed from anchors (element-wise math, casts,
//      phis, reductions, broadcasts) take their operands' layouts, dots'
//      before loads', so that an accumulator stays in its registers, and
//      larger loads' before smaller ones';
//   3. backward: what loads, atomics, stores and dot accumulators need of
//      their operands flows up into operands not placed yet (a store takes
//      its value's layout when that one's lanes run along the pointers'
//      contiguous dimension: accumulators go out from their own registers),
//      then what the values placed in 2 need of their other operands;
//   4. whatever is left gets a default layout;
//   5. where a use needs another layout than its operand has, cheap values
//      (ranges, splats, address arithmetic, comparisons) are recomputed in
//      that layout; others are converted (convert_layout);
//   6. dot operands are staged in shared memory (local_alloc) and read into
//      their operand registers (local_load), or converted in registers when
//      they come from another dot's accumulator (attention);
//   7. each load and store (and addition whose old value nobody reads)
//      records its vector width ({vec = N}).
#include <functional>
#include <set>
#include <unordered_map>

#include "analysis/axis_info.h"
#include "analysis/pointer_roots.h"
#include "gpu/dot_plan.h"
#include "gpu/layouts.h"
#include "gpu/passes.h"
#include "ir/builder.h"
#include "ir/dominators.h"
#include "ir/op_rules.h"
#include "transform/loops.h"
#include "transform/pattern.h"

namespace tritonc::gpu {

namespace {

using ir::Layout;
using ir::LayoutKind;
using ir::Opcode;

using transform::asInst;

// Instructions whose tile operands all have the instruction's own layout.
bool elementwise(Opcode op) {
  switch (ir::opcodeCategory(op)) {
    case ir::OpCategory::Binary: case ir::OpCategory::Unary: return true;
    default: break;
  }
  switch (op) {
    case Opcode::Cmp: case Opcode::Cast: case Opcode::UCast: case Opcode::Bitcast: case Opcode::Select:
    case Opcode::Fma: case Opcode::Gep: case Opcode::MultipleOf: case Opcode::MaxContiguous: case Opcode::Phi: case Opcode::InlineAsm:
      return true;
    default:
      return false;
  }
}


// Cheap to compute again in another layout: no memory, no reductions, no
// side effects (inline assembly not marked pure runs once).
bool rematerializable(const ir::Instruction& i) {
  Opcode op = i.opcode();
  if (op == Opcode::Phi || (op == Opcode::InlineAsm && i.sub != ir::kInlineAsmPure)) return false;
  return elementwise(op) || op == Opcode::Splat || op == Opcode::Range || op == Opcode::Broadcast ||
         op == Opcode::Reshape || op == Opcode::Trans;
}

// Per (value, layout): the fewest bytes converted to have it there, and
// whether that recomputes it from its operands (else it is converted).
using RecomputePlan = std::map<std::pair<ir::Value*, const Layout*>, std::pair<int64_t, bool>>;

class Assigner {
 public:
  Assigner(ir::Function& f, const transform::PipelineOptions& o)
      : f_(f), m_(*f.parent()), o_(o), target_{o.target, o.numWarps, o.wgmma, o.allowTf32} {}
  void run();

 private:
  const Layout* get(const ir::Value* v) const {
    auto it = layout_.find(v);
    return it == layout_.end() ? nullptr : it->second;
  }
  void set(ir::Value* v, const Layout* l) { layout_[v] = l; }
  // The layout of the accesses of a load, store or atomic.
  const Layout* access(const ir::Instruction& u) const {
    if (u.opcode() == Opcode::Store) {
      auto it = store_.find(&u);
      return it == store_.end() ? nullptr : it->second;
    }
    return get(&u);
  }
  // maxElems caps the elements each thread accesses at once (see
  // loadVectorCaps).
  const Layout* coalesced(const ir::Value* ptr, int64_t maxElems = 16);
  // Per load: the most elements of a vector that the widest store of
  // values computed from it element-wise can write at once.
  std::unordered_map<const ir::Instruction*, int64_t> loadVectorCaps(const std::vector<ir::Instruction*>& order);
  bool repeatsAddresses(const ir::Instruction& load);
  const Layout* operandWant(const ir::Instruction& u, size_t k, const Layout* own);
  const Layout* resultFrom(const ir::Instruction& u, const ir::Value* operand);
  void forwardFrom(ir::Value* v);
  void require(ir::Value* v, const Layout* want);
  void materializeTypes();
  // `v` recomputed in `want` (cheap values only), or null.
  ir::Value* inLayout(ir::Value* v, const Layout* want);
  void placeConversion(ir::Value* v, const Layout* want, const std::vector<std::pair<ir::Instruction*, size_t>>& uses,
                       const ir::DominatorTree& dom, const std::vector<transform::Loop>& loops);
  ir::Value* rematerialize(ir::Value* v, const Layout* want, int& budget);
  int64_t conversionCost(ir::Value* v, const Layout* want, const ir::BasicBlock* root, int& budget,
                         RecomputePlan& memo);
  // Whether a loop holds `inner` but not `outer` (a conversion placed in
  // `inner` would run on each of its iterations).
  bool inLoopWithout(const ir::BasicBlock* inner, const ir::BasicBlock* outer);
  ir::Value* recomputeFromLeaves(ir::Value* v, const Layout* want,
                                 const RecomputePlan& memo);
  ir::Instruction* insertAfterDef(ir::Value* def, ir::Opcode op, ir::Type t, std::vector<ir::Value*> ops);
  void stageDotOperands();
  void recordVectorWidths();

  ir::Function& f_;
  ir::Module& m_;
  const transform::PipelineOptions& o_;
  DotTarget target_;
  std::unique_ptr<analysis::AxisInfoAnalysis> axis_;
  std::unordered_map<const ir::Value*, const Layout*> layout_;
  std::unordered_map<const ir::Instruction*, const Layout*> store_;
  std::vector<std::pair<ir::Instruction*, DotPlan>> dots_;
  std::map<std::pair<ir::Value*, const Layout*>, ir::Value*> converted_;
  std::map<std::pair<ir::Value*, const Layout*>, ir::Instruction*> staged_;  // local_alloc of a dot operand
  std::unique_ptr<ir::DominatorTree> dom_;  // for loops_, found when first asked
  std::vector<transform::Loop> loops_;
  // What the kernel's atomics write (reloadable): the pointer arguments
  // they are computed from, or unknown.
  std::set<const ir::Argument*> atomicRoots_;
  bool atomicsUnknown_ = false;
  bool reloadable(const ir::Instruction& load);
};

const Layout* Assigner::coalesced(const ir::Value* ptr, int64_t maxElems) {
  const ir::Type& t = ptr->type();
  size_t r = t.shape.size();
  int fast = int(r) - 1;
  size_t dim = 0;
  const int64_t elem = t.isPtr() ? ir::byteSize(t.pointee) : 1;
  int64_t vec = axis_->vectorWidth(ptr, std::min<int64_t>(16, maxElems * elem), &dim);
  analysis::AxisInfo ai = axis_->get(ptr);
  if (vec > 1 || ai.contiguity[dim] > ai.contiguity[size_t(fast)]) fast = int(dim);
  std::vector<int> order{fast};
  for (int d = int(r) - 1; d >= 0; --d)
    if (d != fast) order.push_back(d);
  return blockedLayout(m_, t.shape, o_.numWarps, order, vec);
}

// A tile loaded in a narrow type and stored in a wider one (bf16 read,
// f32 written) shares one layout from the load to the store. With the
// load's 16-byte vectors (8 x bf16) each thread would store 32 contiguous
// bytes as two 16-byte stores, and each store instruction of a warp would
// write half of every sector it touches. Capping the load's vector at what
// the store writes at once (4 elements) keeps every instruction's lanes
// contiguous both ways: 8-byte loads, 16-byte stores, no conversion.
// TRITONC_WIDE_STORES=keep (the load's width, as before) or =convert (a
// layout conversion before such stores, as Triton does) compares. A load
// that feeds a dot too keeps its width, and so does a load in a loop the
// store is not in (Liger's RMSNorm backward: bf16 rows loaded on every
// iteration, the f32 weight gradient they sum stored once after the loop;
// capped, every iteration's bf16 store of its row went through shared
// memory to get back to 16-byte vectors, two barriers a row).
std::unordered_map<const ir::Instruction*, int64_t> Assigner::loadVectorCaps(
    const std::vector<ir::Instruction*>& order) {
  std::unordered_map<const ir::Instruction*, int64_t> caps;
  if (wideStorePolicyFromEnvironment() != WideStorePolicy::NarrowLoads) return caps;
  for (ir::Instruction* st : order) {
    if (st->opcode() != Opcode::Store || !st->operand(0)->type().isTile()) continue;
    size_t storeDim = 0;
    const int64_t storeVec = axis_->vectorWidth(st->operand(0), 16, &storeDim);
    const ir::Type& stored = st->operand(1)->type();
    if (storeVec <= 1) continue;
    std::vector<ir::Value*> work{st->operand(1)};
    std::unordered_map<const ir::Value*, bool> seen;
    while (!work.empty()) {
      ir::Value* v = work.back();
      work.pop_back();
      ir::Instruction* i = asInst(v);
      if (!i || seen[i] || i->type().shape != stored.shape) continue;
      seen[i] = true;
      if (i->opcode() == Opcode::Load) {
        size_t loadDim = 0;
        axis_->vectorWidth(i->operand(0), 16, &loadDim);
        if (loadDim == storeDim && ir::byteSize(i->type().kind) < ir::byteSize(stored.kind) &&
            !inLoopWithout(i->parent, st->parent)) {
          auto [it, fresh] = caps.emplace(i, storeVec);
          if (!fresh) it->second = std::min(it->second, storeVec);
        }
        continue;
      }
      if (i->opcode() == Opcode::Gather) {  // its result has its index's layout
        work.push_back(i->operand(1));
        continue;
      }
      if (!elementwise(i->opcode())) continue;
      for (ir::Value* op : i->operands())
        if (op->type().isTile()) work.push_back(op);
    }
  }
  // A load that also feeds a dot keeps its width: its copies into the
  // dot's ring (cp.async, 16 bytes) matter more than the store.
  for (auto it = caps.begin(); it != caps.end();) {
    std::vector<const ir::Value*> users{it->first};
    bool dot = false;
    for (size_t k = 0; k < users.size() && k < 256 && !dot; ++k)
      for (const ir::Instruction* u : users[k]->users()) {
        dot = dot || u->opcode() == Opcode::Dot;
        if (elementwise(u->opcode()) || u->opcode() == Opcode::Trans) users.push_back(u);
      }
    it = dot ? caps.erase(it) : std::next(it);
  }
  return caps;
}

// Whether a load reads each address several times over and no two
// consecutive ones (a scale per group of 64 elements: `S + offs // 64`).
// No layout coalesces it better than another, so it is no anchor: it
// takes the layout its users need (as Triton's coalescing gives such a
// load the vector width of the accesses around it), not one of its own
// and a conversion through shared memory to theirs.
bool Assigner::repeatsAddresses(const ir::Instruction& load) {
  if (load.opcode() != Opcode::Load || repeatedLoadsAnchorFromEnvironment()) return false;
  const analysis::AxisInfo& ai = axis_->get(load.operand(0));
  bool repeats = false;
  for (size_t d = 0; d < ai.contiguity.size(); ++d) {
    if (ai.contiguity[d] > 1) return false;
    repeats = repeats || (ai.constancy[d] > 1 && load.type().shape[d] > 1);
  }
  return repeats;
}

// Whether an extract_slice whose operand and result both take layout `l`
// only picks registers (else it goes through shared memory).
bool slicePicksRegisters(const ir::Instruction& slice, const Layout* l) {
  const ir::Type from = slice.operand(0)->type().withLayout(l), to = slice.type().withLayout(l);
  if (!ir::checkLayoutFitsType(from).empty() || !ir::checkLayoutFitsType(to).empty()) return false;
  return sliceKeepsElementsInThreads(from, to, slice.sub, slice.imm);
}

const Layout* Assigner::operandWant(const ir::Instruction& u, size_t k, const Layout* own) {
  const ir::Value* v = u.operand(k);
  Opcode op = u.opcode();
  // (A reduce_fn to a scalar has no layout of its own: its tiles take the
  // first's; a histogram's mask takes the counted tile's, whatever the bins'.)
  if (op == Opcode::ReduceFn && !own && k > 0 && v->type().isTile()) return get(u.operand(0));
  if (op == Opcode::Histogram) return k == 1 ? get(u.operand(0)) : nullptr;
  if (!v->type().isTile() || !own) return nullptr;
  if (elementwise(op) || op == Opcode::Broadcast) return own;
  switch (op) {
    case Opcode::Load: case Opcode::Store: case Opcode::AtomicRmw: case Opcode::AtomicCas: return own;
    case Opcode::Reshape: {
      // The operand's own layout where it already holds the elements in
      // their threads (a renaming of registers: no conversion to write).
      const Layout* have = get(v);
      if (have && have->isDistributed() && own->isDistributed() &&
          reshapeKeepsElementsInThreads(v->type().withLayout(have), u.type().withLayout(own)))
        return have;
      return reshapeOperandLayout(m_, v->type().shape, u.type().shape, own);
    }
    case Opcode::Trans: {  // the operand's layout that the permutation takes to `own`
      const std::vector<int> perm = ir::transPermutation(u);
      std::vector<int> inv(perm.size());
      for (size_t d = 0; d < perm.size(); ++d) inv[size_t(perm[d])] = int(d);
      return permutedLayout(m_, own, inv);
    }
    case Opcode::Reduce: case Opcode::ReduceFn:
      return own->kind == LayoutKind::Slice && own->dim == u.imm ? own->parent : nullptr;
    case Opcode::ExtractSlice: return slicePicksRegisters(u, own) ? own : nullptr;
    case Opcode::Gather: return k == 1 ? own : nullptr;  // the source goes through shared memory as it is
    case Opcode::Scan: case Opcode::ScanFn: case Opcode::Sort: case Opcode::ArgSort: return own;
    case Opcode::Dot: return k == 2 ? own : nullptr;
    default: return nullptr;
  }
}

const Layout* Assigner::resultFrom(const ir::Instruction& u, const ir::Value* operand) {
  const Layout* l = get(operand);
  if (!l || !u.type().isTile()) return nullptr;
  Opcode op = u.opcode();
  if (elementwise(op) || op == Opcode::Broadcast) return l;
  switch (op) {
    case Opcode::Reshape: return reshapeResultLayout(m_, operand->type().shape, u.type().shape, l);
    case Opcode::Trans: return permutedLayout(m_, l, ir::transPermutation(u));
    case Opcode::Reduce: return sliceLayout(m_, int(u.imm), l);
    case Opcode::ReduceFn: return operand == u.operand(0) ? sliceLayout(m_, int(u.imm), l) : nullptr;
    case Opcode::ExtractSlice: return slicePicksRegisters(u, l) ? l : nullptr;
    case Opcode::Gather: return operand == u.operand(1) ? l : nullptr;
    case Opcode::Scan: case Opcode::Sort: case Opcode::ArgSort: return l;
    case Opcode::ScanFn: return operand == u.operand(0) ? l : nullptr;  // (every operand converted to it)
    default: return nullptr;
  }
}

void Assigner::forwardFrom(ir::Value* v) {
  std::vector<ir::Value*> work{v};
  while (!work.empty()) {
    ir::Value* x = work.back();
    work.pop_back();
    for (ir::Instruction* u : x->users()) {
      if (get(u) || !u->type().isTile()) continue;
      if (const Layout* l = resultFrom(*u, x)) {
        set(u, l);
        work.push_back(u);
      }
    }
  }
}

void Assigner::require(ir::Value* v, const Layout* want) {
  std::vector<std::pair<ir::Value*, const Layout*>> work{{v, want}};
  while (!work.empty()) {
    auto [x, w] = work.back();
    work.pop_back();
    ir::Instruction* i = asInst(x);
    if (!w || !i || !x->type().isTile() || get(x)) continue;
    if (i->opcode() == Opcode::Reduce || i->opcode() == Opcode::ReduceFn) {
      // Its layout follows its operand's (a reduce_fn's first): place the operand.
      if (w->kind == LayoutKind::Slice && w->dim == i->imm) work.push_back({i->operand(0), w->parent});
      continue;
    }
    set(i, w);
    for (size_t k = 0; k < i->numOperands(); ++k) work.push_back({i->operand(k), operandWant(*i, k, w)});
  }
}

ir::Instruction* Assigner::insertAfterDef(ir::Value* def, ir::Opcode op, ir::Type t, std::vector<ir::Value*> ops) {
  ir::Instruction* d = asInst(def);
  ir::BasicBlock* bb = d->parent;
  size_t pos = bb->indexOf(d) + 1;
  while (pos < bb->instructions().size() && bb->instructions()[pos]->opcode() == Opcode::Phi) ++pos;
  // After a phi, after what was placed there before (operands staged in order).
  if (d->opcode() == Opcode::Phi)
    while (pos < bb->instructions().size() && bb->instructions()[pos]->opcode() == op) ++pos;
  ir::Builder b(m_);
  b.setInsertPoint(bb, pos);
  b.setLoc(d->loc);
  return b.create(op, std::move(t), std::move(ops));
}

ir::Value* Assigner::rematerialize(ir::Value* v, const Layout* want, int& budget) {
  if (v->type().layout == want) return v;
  auto memo = converted_.find({v, want});
  if (memo != converted_.end()) return memo->second;
  ir::Instruction* i = asInst(v);
  if (!i || !rematerializable(*i) || --budget < 0) return nullptr;
  std::vector<ir::Value*> ops = i->operands();
  for (size_t k = 0; k < ops.size(); ++k) {
    if (!ops[k]->type().isTile()) continue;
    const Layout* wk = operandWant(*i, k, want);
    if (!wk) return nullptr;
    ops[k] = rematerialize(ops[k], wk, budget);
    if (!ops[k]) return nullptr;
  }
  ir::Instruction* c = insertAfterDef(i, i->opcode(), i->type().withLayout(want), ops);
  c->sub = i->sub;
  c->imm = i->imm;
  c->text = i->text;
  c->setName(i->name());
  converted_[{v, want}] = c;
  return c;
}

// A load of a few elements (a row's statistics, a bias) is loaded again in
// the layout a use wants rather than converted: the threads that share an
// element read it from the same cache line, where a conversion costs a
// round trip through shared memory and its barriers. Not a volatile load,
// and not one of memory that the kernel's atomics may change (of the same
// pointer argument, or of unknown roots): other programs change it between
// the two reads by design (a compare-and-swap loop computes the new value
// from the value it expects, and two reads of it may differ: FlagGems'
// scatter_reduce lost products so).
constexpr int64_t kSmallLoadElements = 256;
bool Assigner::reloadable(const ir::Instruction& i) {
  if (i.opcode() != Opcode::Load || i.hasSideEffects() || !i.type().isTile() ||
      i.type().numElements() > kSmallLoadElements)
    return false;
  if (!atomicsUnknown_ && atomicRoots_.empty()) return true;
  std::set<const ir::Argument*> roots;
  if (atomicsUnknown_ || !analysis::pointerRoots(i.operand(0), &roots)) return false;
  for (const ir::Argument* a : roots)
    if (atomicRoots_.count(a)) return false;
  return true;
}

// Bytes a conversion of `v` moves through shared memory.
int64_t conversionBytes(const ir::Value* v) {
  const ir::Type& t = v->type();
  return t.numElements() * (t.isPtr() ? 8 : ir::byteSize(t.kind));
}

bool Assigner::inLoopWithout(const ir::BasicBlock* inner, const ir::BasicBlock* outer) {
  if (!dom_) {
    dom_ = std::make_unique<ir::DominatorTree>(f_);
    loops_ = transform::findLoops(f_, *dom_);
  }
  for (const transform::Loop& l : loops_)
    if (l.contains(inner) && !l.contains(outer)) return true;
  return false;
}

// The fewest bytes converted to have `v` in `want`: 0 where it is
// recomputed from cheap values alone; else the cheaper of converting `v`
// itself and recomputing it from its operands, each in the layout it needs
// (a row's statistics loaded as a vector and broadcast over a tile convert
// as the vector, not as the tile; an f16 cast converts as itself, not as the
// f32 it was cast from). -1 where it cannot be had at all.
int64_t Assigner::conversionCost(ir::Value* v, const Layout* want, const ir::BasicBlock* root, int& budget,
                                 RecomputePlan& memo) {
  if (v->type().layout == want || converted_.count({v, want})) return 0;
  auto known = memo.find({v, want});
  if (known != memo.end()) return known->second.first;
  memo[{v, want}] = {-1, false};
  if (!ir::checkLayoutFitsType(v->type().withLayout(want)).empty()) return -1;
  ir::Instruction* i = asInst(v);
  if (!i) return -1;  // (tiles are instructions' results)
  // Converted where it is defined: not inside a loop that the value the
  // conversion is for is outside of (a row statistic's phi, broadcast after
  // its loop), which placeConversion would have run once after the loop.
  int64_t best = root && inLoopWithout(i->parent, root) ? -1 : conversionBytes(v);
  bool fromOperands = false;
  if ((rematerializable(*i) || reloadable(*i)) && --budget >= 0) {
    int64_t sum = 0;
    for (size_t k = 0; k < i->numOperands() && sum >= 0; ++k) {
      if (!i->operand(k)->type().isTile()) continue;
      const Layout* wk = operandWant(*i, k, want);
      int64_t c = wk ? conversionCost(i->operand(k), wk, root, budget, memo) : -1;
      sum = c < 0 ? -1 : sum + c;
    }
    // (Ties go to the operands: defined no deeper in loops than `v`.)
    if (sum >= 0 && (best < 0 || sum <= best)) best = sum, fromOperands = true;
  }
  memo[{v, want}] = {best, fromOperands};
  return best;
}

// `v` in `want` as conversionCost found cheapest: recomputed where its
// operands cost fewer conversions than it, converted after its definition
// otherwise.
ir::Value* Assigner::recomputeFromLeaves(ir::Value* v, const Layout* want,
                                         const RecomputePlan& memo) {
  if (v->type().layout == want) return v;
  auto done = converted_.find({v, want});
  if (done != converted_.end()) return done->second;
  ir::Instruction* i = asInst(v);
  auto plan = memo.find({v, want});
  ir::Instruction* c;
  if (plan != memo.end() && plan->second.second) {  // from the operands
    std::vector<ir::Value*> ops = i->operands();
    for (size_t k = 0; k < ops.size(); ++k)
      if (ops[k]->type().isTile()) ops[k] = recomputeFromLeaves(ops[k], operandWant(*i, k, want), memo);
    c = insertAfterDef(i, i->opcode(), i->type().withLayout(want), ops);
    c->sub = i->sub;
    c->imm = i->imm;
    c->text = i->text;
  } else {
    c = insertAfterDef(v, Opcode::ConvertLayout, v->type().withLayout(want), {v});
  }
  c->setName(v->name());
  converted_[{v, want}] = c;
  return c;
}

ir::Value* Assigner::inLayout(ir::Value* v, const Layout* want) {
  if (v->type().layout == want) return v;
  int budget = 64;
  if (ir::Value* r = rematerialize(v, want, budget)) return r;
  // Converting some of what `v` is computed from may cost less than
  // converting `v` (which placeConversion does otherwise).
  RecomputePlan memo;
  budget = 64;
  ir::Instruction* def = asInst(v);
  int64_t cost = conversionCost(v, want, def ? def->parent : nullptr, budget, memo);
  if (cost < 0 || cost >= conversionBytes(v)) return nullptr;
  return recomputeFromLeaves(v, want, memo);
}

// Where a conversion of `v` read by `uses` goes: in the nearest block that
// dominates every use (a phi's use is at the end of its incoming block),
// before the first use there, and never before `v`'s definition; but not in
// a loop that the definition is outside of (then before that loop, once).
// After the definition would run it on every iteration of a loop that the
// value only leaves (an accumulator stored after its loop).
void Assigner::placeConversion(ir::Value* v, const Layout* want,
                               const std::vector<std::pair<ir::Instruction*, size_t>>& uses,
                               const ir::DominatorTree& dom, const std::vector<transform::Loop>& loops) {
  auto useBlock = [&](ir::Instruction* u, size_t k) {
    return u->opcode() == Opcode::Phi ? u->blocks[k] : u->parent;
  };
  ir::Instruction* def = asInst(v);
  const ir::BasicBlock* common = nullptr;
  for (auto& [u, k] : uses) {
    const ir::BasicBlock* b = useBlock(u, k);
    if (!dom.isReachable(b)) continue;  // (unreachable code: any place will do)
    if (!common) common = b;
    while (common && !dom.dominates(common, b)) common = dom.idom(common);
  }
  if (!common) common = def ? def->parent : f_.entry();
  for (bool moved = true; moved;) {
    moved = false;
    for (const transform::Loop& l : loops)
      if (l.contains(common) && !(def && l.contains(def->parent)) && dom.idom(l.header)) {
        common = dom.idom(l.header);
        moved = true;
      }
  }
  ir::Instruction* c;
  if (def && def->parent == common) {
    c = insertAfterDef(v, Opcode::ConvertLayout, v->type().withLayout(want), {v});
  } else {
    auto* bb = const_cast<ir::BasicBlock*>(common);
    size_t pos = bb->instructions().size() - 1;  // before the terminator, unless a use comes first
    for (auto& [u, k] : uses)
      if (u->parent == bb && u->opcode() != Opcode::Phi) pos = std::min(pos, bb->indexOf(u));
    while (pos < bb->instructions().size() && bb->instructions()[pos]->opcode() == Opcode::Phi) ++pos;
    ir::Builder b(m_);
    b.setInsertPoint(bb, pos);
    b.setLoc(def ? def->loc : uses[0].first->loc);
    c = b.create(Opcode::ConvertLayout, v->type().withLayout(want), {v});
  }
  c->setName(v->name());
  for (auto& [u, k] : uses) u->setOperand(k, c);
}

void Assigner::materializeTypes() {
  std::vector<ir::Instruction*> all;
  for (auto& bb : f_.blocks())
    for (auto& inst : bb->instructions()) all.push_back(inst.get());
  for (ir::Instruction* i : all)
    if (i->type().isTile()) i->setType(i->type().withLayout(get(i)));
  // Cheap values are recomputed in the layout a use wants; the others are
  // converted once per (value, layout), where all such uses can see it.
  std::map<std::pair<ir::Value*, const Layout*>, std::vector<std::pair<ir::Instruction*, size_t>>> pending;
  std::vector<std::pair<ir::Value*, const Layout*>> order;
  for (ir::Instruction* u : all) {
    const Layout* own = u->opcode() == Opcode::Store ? access(*u) : u->type().layout;
    for (size_t k = 0; k < u->numOperands(); ++k) {
      const Layout* want = operandWant(*u, k, own);
      ir::Value* v = u->operand(k);
      if (!want || v->type().layout == want) continue;
      if (ir::Value* r = inLayout(v, want)) {
        u->setOperand(k, r);
        continue;
      }
      auto& uses = pending[{v, want}];
      if (uses.empty()) order.push_back({v, want});
      uses.push_back({u, k});
    }
  }
  if (order.empty()) return;
  ir::DominatorTree dom(f_);
  std::vector<transform::Loop> loops = transform::findLoops(f_, dom);
  for (auto& key : order) placeConversion(key.first, key.second, pending[key], dom, loops);
}

void Assigner::stageDotOperands() {
  ir::Builder b(m_);
  for (auto& [dot, plan] : dots_) {
    for (int k = 0; k < 2; ++k) {
      ir::Value* x = dot->operand(size_t(k));
      const ir::Type& t = x->type();
      b.setLoc(dot->loc);
      const Layout* l = t.layout;
      // (8-bit and tf32 wgmma read A from shared memory only here: their
      // register fragments are not the 16-bit ones wgmma.cpp packs.)
      bool fromAccumulator = l->kind == LayoutKind::Mma &&
                             ((plan.kind == DotKind::MmaSync && l->version == 2) ||
                              (plan.kind == DotKind::Wgmma && l->version == 3 && k == 0 && ir::byteSize(t.kind) == 2));
      ir::Value* staged;
      if (fromAccumulator) {
        // Another dot's accumulator (attention's p @ v): its registers hold
        // the operand's fragments, or are converted through shared memory.
        b.setInsertPoint(dot->parent, dot->parent->indexOf(dot));
        staged = b.create(Opcode::ConvertLayout, t.withLayout(dotOperandLayout(m_, k, plan.result)), {x});
      } else {
        // The tile is staged where it is computed (once, for a loop-invariant
        // operand). A transposed operand (`^k`) is staged as it was loaded
        // and the buffer seen transposed, so its copy stays contiguous (and
        // can be pipelined); FMA reads row-major buffers only.
        ir::Value* src = x;
        ir::Instruction* tr = asInst(x);
        bool view = plan.kind != DotKind::Fma && tr && tr->opcode() == Opcode::Trans && tr->imm == 0 &&
                    tr->users().size() == 1;
        if (view) src = tr->operand(0);
        // A conversion placed for the transpose alone (its register layout
        // transposed, step 5) is skipped where wgmma reads the buffer: it is
        // written from any register layout, and an accumulator written as it
        // is (attention backward's trans(ds) @ k) saves a round trip through
        // shared memory. (For mma.sync's ldmatrix it saves less and, at 32
        // queries, costs the fused backward the registers it had left.)
        if (ir::Instruction* c = asInst(src); view && plan.kind == DotKind::Wgmma && c &&
                                              c->opcode() == Opcode::ConvertLayout &&
                                              c->users().size() == 1 && c->operand(0)->type().layout->isDistributed())
          src = c->operand(0);
        LinearLayout ll = linearOf(src->type());
        // The buffer's contiguous dimension is the one the threads write
        // along: their vectors' when they hold some, else their lanes' (a
        // tile loaded one element at a time, lanes along K, written K-major
        // lands in different banks; MN-major, 8 lanes would share one).
        int fast = ll.contiguousRegs(0) > 1 ? 0 : ll.contiguousRegs(1) > 1 ? 1 : laneFastDim(ll) == 0 ? 0 : 1;
        if (view) fast = 1 - fast;
        if (k == 1 && plan.bKMajor) fast = 0;  // a narrow or tf32 wgmma reads B K-major only (dot_plan.h)
        // (An operand loaded into registers from its buffer is staged as
        // mma.sync's are: padded rows, the fragments' reads conflict-free.)
        const bool registers = operandFromRegisters(plan, k);
        const Layout* shared = operandSharedLayout(m_, registers ? DotKind::MmaSync : plan.kind, k, t, fast);
        ir::Instruction* def = asInst(src);
        const Layout* bufferLayout = view ? transposedLayout(m_, shared) : shared;
        // One buffer per tile and layout: dots that read the same operand
        // (the Python DSL's q in both loops of a causal attention) share it.
        ir::Instruction*& alloc = staged_[{src, bufferLayout}];
        if (!alloc) {
          alloc = insertAfterDef(def, Opcode::LocalAlloc, src->type().withLayout(bufferLayout), {src});
          alloc->setName(src->name());
        }
        staged = alloc;
        b.setInsertPoint(dot->parent, dot->parent->indexOf(dot));
        if (view) staged = b.create(Opcode::Trans, t.withLayout(shared), {alloc});
        if (registers) staged = b.create(Opcode::LocalLoad, t.withLayout(dotOperandLayout(m_, k, plan.result)), {staged});
      }
      if (staged->name().empty()) staged->setName(x->name());
      ir::Instruction* was = asInst(x);
      dot->setOperand(size_t(k), staged);
      // The register transpose a view replaced, and a conversion only it
      // read, are dead now.
      while (was && was->users().empty() && (was->opcode() == Opcode::Trans || was->opcode() == Opcode::ConvertLayout)) {
        ir::Instruction* from = asInst(was->operand(0));
        was->parent->erase(was);
        was = from;
      }
    }
  }
}

void Assigner::recordVectorWidths() {
  analysis::AxisInfoAnalysis axis(f_);
  for (auto& bb : f_.blocks())
    for (auto& inst : bb->instructions()) {
      Opcode op = inst->opcode();
      // (acquire and acq_rel adds are atoms, one element each)
      bool reduction = ir::isReduction(*inst) && inst->sub == uint8_t(ir::AtomicKind::Add);
      if (op != Opcode::Load && op != Opcode::Store && !reduction) continue;
      const ir::Type& pt = inst->operand(0)->type();
      if (!pt.isTile()) continue;
      int64_t esize = ir::byteSize(pt.pointee);
      LinearLayout ll = linearOf(pt);
      int64_t vec = 1;
      // (Bytes too: up to 16 per access, split into 32-bit words in registers.)
      if (pt.pointee != ir::Scalar::I1 && ll.numRegs() > 1) {
        size_t dim = 0;
        while (dim + 1 < ll.rank() && ll.reg[0][dim] == 0) ++dim;
        analysis::AxisInfo a = axis.get(inst->operand(0));
        vec = std::min({ll.contiguousRegs(dim), a.contiguity[dim], 16 / esize});
        if (reduction) vec = std::min<int64_t>(vec, esize == 4 ? 4 : 1);  // red.v2/.v4 hold f32
        while (vec > 1 && a.divisibility[dim] % (vec * esize) != 0) vec /= 2;
        if (const ir::Value* mask = inst->mask()) vec = std::min(vec, axis.get(mask).constancy[dim]);
        while (vec & (vec - 1)) vec &= vec - 1;
      }
      inst->vec = int(std::max<int64_t>(1, vec));
    }
}

void Assigner::run() {
  if (m_.isGpu() && (m_.target != o_.target || m_.numWarps != o_.numWarps))
    throw InternalError("the kernels of one module are lowered for one target");
  m_.target = o_.target;
  m_.numWarps = o_.numWarps;
  axis_ = std::make_unique<analysis::AxisInfoAnalysis>(f_);
  std::vector<ir::Instruction*> order;
  for (auto& bb : f_.blocks())
    for (auto& inst : bb->instructions()) {
      order.push_back(inst.get());
      if (inst->opcode() == Opcode::AtomicRmw || inst->opcode() == Opcode::AtomicCas)
        atomicsUnknown_ = !analysis::pointerRoots(inst->operand(0), &atomicRoots_) || atomicsUnknown_;
    }
  // 0. Dots into f16/bf16 accumulate in f32; fp8 dots read their fp8 tiles
  // where wgmma can, f16 ones elsewhere (dot_plan.h).
  bool changed = false;
  std::vector<ir::Instruction*> dots;  // (first: legalizing may erase the widenings it replaces)
  for (ir::Instruction* i : order)
    if (i->opcode() == Opcode::Dot) dots.push_back(i);
  for (ir::Instruction* d : dots) changed = legalizeHalfAccumulatorDot(m_, *d) || changed;
  for (ir::Instruction* d : dots) changed = legalizeFp8Dot(m_, *d, target_, *axis_) || changed;
  if (changed) {  // the casts it made get layouts like the rest; those it dropped are gone
    axis_ = std::make_unique<analysis::AxisInfoAnalysis>(f_);
    order.clear();
    for (auto& bb : f_.blocks())
      for (auto& inst : bb->instructions()) order.push_back(inst.get());
  }
  // 1. Anchors.
  const auto caps = loadVectorCaps(order);
  std::vector<ir::Instruction*> loads;
  for (ir::Instruction* i : order) {
    if (i->opcode() == Opcode::Dot) {
      DotPlan plan = planDot(m_, *i, target_, *axis_);
      dots_.push_back({i, plan});
      set(i, plan.result);
    } else if (i->type().isTile() && (i->opcode() == Opcode::Load || i->opcode() == Opcode::AtomicRmw ||
                                      i->opcode() == Opcode::AtomicCas)) {
      if (repeatsAddresses(*i)) continue;
      auto cap = caps.find(i);
      set(i, coalesced(i->operand(0), cap == caps.end() ? 16 : cap->second));
      loads.push_back(i);
    }
  }
  // 2. Forward, accumulators first, then loads from the largest tile down:
  // where a small tile meets a large one (a row of cos values broadcast over
  // a tile of heads, loaded first), the large one's layout is kept and the
  // small one converted, not the other way round (Liger's RoPE: the large
  // tiles took the row's layout, 255 registers, 3.4 KB spilled, 7.7x
  // Triton's time).
  std::stable_sort(loads.begin(), loads.end(), [](const ir::Instruction* a, const ir::Instruction* b) {
    return a->type().numElements() > b->type().numElements();
  });
  for (auto& [dot, plan] : dots_) forwardFrom(dot);
  for (ir::Instruction* l : loads) forwardFrom(l);
  // 3. Backward from what accesses and accumulators need.
  for (ir::Instruction* l : loads)
    for (size_t k = 0; k < l->numOperands(); ++k) require(l->operand(k), get(l));
  for (ir::Instruction* i : order) {
    if (i->opcode() != Opcode::Store || !i->operand(0)->type().isTile()) continue;
    // A value that has its layout keeps it when its lanes already run along
    // the pointers' contiguous dimension, with vectors as wide as coalesced
    // accesses would move or in a tile too small for a conversion to pay
    // (under two 16-byte vectors per thread; but an MMA accumulator in
    // 4-byte pairs, such as a 32 x 32 bf16 one, is converted, so that each
    // thread's eight elements go out in one 16-byte store, as Triton's do);
    // otherwise the store is
    // coalesced and the value converted (through shared memory for an MMA
    // accumulator, whose threads hold pairs: then 16-byte stores of whole
    // lines go out instead of 4-byte pieces).
    const Layout* mine = coalesced(i->operand(0));
    const Layout* l = get(i->operand(1));
    const ir::Shape& shape = i->operand(0)->type().shape;
    size_t fastDim = size_t(mine->order[0]);
    bool keep = false;
    if (l && l->isDistributed()) {
      LinearLayout own = toLinear(l, shape);
      int64_t bytes = i->operand(1)->type().numElements() * ir::byteSize(i->operand(1)->type().kind);
      const int64_t ownRun = own.contiguousRegs(fastDim), mineRun = toLinear(mine, shape).contiguousRegs(fastDim);
      const bool narrowPairs = l->kind == ir::LayoutKind::Mma && ownRun * ir::byteSize(i->operand(1)->type().kind) < 8;
      bool small = bytes < int64_t(o_.numWarps) * 32 * 16 * 2 && !narrowPairs;
      keep = axis_->get(i->operand(0)).contiguity[fastDim] == 1 ||
             (laneFastDim(own) == mine->order[0] &&
              (small || (ownRun >= mineRun &&
                         (ownRun == mineRun || wideStorePolicyFromEnvironment() != WideStorePolicy::Convert))));
    }
    store_[i] = keep ? l : mine;
    for (size_t k = 0; k < i->numOperands(); ++k) require(i->operand(k), store_[i]);
  }
  for (auto& [dot, plan] : dots_) require(dot->operand(2), plan.result);
  // ... and what the values placed going forward need of their other operands.
  for (ir::Instruction* i : order)
    if (const Layout* l = get(i))
      for (size_t k = 0; k < i->numOperands(); ++k) require(i->operand(k), operandWant(*i, k, l));
  // 4. Defaults for the rest (in program order, so operands come first).
  for (ir::Instruction* i : order) {
    if (!i->type().isTile() || get(i)) continue;
    const Layout* l = nullptr;
    for (size_t k = 0; k < i->numOperands() && !l; ++k) l = resultFrom(*i, i->operand(k));
    const bool reduces = i->opcode() == Opcode::Reduce || i->opcode() == Opcode::ReduceFn;
    if (!l && reduces) l = sliceLayout(m_, int(i->imm), defaultLayout(m_, i->operand(0)->type().shape, o_.numWarps));
    if (!l) l = defaultLayout(m_, i->type().shape, o_.numWarps);
    if (reduces) {
      require(i->operand(0), l->parent);
      l = sliceLayout(m_, int(i->imm), get(i->operand(0)));
    }
    set(i, l);
    for (size_t k = 0; k < i->numOperands(); ++k) require(i->operand(k), operandWant(*i, k, l));
  }
  // 5.-7.
  materializeTypes();
  stageDotOperands();
  recordVectorWidths();
}

}  // namespace

WideStorePolicy wideStorePolicyFromEnvironment() {
  const char* v = std::getenv("TRITONC_WIDE_STORES");
  if (v && std::string(v) == "keep") return WideStorePolicy::Keep;
  if (v && std::string(v) == "convert") return WideStorePolicy::Convert;
  return WideStorePolicy::NarrowLoads;
}

bool repeatedLoadsAnchorFromEnvironment() {
  const char* v = std::getenv("TRITONC_REPEATED_LOADS");
  return v && std::string(v) == "anchor";
}

bool runAssignLayouts(ir::Function& f, const transform::PipelineOptions& o) {
  for (auto& bb : f.blocks())
    for (auto& inst : bb->instructions())
      if (inst->type().layout) return false;  // already GPU IR
  if (o.target.empty()) throw UserError(SourceLoc{}, "the GPU passes need a target such as sm_80 or sm_90a");
  if (o.numWarps < 1 || o.numWarps > 32 || (o.numWarps & (o.numWarps - 1)))
    throw UserError(SourceLoc{}, "num_warps must be a power of two between 1 and 32, got " + std::to_string(o.numWarps));
  Assigner(f, o).run();
  return true;
}

}  // namespace tritonc::gpu
