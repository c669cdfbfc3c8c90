// The interpreter's executor: resolves a function once (value numbering,
// block plans, constants, arguments), then runs it for each program of the
// grid over a frame of tiles. Its member functions are split by concept:
//   executor.cpp         set-up, control flow, phis, diagnostics
//   elementwise_exec.cpp arithmetic, cmp, cast, select, multiple_of
//   tile_exec.cpp        splat, reshape, broadcast, trans, range, dot, reduce
//   memory_exec.cpp      gep, load, store, atomics
//   gpu_exec.cpp         the GPU IR's buffers, copies and conversions
//   debug_exec.cpp       print and assert
#pragma once
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "target/interp/interpreter.h"
#include "target/interp/memory.h"
#include "target/interp/scalar_ops.h"

namespace tritonc::interp::detail {

// A runtime value: its elements in row-major order (one for a scalar).
using Tile = std::vector<Elem>;

// One instruction with its operands resolved to frame slots.
struct Step {
  const ir::Instruction* inst = nullptr;
  int result = -1;            // frame slot of the result; -1 if void
  std::vector<int> operands;  // frame slots
  int successors[2] = {-1, -1};
};

struct PhiPlan {
  const ir::Instruction* inst = nullptr;
  int result = -1;
  std::vector<std::pair<int, int>> incoming;  // (predecessor block index, source slot)
};

struct BlockPlan {
  std::vector<PhiPlan> phis;
  std::vector<Step> body;  // the instructions after the phis, terminator last
};

// A combine function (scan_fn's): its steps, run on scalar slots of the frame.
struct CombinerPlan {
  std::vector<int> args;     // frame slots of its arguments
  std::vector<Step> body;    // its instructions but the ret
  std::vector<int> results;  // the ret's operands' slots
};

class Executor {
 public:
  Executor(const ir::Function& fn, const Grid& grid, const std::vector<KernelArg>& args,
           const RunOptions& options);
  void run();

 private:
  // ---- executor.cpp
  void numberValues();
  int slotOf(const ir::Value* v, const ir::Instruction* user) const;
  void planBlocks();
  void planCombiners();
  void bindArguments(const std::vector<KernelArg>& args);
  void runProgram();
  void takeEdge(int from, int to);
  void execute(const Step& s);
  [[noreturn]] void fail(const ir::Instruction* inst, const std::string& what) const;

 public:  // message pieces, also used by the free helpers in the exec files
  std::string kernelText() const { return "kernel '" + fn_.name() + "'"; }
  std::string programText() const;
  // ", tile element [5, 2]" for a tile of `shape`, "" for a scalar.
  static std::string elementText(const ir::Shape& shape, int64_t flat);

 private:
  // ---- elementwise_exec.cpp
  void execBinary(const Step& s);
  void execIntBinary(const Step& s, ir::Opcode op);
  void execFloatBinary(const Step& s, ir::Opcode op);
  void execUnary(const Step& s);
  void execCmp(const Step& s);
  void execCast(const Step& s);
  void execUnsignedCast(const Step& s);
  void execBitcast(const Step& s);
  void execSelect(const Step& s);
  void execFma(const Step& s);
  void execMultipleOf(const Step& s);
  void execExtractSlice(const Step& s);
  void execGather(const Step& s);

  // ---- tile_exec.cpp
  void execSplat(const Step& s);
  void execBroadcast(const Step& s);
  void execTrans(const Step& s);
  void execRange(const Step& s);
  void execDot(const Step& s);
  void execReduce(const Step& s);
  void execScan(const Step& s);
  void execSort(const Step& s);
  void execHistogram(const Step& s);
  void execScanFn(const Step& s);
  void execReduceFn(const Step& s);
  // Runs combine function `plan` on the slots' scalars `left` and `right`
  // (one per tuple element), leaving its results in its result slots.
  void combine(const CombinerPlan& plan, const std::vector<Elem>& left, const std::vector<Elem>& right);

  // ---- gpu_exec.cpp (the GPU IR's instructions)
  void execGpu(const Step& s);
  // Operand i as a tile of elements (read from its buffer when it is one).
  Tile operandTile(const Step& s, size_t i);
  Tile& bufferAt(const Elem& handle, int64_t elements, const ir::Instruction* user);

  // ---- debug_exec.cpp
  void execPrint(const Step& s);
  void execAssert(const Step& s);

  // ---- memory_exec.cpp
  void execGep(const Step& s);
  void execLoad(const Step& s);
  void execStore(const Step& s);
  void execAtomicRmw(const Step& s);
  void execAtomicCas(const Step& s);
  // Host bytes of an access by lane `flat` of `s`, or a UserError saying why not.
  uint8_t* access(const Step& s, uint64_t addr, ir::Scalar kind, bool forWrite, int64_t flat) const;

  // ---- frame access
  const Tile& in(const Step& s, size_t i) const { return frame_[size_t(s.operands[i])]; }
  const ir::Type& inType(const Step& s, size_t i) const { return s.inst->operand(i)->type(); }
  Tile& out(const Step& s) { return frame_[size_t(s.result)]; }
  // Element stride of operand i: 0 when a scalar is used against a tile.
  size_t strideOf(const Step& s, size_t i) const { return in(s, i).size() == 1 ? 0 : 1; }

  const ir::Function& fn_;
  Grid grid_;
  RunOptions options_;
  AddressSpace memory_;
  std::unordered_map<const ir::Value*, int> slots_;
  std::unordered_map<const ir::BasicBlock*, int> blockIndex_;
  std::vector<const ir::Value*> slotValues_;  // slot -> value (for types and names)
  std::vector<Tile> frame_;
  std::vector<Tile> phiScratch_;  // parallel copies of a block's phis on an edge
  std::vector<BlockPlan> blocks_;
  std::unordered_map<const ir::Function*, CombinerPlan> combiners_;
  std::vector<Tile> buffers_;  // a program's buffers in shared memory (GPU IR)
  std::unordered_map<const ir::Instruction*, int> bufferIndex_;
  // Completed phases of the mbarriers of rings, by (buffer, stage).
  std::map<std::pair<int64_t, int64_t>, int64_t> phases_;
  int64_t programId_[3] = {0, 0, 0};
};

}  // namespace tritonc::interp::detail
