// Internal to the PTX back end: lowering of one function. Each tile value is
// held as registers, one per element the thread owns under the value's
// layout; scalars as one register that every thread computes alike. Layout
// changes (reshape, broadcast, trans), reductions and dot go through shared
// memory. The lowering of each op family lives in its own file
// (lower_elementwise.cpp, lower_memory.cpp, lower_tile.cpp, lower_control.cpp).
#pragma once
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/axis_info.h"
#include "ir/ir.h"
#include "target/nvptx/codegen.h"
#include "target/nvptx/layout.h"

namespace tritonc::nvptx {

// Register classes of PTX: their declaration type and name prefix.
enum class RegClass { Pred, B16, B32, F32, B64, F64 };

RegClass regClassOf(ir::Scalar k);
const char* ptxType(ir::Scalar k);     // of registers: "f32", "s32", "b16" (f16 storage), ...
const char* memoryType(ir::Scalar k);  // of ld/st in memory: "u8" (bool), "s8", "b16", "f32", ...

// The accumulator layout of mma.sync.m16n8k16: warps tile an M x N tile in a
// wm x wn grid; each warp holds (M / wm / 16) x (N / wn / 8) fragments of
// 16 x 8, four f32 elements per thread each.
// With `wgmma` (sm_90a), warpgroups of four warps compute 64-row slices with
// wgmma.mma_async; each warp holds 16 rows in the same fragment order
// (wm = num_warps, wn = 1), so everything but the dot itself is shared.
struct MmaLayout {
  int64_t M = 0, N = 0, wm = 1, wn = 1;
  bool wgmma = false;
  bool operator==(const MmaLayout& o) const {
    return M == o.M && N == o.N && wm == o.wm && wn == o.wn && wgmma == o.wgmma;
  }
};

// How an mma dot's operands are staged in shared memory: a ring of stages in
// a dedicated region. An operand whose tiles come from pre-fetched loads (the
// prefetch pass's chain of phis over loads, `distance` iterations ahead) is
// copied there by cp.async, one stage per iteration in flight plus the one
// being read; the others are stored from registers by the dot (two stages).
struct DotStaging {
  int64_t pitchA = 0, pitchB = 0, offB = 0, stageBytes = 0, region = 0;
  int stages = 2;
  int distance = 0;                   // iterations the cp.async copies run ahead (0: none)
  std::string readStage, writeStage;  // byte offsets of the stages, advanced around the ring
  bool async[2] = {false, false};     // operand A / B arrives by cp.async
  int asyncCount = 0;
  int pendingLoads = 0;               // async loads lowered in the current batch
  // wgmma: unpadded, swizzled operand tiles (A: M x K rows of K * 2 bytes,
  // B: blocks of 64 columns, K rows of 128 bytes each) read by descriptors.
  bool wgmma = false;
  int64_t swizzleA = 0;               // bytes: 32, 64 or 128 (the rows of A)
  // Pipelined wgmma (see wgmma.cpp): the accumulator is the loop phi
  // `accumulator`, updated in place, and each iteration waits only for the
  // previous iteration's group; the ring has one more stage for that.
  const ir::Instruction* accumulator = nullptr;
  std::string swizzledOffset[2];      // per operand: this thread's first copy offset (see wgmma.cpp)
};

// A load copied by cp.async: into which dot's ring, as which operand, and
// for which iteration relative to the loop (0..distance-1 in the pre-header,
// `distance` for the one in the loop).
struct AsyncLoad {
  const ir::Value* dot = nullptr;
  int operand = 0;
  int ahead = 0;
};

// Placeholders for the start of the dot rings in the emitted text, replaced
// once the scratch size is known (see FunctionLowering::allocateRing).
constexpr const char* kRingBase = "__RING_BASE__";
constexpr const char* kAsyncRingBase = "__ASYNC_RING_BASE__";
// Placeholder for a barrier before a dot stores operands into its ring: a
// barrier when the rings stored from registers overlap the scratch (when
// kept apart they would not fit in the target's shared memory), else nothing.
constexpr const char* kRingBarrier = "__RING_BARRIER__";
// Placeholder for the offset of the scratch's second half (see beginScratchUse).
constexpr const char* kScratchHalf = "__SCRATCH_HALF__";

class FunctionLowering {
 public:
  FunctionLowering(const ir::Function& f, const TargetOptions& opts);
  std::string run();  // the .entry text
  // The layout of tile value `v` as text (after assignMmaLayouts).
  std::string layoutText(const ir::Value* v);

