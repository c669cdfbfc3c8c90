// Per-opcode shape of an instruction (operand counts, whether it has a
// result), shared by the parser, which needs it to build an instruction, and
// the verifier, which checks instructions that passes and the builder made.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "ir/ir.h"

namespace tritonc::ir {

// Limits on tile types: the parser refuses larger ones, the verifier flags them.
constexpr size_t kMaxTileRank = 8;
constexpr int64_t kMaxTileElements = int64_t(1) << 24;

// The valid operand counts of an opcode: `fewest` and `most` and nothing in
// between (load takes 1 or 3 operands, never 2); phi takes any number.
struct OperandCount {
  size_t fewest, most;
  bool any = false;
  bool accepts(size_t n) const { return any || n == fewest || n == most; }
};

inline OperandCount operandCount(Opcode op) {
  switch (opcodeCategory(op)) {
    case OpCategory::Binary: return {2, 2};
    case OpCategory::Unary: return {1, 1};
    case OpCategory::Other: case OpCategory::Gpu: break;
  }
  switch (op) {
    case Opcode::LocalAlloc: return {0, 1};
    case Opcode::LocalStore: case Opcode::MemIndex: return {2, 2};
    case Opcode::AsyncCopy: return {2, 3};
    case Opcode::AsyncCommit: case Opcode::AsyncWait: case Opcode::Barrier: case Opcode::FenceAsyncShared:
      return {0, 0};
    case Opcode::DotAsync: return {3, 3};
    case Opcode::TmaInit: return {1, 1};
    case Opcode::TmaCopy: return {10, 11};
    case Opcode::TmaWait: case Opcode::StageRelease: return {3, 3};
    case Opcode::StageInit: return {1, 1};
    case Opcode::Cmp: case Opcode::Gep: case Opcode::Gather: return {2, 2};
    case Opcode::Select: case Opcode::Fma: case Opcode::Dot: return {3, 3};
    case Opcode::Range: case Opcode::ProgramId: case Opcode::NumPrograms:
    case Opcode::Br: return {0, 0};
    case Opcode::Ret: return {0, 0, true};  // a combine function's values (a kernel's: none)
    case Opcode::ScanFn: case Opcode::ReduceFn: return {0, 0, true};  // the tuple's tiles (at least one)
    case Opcode::Load: return {1, 3};
    case Opcode::Histogram: return {1, 2};
    case Opcode::Store: case Opcode::AtomicRmw: return {2, 3};
    case Opcode::AtomicCas: return {3, 4};
    case Opcode::Phi: return {0, 0, true};  // checked against the predecessors
    case Opcode::Print: return {0, 0, true};  // the values it prints
    case Opcode::InlineAsm: return {0, 0, true};  // the assembly's inputs
    default: return {1, 1};  // cast, splat, reshape, broadcast, trans, reduce, multiple_of, assert, cond_br
  }
}

// "2", "1 or 3", "2 or 3"
inline std::string operandCountText(Opcode op) {
  OperandCount c = operandCount(op);
  if (c.any) return "any number of";
  if (c.fewest == c.most) return std::to_string(c.fewest);
  return std::to_string(c.fewest) + " or " + std::to_string(c.most);
}

// store, print, assert, br, cond_br, ret and the GPU IR's stores, copies,
// waits for copies, barriers and fences have no result; every other opcode
// has one.
inline bool producesValue(Opcode op) {
  switch (op) {
    case Opcode::Store: case Opcode::Print: case Opcode::Assert: case Opcode::Br: case Opcode::CondBr: case Opcode::Ret:
    case Opcode::LocalStore:
    case Opcode::AsyncCopy: case Opcode::AsyncCommit: case Opcode::AsyncWait: case Opcode::Barrier:
    case Opcode::FenceAsyncShared: case Opcode::TmaInit: case Opcode::TmaCopy: case Opcode::TmaWait:
    case Opcode::StageInit: case Opcode::StageRelease:
      return false;
    default:
      return true;
  }
}

// Opcodes written with an integer after their name (`range 0`, `async_wait 1`).
inline bool hasImmediate(Opcode op) {
  return op == Opcode::Reduce || op == Opcode::Scan || op == Opcode::ScanFn || op == Opcode::ReduceFn || op == Opcode::Sort || op == Opcode::ArgSort || op == Opcode::MultipleOf || op == Opcode::MaxContiguous || op == Opcode::ExtractSlice ||
         op == Opcode::Range || op == Opcode::ProgramId ||
         op == Opcode::NumPrograms || op == Opcode::AsyncWait || op == Opcode::DotWait || op == Opcode::StageInit;
}

// Number of block operands (Instruction::blocks) a non-phi opcode takes.
inline size_t blockOperandCount(Opcode op) {
  return op == Opcode::Br ? 1 : op == Opcode::CondBr ? 2 : 0;
}

// Type rules of one instruction, ignoring where its operands come from
// (verifier_rules.cpp). Returns "" or the first problem found.
std::string checkInstructionTypes(const Instruction& inst);
// The GPU IR's rules for one instruction (verifier_gpu.cpp): layouts on every
// tile, layouts that agree where the instruction needs them to, and the GPU
// instructions' own operands. Returns "" or the first problem found.
std::string checkGpuInstruction(const Instruction& inst);
std::string checkLayoutFitsType(const Type& t);
// "" when `t` is a well-formed value type (pointee kind, dimensions, limits).
std::string checkTypeWellFormed(const Type& t);

}  // namespace tritonc::ir
