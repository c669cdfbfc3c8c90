// gpu-program-order (passes.h): the order in which a matmul-like kernel's
// programs visit their tiles, for L2 reuse. The hardware starts programs in
// the order of their launch index, x fastest; in a kernel with a 2-D grid
// whose x picks the rows of A's tiles and y the columns of B's (the
// user-style `dot(A, B, C, ...)` without Triton's GROUP_M arithmetic), the
// programs running at once then cover every row of tiles of A for only one
// or two columns of B, and A, read again for each column, falls out of L2
// when it is larger than L2 (8192^3 f16: 128 MB against 50). Triton leaves
// the fix to the kernel's author (the tutorial's grouped ordering); cuBLAS
// and CUTLASS remap their programs themselves. So do we: the program ids
// become those of a grouped order,
//   L = y * nx + x                  (launch order)
//   group = L / (G * ny), first = group * G, size = min(nx - first, G)
//   x' = first + (L % (G * ny)) % size,  y' = (L % (G * ny)) / size
// G = 16 rows of tiles: the programs running at once share a few columns of
// B while G rows of A stay in L2 (on the H200, 8 rows cost 3% at 4096^3
// with 64 x 128 tiles, B re-read per group; 16 and 32 gained alike at
// 8192^3). Where nx <= G the map is the identity, and a branch skips its
// four divisions (about 0.1 us before the first copy of every program:
// 1% at 1000^3). The map is a bijection of the grid, and the order of
// programs is not part of the language (no program may wait for another),
// so it changes no result.
//
// It applies where the function reads program_id(0) and program_id(1), some
// copy into a ring (async_copy, tma_copy) depends on program_id(0) and not
// on program_id(1) (A's tiles: reused by every y), another on
// program_id(1) and not program_id(0) (B's: reused by every x), and no
// atomic or inline assembly could make one program wait for another or
// read %ctaid itself. Not with copies multicast along y (num_ctas = 4).
// With copies multicast along x (gpu-multicast: the programs 2i and 2i + 1
// launched in a cluster share B's boxes), the map moves pairs: x = 2c + r
// with c remapped over nx / 2 columns of pairs (G / 2 of them per group) and
// r kept, so partners still share y'; when nx is odd (the launch then makes
// no clusters) the last column keeps its ids.
//
// TRITONC_GROUPED_PROGRAMS=0 in the environment turns it off (kernels are
// cached apart); the function then visits its tiles in launch order. =N
// groups N rows (an even N up to 64).
// The function is marked `grouped_programs(G)` (the compile report says so).
#include <cstdlib>
#include <string>
#include <unordered_set>

#include "analysis/computed_from.h"
#include "gpu/passes.h"
#include "ir/builder.h"