  // ---- registers and emission (codegen.cpp) ------------------------------
  std::string newReg(RegClass c);
  void emit(const std::string& line) { *out_ << "  " << line << "\n"; }
  void label(const std::string& name) { *out_ << name << ":\n"; }
  std::string newLabel(const std::string& hint);
  // The registers of `v` (one per owned element; scalars: one).
  const std::vector<std::string>& regs(const ir::Value* v);
  // The register of element `k` of `v`, or of the scalar `v` for every k.
  std::string elem(const ir::Value* v, size_t k);
  void define(const ir::Value* v, std::vector<std::string> r) { regs_[v] = std::move(r); }
  std::string constantReg(const ir::Constant* c);

  // ---- layouts --------------------------------------------------------------
  const BlockedLayout& layoutOf(const ir::Type& t);
  // The multi-indices of the elements this thread owns in a tile of type t,
  // as registers (one vector of per-dimension index registers per element).
  const std::vector<std::vector<std::string>>& elementIndices(const ir::Type& t);
  // Per dimension, this thread's first index before wrapping around the
  // shape: (warp * threadsPerWarp + lane) * sizePerThread.
  const std::vector<std::string>& threadPositions(const ir::Type& t);
  // Predicate: this thread is the first owner of its elements (stores).
  std::string ownerPred(const ir::Type& t);
  // Per owned element (same order as elementIndices), its static position
  // j_d among the thread's elements along each dimension.
  std::vector<std::vector<int64_t>> localCoords(const ir::Type& t);
  size_t numOwned(const ir::Type& t);

  // ---- tensor cores (mma.cpp) ---------------------------------------------
  // Gives dots that can use mma.sync (and the phis that carry their
  // accumulators) the mma layout.
  void assignMmaLayouts();
  bool isMma(const ir::Value* v) const { return mma_.count(v) != 0; }
  // The elements of `v` in mma layout `L` (converting a blocked value).
  std::vector<std::string> fragmentRegs(const ir::Value* v, const MmaLayout& L);
  const MmaLayout& mmaLayoutOf(const ir::Value* v) const { return mma_.at(v); }
  std::vector<std::string>& mmaRegs(const ir::Value* v) { return mmaRegs_[v]; }
  // Per element of the mma layout, its (row, column) registers.
  const std::vector<std::vector<std::string>>& mmaIndices(const MmaLayout& L);
  size_t mmaElements(const MmaLayout& L) const { return size_t(L.M / L.wm * (L.N / L.wn) / 32); }
  void lowerDotMma(const ir::Instruction& i);
  // f32 operands as tf32 (on request): mma.sync.m16n8k8, fragments read from
  // the ring with ld.shared (tf32.cpp).
  void lowerDotTf32(const ir::Instruction& i);
  // ---- warpgroup tensor cores, sm_90a (wgmma.cpp) ---------------------------
  // Whether `dot` (with both operands copied by cp.async) can use wgmma.
  bool wgmmaEligible(const ir::Instruction& dot) const;
  // The byte offset in an operand's stage of the element at `idx` (registers: row, column).
  std::string wgmmaStageOffset(const DotStaging& s, int operand, const std::vector<std::string>& idx);
  void lowerDotWgmma(const ir::Instruction& i);
  const ir::Instruction* carriedAccumulator(const ir::Instruction& dot) const;
  bool usesWgmma() const { return usesWgmma_; }
  // ---- asynchronous copies of dot operands (async_copy.cpp) ------------------
  void planDotStaging();
  void markLoopBlocks(const ir::BasicBlock* header, const ir::BasicBlock* inLoop);
  bool isAsyncLoad(const ir::Value* v) const { return asyncLoads_.count(v) != 0; }
  bool isAsyncPhi(const ir::Value* v) const { return asyncPhis_.count(v) != 0; }
  bool hasAsyncCopies() const { return !asyncLoads_.empty(); }
  void lowerAsyncLoad(const ir::Instruction& i);
  void advanceStage(const std::string& stageReg, const DotStaging& s);
  // `reg` = the shared address of the stage at `stageReg` in s's ring, plus `offset`.
  void emitStageAddress(const std::string& reg, const DotStaging& s, const std::string& stageReg, int64_t offset);
  // A copy of a dot's accumulator in the mma layout (mma.cpp).
  std::vector<std::string> copyAccumulator(const ir::Instruction& dot, const MmaLayout& L);
  // The blocked-layout registers of an mma value (converted through shared memory).
  std::vector<std::string> mmaToBlocked(const ir::Value* v);

