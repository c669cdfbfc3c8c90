// Triton-IR: modules, functions, basic blocks, instructions, in SSA form.
//
// Values have a Type (scalar or tile, see type.h). Every instruction keeps the
// source location it came from, so the interpreter and later compile reports
// can point back at the Triton-C line. Predication (paper 4.3) is represented
// by mask operands on load/store/atomics and by `select` (the psi function).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "ir/layout.h"
#include "ir/type.h"
#include "support/diagnostic.h"

namespace tritonc::ir {

enum class Opcode : uint8_t {
#define OPCODE(e, text, cat) e,
#include "ir/opcodes.def"
#undef OPCODE
};
enum class OpCategory : uint8_t { Binary, Unary, Other, Gpu };

const char* opcodeName(Opcode op);
OpCategory opcodeCategory(Opcode op);
bool opcodeFromName(const std::string& s, Opcode* out);

// Sub-kinds carried by some opcodes (Instruction::sub).
// Ult..Uge compare integers as unsigned (the others signed, or floats).
enum class CmpPred : uint8_t { Eq, Ne, Lt, Le, Gt, Ge, Ult, Ule, Ugt, Uge };
// (Mul: scans only, tl.cumprod.)
enum class ReduceKind : uint8_t { Add, Max, Min, UMax, UMin, MaxNum, MinNum, Mul };
enum class AtomicKind : uint8_t { Add, Xchg, Max, Min, And, Or, UMax, UMin, Xor };
// sort's order (floats by IEEE 754's totalOrder: -NaN < -inf < -0 < +0 <
// +inf < +NaN; integers signed).
enum class SortOrder : uint8_t { Ascending, Descending };
constexpr uint8_t kNumCmpPreds = 10, kNumReduceKinds = 8, kNumAtomicKinds = 9, kNumSortOrders = 2;
inline bool isUnsignedPred(CmpPred p) { return p >= CmpPred::Ult; }
const char* cmpPredName(CmpPred p);
const char* reduceKindName(ReduceKind k);
const char* atomicKindName(AtomicKind k);
const char* sortOrderName(SortOrder o);
bool cmpPredFromName(const std::string& s, CmpPred* out);
bool reduceKindFromName(const std::string& s, ReduceKind* out);
bool atomicKindFromName(const std::string& s, AtomicKind* out);
bool sortOrderFromName(const std::string& s, SortOrder* out);
// An atomic's memory semantics and scope (Instruction::imm: bits 0-1 and
// 2-3; 0 is relaxed at GPU scope, Triton-C's atomics; the Python DSL's
// default is acq_rel, Triton's).
enum class MemSem : uint8_t { Relaxed, Acquire, Release, AcqRel };
enum class MemScope : uint8_t { Gpu, Cta, Sys };
// Which warps of a warp-specialized function run an instruction.
enum class Role : uint8_t { Consumer, Producer, Both };
const char* memSemName(MemSem s);
const char* memScopeName(MemScope s);
bool memSemFromName(const std::string& s, MemSem* out);
bool memScopeFromName(const std::string& s, MemScope* out);
inline int64_t atomicOrder(MemSem sem, MemScope scope) { return int64_t(sem) | int64_t(scope) << 2; }

class Instruction;
class BasicBlock;
class Function;
class Module;

enum class ValueKind : uint8_t { Argument, Constant, Instruction };

class Value {
 public:
  Value(ValueKind k, Type t) : kind_(k), type_(std::move(t)) {}
  virtual ~Value() = default;
  Value(const Value&) = delete;
  Value& operator=(const Value&) = delete;

  ValueKind valueKind() const { return kind_; }
  const Type& type() const { return type_; }
  void setType(Type t) { type_ = std::move(t); }
  // A name hint (from the source variable); the printer makes names unique.
  const std::string& name() const { return name_; }
  void setName(std::string n) { name_ = std::move(n); }
  // Instructions that use this value (one entry per operand slot).
  const std::vector<Instruction*>& users() const { return users_; }
  // Makes every user of this value use `v` instead.
  void replaceAllUsesWith(Value* v);

