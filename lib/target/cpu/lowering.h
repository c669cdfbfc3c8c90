// Lowering of Triton-IR to LLVM IR (internal to the CPU back end).
//
// One IR function becomes two LLVM functions:
//   i32 program(ptr args, i32 pid x/y/z, i32 grid x/y/z, ptr frame)
//       one program of the grid; returns 0, or the 1-based index of the
//       error site (ErrorSite) that stopped it;
//   i32 tritonc_grid(ptr args, i64 begin, i64 end, i32 grid x/y/z, ptr frame, ptr failed)
//       programs begin..end-1 in the interpreter's order (x fastest), which
//       a worker of the thread pool calls for its chunk of the grid.
// `args` is an array of 8-byte slots, one per parameter, holding the value
// in its memory format (cpu_kernel.cpp fills it).
//
// Scalars are SSA values. A tile is one of
//   uniform: one SSA value for every element (splats, and element-wise
//            results of uniform operands);
//   affine:  element = base + offset, where offset = sum of index * stride
//            (ranges and index arithmetic on them: add, sub, mul by a
//            uniform; pointers gep'd by such offsets), so nothing is stored
//            and loads through `base + offsets` are contiguous vector loads;
//   memory:  element = load(base + offset), a strided view of a buffer;
//   predicate: an i1 tile comparing affine and uniform tiles (a mask over
//            indices), kept as an expression over them (predicate.cpp).
// Broadcast, trans, reshape (where strides can express it) and multiple_of
// are views: new shape and strides, nothing copied. An element-wise tile
// read once, element by element, by a later instruction of its block with
// nothing between that writes memory is deferred (LazyElementwise): its
// reader's loop computes its elements. Every other instruction that
// makes a tile in memory gets its own buffer at a fixed offset of the
// per-worker `frame` (no stack: tiles can be megabytes), and each tile
// operation is a loop nest over its elements, which LLVM's loop vectorizer
// turns into vector code. A tile phi is uniform or affine when its incoming
// values are (an LLVM phi of the scalar or base; the lowering starts again
// with the phi in memory when a back edge brings something else), else it
// owns a buffer that each incoming edge copies into (parallel copies on an
// edge block).
//
// Element semantics follow the interpreter exactly (target/interp/scalar_ops.h):
// f16/bf16 are computed in f32 and rounded back after every operation (the
// same as rounding the exact result once), transcendental functions in f64
// through libm and rounded once, no contraction into FMAs, reductions fold in
// index order. So results are bit for bit the interpreter's, but for exp of
// f32, f16 and bf16, which the default math computes in f32 within 2 units
// in the last place (fast_exp.cpp), and f32 division by a uniform value,
// two multiplies within 2 units (divideByUniform); exact math,
// TRITONC_CPU_EXACT_MATH=1, gives the interpreter's bits there too.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include "ir/ir.h"

namespace tritonc::cpu::detail {

// A stride in elements: a constant, or an i64 value known at run time.
struct Stride {
  int64_t c = 0;
  llvm::Value* v = nullptr;
  Stride() = default;
  Stride(int64_t constant) : c(constant) {}  // NOLINT: strides are mostly constants
  static Stride dynamic(llvm::Value* value) {
    Stride s;
    s.v = value;
    return s;
  }
  bool isConst() const { return v == nullptr; }
  bool is(int64_t k) const { return !v && c == k; }
  bool operator==(const Stride& o) const { return v == o.v && (v != nullptr || c == o.c); }
  bool operator!=(const Stride& o) const { return !(*this == o); }
};
using Strides = std::vector<Stride>;

struct Tile;
// An i1 tile not computed: a comparison of affine or uniform tiles (`cols <
// n`, `rm[:, None] < M`), or and/or/xor/not of such. Masks are mostly these:
// whether every lane is on has a closed form (allSetInClosedForm), and a
// masked access computes the lanes it needs from the leaves (the affine and
// uniform operands, SSA values that hold anywhere after them) in its own
// loop (predicate.cpp).
struct Predicate {
  const ir::Instruction* inst;  // cmp, and, or, xor or not: its opcode and kinds
  std::vector<Tile> operands;   // affine, uniform, or predicates, each of the predicate's shape
};

// An element-wise instruction not computed yet: its element at a row-major
// offset is computed where a consumer reads it, from its operands' elements
// at that offset (each uniform, or row-major like the result).
struct LazyElementwise {
  const ir::Instruction* inst;
  std::vector<Tile> operands;
};

// How an IR value lives in the generated code.
struct Tile {
  ir::Scalar kind = ir::Scalar::Void;  // element kind (Ptr for pointers)
  ir::Scalar pointee = ir::Scalar::Void;
  ir::Shape shape;                     // empty: a scalar
  llvm::Value* scalar = nullptr;       // the scalar, or every element of a uniform tile
  llvm::Value* base = nullptr;         // memory: the address of element [0, ...]; affine: its value
  bool affine = false;                 // elements are base + offset, not loads
  Strides strides;                     // per dimension (0: repeated)
  const ir::Instruction* owner = nullptr;  // the tile phi whose buffer `base` points into
  // Deferred (strides row-major, no base): only the consumers that read
  // through loadElement see such a tile (getLazy); get() computes it first.
  std::shared_ptr<const LazyElementwise> lazy;
  // A predicate (no base; strides row-major): get() computes it into the
  // frame; masked loads and stores read it as it is (getMask).
  std::shared_ptr<const Predicate> predicate;

