#include "gpu/occupancy.h"

#include <algorithm>
#include <cstdlib>
#include <unordered_map>

#include "analysis/liveness.h"
#include "gpu/scratch.h"

namespace tritonc::gpu {

namespace {

// The widest vector of the memory accesses that `v` (a pointer or an offset
// tile) reaches as their address through pointer arithmetic, 1 if none (a
// value stored is no address).
int64_t accessVector(const ir::Value* v, int depth = 0) {
  int64_t vec = 1;
  for (const ir::Instruction* u : v->users()) {
    const size_t address = u->opcode() == ir::Opcode::AsyncCopy ? 1 : 0;
    if (u->vec && u->numOperands() > address && u->operand(address) == v) vec = std::max<int64_t>(vec, u->vec);
    if (depth < 3 && (u->opcode() == ir::Opcode::Gep || u->opcode() == ir::Opcode::Add))
      vec = std::max(vec, accessVector(u, depth + 1));
  }
  return vec;
}

// Whether every use of the integer tile `v` is address arithmetic (a gep's
// offset, or a sum that only such uses read): then a register per accessed
// vector holds it. A tile also compared or stored is held whole.
bool onlyAddresses(const ir::Value* v, int depth = 0) {
  for (const ir::Instruction* u : v->users()) {
    if (u->opcode() == ir::Opcode::Gep && u->operand(1) == v) continue;
    if (u->opcode() == ir::Opcode::Add && depth < 3 && onlyAddresses(u, depth + 1)) continue;
    return false;
  }
  return true;
}

// Whether the integer tile `v` is an affine function of the element's index
// (ranges, splats and constants through additions, subtractions,
// multiplications, broadcasts and reshapes): each register is the thread's
// base index plus a constant, which ptxas recomputes rather than keeps (a
// softmax's `cols`, live from the load to the store, cost 32 registers per
// thread in the estimate and none in ptxas -v).
bool indexAffine(const ir::Value* v, int depth = 0) {
  if (v->valueKind() != ir::ValueKind::Instruction) return v->valueKind() == ir::ValueKind::Constant;
  if (depth > 8) return false;
  const auto* i = static_cast<const ir::Instruction*>(v);
  switch (i->opcode()) {
    case ir::Opcode::Range: return true;
    case ir::Opcode::Splat: return !i->operand(0)->type().isTile();
    case ir::Opcode::Broadcast: case ir::Opcode::Reshape: return indexAffine(i->operand(0), depth + 1);
    case ir::Opcode::Add: case ir::Opcode::Sub: case ir::Opcode::Mul:
      return i->type().isInt() && indexAffine(i->operand(0), depth + 1) && indexAffine(i->operand(1), depth + 1);
    default: return false;
  }
}

// Pointer tiles a scalar pointer plus such offsets: a base and immediates.
bool pointerAffine(const ir::Value* v, int depth = 0) {
  if (v->valueKind() != ir::ValueKind::Instruction || depth > 8) return false;
  const auto* i = static_cast<const ir::Instruction*>(v);
  switch (i->opcode()) {
    case ir::Opcode::Splat: return !i->operand(0)->type().isTile();
    case ir::Opcode::Broadcast: case ir::Opcode::Reshape: return pointerAffine(i->operand(0), depth + 1);
    case ir::Opcode::Gep: return pointerAffine(i->operand(0), depth + 1) && indexAffine(i->operand(1));
    default: return false;
  }
}

// Bytes of registers a register tile takes, per thread summed: predicates
// live apart (and mostly die: only a copy's first element's mask is used);
// tiles affine in the index, and pointers made of them, are recomputed
// (indexAffine, pointerAffine); pointer tiles, and offset tiles used only
// as addresses (onlyAddresses), that reach vector accesses keep one address
// or offset per vector (the vector's other elements are it plus a
// constant), at least a byte per element for 64-bit ones.
int64_t registerBytes(const ir::Value* v, bool affineFree) {
  const ir::Type& t = v->type();
  if (affineFree && ((t.isInt() && indexAffine(v)) || (t.kind == ir::Scalar::Ptr && pointerAffine(v)))) return 0;
  const int64_t n = t.numElements();
  switch (t.kind) {
    case ir::Scalar::I1: return 0;
    case ir::Scalar::I64: case ir::Scalar::Ptr: return n * std::max<int64_t>(1, 8 / accessVector(v));
    case ir::Scalar::I32: {
      const int64_t vec = onlyAddresses(v) ? accessVector(v) : 1;
      return (n * 4 + vec - 1) / vec;
    }
    default: return n * ir::byteSize(t.kind);
  }
}

// Splats hold one register, broadcasts and reshapes their operand's.
bool aliases(const ir::Value* v) {
  if (v->valueKind() != ir::ValueKind::Instruction) return false;
  ir::Opcode op = static_cast<const ir::Instruction*>(v)->opcode();
  return op == ir::Opcode::Splat || op == ir::Opcode::Broadcast || op == ir::Opcode::Reshape;
}

bool elementwise(const ir::Instruction& i) {
  ir::OpCategory c = ir::opcodeCategory(i.opcode());
  return c == ir::OpCategory::Binary || c == ir::OpCategory::Unary || i.opcode() == ir::Opcode::Cmp ||
         i.opcode() == ir::Opcode::Select || i.opcode() == ir::Opcode::Fma;
}

// Whether the tile `v` never exists whole: an element-wise result used once,
// by an element-wise instruction later in its block, with only element-wise
// or aliasing instructions between (a `qk * scale` that a select and an add
// finish). ptxas evaluates such a chain element by element. With
// `shared` (streamSharedFromEnvironment) a result several element-wise
// instructions read is one too, with only such instructions up to its last
// reader (Liger's SwiGLU forward, `x * sigmoid(x)` over 32 elements a
// thread: estimated 64 registers, one program of 16 warps asked; ptxas takes
// 62 asked for two, 50 left alone). Positions and the count of other
// instructions before each are taken once per function, so that asking for
// every value costs the function's length, not its square.
class Streaming {
 public:
  explicit Streaming(const ir::Function& f, bool shared) : shared_(shared) {
    for (auto& bb : f.blocks()) {
      std::vector<size_t>& before = othersBefore_[bb.get()];
      before.push_back(0);
      for (auto& inst : bb->instructions()) {
        position_[inst.get()] = before.size() - 1;
        // (with `shared`, loads and their addresses between do not end a
        // chain either: ptxas issues the loads first and streams the chain
        // after; SwiGLU loads its second operand between the gate's scaling
        // and its sigmoid)
        const bool between = chained(*inst) || aliases(inst.get()) ||
                             (shared && (inst->opcode() == ir::Opcode::Load || inst->opcode() == ir::Opcode::Gep));
        before.push_back(before.back() + (between ? 0 : 1));
      }
    }
  }
  bool streamed(const ir::Value* v) const {
    if (v->valueKind() != ir::ValueKind::Instruction || v->users().empty()) return false;
    if (v->users().size() > 1 && !shared_) return false;
    const auto* def = static_cast<const ir::Instruction*>(v);
    if (!chained(*def)) return false;
    const size_t from = position_.at(def);
    size_t last = from;
    for (const ir::Instruction* user : v->users()) {
      if (!chained(*user) || user->parent != def->parent) return false;
      const size_t to = position_.at(user);
      if (to <= from) return false;
      last = std::max(last, to);
    }
    const std::vector<size_t>& before = othersBefore_.at(def->parent);
    return before[last] == before[from + 1];
  }