 private:
  friend class Instruction;
  void dropUse(Instruction* user);
  ValueKind kind_;
  Type type_;
  std::string name_;
  std::vector<Instruction*> users_;
};

// Kernel parameter attributes (from __multipleof, __aligned, __readonly, ...).
struct ParamAttrs {
  int64_t multipleOf = 0;     // integer divisible by this (0: unknown)
  bool nonNegative = false;   // integer >= 0 (a launch's specialization)
  bool one = false;           // integer equal to 1 (a launch's specialization: its uses are the constant)
  int64_t aligned = 0;        // pointer aligned to this many bytes (0: unknown)
  bool readonly = false;
  bool noalias = false;
  int64_t constantTable = 0;  // > 0: a constant look-up table of this many elements
};

class Argument : public Value {
 public:
  Argument(Type t, unsigned index) : Value(ValueKind::Argument, std::move(t)), index_(index) {}
  unsigned index() const { return index_; }
  ParamAttrs attrs;

 private:
  unsigned index_;
};

// A scalar constant. Integers are kept sign-extended in `i`, floats in `f`.
class Constant : public Value {
 public:
  Constant(Type t, int64_t i) : Value(ValueKind::Constant, std::move(t)), i(i), f(double(i)) {}
  // `i` is 0 for a float outside the int64 range (inf, nan): converting those is UB.
  Constant(Type t, double f)
      : Value(ValueKind::Constant, std::move(t)),
        i(f > -9.2e18 && f < 9.2e18 ? int64_t(f) : 0), f(f) {}
  int64_t i;
  double f;
};

// An inline_asm's `sub`: the assembly has no side effect (Triton's
// is_pure), so passes may merge, move or drop it like arithmetic. Printed
// `inline_asm pure "..."`.
constexpr uint8_t kInlineAsmPure = 1;
// A load's `sub`: its cache operator (PTX's ld .ca, .cg, .cv; Triton's
// cache_modifier), printed `{cache = cg}`, and whether it is volatile
// (Triton's volatile=True: read from memory every time, for flags other
// programs write), printed `{volatile = 1}`: a volatile load is never
// removed, merged, moved or pre-fetched (hasSideEffects). A store's `sub`:
// its cache operator (.wb, .cg, .cs, .wt), printed `{cache = cs}`. Cache
// operators are hints to the GPU back end only; the CPU back end makes a
// volatile load LLVM's volatile load, the interpreter reads as usual.
enum class CacheOp : uint8_t { Default = 0, Ca, Cg, Cv, Wb, Cs, Wt };
constexpr uint8_t kLoadCacheMask = 7, kLoadVolatile = 8;
const char* cacheOpName(CacheOp c);               // "ca", "cg", ...; "" for Default
bool cacheOpFromName(const std::string& name, CacheOp* out);
bool cacheOpAllowed(Opcode op, CacheOp c);        // ca, cg, cv on loads; wb, cg, cs, wt on stores

class Instruction : public Value {
 public:
  Instruction(Opcode op, Type t, std::vector<Value*> operands, SourceLoc loc);
  ~Instruction() override;

  Opcode opcode() const { return op_; }
  size_t numOperands() const { return operands_.size(); }
  Value* operand(size_t i) const { return operands_[i]; }
  const std::vector<Value*>& operands() const { return operands_; }
  void setOperand(size_t i, Value* v);
  void addOperand(Value* v);
  void removeOperand(size_t i);
  void dropAllOperands();