  bool isScalar() const { return shape.empty(); }
  bool isUniform() const { return !shape.empty() && !base && !lazy && !predicate; }
  bool hasBase() const { return base != nullptr; }  // affine or memory
  bool inMemory() const { return base != nullptr && !affine; }
  bool isContiguous() const;  // in memory, row-major, no repetition
  int64_t numElements() const;
};

Strides rowMajorStrides(const ir::Shape& shape);

// Where a program stops with an error: the code returned is index + 1.
struct ErrorSite {
  SourceLoc loc;
  std::string what;  // "integer division by zero"; an assertion's message
  // An assertion: its condition's shape; the program wrote the failing
  // element's row-major position at Lowering::assertElementOffset() of its frame.
  bool assertion = false;
  ir::Shape shape;
};

class Lowering {
 public:
  // `vectorBits`: the width of the host's vector registers (512 with
  // AVX-512), for the code that is vectorized here rather than by LLVM.
  // `exactMath`: exp as the interpreter computes it (exact_exp.cpp), else in
  // f32 within 2 units in the last place (fast_exp.cpp).
  Lowering(const ir::Function& fn, llvm::Module& module, int vectorBits = 128, bool exactMath = false);
  // Emits both functions into the module; returns the grid function.
  llvm::Function* run();
  size_t frameBytes() const { return frameBytes_; }
  const std::vector<ErrorSite>& errors() const { return errors_; }
  // Where in the frame a failed assertion leaves its element (-1: no assert).
  int64_t assertElementOffset() const { return assertElementOffset_; }

  static constexpr const char* kGridSymbol = "tritonc_grid";

  // ---- types (element_ops.cpp)
  llvm::Type* valueType(ir::Scalar k);    // one element as an SSA value (bf16 as its i16 bits)
  llvm::Type* storageType(ir::Scalar k);  // one element in memory (i1 as a byte)
  llvm::Type* computeType(ir::Scalar k);  // arithmetic on it (f16/bf16 in f32)

