// Internal to the PTX back end: the lowering of one GPU IR function
// (docs/GPU_IR.md) to a PTX .entry. Every decision was made by the GPU IR
// passes and is in the IR: each tile's layout (which thread holds which
// element, as a linear layout), vector widths, buffers and their offsets in
// shared memory, asynchronous copies and waits, barriers. The lowering
// follows them: a distributed tile is held as registers (one per element a
// thread holds, in the linear layout's register order; a splat as one
// register), a buffer in shared memory as one register with its address.
// Op families are lowered in their own files.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/axis_info.h"
#include "gpu/linear_layout.h"
#include "ir/ir.h"
#include "target/nvptx/codegen.h"
#include "target/nvptx/element_order.h"

namespace tritonc::nvptx {

// Register classes of PTX: their declaration type and name prefix.
enum class RegClass { Pred, B16, B32, F32, B64, F64 };

RegClass regClassOf(ir::Scalar k);
const char* ptxType(ir::Scalar k);     // of registers: "f32", "s32", "b16" (f16 storage), ...
const char* memoryType(ir::Scalar k);  // of ld/st in memory: "u8" (bool), "s8", "b16", "f32", ...
const char* movType(RegClass c);       // "pred", "b16", "b32", "f32", "b64", "f64"
std::string floatLiteral(ir::Scalar k, double v);
std::string braces(const std::vector<std::string>& r);  // "{a, b, c}"
// The exponent of the smallest power of two >= v (a shift for the powers
// of two that tile shapes are).
inline int log2Of(int64_t v) {
  int k = 0;
  while ((int64_t(1) << k) < v) ++k;
  return k;
}

// An argument of device printf: a register and its size in the argument buffer.
struct PrintArg {
  std::string reg;
  int bytes;  // 4 (%d, %x) or 8 (%f takes a double; %lld, pointers)
};

// C's signed division by a constant d (2 <= d < 2^(bits-1), bits 32 or 64)
// as a multiply-high: q = (mulhi(a, multiplier) [+ a when multiplier < 0])
// >> shift, plus 1 when a < 0 (lower_divide.cpp).
struct SignedMagic {
  int64_t multiplier = 0;  // as a signed number of `bits` bits
  int shift = 0;
};
SignedMagic signedMagic(int64_t d, int bits);

// A distributed layout on one shape, with what the lowering needs of it.
struct Placement {
  gpu::LinearLayout ll;
  std::vector<std::string> base;  // per dimension: this thread's lane and warp part of the index
  std::string owner;              // predicate: this thread holds the first copy of its elements
};

class FunctionLowering {
 public:
  FunctionLowering(const ir::Function& f, const TargetOptions& opts);
  std::string run();  // the .entry text

  // ---- registers and emission (codegen.cpp) ------------------------------
  std::string newReg(RegClass c);
  // A 16-bit element between its register (f16/bf16: 16 bits; i16: 32 bits,
  // sign-extended) and a 16-bit half of a packed word (codegen.cpp).
  std::string toHalfWord(ir::Scalar k, const std::string& r);
  std::string fromHalfWord(ir::Scalar k, const std::string& h);
  // Bytes (the low 8 bits of 32-bit registers) packed four to a word, for
  // accesses of more than 4 bytes (PTX's vectors of bytes stop at 4).
  std::vector<std::string> packBytes(const std::vector<std::string>& bytes);
  void emit(const std::string& line) {
    if (runLines_ && out_ == &body_) return runLines_->push_back({elementTag_, "  " + line});
    *out_ << "  " << line << "\n";
  }
  void label(const std::string& name) {
    if (runLines_ && out_ == &body_) return runLines_->push_back({-1, name + ":"});
    *out_ << name << ":\n";
  }
  std::string newLabel(const std::string& hint);
  std::string blockLabel(const ir::BasicBlock* bb);
  // The registers of `v`: one per element the thread holds, one for a
  // scalar or a splat, one (the address) for a buffer in shared memory.
  const std::vector<std::string>& regs(const ir::Value* v);
  // The register of element `k` of `v` (of the scalar or splat for every k).
  std::string elem(const ir::Value* v, size_t k);
  // Whether `v` holds one value in every element (a splat, or made of
  // splats element-wise): then its one register is every element's.
  bool isSplat(const ir::Value* v);
  void define(const ir::Value* v, std::vector<std::string> r) { regs_[v] = std::move(r); }
  std::string constantReg(const ir::Constant* c);
  std::string tid() const { return tid_; }
  std::string laneId() const { return laneId_; }
  std::string warpId() const { return warpId_; }
  // Code emitted inside runs before the first block (it dominates every use).
  struct InSetup {
    FunctionLowering& L;
    std::ostringstream* saved;
    explicit InSetup(FunctionLowering& l) : L(l), saved(l.out_) { L.out_ = &L.setup_; }
    ~InSetup() { L.out_ = saved; }
  };