  // ---- sparse pointer tiles (pointer_groups.cpp) ---------------------------
  // The vector width of a load or store (1 when it cannot be vectorized).
  size_t accessWidth(const ir::Instruction& i);
  void planPointerGroups();
  // Whether element `e` of `v` is ever read (false for the elements of a
  // sparse pointer tile between vector starts; their registers are empty).
  bool elementNeeded(const ir::Value* v, size_t e) const;

  // ---- lowering of op families -------------------------------------------
  void lowerElementwise(const ir::Instruction& i);  // lower_elementwise.cpp
  void lowerCast(const ir::Instruction& i);
  void lowerMemory(const ir::Instruction& i);       // lower_memory.cpp
  void lowerTile(const ir::Instruction& i);         // lower_tile.cpp
  void lowerReduce(const ir::Instruction& i);       // lower_reduce.cpp
  void lowerControl(const ir::Instruction& i);      // lower_control.cpp

  // ---- shared memory scratch (lower_tile.cpp) --------------------------------
  // Writes every owned element of `v` to scratch at its row-major index; rows
  // (the last dimension) are `rowPitch` elements apart when it is given (a
  // padded pitch keeps ldmatrix free of bank conflicts). Elements a thread
  // holds contiguously along the rows are written with vector stores.
  // `base` (a register holding a shared address) replaces the scratch start.
  void storeToScratch(const ir::Value* v, int64_t byteOffset, int64_t rowPitch = 0, const std::string& base = "");
  // Reads element `linear` (a register holding the row-major index) of a tile
  // of kind `k` stored at `byteOffset`.
  std::string loadFromScratch(ir::Scalar k, const std::string& linear, int64_t byteOffset);
  void barrier() {
    emit("bar.sync 0;");
    pendingReads_[0] = pendingReads_[1] = false;
  }
  // A use of the scratch (store, barrier, loads) of `bytes`: small uses
  // alternate between two halves, so a use needs no barrier before its stores
  // when the previous use read the other half (the RAW barrier inside that
  // use already ordered every older read: the paper's WAR rule). Large uses
  // take the whole scratch. Emits the barrier when a read of the memory it
  // writes may still be pending; scratchBase() then gives its start.
  void beginScratchUse(int64_t bytes);
  void endScratchUse();  // after the use's loads
  // A register with the start of the current use's half of the scratch.
  std::string scratchBase();
  // At a block's start: paths join, reads may be pending anywhere.
  void assumePendingReads() { pendingReads_[0] = pendingReads_[1] = true; }
  // Row-major linear index (a register) of a multi-index of registers.
  std::string linearIndex(const std::vector<std::string>& idx, const ir::Shape& shape);
  // Shared memory is allocated by live ranges: the scratch of layout
  // conversions is live only within one instruction (bracketed by barriers),
  // the dot rings within their dot (stored from registers) or, when filled by
  // cp.async, from the loop's pre-header to its exit. The rings are placed
  // after the largest scratch needed while an asynchronous ring is live, so
  // they overlap the scratch used elsewhere (the epilogue's, notably).
  void needScratch(int64_t bytes) {
    scratchBytes_ = std::max(scratchBytes_, bytes);
    if (inAsyncRing()) scratchWhileRingLive_ = std::max(scratchWhileRingLive_, bytes);
  }
  // A region of shared memory owned by one dot (its ring of operand
  // stages). A ring filled by cp.async overlaps the scratch used outside its
  // loop: it is written only after a barrier in the pre-header and drained
  // at the loop's exits. A ring stored from registers is written right after
  // scratch reads that no barrier follows, so it overlaps nothing. The
  // offset from `scratch` is the ring's placeholder (ringBase) plus the result.
  int64_t allocateRing(int64_t bytes, bool async, int64_t align = 16) {
    int64_t& used = async ? asyncRingBytes_ : ringBytes_;
    int64_t at = (used + align - 1) / align * align;
    used = at;
    used += (bytes + 15) / 16 * 16;
    return at;
  }
  static const char* ringBase(bool async) { return async ? kAsyncRingBase : kRingBase; }
  // Whether `b` is in a loop whose dots read cp.async rings.
  bool inAsyncLoop(const ir::BasicBlock* b) const { return asyncLoopBlocks_.count(b) != 0; }
  // Whether the code being lowered runs while a cp.async ring is live.
  bool inAsyncRing() const { return asyncRingLive_ || asyncLoopBlocks_.count(currentBlock_) != 0; }

