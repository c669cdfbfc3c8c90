// gpu-tma (passes.h): the rings of a pipelined loop filled by the tensor
// memory accelerator (sm_90) instead of per-thread cp.async.
//
// A ring qualifies when every copy into it reads a box of one row-major
// tensor that the host can describe (analysis/tensor_view.h: base and
// leading stride among the arguments, 16-byte aligned; the mask exactly the
// tensor's bounds and scalar predicates), its stages are swizzled the way
// TMA writes them (blocks of `swizzle` bytes along the contiguous
// dimension), and the loop has the pipeliner's shape (stage.read from 0,
// the pre-header filling stages 0..P-1, one copy per iteration into
// stage.write, one exit at the header). Then:
//   - a buffer of one mbarrier per stage (`local_alloc : i64<S, 1>`) and
//     `tma_init` before the ring;
//   - each async_copy becomes `tma_copy` of the box at the coordinates of its
//     element (0, 0), materialized from the view (the loop's iteration count
//     comes from a counter phi); a false predicate sends the box outside the
//     tensor, which TMA fills with zeros, so that every stage is signalled;
//     the mask's iteration guards (the pre-fetching's, `splat {guard = 1}`)
//     become the copy's issue predicate instead: where one is false the
//     iteration never runs, so no copy is made and the stage's barrier is
//     only signalled (the copies past the loop's end cost neither the TMA
//     unit nor waits);
//   - each reader of a stage first waits on the stage's barrier
//     (`tma_wait`, phase (iteration / S) & 1, carried by two phis, the
//     iteration's slot in a ring of S and its phase, since an i32 division
//     in the loop would cost a reciprocal and a dozen dependent instructions
//     on the path to every iteration's dot);
//   - the exit waits for the P copies still in flight, so that nothing
//     writes the ring once its bytes are given to something else (none
//     where every copy has an issue predicate: no copy is in flight then);
//   - when no cp.async copy is left in the function, its commits and group
//     waits go too.
// Rows whose addresses are only 16-byte aligned slow cp.async down (each
// warp's request spans more sectors and lines); TMA reads such boxes at full
// speed and needs neither address registers nor per-element masks.
#include <algorithm>
#include <map>
#include <string>

#include "analysis/tensor_view.h"
#include "gpu/passes.h"
#include "gpu/ring_position.h"
#include "ir/builder.h"
#include "ir/dominators.h"
#include "transform/loops.h"

namespace tritonc::gpu {

namespace {

using ir::Opcode;
using analysis::Poly;
using analysis::TensorView;

ir::Instruction* asInst(ir::Value* v, Opcode op) {
  if (!v || v->valueKind() != ir::ValueKind::Instruction) return nullptr;
  auto* i = static_cast<ir::Instruction*>(v);
  return i->opcode() == op ? i : nullptr;
}

const ir::Constant* asConst(const ir::Value* v) {
  return v && v->valueKind() == ir::ValueKind::Constant ? static_cast<const ir::Constant*>(v) : nullptr;
}

struct Ring {
  ir::Instruction* alloc = nullptr;
  std::vector<ir::Instruction*> copies;  // async_copy into one of its stages
  std::vector<ir::Instruction*> reads;   // mem_index of the stage read
  std::vector<TensorView> views;         // parallel to copies
};

bool sameTensor(const TensorView& a, const TensorView& b) {
  return a.base == b.base && a.ld == b.ld && a.fastDim == b.fastDim && a.rowsArg == b.rowsArg &&
         a.colsArg == b.colsArg && a.rowsConst == b.rowsConst && a.colsConst == b.colsConst;
}

// Every atom an i32 scalar (or the iteration count), so that coordinates are i32.
bool materializable(const Poly& p) {
  for (auto& [m, c] : p.terms)
    for (analysis::Atom a : m) {
      if (a == analysis::iterationAtom()) continue;
      if (a == analysis::indexAtom(0) || a == analysis::indexAtom(1)) return false;
      if (static_cast<const ir::Value*>(a)->type() != ir::Type::scalar(ir::Scalar::I32)) return false;
    }
  return true;
}

// What the rings of one loop share: the iteration count, and per ring size
// S the iteration's slot (iteration % S) and phase ((iteration / S) & 1).
struct LoopClock {
  ir::Instruction* counter = nullptr;
  std::map<int64_t, std::pair<ir::Instruction*, ir::Instruction*>> slotPhase;
};

class RingConverter {
 public:
  RingConverter(ir::Function& f, const transform::Loop& loop, Ring& ring, LoopClock& clock)
      : m_(*f.parent()), loop_(loop), ring_(ring), b_(m_), clock_(clock), counter_(clock.counter) {}
  void run();