  // Successor blocks (br, cond_br) or incoming blocks (phi, parallel to operands).
  std::vector<BasicBlock*> blocks;
  uint8_t sub = 0;    // CmpPred / ReduceKind / AtomicKind; print: kPrintHex or 0;
                      // stage_init, stage_release: 1 for {cluster = 1}
  int64_t imm = 0;    // axis, range start, multiple_of divisor, pending groups (async_wait, dot_wait),
                      // an atomic's semantics and scope (atomicOrder)
  // GPU IR decisions, printed as `{vec = 8, smem = 1024}` after the type:
  int vec = 0;        // load, store, async_copy: elements per access (0: not decided)
  int64_t smem = -1;  // local_alloc, and instructions that need scratch: byte offset in shared memory
  std::string text;   // print: the prefix of its lines; assert: the message of its failure;
                      // scan_fn, reduce_fn: its combine function's name (sub: the result it gives)
  // In a warp-specialized function (Function::producerWarps), which warps
  // run it (gpu/warp_specialize.cpp): the consumers (the kernel's own
  // warps) unless marked {role = producer} or {role = both}.
  Role role = Role::Consumer;
  SourceLoc loc;
  BasicBlock* parent = nullptr;

  bool isTerminator() const {
    return op_ == Opcode::Br || op_ == Opcode::CondBr || op_ == Opcode::Ret;
  }
  // Instructions that passes must neither remove, merge nor move: stores,
  // atomics, prints and assertions, terminators, and the GPU IR's
  // allocations, shared-memory writes, asynchronous operations and their
  // waits, barriers and fences.
  bool hasSideEffects() const {
    switch (op_) {
      case Opcode::Store: case Opcode::AtomicRmw: case Opcode::AtomicCas: case Opcode::Print: case Opcode::Assert:
      case Opcode::LocalAlloc: case Opcode::LocalStore: case Opcode::AsyncCopy: case Opcode::AsyncCommit:
      case Opcode::AsyncWait: case Opcode::Barrier: case Opcode::FenceAsyncShared: case Opcode::DotAsync:
      case Opcode::DotWait: case Opcode::TmaInit: case Opcode::TmaCopy: case Opcode::TmaWait:
      case Opcode::StageInit: case Opcode::StageRelease:
        return true;
      case Opcode::InlineAsm:
        return sub != kInlineAsmPure;
      case Opcode::Load:
        return (sub & kLoadVolatile) != 0;
      default:
        return isTerminator();
    }
  }
  // Reads memory that other instructions may write (never merged or hoisted).
  bool readsMemory() const { return op_ == Opcode::Load || op_ == Opcode::LocalLoad; }
  // Load: operands (ptr [, mask, other]); Store: (ptr, value [, mask]);
  // atomic_rmw: (ptr, value [, mask]); atomic_cas: (ptr, cmp, value [, mask]);
  // async_copy: (buffer, ptr [, mask]).
  // tma_copy: (buffer, barriers, stage, base, ld, rows, cols, row, col, pred)
  // (gpu/tma.h); tma_init: (barriers); tma_wait: (barriers, stage, phase);
  // stage_init (imm: arrivals): (barriers); stage_release: (barriers, stage, pred).
  Value* mask() const;

 private:
  friend class Value;  // replaceAllUsesWith rewrites operand slots directly
  Opcode op_;
  std::vector<Value*> operands_;
};

class BasicBlock {
 public:
  explicit BasicBlock(std::string name, Function* parent) : name_(std::move(name)), parent_(parent) {}
  const std::string& name() const { return name_; }
  void setName(std::string n) { name_ = std::move(n); }
  Function* parent() const { return parent_; }