  // Converts between the storage of kind `k` and f32 for arithmetic on f16/bf16.
  std::string toF32(ir::Scalar k, const std::string& r);
  std::string fromF32(ir::Scalar k, const std::string& r);

  const ir::Function& fn() const { return f_; }
  const TargetOptions& opts() const { return opts_; }
  const analysis::AxisInfoAnalysis& axis() const { return axis_; }
  std::string tid() const { return tid_; }
  std::string blockLabel(const ir::BasicBlock* bb);

 private:
  void prologue();
  void lowerInstruction(const ir::Instruction& i);

  const ir::Function& f_;
  TargetOptions opts_;
  analysis::AxisInfoAnalysis axis_;
  // Code goes to `body_`; per-layout thread coordinates go to `setup_`,
  // which runs before the first block, so that they dominate every use.
  std::ostringstream body_, setup_;
  std::ostringstream* out_ = &body_;
  struct InSetup {
    FunctionLowering& L;
    std::ostringstream* saved;
    explicit InSetup(FunctionLowering& l) : L(l), saved(l.out_) { L.out_ = &L.setup_; }
    ~InSetup() { L.out_ = saved; }
  };
  std::map<RegClass, int> regCount_;
  std::map<const ir::Value*, std::vector<std::string>> regs_;
  std::map<const ir::Value*, MmaLayout> mma_;
  std::map<const ir::Value*, DotStaging> staging_;                  // per mma dot
  std::map<const ir::Value*, AsyncLoad> asyncLoads_;
  std::map<const ir::Value*, bool> asyncPhis_;
  std::map<const ir::Value*, int> pointerGroup_;  // sparse pointer tiles: group width
  std::map<const ir::Value*, std::vector<std::string>> mmaRegs_;
  std::map<std::string, std::vector<std::vector<std::string>>> mmaIndices_;
  // Blocked copies of mma values made for the instruction being lowered.
  std::map<const ir::Value*, std::vector<std::string>> converted_;
  std::map<std::string, BlockedLayout> layouts_;  // by shape
  std::map<std::string, std::vector<std::vector<std::string>>> indices_;
  std::map<std::string, std::vector<std::string>> positions_;
  std::map<std::string, std::string> owners_;
  std::map<const ir::BasicBlock*, std::string> labels_;
  int labelCount_ = 0;
  int64_t scratchBytes_ = 0;
  int64_t ringBytes_ = 0, asyncRingBytes_ = 0;
  // Scratch halves (see beginScratchUse).
  static constexpr int64_t kAlternateLimit = 8 * 1024;
  bool pendingReads_[2] = {true, true};
  int region_ = 0;           // the half of the current use; -1: the whole scratch
  int lastRegion_ = 1;
  int64_t halfBytes_ = 0;    // the largest use that alternated
  bool usedSecondHalf_ = false, secondHalfWhileRingLive_ = false;
  bool usesWgmma_ = false;
  bool pipelinedWgmma_ = false;  // some loop leaves wgmma groups in flight (see wgmma.cpp)
  int64_t scratchWhileRingLive_ = 0;
  // Blocks of the loops whose dots read cp.async rings; in a pre-header, the
  // ring is live from its first copy on (asyncRingLive_ until the block ends).
  std::set<const ir::BasicBlock*> asyncLoopBlocks_;
  const ir::BasicBlock* currentBlock_ = nullptr;
  bool asyncRingLive_ = false;
  std::string tid_, laneId_, warpId_;
};

std::string floatLiteral(ir::Scalar k, double v);

// The function body without the barriers that order no shared-memory access
// (barriers.cpp); `*removed` counts them.
std::string removeRedundantBarriers(const std::string& body, int* removed = nullptr);


// Shared memory beyond this is dynamic (requested at launch).
constexpr int64_t kMaxStaticShared = 48 * 1024;

}  // namespace tritonc::nvptx