  // An element-wise instruction (with `shared`, conversions too: a bf16
  // row read as f32 and written back).
  bool chained(const ir::Instruction& i) const {
    return elementwise(i) || (shared_ && (i.opcode() == ir::Opcode::Cast || i.opcode() == ir::Opcode::UCast ||
                                          i.opcode() == ir::Opcode::Bitcast));
  }

 private:
  bool shared_;
  std::unordered_map<const ir::Instruction*, size_t> position_;
  std::unordered_map<const ir::BasicBlock*, std::vector<size_t>> othersBefore_;
};

// Registers for scalars, addresses, descriptors and temporaries beyond the
// tiles: the attention and matmul kernels measured with ptxas -v, and
// kernels without a dot (softmax, layer norm: 64 registers at 32 f32
// elements per thread).
constexpr int64_t kScalarReserve = 40;
constexpr int64_t kScalarReserveWithoutDot = 16;

// The registers a sort holds beyond its operand and result, in bytes of the
// program: each thread's chunks of keys, the partner's chunk it compares
// with, and as many again for the network's temporaries and addresses.
int64_t sortBytes(const ir::Instruction& inst, int64_t threads) {
  if ((inst.opcode() != ir::Opcode::Sort && inst.opcode() != ir::Opcode::ArgSort) || !inst.type().isTile()) return 0;
  const SortPlan p = sortPlan(inst);
  return 2 * (p.chunks + 1) * p.chunk * ir::byteSize(p.key) * threads;
}

// The registers a tuple's scan (scan_fn, at its leader) holds beyond what
// is live after it, in the program's bytes: twice its operands (inputs
// and results live while the runs are combined, and the totals'
// temporaries). ptxas -v on a 2-tuple of 4096 f32 at 4 warps: counted by
// its results only, 56 registers asked and 420 bytes spilled; with its
// operands once 80 and 144; 1.5 times 96 and 60; twice 127 and none
// (1024 elements: 39 registers, 12 programs). (scan misses them alike;
// left as it was measured: its benchmarks ran at 8 warps.)
int64_t scanTupleBytes(const ir::Instruction& inst) {
  if (inst.opcode() != ir::Opcode::ScanFn || ir::tupleLeader(inst) != &inst) return 0;
  int64_t bytes = 0;
  for (const ir::Value* v : inst.operands())
    bytes += 2 * v->type().numElements() * std::max<int64_t>(4, ir::byteSize(v->type().kind));
  return bytes;
}

}  // namespace

bool rowOccupancyFromEnvironment() {
  const char* v = std::getenv("TRITONC_ROW_OCCUPANCY");
  return !(v && std::string(v) == "0");
}

bool streamSharedFromEnvironment() {
  const char* v = std::getenv("TRITONC_STREAM_SHARED");
  return !(v && std::string(v) == "0");
}

bool occupancyProbeFromEnvironment() {
  const char* v = std::getenv("TRITONC_OCCUPANCY_PROBE");
  return !(v && std::string(v) == "0");
}

int rowRegisterSlackEighths() {
  const char* v = std::getenv("TRITONC_ROW_REGISTER_SLACK");
  const int eighths = v ? std::atoi(v) : 0;
  return eighths >= 8 && eighths <= 32 ? eighths : 12;
}

int maxResidentPrograms(const std::string& arch, int numWarps) {
  const bool small = arch == "sm_86" || arch == "sm_89";
  const int warps = small ? 48 : 64, programs = arch == "sm_86" ? 16 : arch == "sm_89" ? 24 : 32;
  return std::max(1, std::min(programs, warps / std::max(1, numWarps)));
}

int64_t multiprocessorSharedBytes(const std::string& arch) {
  if (arch.rfind("sm_90", 0) == 0) return 233472;
  if (arch == "sm_80" || arch == "sm_87") return 167936;
  return 102400;  // sm_86, sm_89
}

OccupancyTarget occupancyTarget(const ir::Function& f, int numWarps) {
  OccupancyTarget t;
  const int64_t threads = 32 * int64_t(numWarps);
  t.registerBudget = std::min<int64_t>(255, 65536 / (2 * threads) / 8 * 8);
  // The most bytes of register tiles live at once, per thread.
  analysis::Liveness live(f);
  int64_t peak = 0;
  // Kernels with a dot keep the measured reserve and count every tile (their
  // address tiles feed copies and descriptors ptxas keeps); the others (row
  // kernels) a smaller reserve where two programs have 64 registers or more.
  bool anyDot = false;
  for (auto& bb : f.blocks())
    for (auto& inst : bb->instructions())
      anyDot = anyDot || inst->opcode() == ir::Opcode::Dot || inst->opcode() == ir::Opcode::DotAsync;
  const bool light = !anyDot && t.registerBudget >= 64;
  bool fmaDot = false;
  std::unordered_map<const ir::Value*, int64_t> tileBytes;
  const Streaming streaming(f, streamSharedFromEnvironment());
  // The bytes of the tiles live after each instruction, kept as values
  // enter and leave the live set (one walk per block).
  auto bytesOf = [&](const ir::Value* v) -> int64_t {
    const ir::Type& ty = v->type();
    if (!ty.isTile() || ty.isShared() || aliases(v)) return 0;
    // Once per value: the walks behind it would cost their depth at every instruction it is live across.
    auto [it, fresh] = tileBytes.try_emplace(v, 0);
    if (fresh) it->second = streaming.streamed(v) ? 0 : registerBytes(v, light);
    return it->second;
  };
  for (auto& bb : f.blocks()) {
    int64_t bytes = 0;
    live.sweepBackward(
        bb.get(), [&](const ir::Value* v, bool entered) { bytes += entered ? bytesOf(v) : -bytesOf(v); },
        [&](const ir::Instruction* inst) {
          // A dot on the cores (FMA) holds operand fragments the IR does not
          // show (loaded from shared memory inside the dot).
          if ((inst->opcode() == ir::Opcode::Dot || inst->opcode() == ir::Opcode::DotAsync) && inst->type().layout &&
              inst->type().layout->kind != ir::LayoutKind::Mma)
            fmaDot = true;
          peak = std::max(peak, bytes + sortBytes(*inst, threads) + scanTupleBytes(*inst));
        });
  }
  t.estimatedRegisters = (peak + 4 * threads - 1) / (4 * threads) + (light ? kScalarReserveWithoutDot : kScalarReserve);
  const std::string& arch = f.parent()->target;
  if (2 * (f.sharedBytes + 1024) > multiprocessorSharedBytes(arch)) {
    t.reason = "two programs' shared memory would not fit";
  } else if (fmaDot) {
    t.reason = "a dot on the cores (FMA) needs registers the estimate does not see";
  } else if (16 * t.estimatedRegisters >= 15 * t.registerBudget && 4 * t.estimatedRegisters < 5 * t.registerBudget &&
             anyDot && t.registerBudget < 255) {
    // Near the budget the estimate cannot tell (it counts tiles that ptxas
    // streams element by element: an attention backward's dq kernel at 8
    // warps, estimated 145, takes 141 left alone and 122 asked for two):
    // ask for two, and let a spill decide (occupancy_fallback.h). (At 255,
    // what ptxas may use anyway, asking changes nothing.)
    t.programs = 2;
    t.fallback = 1;
    t.reason = "about " + std::to_string(t.estimatedRegisters) + " registers per thread needed, within 5/4 of the " +
               std::to_string(t.registerBudget) + " of two programs: two asked, one where that spills";
  } else if (16 * t.estimatedRegisters >= 15 * t.registerBudget) {  // slack for what the estimate misses
    t.reason = "about " + std::to_string(t.estimatedRegisters) + " registers per thread needed, not below 15/16 of the " +
               std::to_string(t.registerBudget) + " of two programs";
  } else {
    t.programs = 2;
    t.reason = "about " + std::to_string(t.estimatedRegisters) + " registers per thread needed, below 15/16 of the " +
               std::to_string(t.registerBudget) + " of two programs";
  }
  // A kernel without dots (a row of a softmax or a layer norm per program)
  // waits on memory: the more programs a multiprocessor holds, the more
  // loads are in flight. Ask for as many as its warps and shared memory
  // allow where the estimated registers are at most 3/2 of what each
  // thread then gets (ptxas, asked, recomputes what the estimate counts as
  // kept: the Python DSL's layer norm at 1024 columns, 4 warps, estimate
  // 36: 39 registers and 12 programs left alone, 31 and 16 asked for 16;
  // an RMSNorm of 8192 bf16 columns on 16 warps, estimate 56: 48 registers
  // and 2 programs left alone, 39 and 3 asked for 3, 21% faster on the
  // H200; 9/8 until session 31).
  // The estimate misses the temporaries of networks of slices and layout
  // conversions (topk_gating: 18 estimated, 77 used), so the choice above
  // is the fallback: where the driver reports spills, the launch loads the
  // PTX again asking for it (nvptx/occupancy_fallback.h).
  if (light && t.programs == 2 && rowOccupancyFromEnvironment()) {
    const int64_t byShared = multiprocessorSharedBytes(arch) / (f.sharedBytes + 1024);
    const int slack = rowRegisterSlackEighths();
    for (int p = std::min<int64_t>(maxResidentPrograms(arch, numWarps), byShared); p > 2; --p) {
      const int64_t budget = std::min<int64_t>(255, 65536 / (p * threads) / 8 * 8);
      if (8 * t.estimatedRegisters > slack * budget) continue;
      t.fallback = t.programs;
      t.programs = p;
      t.reason = "no dot: as many programs as fit; about " + std::to_string(t.estimatedRegisters) +
                 " registers per thread needed, at most " + std::to_string(slack) + "/8 of the " +
                 std::to_string(budget) + " of " + std::to_string(p) + " programs; " + std::to_string(t.fallback) +
                 " where that spills";
      break;
    }
  }
  if (light && occupancyProbeFromEnvironment()) {
    t.natural = true;
    t.reason += "; ptxas's own choice tried too";
    if (t.fallback && t.programs / 2 > t.fallback) {
      t.halfway = t.programs / 2;
      t.reason += "; " + std::to_string(t.halfway) + " tried before " + std::to_string(t.fallback) + " where " +
                  std::to_string(t.programs) + " spills";
    }
  }
  return t;
}

}  // namespace tritonc::gpu