 private:
  ir::Constant* i32(int64_t v) { return m_.constInt(ir::Scalar::I32, v); }
  void before(ir::Instruction* at) { b_.setInsertPoint(at->parent, at->parent->indexOf(at)); }
  ir::Value* emit(const Poly& p);
  ir::Value* counter();
  std::pair<ir::Instruction*, ir::Instruction*> slotPhase(int64_t stages);

  ir::Module& m_;
  const transform::Loop& loop_;
  Ring& ring_;
  ir::Builder b_;
  ir::Value* bars_ = nullptr;
  LoopClock& clock_;
  ir::Instruction*& counter_;
};

// Sum of coefficient x atoms, in i32, at the builder's insertion point.
ir::Value* RingConverter::emit(const Poly& p) {
  ir::Value* sum = nullptr;
  for (auto& [m, c] : p.terms) {
    ir::Value* term = nullptr;
    for (analysis::Atom a : m) {
      ir::Value* v = a == analysis::iterationAtom() ? counter()
                                                    : const_cast<ir::Value*>(static_cast<const ir::Value*>(a));
      term = term ? b_.binary(Opcode::Mul, term, v) : v;
    }
    if (!term) term = i32(c);
    else if (c != 1) term = b_.binary(Opcode::Mul, term, i32(c));
    sum = sum ? b_.binary(Opcode::Add, sum, term) : term;
  }
  return sum ? sum : i32(0);
}

// A phi at the loop's header: 0 on entry, `next` (made by `make` at the
// latch, from the phi) from the latch.
template <typename MakeNext>
ir::Instruction* loopPhi(ir::Builder& b, const transform::Loop& loop, ir::Module& m, const char* name, MakeNext make) {
  b.setInsertPoint(loop.header, 0);
  ir::Instruction* phi = b.phi(ir::Type::scalar(ir::Scalar::I32));
  phi->setName(name);
  b.setInsertPoint(loop.latch, loop.latch->indexOf(loop.latch->terminator()));
  ir::Value* next = make(phi);
  next->setName(std::string(name) + ".next");
  for (ir::BasicBlock* p : loop.headerPredecessors) {
    phi->addOperand(p == loop.latch ? next : static_cast<ir::Value*>(m.constInt(ir::Scalar::I32, 0)));
    phi->blocks.push_back(p);
  }
  return phi;
}

// The loop's iteration count, one per loop whoever asks first.
ir::Value* RingConverter::counter() {
  if (!counter_)
    counter_ = loopPhi(b_, loop_, m_, "tma.iteration", [&](ir::Value* i) { return b_.binary(Opcode::Add, i, i32(1)); });
  return counter_;
}

// The iteration's slot in a ring of `stages` and its phase: the slot steps
// and wraps to 0, where the phase flips.
std::pair<ir::Instruction*, ir::Instruction*> RingConverter::slotPhase(int64_t stages) {
  auto known = clock_.slotPhase.find(stages);
  if (known != clock_.slotPhase.end()) return known->second;
  std::string suffix = std::to_string(stages);
  ir::Value* wraps = nullptr;
  ir::Instruction* slot = loopPhi(b_, loop_, m_, ("tma.slot" + suffix).c_str(), [&](ir::Value* s) {
    ir::Value* step = b_.binary(Opcode::Add, s, i32(1));
    wraps = b_.cmp(ir::CmpPred::Eq, step, i32(stages));
    return b_.select(wraps, i32(0), step);
  });
  ir::Instruction* phase = loopPhi(b_, loop_, m_, ("tma.phase" + suffix).c_str(), [&](ir::Value* p) {
    return b_.select(wraps, b_.binary(Opcode::Xor, p, i32(1)), p);
  });
  return clock_.slotPhase[stages] = {slot, phase};
}

void RingConverter::run() {
  const ir::Type& ringType = ring_.alloc->type();
  const int64_t stages = ringType.shape[0];
  // The barriers, before the ring.
  ir::Layout barLayout;
  barLayout.kind = ir::LayoutKind::Shared;
  barLayout.order = {0};
  ir::Type barType = ir::Type::scalar(ir::Scalar::I64).withShape({stages, 1}).withLayout(m_.layout(barLayout));
  before(ring_.alloc);
  bars_ = b_.create(Opcode::LocalAlloc, barType, {});
  bars_->setName(ring_.alloc->name() + ".barriers");
  b_.create(Opcode::TmaInit, ir::Type::voidTy(), {bars_});
  counter();  // before anything that uses it
  auto [slot, phase] = slotPhase(stages);
  // The copies.
  size_t prologue = 0;
  bool everyCopyGuarded = true;  // each issued only on an iteration that runs
  for (size_t k = 0; k < ring_.copies.size(); ++k) {
    ir::Instruction* copy = ring_.copies[k];
    const TensorView& v = ring_.views[k];
    if (!loop_.contains(copy->parent)) ++prologue;
    before(copy);
    b_.setLoc(copy->loc);
    ir::Value* row = emit(v.row);
    ir::Value* col = emit(v.col);
    auto conjunction = [&](const std::vector<ir::Value*>& terms) {
      ir::Value* all = nullptr;
      for (ir::Value* p : terms) all = all ? b_.binary(Opcode::And, all, p) : p;
      return all;
    };
    ir::Value* pred = conjunction(v.predicates);
    if (!pred) pred = m_.constBool(true);
    ir::Value* issue = conjunction(v.guards);
    auto extent = [&](const ir::Value* arg, int64_t c) -> ir::Value* {
      return arg ? const_cast<ir::Value*>(arg) : static_cast<ir::Value*>(i32(c));
    };
    ir::Value* dst = copy->operand(0);
    ir::Value* stage = static_cast<ir::Instruction*>(dst)->operand(1);
    std::vector<ir::Value*> operands{dst, bars_, stage, const_cast<ir::Argument*>(v.base),
                                     const_cast<ir::Argument*>(v.ld), extent(v.rowsArg, v.rowsConst),
                                     extent(v.colsArg, v.colsConst), row, col, pred};
    if (issue) operands.push_back(issue);
    everyCopyGuarded = everyCopyGuarded && issue;
    b_.create(Opcode::TmaCopy, ir::Type::voidTy(), operands);
    copy->parent->erase(copy);
  }
  // Readers wait for their stage (before the first user in each block).
  for (ir::Instruction* r : ring_.reads) {
    std::vector<ir::Instruction*> firsts;
    for (ir::Instruction* u : r->users()) {
      auto same = std::find_if(firsts.begin(), firsts.end(), [&](ir::Instruction* f) { return f->parent == u->parent; });
      if (same == firsts.end()) firsts.push_back(u);
      else if (u->parent->indexOf(u) < (*same)->parent->indexOf(*same)) *same = u;
    }
    for (ir::Instruction* u : firsts) {
      before(u);
      b_.create(Opcode::TmaWait, ir::Type::voidTy(), {bars_, r->operand(1), phase});
    }
  }
  // The exit waits for the copies still in flight: iterations n .. n+P-1
  // (P < S: their slots wrap at most once past n's). None are where every
  // copy is issued only on an iteration that runs, whose readers wait for
  // it: the loop's last waits were the last.
  if (everyCopyGuarded) return;
  ir::BasicBlock* exit = loop_.headerExit();
  b_.setInsertPoint(exit, exit->firstNonPhi());
  for (size_t k = 0; k < prologue; ++k) {
    auto [at, parity] = ringPositionAfter(b_, slot, phase, int64_t(k), stages);
    b_.create(Opcode::TmaWait, ir::Type::voidTy(), {bars_, at, parity});
  }
}

// The ring's copies and readers, if they have the pipeliner's shape.
bool collect(const transform::Loop& loop, ir::Instruction* alloc, Ring* ring) {
  ring->alloc = alloc;
  const int64_t stages = alloc->type().shape[0];
  ir::Instruction* readPhi = nullptr;
  std::vector<bool> prologueStages(size_t(stages), false);
  int inLoop = 0;
  size_t prologue = 0;
  for (ir::Instruction* u : alloc->users()) {
    if (u->opcode() != Opcode::MemIndex) return false;
    bool written = false;
    for (ir::Instruction* w : u->users())
      if (w->opcode() == Opcode::AsyncCopy && w->operand(0) == u) {
        written = true;
        ring->copies.push_back(w);
        if (loop.contains(w->parent)) {
          ++inLoop;
        } else {
          const ir::Constant* s = asConst(u->operand(1));
          if (w->parent != loop.preheader || !s || s->i < 0 || s->i >= stages || prologueStages[size_t(s->i)])
            return false;
          prologueStages[size_t(s->i)] = true;
          ++prologue;
        }
      }
    if (written) {
      if (u->users().size() != 1) return false;
      continue;
    }
    ir::Instruction* phi = asInst(u->operand(1), Opcode::Phi);
    if (!phi || phi->parent != loop.header || (readPhi && readPhi != phi)) return false;
    readPhi = phi;
    ring->reads.push_back(u);
  }
  if (inLoop != 1 || !readPhi || prologue == 0) return false;
  for (size_t s = 0; s < prologue; ++s)
    if (!prologueStages[s]) return false;
  for (size_t k = 0; k < readPhi->numOperands(); ++k)
    if (readPhi->blocks[k] == loop.preheader) {
      const ir::Constant* z = asConst(readPhi->operand(k));
      if (!z || z->i != 0) return false;
    }
  return true;
}

std::string tensorProblem(const TensorView& v, const ir::Type& dst) {
  const ir::Layout& l = *dst.layout;
  int64_t esize = ir::byteSize(dst.kind);
  if (dst.kind != ir::Scalar::F16 && dst.kind != ir::Scalar::BF16 && dst.kind != ir::Scalar::F32 &&
      !ir::isFp8Kind(dst.kind) && dst.kind != ir::Scalar::I8)
    return "elements other than f16, bf16, f32, fp8 and int8";
  if (!l.swizzle || l.order.size() != 2 || l.order[0] != v.fastDim) return "stages not swizzled along the rows";
  int64_t fast = dst.shape[size_t(v.fastDim)], outer = dst.shape[size_t(1 - v.fastDim)];
  if ((fast * esize) % l.swizzle || outer > 256 || l.swizzle / esize > 256) return "a box TMA cannot write";
  if (v.base->attrs.aligned % 16) return "a base not known to be 16-byte aligned";
  if ((v.ld->attrs.multipleOf * esize) % 16 || v.ld->attrs.multipleOf == 0)
    return "rows not known to be 16-byte multiples apart";
  if (!materializable(v.row) || !materializable(v.col)) return "coordinates that are not i32";
  // A tensor map's rows hold at most its leading stride: the fast dimension
  // needs a bound (an unmasked one may read past a row's end into the next).
  if (!v.colsArg && v.colsConst == analysis::kUnbounded) return "no bound along the rows";
  return "";
}

// Without cp.async copies, commits close empty groups and waits wait for
// nothing (a few instructions in every iteration of the loop).
void dropEmptyAsyncGroups(ir::Function& f) {
  std::vector<ir::Instruction*> groups;
  for (auto& bb : f.blocks())
    for (auto& inst : bb->instructions()) {
      if (inst->opcode() == Opcode::AsyncCopy) return;
      if (inst->opcode() == Opcode::AsyncCommit || inst->opcode() == Opcode::AsyncWait) groups.push_back(inst.get());
    }
  for (ir::Instruction* g : groups) g->parent->erase(g);
}

}  // namespace

bool runTensorMemoryAccess(ir::Function& f, const transform::PipelineOptions& o) {
  ir::Module& m = *f.parent();
  if (!m.isGpu() || m.target.rfind("sm_90", 0) != 0 || !o.tma) return false;
  bool changed = false;
  ir::DominatorTree dom(f);
  for (const transform::Loop& loop : transform::findLoops(f, dom)) {
    if (!loop.preheader || !loop.latch) continue;
    // One exit, at the header, into a block entered from nowhere else.
    std::vector<ir::BasicBlock*> exiting = loop.exitingBlocks();
    if (exiting.size() != 1 || exiting[0] != loop.header) continue;
    // (A loop without a ring, the common case, stops before this walk over
    // the function's blocks: ten thousand loops would cost its square.)
    bool anyRing = false;
    for (auto& inst : loop.preheader->instructions())
      anyRing = anyRing || (inst->opcode() == Opcode::LocalAlloc && inst->numOperands() == 0);
    if (!anyRing) continue;
    bool oneEntry = true;
    for (ir::BasicBlock* s : loop.header->successors())
      if (!loop.contains(s) && f.predecessors(s).size() != 1) oneEntry = false;
    if (!oneEntry) continue;
    std::vector<Ring> rings;
    for (auto& inst : loop.preheader->instructions()) {
      if (inst->opcode() != Opcode::LocalAlloc || inst->numOperands() != 0 || inst->type().shape.size() != 3) continue;
      Ring ring;
      if (!collect(loop, inst.get(), &ring)) continue;
      bool ok = true;
      for (ir::Instruction* copy : ring.copies) {
        std::string why;
        auto v = analysis::tensorView(copy->operand(1), copy->numOperands() == 3 ? copy->operand(2) : nullptr, dom, &why);
        if (!v || (v->loopHeader && v->loopHeader != loop.header) || !tensorProblem(*v, copy->operand(0)->type()).empty() ||
            (!ring.views.empty() && !sameTensor(ring.views[0], *v))) {
          ok = false;
          break;
        }
        ring.views.push_back(*v);
      }
      if (ok) rings.push_back(std::move(ring));
    }
    LoopClock clock;
    for (Ring& r : rings) {
      RingConverter(f, loop, r, clock).run();
      changed = true;
    }
  }
  if (changed) dropEmptyAsyncGroups(f);
  return changed;
}

}  // namespace tritonc::gpu