  // ---- distributed layouts (distributed.cpp) ------------------------------
  const Placement& placement(const ir::Type& t);
  size_t numRegs(const ir::Type& t);  // 1 for scalars
  // Per dimension, the index (a register) of the element in register r.
  std::vector<std::string> indexRegs(const ir::Type& t, size_t r);
  std::string scalarOwner();  // thread 0: scalars are computed by all, stored by one
  // Per register of `v`, the first register certain to hold the same value
  // in every thread: the axis analysis finds `v` constant over aligned runs
  // along each dimension (a mask `offs < n` with n a multiple of 16 is
  // constant over 16 columns), and two registers whose indices fall in the
  // same runs hold equal values. Each register's own index where nothing is known.
  std::vector<size_t> equalElements(const ir::Value* v);

  // ---- lowering of op families --------------------------------------------
  void lowerElementwise(const ir::Instruction& i);  // lower_elementwise.cpp
  void lowerCast(const ir::Instruction& i);  // cast, ucast and bitcast
  void lowerUnsignedCast(const ir::Instruction& i);
  void lowerBitcast(const ir::Instruction& i);
  // `r` = a / d or a % d (C's, signed, `bits` 32 or 64) without a div
  // instruction, for a constant d > 0; false (nothing emitted) for other d.
  bool lowerDivideByConstant(bool remainder, int bits, const std::string& a, int64_t d, const std::string& r);  // lower_divide.cpp
  // `r` = fmod(a, b) of kind `k` (f32 or f64), exact for quotients below 2^53 (lower_divide.cpp).
  void lowerFloatRemainder(ir::Scalar k, const std::string& a, const std::string& b, const std::string& r);
  void lowerMemory(const ir::Instruction& i);       // lower_memory.cpp
  // Element registers of a gep whose results only loads and stores use as
  // addresses: an element at a constant distance from one computed before
  // (same base register, offsets in one run of consecutive values) is that
  // register plus an immediate ("%rd7+64"), not a 64-bit multiply-add.
  std::vector<std::string> lowerGepWithImmediates(const ir::Instruction& i);
  void lowerTile(const ir::Instruction& i);         // lower_tile.cpp
  void lowerReduce(const ir::Instruction& i);       // lower_reduce.cpp
  void lowerReduceFn(const ir::Instruction& i);
  // A cross-warp reduction's pieces: this warp's slot (its warp bits along
  // `axis`, packed) and the predicate of the threads that write its partial.
  std::pair<std::string, std::string> warpPartialSlot(const gpu::LinearLayout& ll, size_t axis);
  // The row-major position (a register) of index registers `idx` in `shape`.
  std::string rowMajorIndex(const ir::Shape& shape, const std::vector<std::string>& idx);
  // The register of the lane `delta` apart (shfl.sync.bfly) of value `v` of kind `k`.
  std::string shuffleXor(ir::Scalar k, const std::string& v, int delta);
  void lowerShared(const ir::Instruction& i);       // lower_shared.cpp
  void lowerTma(const ir::Instruction& i);          // lower_tma.cpp
  // The generic address of the tensor map (a kernel parameter) that `copy`
  // (a tma_copy) reads through, declared on first use.
  // The tensor map of a copy's boxes: `rows` of the box (a multicast copy
  // split by rows copies half of them), 0 for the whole stage's.
  std::string tensorMapAddress(const ir::Instruction& copy, int64_t rows = 0);
  void lowerDot(const ir::Instruction& i);          // lower_dot.cpp (FMA, mma.sync)
  void lowerWgmma(const ir::Instruction& i);        // wgmma.cpp (dot, dot_async, dot_wait on mma<v=3>)
  void lowerControl(const ir::Instruction& i);      // lower_control.cpp
  void lowerPrint(const ir::Instruction& i);        // lower_debug.cpp
  void lowerInlineAsm(const ir::Instruction& i);    // lower_inline_asm.cpp
  void lowerAssert(const ir::Instruction& i);