  // ---- element semantics (element_ops.cpp), on SSA values of valueType
  llvm::Value* constant(const ir::Constant& c);
  llvm::Value* zero(ir::Scalar k);
  llvm::Value* toCompute(ir::Scalar k, llvm::Value* v);    // exact
  llvm::Value* fromCompute(ir::Scalar k, llvm::Value* v);  // rounds an exact f32 result once
  llvm::Value* roundF64(ir::Scalar k, llvm::Value* v);     // rounds a double once to float kind k
  llvm::Value* fp8ToF64(ir::Scalar k, llvm::Value* bits);  // exact
  llvm::Value* f64ToFp8(ir::Scalar k, llvm::Value* d);     // rounds once, saturating (support/float8.h)
  // Integer division by zero gives all ones, the remainder the dividend.
  llvm::Value* binary(ir::Opcode op, ir::Scalar k, llvm::Value* a, llvm::Value* b);
  // a * b + c rounded once, as the interpreter's (elementwise_exec.cpp).
  llvm::Value* fusedMultiplyAdd(ir::Scalar k, llvm::Value* a, llvm::Value* b, llvm::Value* c);
  llvm::Value* unary(ir::Opcode op, ir::Scalar k, llvm::Value* a);
  llvm::Value* compare(ir::CmpPred p, ir::Scalar k, llvm::Value* a, llvm::Value* b);
  llvm::Value* convert(ir::Scalar from, ir::Scalar to, llvm::Value* v);
  llvm::Value* convertUnsigned(ir::Scalar from, ir::Scalar to, llvm::Value* v);
  llvm::Value* reinterpret(ir::Scalar from, ir::Scalar to, llvm::Value* v);
  // exp of an f32, rounded from libm's double as the interpreter does, in a
  // form the loop vectorizer turns into vector code (exact_exp.cpp).
  llvm::Value* expF32(llvm::Value* x);
  // exp (2^x with base2) of an f32 in f32 arithmetic, within 2 units in the last place (fast_exp.cpp).
  llvm::Value* expF32Fast(llvm::Value* x, bool base2 = false);  // exp, or exp2

  // ---- tiles in memory (lowering.cpp)
  Tile get(const ir::Value* v);      // a deferred element-wise tile is computed into the frame first
  Tile getLazy(const ir::Value* v);  // as it is, deferred or not: for consumers reading through loadElement
  Tile getMask(const ir::Value* v);  // as it is, a predicate or not: for masked accesses (predicate.cpp)
  void set(const ir::Value* v, Tile t);
  Tile uniformTile(const ir::Type& t, llvm::Value* scalar);
  Tile newTile(const ir::Type& t);  // a fresh contiguous buffer in the frame
  Tile contiguous(const Tile& t);   // `t`, or a contiguous copy of it
  // `t` with `shape` (same elements in row-major order) without copying
  // when its strides allow, else nullopt.
  std::optional<Tile> reshaped(const Tile& t, const ir::Shape& shape);
  void copyInto(const Tile& dst, const Tile& src);
  llvm::Value* loadElement(const Tile& t, llvm::Value* offset);  // offset in elements (i64)
  void storeElement(const Tile& t, llvm::Value* offset, llvm::Value* v);
  llvm::Value* elementAddress(const Tile& t, llvm::Value* offset);
  llvm::Value* i64(int64_t v) { return b_.getInt64(uint64_t(v)); }
  // Stride arithmetic (at the insertion point for run-time strides).
  llvm::Value* strideValue(const Stride& s) { return s.v ? s.v : i64(s.c); }
  llvm::Value* scaled(llvm::Value* i, const Stride& s);  // i * s, i64
  Stride addStride(const Stride& a, const Stride& b, bool subtract = false);
  Stride mulStride(const Stride& a, llvm::Value* factor);  // factor: i64
  // A counted loop 0..n-1 at the insertion point (n >= 1); `body` may add blocks.
  void loop(int64_t n, const std::function<void(llvm::Value* i)>& body);
  // Visits every element of `shape` (row-major); strides[k] are operand k's
  // strides and offsets[k] its element offset in `body`. Dimensions that all
  // operands walk alike are merged, so contiguous operands get one flat loop.
  // With `unitInner` >= 0 the dimension where that operand's stride is 1
  // becomes the innermost loop (the elements are visited in another order:
  // only where that cannot change a result).
  void forEach(const ir::Shape& shape, const std::vector<Strides>& strides,
               const std::function<void(const std::vector<llvm::Value*>& offsets)>& body, int unitInner = -1);
  // Whether every element of an i1 tile is set: one pass that vectorizes
  // (a uniform tile: its scalar; a predicate: allSetInClosedForm).
  llvm::Value* allSet(const Tile& mask);