namespace tritonc::gpu {

namespace {

using ir::Opcode;

constexpr int kDefaultGroupRows = 16;

// The values computed from program_id(axis).
std::unordered_set<const ir::Value*> dependingOn(const ir::Function& f, int64_t axis) {
  return analysis::computedFrom(
      f, [axis](const ir::Instruction& i) { return i.opcode() == Opcode::ProgramId && i.imm == axis; });
}

bool anyOperandIn(const ir::Instruction& i, const std::unordered_set<const ir::Value*>& set) {
  for (const ir::Value* op : i.operands())
    if (set.count(op)) return true;
  return false;
}

}  // namespace

int groupedProgramsFromEnvironment() {
  const char* v = std::getenv("TRITONC_GROUPED_PROGRAMS");
  if (!v || !*v) return kDefaultGroupRows;
  const int rows = std::atoi(v);
  return rows >= 2 && rows <= 64 && rows % 2 == 0 ? rows : 0;
}

bool runProgramOrder(ir::Function& f, const transform::PipelineOptions&) {
  const int kGroupRows = groupedProgramsFromEnvironment();
  if (!kGroupRows || f.groupedPrograms || f.blocks().empty()) return false;
  std::vector<ir::Instruction*> ids[2];
  bool pairs = false;
  std::vector<const ir::Instruction*> copies;
  for (auto& bb : f.blocks())
    for (auto& inst : bb->instructions()) {
      switch (inst->opcode()) {
        case Opcode::ProgramId:
          if (inst->imm < 2) ids[inst->imm].push_back(inst.get());
          break;
        case Opcode::AtomicRmw: case Opcode::AtomicCas: case Opcode::InlineAsm:
          return false;
        case Opcode::TmaCopy:
          if (inst->imm == 2 && inst->sub == 1) return false;  // pairs along y
          pairs = pairs || inst->imm == 2;
          copies.push_back(inst.get());
          break;
        case Opcode::AsyncCopy:
          copies.push_back(inst.get());
          break;
        default:
          break;
      }
    }
  if (ids[0].empty() || ids[1].empty()) return false;
  const std::unordered_set<const ir::Value*> onX = dependingOn(f, 0), onY = dependingOn(f, 1);
  bool reusedAlongY = false, reusedAlongX = false;
  for (const ir::Instruction* c : copies) {
    const bool x = anyOperandIn(*c, onX), y = anyOperandIn(*c, onY);
    reusedAlongY = reusedAlongY || (x && !y);
    reusedAlongX = reusedAlongX || (y && !x);
  }
  if (!reusedAlongY || !reusedAlongX) return false;

  // The entry block splits: it computes the launch ids and branches to
  // `grouped.order` (the remap) only when x has more than a group's columns
  // (else the map is the identity, and its divisions would only delay the
  // first copies); the rest of the old entry block follows in
  // `grouped.ids`, which takes the ids from phis.
  ir::Builder b(*f.parent());
  ir::BasicBlock* entry = f.entry();
  ir::BasicBlock* order = f.addBlock("grouped.order");
  ir::BasicBlock* rest = f.addBlock("grouped.ids");
  f.moveBlockAfter(order, entry);
  f.moveBlockAfter(rest, order);
  entry->moveAllTo(rest);
  for (auto& bb : f.blocks())
    for (auto& inst : bb->instructions())
      for (ir::BasicBlock*& from : inst->blocks)
        if (inst->opcode() == Opcode::Phi && from == entry) from = rest;
  b.setInsertPoint(entry);
  b.setLoc(ids[0].front()->loc);
  auto at = [&](ir::Value* v, const char* name) {
    v->setName(name);
    return v;
  };
  ir::Value* x = at(b.programId(0), "launch.x");
  ir::Value* y = at(b.programId(1), "launch.y");
  ir::Value* nx = at(b.numPrograms(0), "launch.nx");
  ir::Value* ny = at(b.numPrograms(1), "launch.ny");
  const int unit = pairs ? 2 : 1;  // programs per column of the grouped order
  const int groupColumns = kGroupRows / unit;
  // x's columns of units (pairs: the odd last column of an odd nx apart).
  ir::Value* columns = pairs ? at(b.binary(Opcode::UDiv, nx, b.i32(2)), "pair.columns") : nx;
  b.condBr(at(b.cmp(ir::CmpPred::Gt, columns, b.i32(groupColumns)), "grouped"), order, rest);

  b.setInsertPoint(order);
  ir::Value* column = x;
  ir::Value* inPairs = nullptr;  // pairs: whether x is in a whole pair
  if (pairs) {
    inPairs = at(b.cmp(ir::CmpPred::Lt, x, b.binary(Opcode::Mul, columns, b.i32(2))), "pair.whole");
    column = at(b.binary(Opcode::UDiv, b.select(inPairs, x, b.i32(0)), b.i32(2)), "pair.column");
  }
  ir::Value* launch = at(b.binary(Opcode::Add, b.binary(Opcode::Mul, y, columns), column), "launch.index");
  ir::Value* span = at(b.binary(Opcode::Mul, b.i32(groupColumns), ny), "group.programs");
  ir::Value* group = b.binary(Opcode::UDiv, launch, span);
  ir::Value* first = at(b.binary(Opcode::Mul, group, b.i32(groupColumns)), "group.first");
  ir::Value* size = b.binary(Opcode::Min, b.binary(Opcode::Sub, columns, first), b.i32(groupColumns));
  size = at(b.binary(Opcode::Max, size, b.i32(1)), "group.size");  // >= 1 on the odd column's unused path too
  ir::Value* inGroup = at(b.binary(Opcode::URem, launch, span), "group.index");
  ir::Value* newX = at(b.binary(Opcode::Add, first, b.binary(Opcode::URem, inGroup, size)), "grouped.column");
  ir::Value* newY = b.binary(Opcode::UDiv, inGroup, size);
  if (pairs) {
    newX = b.binary(Opcode::Add, b.binary(Opcode::Mul, newX, b.i32(2)), b.binary(Opcode::URem, x, b.i32(2)));
    newX = b.select(inPairs, newX, x);
    newY = b.select(inPairs, newY, y);
  }
  b.br(rest);

  b.setInsertPoint(rest, 0);
  ir::Value* ids2[2] = {x, y};
  ir::Value* remapped[2] = {newX, newY};
  const char* names[2] = {"grouped.x", "grouped.y"};
  for (int axis = 0; axis < 2; ++axis) {
    ir::Instruction* phi = b.phi(ir::Type::scalar(ir::Scalar::I32));
    phi->setName(names[axis]);
    phi->addOperand(ids2[axis]);
    phi->blocks.push_back(entry);
    phi->addOperand(remapped[axis]);
    phi->blocks.push_back(order);
    for (ir::Instruction* old : ids[axis]) {
      old->replaceAllUsesWith(phi);
      old->parent->erase(old);
    }
  }
  f.groupedPrograms = kGroupRows;
  return true;
}

}  // namespace tritonc::gpu