  // ---- device printf and assertions (lower_debug.cpp) ----------------------
  // A register with the generic address of `text` (a C string in global memory).
  std::string globalString(const std::string& text);
  // Calls vprintf with `format` and `args`, packed into the print buffer.
  void callVprintf(const std::string& format, const std::vector<PrintArg>& args);
  // The registers of a tile of type `t` (one, 0, for a scalar) that hold
  // distinct elements: the first of those that repeat an element.
  std::vector<size_t> distinctElements(const ir::Type& t);
  std::vector<std::string> programIdRegs();  // %ctaid.x, .y, .z
  // Module-level declarations this kernel needs (format strings and
  // messages), and whether it calls vprintf and __assertfail.
  const std::vector<std::string>& globals() const { return globals_; }
  bool usesVprintf() const { return usesVprintf_; }
  bool usesAssertfail() const { return usesAssertfail_; }

  // ---- shared memory (lower_shared.cpp) ------------------------------------
  // A register with the shared-memory address `offset` bytes into the scratch array.
  std::string sharedAddress(int64_t offset);
  // The byte offset (a register) of the element at `idx` within one stage of a buffer of type `t`.
  std::string sharedOffsetReg(const ir::Type& t, const std::vector<std::string>& idx);
  // The byte offset, in a stage of buffer `buf`, of the element in register
  // `r` of `t` (distributed): "REG" or "REG+IMM" (REG computed once, before
  // the first block). A register whose offsets differ from an earlier one's
  // by the same amount in every thread shares its REG: loop-invariant
  // offsets cost registers only where the swizzle makes them differ.
  std::string sharedOffsetOf(const ir::Type& buf, const ir::Type& t, size_t r);
  // Writes the elements of `v` (distributed) into the buffer of type `buf`
  // at address register `base`, one copy of each, vectorized where the
  // registers and the buffer are both contiguous.
  void storeShared(const ir::Value* v, const ir::Type& buf, const std::string& base);
  // Through a row-major scratch at `offset` (rows `pitch` elements): stores
  // `src`, waits at a barrier, reads what `dst` holds. `dstDimOf` gives,
  // per operand dimension, the result dimension that indexes it
  // (operandDimsOf; empty: the same row-major position, a reshape).
  // `srcStart`: per operand dimension, the index the result's 0 reads
  // (an extract_slice's offset; empty: all 0).
  std::vector<std::string> convertThroughScratch(const ir::Value* src, const ir::Type& dst, int64_t offset,
                                                 int64_t pitch, const std::vector<int>& dstDimOf,
                                                 const std::vector<int64_t>& srcStart = {});
  // Stores every element of `src` once at its row-major place in the
  // scratch at `base` (rows of `pitch` elements), vectorized along rows.
  void storeToScratch(const ir::Value* src, const std::string& base, int64_t pitch);
  // gather: the source through its scratch, each thread reading the
  // elements its indices point at.
  std::vector<std::string> gatherThroughScratch(const ir::Instruction& gather);
  // acc = acc KIND x, in registers of the combine kind ck (f64 max/min
  // propagate a NaN by hand); narrow integers are not wrapped here.
  void emitCombine(ir::ReduceKind kind, ir::Scalar ck, const std::string& acc, const std::string& x);
  void lowerScan(const ir::Instruction& scan);  // lower_scan.cpp
  void lowerScanFn(const ir::Instruction& scan);
  // The values of a tuple's elements combined (new registers): a scan's
  // kind, or a combine function written inline.
  using TupleCombine = std::function<std::vector<std::string>(const std::vector<std::string>&,
                                                              const std::vector<std::string>&)>;
  // The registers of the tuple `value` (per element, the registers of a
  // tile in `scan`'s layout; of register kinds `kinds`) scanned along
  // `scan`'s axis as gpu::scanPlan lays it out.
  std::vector<std::vector<std::string>> scanTuple(const ir::Instruction& scan,
                                                  std::vector<std::vector<std::string>> value,
                                                  const std::vector<ir::Scalar>& kinds, const TupleCombine& combine);
  // The registers of what combine function `f` gives for `args` (one
  // register each), its instructions lowered inline.
  std::vector<std::string> applyCombiner(const ir::Function& f, const std::vector<std::string>& args);
  void lowerSort(const ir::Instruction& sort);  // lower_sort.cpp
  void lowerHistogram(const ir::Instruction& h);  // lower_histogram.cpp
  // The program's warps; in a warp-specialized function (producer_warps),
  // the consumers only, on a barrier of their own: the producer warp never
  // comes to them.
  void barrier() {
    if (f_.producerWarps) emit("bar.sync 1, " + std::to_string(32 * opts_.numWarps) + ";");
    else emit("bar.sync 0;");
  }
  void everyWarpBarrier() { emit("bar.sync 0;"); }
  // Every thread of the cluster (of the program alone, launched without one).
  // bar.sync first orders the program's own accesses, as the barrier it
  // replaces did; the cluster's arrive is then relaxed, an execution
  // barrier with the partner, whose accesses its own bar.sync ordered
  // (with .release the 4096^3 matmul ran 1.7x slower, presumably because
  // every thread waited there for the wgmma in flight). The mbarriers'
  // init is published by the fence.mbarrier_init before it.
  // A warp-specialized function's consumers arrive on the partner's
  // mbarriers (stage_release): there the arrive is .release, which orders
  // those remote arrives before it, so that neither program exits (its
  // shared memory given to another) while the other's arrive is on its way.
  // Such a function has cluster barriers only after its inits and, where
  // its producer cannot drain (gpu-warp-specialize), before its returns.
  void clusterBarrier() {
    everyWarpBarrier();
    emit(f_.producerWarps ? "barrier.cluster.arrive.release.aligned;" : "barrier.cluster.arrive.relaxed.aligned;");
    emit("barrier.cluster.wait.acquire.aligned;");
  }
  // One st.shared / ld.shared of consecutive elements of kind `k` (i1 as
  // bytes; 16-bit elements in pairs per 32-bit word, as PTX vectors hold at
  // most four). `pred` (may be empty) guards the store.
  void storeSharedVector(const std::string& addr, ir::Scalar k, const std::vector<std::string>& vals,
                         const std::string& pred);
  std::vector<std::string> loadSharedVector(const std::string& addr, ir::Scalar k, size_t n);