  // ---- predicates (predicate.cpp)
  // Makes `inst` (an element-wise instruction) a predicate if it can be one.
  bool lowerAsPredicate(const ir::Instruction& inst);
  // A view (broadcast, trans, reshape) of a predicate: the same view of its
  // leaves; nullopt where a leaf cannot take it.
  std::optional<Tile> predicateView(const Tile& p, const ir::Instruction& view);
  Tile materialize(const Tile& p);  // a predicate computed into a new buffer
  // Reading elements inside forEach: `elementStrides` appends the strides of
  // the operands that `readElement` then reads from offsets[at...] (one for
  // a tile in memory, affine or uniform; one per leaf for a predicate).
  void elementStrides(const Tile& t, std::vector<Strides>& out);
  llvm::Value* readElement(const Tile& t, const std::vector<llvm::Value*>& offsets, size_t at);
  // A sufficient condition for every lane of a predicate being set, from the
  // ranges of its leaves (false where it cannot tell: the lanes are then
  // read one by one, which is right whatever they are).
  llvm::Value* allSetInClosedForm(const Tile& p);
  // x / d for f32 with d the same in every lane, in the default math: two
  // multiplies by values computed once, within 2 ulp (element_ops.cpp).
  llvm::Value* divideByUniform(llvm::Value* x, llvm::Value* d);
  // Code for both outcomes of `cond`, joined after.
  void eitherWay(llvm::Value* cond, const std::function<void()>& whenTrue, const std::function<void()>& whenFalse);
  // An i64 variable in the entry block (a loop-carried value; mem2reg makes it SSA).
  llvm::AllocaInst* variable(llvm::Type* t, const std::string& name);
  // A new error site; `code` for binary().
  int addErrorSite(const ir::Instruction& inst, const std::string& what);
  // Returns from the program with the status if an error was recorded.
  void checkStatus();

  llvm::IRBuilder<>& builder() { return b_; }
  llvm::LLVMContext& context() { return ctx_; }
  llvm::Module& module() { return mod_; }
  llvm::Function* function() { return program_; }
  llvm::FunctionCallee libm(const char* name, llvm::Type* t);
  llvm::FunctionCallee helper(const char* name, llvm::FunctionType* t);

 private:
  // ---- lowering.cpp: functions, blocks, control flow
  struct PhiMismatch {  // a back edge brought what the phi cannot hold: start again
    const ir::Instruction* phi;
  };
  void reset();
  llvm::Function* lowerOnce();
  void emitPrologue();
  void lowerBlock(const ir::BasicBlock& bb);
  void decidePhis(const ir::BasicBlock& bb);
  void lowerInstruction(const ir::Instruction& inst);
  llvm::BasicBlock* edge(const ir::BasicBlock* from, const ir::BasicBlock* to);
  void fillEdge(llvm::BasicBlock* e, const ir::BasicBlock* from, const ir::BasicBlock* to);
  llvm::Function* emitGridFunction();
  // The element-wise instructions of `bb` whose tiles can be deferred into
  // their one consumer's loop (lower_elementwise.cpp).
  void findDeferrable(const ir::BasicBlock& bb);
  // One element of element-wise `inst` from its operands' elements.
  llvm::Value* elementwiseValue(const ir::Instruction& inst, const std::vector<Tile>& ops,
                                const std::vector<llvm::Value*>& v);
  // Element-wise add/sub/mul that keep an affine tile affine (nullopt: not here).
  std::optional<Tile> affineArithmetic(const ir::Instruction& inst, const std::vector<Tile>& ops);

  // A view of a tile with a base, or of a uniform one, for broadcast, trans,
  // reshape and multiple_of (lower_tile.cpp); nullopt for a reshape that its
  // strides cannot express.
  std::optional<Tile> viewOf(const Tile& a, const ir::Instruction& view);