  using InstList = std::vector<std::unique_ptr<Instruction>>;
  const InstList& instructions() const { return insts_; }
  bool empty() const { return insts_.empty(); }
  Instruction* terminator() const;
  // The position of the first instruction that is not a phi (where code
  // entering the block may be inserted).
  size_t firstNonPhi() const;
  std::vector<BasicBlock*> successors() const;
  // Inserts before position `pos` (insts_.size() appends); returns the instruction.
  Instruction* insert(size_t pos, std::unique_ptr<Instruction> inst);
  Instruction* append(std::unique_ptr<Instruction> inst) { return insert(insts_.size(), std::move(inst)); }
  // Removes and destroys `inst`; it must have no users left.
  void erase(Instruction* inst);
  // Removes `inst` without destroying it (for moving it elsewhere).
  std::unique_ptr<Instruction> detach(Instruction* inst);
  // Moves every instruction, in order, to the end of `dest` (one pass: a
  // block split at its start).
  void moveAllTo(BasicBlock* dest);
  // Removes and destroys every instruction in `dead`, in one pass over the
  // block (erase() costs the block's length each time). Nothing outside
  // `dead` may use them; they may use each other.
  void eraseAll(const std::unordered_set<const Instruction*>& dead);
  size_t indexOf(const Instruction* inst) const;

 private:
  std::string name_;
  Function* parent_;
  InstList insts_;
};

class Function {
 public:
  Function(std::string name, Module* parent, bool combiner = false)
      : name_(std::move(name)), parent_(parent), combiner_(combiner) {}
  const std::string& name() const { return name_; }
  Module* parent() const { return parent_; }
  // A combine function (Module::addCombiner), not a kernel.
  bool isCombiner() const { return combiner_; }

  Argument* addArgument(Type t, std::string name);
  const std::vector<std::unique_ptr<Argument>>& arguments() const { return args_; }
  Argument* argument(size_t i) const { return args_[i].get(); }

  BasicBlock* addBlock(std::string name);
  const std::vector<std::unique_ptr<BasicBlock>>& blocks() const { return blocks_; }
  BasicBlock* entry() const { return blocks_.empty() ? nullptr : blocks_.front().get(); }
  // Removes blocks that nothing outside them uses (unreachable ones). The
  // operands of all of them are dropped first, so they may use each other.
  void eraseBlocks(const std::vector<BasicBlock*>& bbs);
  // Moves `bb` to sit right after `after` in the block order (layout only).
  void moveBlockAfter(BasicBlock* bb, BasicBlock* after);
  std::vector<BasicBlock*> predecessors(const BasicBlock* bb) const;

  SourceLoc loc;
  int64_t sharedBytes = -1;  // GPU IR: shared memory one program uses (-1: not allocated yet)
  // GPU IR: warps added to the module's num_warps that only issue tensor
  // copies (gpu/warp_specialize.cpp); printed `producer_warps(1)`.
  int producerWarps = 0;
  // GPU IR: program ids remapped to a grouped order of this many rows of
  // tiles (gpu/program_order.cpp); printed `grouped_programs(16)`. It
  // informs the compile report: the arithmetic is in the body.
  int groupedPrograms = 0;

 private:
  std::string name_;
  Module* parent_;
  bool combiner_ = false;
  std::vector<std::unique_ptr<Argument>> args_;
  std::vector<std::unique_ptr<BasicBlock>> blocks_;
};

class Module {
 public:
  Module() = default;
  // Drops every operand before anything is destroyed: instructions refer to
  // values in other blocks and to the module's constants.
  ~Module();
  Function* addFunction(std::string name);
  const std::vector<std::unique_ptr<Function>>& functions() const { return funcs_; }
  Function* function(const std::string& name) const;
  // Combine functions (`combine @name(...)`, docs/IR.md): scalar functions
  // of one block of element-wise instructions that scan_fn and reduce_fn apply. Of
  // their 2k arguments the first k are the value so far, the last k the
  // next element; `ret` gives the k values combined. They are not kernels:
  // passes over functions() do not see them.
  Function* addCombiner(std::string name);
  const std::vector<std::unique_ptr<Function>>& combiners() const { return combiners_; }
  Function* combiner(const std::string& name) const;

  // Interned scalar constants.
  Constant* constInt(Scalar kind, int64_t v);
  Constant* constFloat(Scalar kind, double v);
  Constant* constBool(bool v) { return constInt(Scalar::I1, v ? 1 : 0); }

  // The interned copy of `l` (GPU IR types point at it).
  const Layout* layout(const Layout& l);