  // ---- sparse pointer tiles (pointer_groups.cpp) ---------------------------
  void planPointerGroups();
  // Whether element `e` of `v` is ever read (false for the elements of a
  // pointer tile between vector starts: their registers are left empty).
  bool elementNeeded(const ir::Value* v, size_t e) const;

  // Converts between the storage of kind `k` and f32 for arithmetic on f16/bf16.
  std::string toF32(ir::Scalar k, const std::string& r);
  std::string fromF32(ir::Scalar k, const std::string& r);
  // fp8 (the bits in the low byte of a 32-bit register) to and from the
  // other floats (lower_minifloat.cpp); sm_89 and later.
  std::string castFp8(ir::Scalar from, ir::Scalar to, const std::string& r);
  // An integer register (PTX type `it`) to f16/bf16, rounded once.
  std::string intToHalf(ir::Scalar k, const std::string& x, const char* it);
  // `x` (PTX type `from`: s32 s64 u32 u64 f64) as f32 rounded to odd.
  std::string f32RoundedToOdd(const std::string& x, const std::string& from);
  // An 8- or 16-bit integer (in a 32-bit register, sign- or zero-extended)
  // to f32, f16 or bf16 without the conversion unit (dequantization).
  std::string smallIntToFloat(ir::Scalar to, const std::string& x, int bits, bool isUnsigned);
  // The elements of an 8-bit tile `v` as f16, taking pairs of bytes that
  // lie in one word read from shared memory from that word (one prmt, one
  // sub.f16x2 per pair); empty where they do not.
  std::vector<std::string> bytePairsToF16(const ir::Value* v, size_t n, bool isUnsigned);