  // ---- per op family
  void lowerElementwise(const ir::Instruction& inst);  // lower_elementwise.cpp
  void lowerTileOp(const ir::Instruction& inst);       // lower_tile.cpp
  void lowerGep(const ir::Instruction& inst);          // lower_memory.cpp
  void lowerLoad(const ir::Instruction& inst);
  bool readInPlace(const ir::Instruction& load);
  void lowerStore(const ir::Instruction& inst);
  llvm::Value* lanesApart(const Tile& p);
  // A 2-D copy between places whose unit strides lie along different
  // dimensions, in blocks transposed in registers (block_transpose.cpp);
  // false (nothing emitted) when the shape or strides do not allow it.
  bool blockTransposeCopy(ir::Scalar k, const ir::Shape& shape, llvm::Value* dstBase, const Strides& dst,
                          llvm::Value* srcBase, const Strides& src);
  void lowerAtomic(const ir::Instruction& inst);       // lower_atomic.cpp
  void lowerReduce(const ir::Instruction& inst);       // lower_reduce.cpp
  void lowerScan(const ir::Instruction& inst);         // lower_scan.cpp
  void lowerSort(const ir::Instruction& inst);         // lower_sort.cpp
  void lowerHistogram(const ir::Instruction& inst);    // lower_histogram.cpp
  // scan_fn and reduce_fn (lower_combine_fn.cpp): a tuple computed at its
  // leader (ir::tupleLeader) by combineTuple over its operands `in`.
  void lowerCombining(const ir::Instruction& inst);
  std::vector<Tile> combineTuple(const ir::Instruction& inst, const ir::Function& f, const std::vector<Tile>& in);
  // The values a combine function gives for `args` (scalars), its body
  // written inline.
  std::vector<llvm::Value*> applyCombiner(const ir::Function& f, const std::vector<llvm::Value*>& args);
  static ir::Opcode combineOpcode(ir::ReduceKind k);  // the element op of a reduce or scan kind
  void sumInParts(const ir::Instruction& inst, const Tile& a);
  void lowerDot(const ir::Instruction& inst);          // lower_dot.cpp
  void lowerPrint(const ir::Instruction& inst);        // lower_debug.cpp
  void lowerAssert(const ir::Instruction& inst);
  // The register block of the dot micro-kernel: `rows` x `vectors` accumulators of `lanes`.
  struct DotBlock {
    int64_t lanes = 1, rows = 1, vectors = 1;
  };
  DotBlock dotBlock(ir::Scalar k, int64_t M, int64_t N) const;
  void dotMicroKernel(ir::Scalar k, const Tile& a, const Tile& b, const Tile& acc, const Tile& out);
  std::optional<Tile> dotAccumulatorInPlace(const ir::Instruction& dot, const Tile& acc);
  // One lane of an atomic (lower_atomic.cpp): returns the old value.
  llvm::Value* atomicLane(const ir::Instruction& inst, llvm::Value* ptr, llvm::Value* a, llvm::Value* b);

  const ir::Function& fn_;
  llvm::Module& mod_;
  int vectorBits_;
  bool exactMath_;
  llvm::LLVMContext& ctx_;
  llvm::IRBuilder<> b_;
  llvm::Function* program_ = nullptr;
  llvm::BasicBlock* entry_ = nullptr;      // allocas, parameters, frame addresses
  llvm::BasicBlock* errorExit_ = nullptr;  // returns the status
  llvm::Value* frame_ = nullptr;
  llvm::AllocaInst* status_ = nullptr;
  llvm::Value* programId_[3] = {nullptr, nullptr, nullptr};
  llvm::Value* numPrograms_[3] = {nullptr, nullptr, nullptr};
  std::unordered_map<const ir::Value*, Tile> values_;
  std::unordered_map<const ir::BasicBlock*, llvm::BasicBlock*> blocks_;
  std::unordered_map<const ir::BasicBlock*, std::vector<std::pair<llvm::BasicBlock*, const ir::BasicBlock*>>>
      pendingEdges_;                                  // edge blocks into blocks not lowered yet
  std::set<const ir::BasicBlock*> lowered_;           // blocks whose phis are decided
  std::set<const ir::Instruction*> phisInMemory_;     // tile phis that must own a buffer (kept across attempts)
  std::set<const ir::Instruction*> deferrable_;       // of the block being lowered (findDeferrable)
  // The results of a tuple's scan or reduction, by its leader
  // (ir::tupleLeader), for the instructions of its other positions.
  std::map<const ir::Instruction*, std::vector<Tile>> combineResults_;
  const ir::BasicBlock* lowering_ = nullptr;          // whose instructions are being lowered (null on edges)
  std::unordered_map<const ir::Value*, Tile> materialized_;  // predicates computed in their own block
  size_t frameBytes_ = 0;
  int64_t assertElementOffset_ = -1;
  std::vector<ErrorSite> errors_;
};

}  // namespace tritonc::cpu::detail
