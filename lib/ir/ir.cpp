#include "ir/ir.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <unordered_set>

namespace tritonc::ir {

namespace {
struct OpInfo {
  const char* name;
  OpCategory cat;
};
const OpInfo kOps[] = {
#define OPCODE(e, text, cat) {text, OpCategory::cat},
#include "ir/opcodes.def"
#undef OPCODE
};
constexpr size_t kNumOps = sizeof(kOps) / sizeof(kOps[0]);

const char* const kCmpNames[] = {"eq", "ne", "lt", "le", "gt", "ge", "ult", "ule", "ugt", "uge"};
const char* const kReduceNames[] = {"add", "max", "min", "umax", "umin", "maxnum", "minnum", "mul"};
const char* const kAtomicNames[] = {"add", "xchg", "max", "min", "and", "or", "umax", "umin", "xor"};
const char* const kSortOrderNames[] = {"ascending", "descending"};
const char* const kSemNames[] = {"relaxed", "acquire", "release", "acq_rel"};
const char* const kScopeNames[] = {"gpu", "cta", "sys"};
const char* const kCacheNames[] = {"", "ca", "cg", "cv", "wb", "cs", "wt"};

template <typename E, size_t N>
bool fromNames(const char* const (&names)[N], const std::string& s, E* out) {
  for (size_t i = 0; i < N; ++i)
    if (s == names[i]) { *out = E(i); return true; }
  return false;
}
}  // namespace

const char* opcodeName(Opcode op) { return kOps[size_t(op)].name; }
OpCategory opcodeCategory(Opcode op) { return kOps[size_t(op)].cat; }
bool opcodeFromName(const std::string& s, Opcode* out) {
  for (size_t i = 0; i < kNumOps; ++i)
    if (s == kOps[i].name) { *out = Opcode(i); return true; }
  return false;
}
const char* cmpPredName(CmpPred p) { return kCmpNames[size_t(p)]; }
const char* reduceKindName(ReduceKind k) { return kReduceNames[size_t(k)]; }
const char* atomicKindName(AtomicKind k) { return kAtomicNames[size_t(k)]; }
const char* sortOrderName(SortOrder o) { return kSortOrderNames[size_t(o)]; }
bool cmpPredFromName(const std::string& s, CmpPred* out) { return fromNames(kCmpNames, s, out); }
bool reduceKindFromName(const std::string& s, ReduceKind* out) { return fromNames(kReduceNames, s, out); }
bool atomicKindFromName(const std::string& s, AtomicKind* out) { return fromNames(kAtomicNames, s, out); }
bool sortOrderFromName(const std::string& s, SortOrder* out) { return fromNames(kSortOrderNames, s, out); }
const char* memSemName(MemSem s) { return kSemNames[size_t(s)]; }
const char* memScopeName(MemScope s) { return kScopeNames[size_t(s)]; }
bool memSemFromName(const std::string& s, MemSem* out) { return fromNames(kSemNames, s, out); }
bool memScopeFromName(const std::string& s, MemScope* out) { return fromNames(kScopeNames, s, out); }
const char* cacheOpName(CacheOp c) { return size_t(c) < std::size(kCacheNames) ? kCacheNames[size_t(c)] : "?"; }
bool cacheOpFromName(const std::string& s, CacheOp* out) { return !s.empty() && fromNames(kCacheNames, s, out); }
bool cacheOpAllowed(Opcode op, CacheOp c) {
  if (c == CacheOp::Default) return true;
  if (op == Opcode::Load) return c == CacheOp::Ca || c == CacheOp::Cg || c == CacheOp::Cv;
  if (op == Opcode::Store) return c == CacheOp::Wb || c == CacheOp::Cg || c == CacheOp::Cs || c == CacheOp::Wt;
  return false;
}

// ---- Value ----------------------------------------------------------------

void Value::replaceAllUsesWith(Value* v) {
  if (v == this) return;
  TRITONC_CHECK(v, "null operand");
  // Every use goes, so the slots are rewritten without dropping uses one by
  // one (each drop searches the list: quadratic for a value used often).
  std::vector<Instruction*> users;
  users.swap(users_);
  for (Instruction* u : users)  // a user of several slots is listed once per slot
    for (Value*& op : u->operands_)
      if (op == this) {
        op = v;
        v->users_.push_back(u);
      }
}

// ---- Instruction ----------------------------------------------------------

Instruction::Instruction(Opcode op, Type t, std::vector<Value*> operands, SourceLoc l)
    : Value(ValueKind::Instruction, std::move(t)), loc(l), op_(op) {
  for (Value* v : operands) addOperand(v);
}

Instruction::~Instruction() { dropAllOperands(); }

void Value::dropUse(Instruction* user) {
  // From the back: the most recent users are the ones most often dropped
  // (new instructions replaced, and callers that drop many go backwards).
  auto it = std::find(users_.rbegin(), users_.rend(), user);
  if (it != users_.rend()) users_.erase(std::next(it).base());
}

void Instruction::setOperand(size_t i, Value* v) {
  TRITONC_CHECK(v, "null operand");
  if (operands_[i]) operands_[i]->dropUse(this);
  operands_[i] = v;
  v->users_.push_back(this);
}

void Instruction::addOperand(Value* v) {
  TRITONC_CHECK(v, "null operand");
  operands_.push_back(v);
  v->users_.push_back(this);
}

void Instruction::removeOperand(size_t i) {
  operands_[i]->dropUse(this);
  operands_.erase(operands_.begin() + i);
}

void Instruction::dropAllOperands() {
  for (auto it = operands_.rbegin(); it != operands_.rend(); ++it) (*it)->dropUse(this);
  operands_.clear();
}

Value* Instruction::mask() const {
  switch (op_) {
    case Opcode::Load: return operands_.size() >= 2 ? operands_[1] : nullptr;
    case Opcode::Store:
    case Opcode::AtomicRmw: return operands_.size() >= 3 ? operands_[2] : nullptr;
    case Opcode::AtomicCas: return operands_.size() >= 4 ? operands_[3] : nullptr;
    case Opcode::AsyncCopy: return operands_.size() >= 3 ? operands_[2] : nullptr;
    default: return nullptr;
  }
}

// ---- BasicBlock -----------------------------------------------------------

Instruction* BasicBlock::terminator() const {
  if (insts_.empty() || !insts_.back()->isTerminator()) return nullptr;
  return insts_.back().get();
}

size_t BasicBlock::firstNonPhi() const {
  size_t pos = 0;
  while (pos < insts_.size() && insts_[pos]->opcode() == Opcode::Phi) ++pos;
  return pos;
}

std::vector<BasicBlock*> BasicBlock::successors() const {
  Instruction* t = terminator();
  return t ? t->blocks : std::vector<BasicBlock*>{};
}

Instruction* BasicBlock::insert(size_t pos, std::unique_ptr<Instruction> inst) {
  inst->parent = this;
  Instruction* raw = inst.get();
  insts_.insert(insts_.begin() + std::min(pos, insts_.size()), std::move(inst));
  return raw;
}

size_t BasicBlock::indexOf(const Instruction* inst) const {
  for (size_t i = 0; i < insts_.size(); ++i)
    if (insts_[i].get() == inst) return i;
  TRITONC_CHECK(false, "instruction not in block");
  return 0;
}

std::unique_ptr<Instruction> BasicBlock::detach(Instruction* inst) {
  size_t i = indexOf(inst);
  std::unique_ptr<Instruction> out = std::move(insts_[i]);
  insts_.erase(insts_.begin() + i);
  out->parent = nullptr;
  return out;
}

void BasicBlock::moveAllTo(BasicBlock* dest) {
  for (std::unique_ptr<Instruction>& inst : insts_) {
    inst->parent = dest;
    dest->insts_.push_back(std::move(inst));
  }
  insts_.clear();
}

void BasicBlock::erase(Instruction* inst) {
  TRITONC_CHECK(inst->users().empty(), "erasing an instruction that still has users");
  detach(inst);  // the unique_ptr dies here, dropping its operands
}

void BasicBlock::eraseAll(const std::unordered_set<const Instruction*>& dead) {
  if (dead.empty()) return;
  InstList kept, gone;
  kept.reserve(insts_.size());
  for (auto& i : insts_) (dead.count(i.get()) ? gone : kept).push_back(std::move(i));
  // Last first: each drop then finds its use at the end of the used value's list.
  for (auto it = gone.rbegin(); it != gone.rend(); ++it) (*it)->dropAllOperands();
  for (auto& i : gone) TRITONC_CHECK(i->users().empty(), "erasing an instruction that still has users");
  insts_ = std::move(kept);
  for (auto it = gone.rbegin(); it != gone.rend(); ++it) it->reset();
}

// ---- Function / Module ----------------------------------------------------

Argument* Function::addArgument(Type t, std::string name) {
  args_.push_back(std::make_unique<Argument>(std::move(t), unsigned(args_.size())));
  args_.back()->setName(std::move(name));
  return args_.back().get();
}

BasicBlock* Function::addBlock(std::string name) {
  blocks_.push_back(std::make_unique<BasicBlock>(std::move(name), this));
  return blocks_.back().get();
}

void Function::eraseBlocks(const std::vector<BasicBlock*>& bbs) {
  for (BasicBlock* bb : bbs)
    for (auto& i : bb->instructions()) i->dropAllOperands();
  // In one sweep (erasing them one by one moved the rest of the list each
  // time: quadratic in a function of thousands of blocks).
  const std::unordered_set<const BasicBlock*> gone(bbs.begin(), bbs.end());
  blocks_.erase(std::remove_if(blocks_.begin(), blocks_.end(),
                               [&](const std::unique_ptr<BasicBlock>& b) { return gone.count(b.get()) != 0; }),
                blocks_.end());
}

void Function::moveBlockAfter(BasicBlock* bb, BasicBlock* after) {
  std::unique_ptr<BasicBlock> owned;
  for (auto it = blocks_.begin(); it != blocks_.end(); ++it)
    if (it->get() == bb) { owned = std::move(*it); blocks_.erase(it); break; }
  TRITONC_CHECK(owned, "block not in function");
  for (auto it = blocks_.begin(); it != blocks_.end(); ++it)
    if (it->get() == after) { blocks_.insert(it + 1, std::move(owned)); return; }
  blocks_.push_back(std::move(owned));
}

std::vector<BasicBlock*> Function::predecessors(const BasicBlock* bb) const {
  std::vector<BasicBlock*> preds;
  for (auto& b : blocks_)
    if (Instruction* t = b->terminator())  // (successors() would copy the targets)
      for (BasicBlock* s : t->blocks)
        if (s == bb && std::find(preds.begin(), preds.end(), b.get()) == preds.end()) preds.push_back(b.get());
  return preds;
}

Module::~Module() {
  // Last first, so that each use dropped is the last of its value's list.
  for (auto* list : {&funcs_, &combiners_})
    for (auto f = list->rbegin(); f != list->rend(); ++f)
      for (auto bb = (*f)->blocks().rbegin(); bb != (*f)->blocks().rend(); ++bb)
        for (auto inst = (*bb)->instructions().rbegin(); inst != (*bb)->instructions().rend(); ++inst)
          (*inst)->dropAllOperands();
}

Function* Module::addCombiner(std::string name) {
  combiners_.push_back(std::make_unique<Function>(std::move(name), this, true));
  return combiners_.back().get();
}

Function* Module::combiner(const std::string& name) const {
  for (auto& f : combiners_)
    if (f->name() == name) return f.get();
  return nullptr;
}

const Instruction* tupleLeader(const Instruction& i) {
  if (!i.parent || (i.opcode() != Opcode::ScanFn && i.opcode() != Opcode::ReduceFn)) return &i;
  for (const auto& other : i.parent->instructions()) {
    if (other.get() == &i) break;
    if (other->opcode() == i.opcode() && other->text == i.text && other->imm == i.imm &&
        other->operands() == i.operands())
      return other.get();
  }
  return &i;
}

const Function* combinerOf(const Instruction& i) {
  const Module* m = i.parent && i.parent->parent() ? i.parent->parent()->parent() : nullptr;
  return m ? m->combiner(i.text) : nullptr;
}

Function* Module::addFunction(std::string name) {
  funcs_.push_back(std::make_unique<Function>(std::move(name), this));
  return funcs_.back().get();
}

Function* Module::function(const std::string& name) const {
  for (auto& f : funcs_)
    if (f->name() == name) return f.get();
  return nullptr;
}

const Layout* Module::layout(const Layout& l) {
  std::string key = l.key();
  auto it = layouts_.find(key);
  if (it != layouts_.end()) return it->second.get();
  return (layouts_[key] = std::make_unique<Layout>(l)).get();
}

Constant* Module::constInt(Scalar kind, int64_t v) {
  v = wrapInt(kind, v);
  // (An integer constant of a float kind is never shared, as before the index.)
  Constant** slot = isFloatKind(kind) ? nullptr : &intConsts_[{kind, uint64_t(v)}];
  if (slot && *slot) return *slot;
  consts_.push_back(std::make_unique<Constant>(Type::scalar(kind), v));
  if (slot) *slot = consts_.back().get();
  return consts_.back().get();
}

Constant* Module::constFloat(Scalar kind, double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof v);
  Constant*& slot = floatConsts_[{kind, bits}];
  if (!slot) {
    consts_.push_back(std::make_unique<Constant>(Type::scalar(kind), v));
    slot = consts_.back().get();
  }
  return slot;
}