  const ir::Function& fn() const { return f_; }
  const TargetOptions& opts() const { return opts_; }
  // Registers a dot accumulates into in place (a phi the dot feeds back):
  // the phi's own, so the back edge copies nothing. With `zeroFree`, an
  // accumulator that is all zeros gets fresh registers left unset: the
  // caller's first products must not add to them (wgmma's scale-d = 0).
  std::vector<std::string> accumulatorRegs(const ir::Instruction& dot, bool zeroFree = false);
  // Whether the accumulator of `dot` is a splat of +-0.
  static bool zeroAccumulator(const ir::Instruction& dot);

 private:
  void prologue();
  void lowerInstruction(const ir::Instruction& i);

  const ir::Function& f_;
  TargetOptions opts_;
  std::ostringstream body_, setup_;
  std::ostringstream* out_ = &body_;
  // Element order (element_order.h): while a block is written, its lines
  // gather here, each with the element it was written for (elementTag_, set
  // by the element-wise lowerings' loops), and go out run by run.
  std::vector<ElementLine>* runLines_ = nullptr;
  int elementTag_ = -1;
  void writeBlock(const ir::BasicBlock* bb);
  std::map<RegClass, int> regCount_;
  std::map<const ir::Value*, std::vector<std::string>> regs_;
  std::map<std::string, Placement> placements_;  // by layout and shape
  std::map<std::string, std::vector<std::string>> indexRegs_;
  std::map<std::string, std::vector<std::pair<size_t, std::string>>> sharedOffsetRegs_;  // per (buffer, tile): (r, REG)
  std::map<const ir::Value*, int> pointerGroup_;
  // The registers of a tuple's scan or reduction, by its leader
  // (ir::tupleLeader), for the instructions of its other positions.
  std::map<const ir::Instruction*, std::vector<std::vector<std::string>>> combineResults_;
  // Registers holding one byte of a word read from shared memory (bfe.s32):
  // the word and the byte's index, so that bytes converted to f16 can be
  // taken from their words two at a time (lower_elementwise.cpp).
  std::map<std::string, std::pair<std::string, int>> byteOfWord_;
  std::unique_ptr<analysis::AxisInfoAnalysis> axis_;  // made on first use (address immediates)
  std::map<const ir::BasicBlock*, std::string> labels_;
  int labelCount_ = 0;
  std::string tid_, laneId_, warpId_, scalarOwner_, sharedBase_;
  std::vector<std::string> globals_, programIdRegs_;
  std::map<std::string, std::string> globalStrings_;  // text -> its name among globals_
  std::string printBuffer_;  // the generic address of `printbuf` (local memory)
  int64_t printBufferBytes_ = 0;
  bool usesVprintf_ = false, usesAssertfail_ = false;
  // Per tensor-map parameter: its `// tritonc: tensor_map` description and address register.
  std::vector<std::pair<std::string, std::string>> tensorMaps_;
  // Multicast copies (lower_tma.cpp): which thread issues which half of a
  // box, decided once per axis of the pairs (x, y); and the lines
  // `// tritonc: cluster_x 2`, `// tritonc: cluster_y 2` for the launch.
  struct MulticastIssuers {
    std::string whole;     // the issuer of a program launched without a pair along the axis
    std::string half[2];   // the issuer of the pair's program at 0, 1 along the axis
    std::string mask;      // both programs of the pair, by cluster rank (a .b16 register)
  };
  MulticastIssuers multicastIssuers(bool alongY);
  MulticastIssuers multicast_[2];
  // The thread of warp 0 that issues tensor copies and initializes their
  // mbarriers (elect.sync; lower_tma.cpp says why not thread 0); while the
  // producer's part of a warp-specialized function is written, the thread
  // of the producer warp that elect.sync picks.
  std::string tmaIssuer();
  std::string warpZeroIssuer();
  std::string electedLane();  // each warp's thread picked by elect.sync
  std::string warpZeroIssuer_, electedLane_;

 public:
  // Warp specialization: the body is written once per role, each time with
  // the instructions that role runs (ir::Role).
  enum class Writing { Everything, Consumers, Producer };
  bool runs(const ir::Instruction& i) const {
    if (writing_ == Writing::Everything) return true;
    return writing_ == Writing::Consumers ? i.role != ir::Role::Producer : i.role != ir::Role::Consumer;
  }

 private:
  Writing writing_ = Writing::Everything;
};

}  // namespace tritonc::nvptx