  std::string sourceFile;  // for diagnostics
  std::string sourceText;  // the preprocessed source, for carets (may be empty)
  // GPU IR: the target ("sm_90a") and warps per program; empty for Triton-IR.
  std::string target;
  int numWarps = 0;
  bool isGpu() const { return !target.empty(); }

 private:
  std::vector<std::unique_ptr<Function>> funcs_, combiners_;
  std::vector<std::unique_ptr<Constant>> consts_;
  // Interned constants by kind and value bits (a folded chain makes many: a
  // search of consts_ would cost their number each).
  std::map<std::pair<Scalar, uint64_t>, Constant*> intConsts_, floatConsts_;
  std::map<std::string, std::unique_ptr<Layout>> layouts_;  // by key
};

// A splat's `sub`: the condition that a pre-fetch's iteration runs
// (transform/prefetch.cpp), splat over the mask of the load it guards. Where
// it is false the program never uses the loaded tile (the loop exits first),
// so a copy under it need not be made (gpu/tma.cpp). Printed `{guard = 1}`.
constexpr uint8_t kSplatIterationGuard = 1;
// A barrier's `imm`: the program's warps (0), every thread of the cluster
// (1, `{cluster = 1}`), or one half of that, split so that work goes on
// between them: the arrive (`{cluster = arrive}`) and the wait
// (`{cluster = wait}`). Neither half is a barrier of the program's warps.
constexpr int64_t kBarrierCluster = 1, kBarrierClusterArrive = 2, kBarrierClusterWait = 3;
// A print's `sub`: its values print as the hexadecimal digits of their bits.
// Printed `print hex "..."`.
constexpr uint8_t kPrintHex = 1;

// A trans's `imm`: which operand dimension each result dimension is
// (result dimension d is operand dimension perm[d]). 0 is the 2-D swap,
// printed `trans %a`; any other permutation is packed 4 bits per dimension
// with its length in bits 32-35, under kTransPermuted, and printed
// `trans [0, 2, 1] %a`.
constexpr int64_t kTransPermuted = int64_t(1) << 40;
int64_t packTransPermutation(const std::vector<int>& perm);  // 0 for {1, 0}
// The permutation of a trans over a tile of `rank` dimensions; empty when
// `imm` is no permutation of that many (the verifier says so).
std::vector<int> transPermutation(int64_t imm, size_t rank);
inline std::vector<int> transPermutation(const Instruction& i);

// Wraps an integer to the width of `kind` and sign-extends it back (i1: 0 or 1).
int64_t wrapInt(Scalar kind, int64_t v);

// An atomic_rmw that is a reduction (PTX red): its old value is unused, it
// is relaxed or release, and it is not an exchange (red has none). The
// layouts vectorize such additions, the report and the lowering name them.
bool isReduction(const Instruction& i);

// An integer div, rem, udiv or urem. By zero it faults nowhere (docs/IR.md:
// -1, the dividend), but costs a dozen instructions and, on the CPU, a
// guard: passes neither hoist it out of a condition nor run it where the
// program would not.
inline bool isIntegerDivision(const Instruction& i) {
  const Opcode op = i.opcode();
  return (op == Opcode::Div || op == Opcode::Rem || op == Opcode::UDiv || op == Opcode::URem) && i.type().isInt();
}

// The combine function a scan_fn or reduce_fn applies (nullptr when its module has none
// of that name, or it is not in a module).
const Function* combinerOf(const Instruction& i);
// The first instruction of `i`'s tuple in its block: the scan_fn (reduce_fn)
// of the same function, axis and operands at or before `i`, which the back
// ends compute the whole tuple at (the others take their element of it);
// `i` itself for any other opcode.
const Instruction* tupleLeader(const Instruction& i);

inline std::vector<int> transPermutation(const Instruction& i) {
  return transPermutation(i.imm, i.operand(0)->type().shape.size());
}

}  // namespace tritonc::ir