int64_t wrapInt(Scalar kind, int64_t v) {
  switch (kind) {
    case Scalar::I1: return v & 1;
    case Scalar::I8: return int8_t(uint8_t(v));
    case Scalar::I16: return int16_t(uint16_t(v));
    case Scalar::I32: return int32_t(uint32_t(v));
    default: return v;
  }
}

int64_t packTransPermutation(const std::vector<int>& perm) {
  if (perm == std::vector<int>{1, 0}) return 0;
  // The entries in 4-bit fields from bit 0, their count in bits 32-35.
  int64_t packed = kTransPermuted | int64_t(perm.size() & 15) << 32;
  for (size_t d = 0; d < perm.size() && d < 8; ++d) packed |= int64_t(perm[d] & 15) << (4 * d);
  return packed;
}

std::vector<int> transPermutation(int64_t imm, size_t rank) {
  if (imm == 0) return rank == 2 ? std::vector<int>{1, 0} : std::vector<int>{};
  if ((imm & ~(kTransPermuted - 1)) != kTransPermuted || rank > 8 || size_t((imm >> 32) & 15) != rank ||
      (imm & 0xffffffffLL) >> (4 * rank) != 0)
    return {};
  std::vector<int> perm(rank);
  std::vector<bool> seen(rank, false);
  for (size_t d = 0; d < rank; ++d) {
    perm[d] = int((imm >> (4 * d)) & 15);
    if (size_t(perm[d]) >= rank || seen[size_t(perm[d])]) return {};
    seen[size_t(perm[d])] = true;
  }
  return perm;
}

bool isReduction(const Instruction& i) {
  const auto sem = MemSem(i.imm & 3);
  return i.opcode() == Opcode::AtomicRmw && i.users().empty() && i.sub != uint8_t(AtomicKind::Xchg) &&
         (sem == MemSem::Relaxed || sem == MemSem::Release);
}

}  // namespace tritonc::ir
